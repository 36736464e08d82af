"""Every golden scenario's answer read in an 80-column terminal (issue 21), and again at 120 columns.

At 80 columns: no line wider than the terminal, no table cell wrapped over more than two lines, no header
cut to "…", no markdown table printed as a line of pipes, tool-call lines without the guide search's padded
query. At 120 columns the same, and the answers' tables are tables again (not blocks).
"""

from __future__ import annotations

import io
import re
import uuid
from typing import Any

import pytest
from rich.cells import cell_len
from rich.console import Console, Group
from rich.padding import Padding
from rich.table import Table

from assistant import render
from assistant.citations import without_sources
from assistant.render_markdown import Grid, blocks, renderables
from assistant.render_options import MAX_CELL_LINES
from assistant.render_tools import tool_call_line

NARROW, WIDE = 80, 120
_ASCII_WORD = re.compile(r"[A-Za-z][A-Za-z-]{2,}")


@pytest.fixture(scope="module")
def answers(advisor) -> list[tuple[str, str, Any]]:
    """(scenario id and turn, the user's message, the final event) for every golden scenario, run once."""
    from evals.runner import SCENARIO_DIR, load_scenarios

    out = []
    for scenario, _ in load_scenarios([SCENARIO_DIR]):  # the golden set only, never the wild one
        session = f"render80-{scenario.id}-{uuid.uuid4().hex[:6]}"
        for n, turn in enumerate(scenario.turns):
            out.append((f"{scenario.id}#{n}", turn.user, advisor.ask(session, turn.user)))
    return out


def _shown(final: Any, width: int) -> str:
    console = Console(width=width, file=io.StringIO(), record=True, color_system=None)
    render.answer(console, final)
    return console.export_text()


def _source_text(final: Any) -> str:
    """What the answer itself holds: an ellipsis in it is the author's, not a cut made by the terminal."""
    cited = " ".join(f"{c.title} {c.section} {c.doc_id}" for c in final.citations)
    return final.answer + " " + cited


def _tables(final: Any, width: int) -> list[tuple[Table, int]]:
    """The rich tables the answer's markdown becomes at `width`, each with the width it is laid out in."""
    out = []
    for part in renderables(without_sources(final.answer), width):
        inner, room = part, width
        if isinstance(part, Padding):
            inner, room = part.renderable, width - part.left
        for item in inner.renderables if isinstance(inner, Group) else [inner]:  # a table with its [n] under it
            if isinstance(item, Table):
                out.append((item, room))
    return out


def _cells(table: Table, width: int) -> list[tuple[str, int]]:
    """Every cell (headers too) with the number of lines it takes, computed the way rich lays the table out
    (its column widths, each cell rendered at its column's width): the table as printed, cell by cell."""
    console = Console(width=width, file=io.StringIO(), color_system=None)
    options = console.options.update_width(width)
    widths = table._calculate_column_widths(console, options.update_width(width - table._extra_width))
    out = []
    for i, (column, cells_width) in enumerate(zip(table.columns, widths, strict=True)):
        for cell in table._get_cells(console, i, column):
            at = options.update(width=cells_width, no_wrap=column.no_wrap, overflow=column.overflow, height=None)
            lines = console.render_lines(cell.renderable, at, pad=False)
            text = " ".join("".join(s.text for s in line).strip() for line in lines)
            out.append((text, len(lines)))
    return out


def _problems(key: str, user: str, final: Any, width: int) -> list[str]:
    shown = _shown(final, width)
    source = _source_text(final)
    out = []
    for line in shown.splitlines():
        if cell_len(line.rstrip()) > width:
            out.append(f"{key}: line over {width} cells: {line.rstrip()!r}")
        if line.count("|") >= 3:
            out.append(f"{key}: a markdown table flattened into a line: {line.strip()!r}")
    if shown.count("…") > source.count("…"):
        out.append(f"{key}: the terminal cut something to '…'")
    for table, room in _tables(final, width):
        for text, lines in _cells(table, room):
            if lines > MAX_CELL_LINES:
                out.append(f"{key}: cell over {MAX_CELL_LINES} lines at {width}: {text!r} ({lines} lines)")
            if "…" in text and "…" not in source:
                out.append(f"{key}: cell or header cut: {text!r}")
    out += _padded_tool_lines(key, user, final)
    return out


def _padded_tool_lines(key: str, user: str, final: Any) -> list[str]:
    """A guide search's query is the user's words plus topic words added on purpose; none of them is shown,
    and no tool line is JSON."""
    out = []
    cited = [c.section for c in final.citations]
    for call in final.tool_calls:
        line = str(tool_call_line(call.name, call.args, final.language, call.result, cited))
        if "{" in line or '":' in line:
            out.append(f"{key}: tool line shows JSON: {line!r}")
        if call.name != "search_guides":
            continue
        query = str(call.args.get("query", ""))
        ours = {w.lower() for w in _ASCII_WORD.findall(user + " " + " ".join(cited))}
        padding = {w for w in _ASCII_WORD.findall(query) if w.lower() not in ours}
        shown = set(_ASCII_WORD.findall(line))
        if query in line or padding & shown:
            out.append(f"{key}: search line shows the query's padding {sorted(padding & shown)}: {line!r}")
    return out


def test_every_answer_reads_at_80_columns(answers) -> None:
    problems = [p for key, user, final in answers for p in _problems(key, user, final, NARROW)]
    assert not problems, "\n".join(problems[:40])


def test_every_answer_reads_at_120_columns_and_its_tables_stay_tables(answers) -> None:
    problems = [p for key, user, final in answers for p in _problems(key, user, final, WIDE)]
    assert not problems, "\n".join(problems[:40])
    grids = [b for _, _, final in answers for b in blocks(without_sources(final.answer)) if isinstance(b, Grid)]
    tables = sum(len(_tables(final, WIDE)) for _, _, final in answers)
    assert grids, "no golden answer holds a table: the check would prove nothing"
    assert tables == len(grids), f"{len(grids) - tables} of {len(grids)} tables became blocks at {WIDE} columns"


def test_the_comparison_is_a_compact_list_at_80_and_a_table_at_120(advisor) -> None:
    final = advisor.ask(f"render80-{uuid.uuid4().hex[:6]}", "比较 4090、L20 和 A800 跑 Qwen2.5-72B 推理")
    narrow = _shown(final, NARROW)
    assert not _tables(final, NARROW), narrow
    # one block per option, headed by its short name, its numbers as "label：value" pairs
    for name in ("8 张 RTX 4090", "4 张 L20", "2 张 A800 80GB SXM4"):
        assert any(line.strip() == name for line in narrow.splitlines()), narrow
    assert "每卡显存：17.9 GiB" in narrow, narrow
    assert "NVIDIA GeForce" not in narrow.split("8 张 RTX 4090")[1].split("需要注意")[0]
    wide = _tables(final, WIDE)
    assert len(wide) == 1 and len(wide[0][0].rows) == 3


def test_a_guide_table_in_a_quote_is_rebuilt_into_rows() -> None:
    quote = (
        "> Figures are per GPU. | NVLink | GPUs | Bandwidth | |---|---|---| | NVLink 2 | V100 SXM2 | 300 GB/s | "
        "| NVLink 3 | A100 SXM4 | 600 GB/s | | NVLink 4 | H100; [1]"
    )
    parts = blocks("From the guides:\n\n" + quote)
    grid = next(b for b in parts if isinstance(b, Grid))
    assert grid.headers == ["NVLink", "GPUs", "Bandwidth"]
    assert grid.rows == [["NVLink 2", "V100 SXM2", "300 GB/s"], ["NVLink 3", "A100 SXM4", "600 GB/s"]]
    assert parts[0].endswith("> Figures are per GPU.") and grid.marker == "[1]"  # the cut row left out
    final = type("Final", (), {"answer": quote, "language": "en", "citations": [], "tool_calls": []})()
    shown = _shown(final, NARROW)
    assert not [line for line in shown.splitlines() if line.count("|") >= 3], shown
    assert "V100 SXM2" in shown and "600 GB/s" in shown
