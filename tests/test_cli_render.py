"""Terminal rendering: tables never cut an id or a word, answers list each source once, tool calls wrap whole."""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace

import pytest
from rich.console import Console

from assistant import render
from assistant.citations import Citation
from assistant.strings import text as catalog_text

BIN = Path(sys.executable).with_name("gpu-advisor")
WIDTHS = (80, 120)


def cli(*args: str, columns: int) -> subprocess.CompletedProcess:
    env = {**os.environ, "COLUMNS": str(columns)}
    return subprocess.run([str(BIN), *args], capture_output=True, text=True, timeout=60, env=env)


def console(width: int) -> Console:
    return Console(width=width, file=io.StringIO(), record=True, color_system=None)


def lines_fit(output: str, width: int) -> None:
    assert "…" not in output
    assert all(len(line.rstrip()) <= width for line in output.splitlines()), output


@pytest.mark.parametrize("width", WIDTHS)
def test_models_table_keeps_every_id_whole(width: int) -> None:
    from tools.models import registry

    out = cli("models", columns=width)
    assert out.returncode == 0, out.stderr
    lines_fit(out.stdout, width)
    cells = {cell.strip() for line in out.stdout.splitlines() for cell in line.split("│")}
    missing = [a.id for a in registry().values() if a.id not in cells]
    assert not missing, missing


@pytest.mark.parametrize("width", WIDTHS)
def test_gpus_table_wraps_names_between_words(width: int) -> None:
    out = cli("gpus", "--limit", "100", "--json", columns=width)
    names = [g["name"].replace("NVIDIA ", "") for g in json.loads(out.stdout)["gpus"]]
    out = cli("gpus", "--limit", "100", columns=width)
    assert out.returncode == 0, out.stderr
    lines_fit(out.stdout, width)
    words = {w for line in out.stdout.splitlines() for cell in line.split("│") for w in cell.split()}
    broken = [n for n in names if not set(n.split()) <= words]
    assert not broken, broken


@pytest.mark.parametrize("width", WIDTHS)
def test_recommend_table_wraps_instead_of_cutting(width: int) -> None:
    args = ("recommend", "--model", "qwen2.5-7b", "--mode", "lora", "--budget", "15000")
    data = json.loads(cli(*args, "--json", columns=width).stdout)
    out = cli(*args, columns=width)
    assert out.returncode == 0, out.stderr
    lines_fit(out.stdout, width)
    words = {w for line in out.stdout.splitlines() for cell in line.split("│") for w in cell.split()}
    picks = [data["primary"], *data["alternatives"]]
    assert all(set(p["gpu"].split()) <= words for p in picks if p), out.stdout


def test_a_table_too_wide_for_the_terminal_becomes_blocks_with_whole_ids() -> None:
    ids = ["deepseek-r1-distill-llama-70b", "qwen2.5-coder-32b-instruct"]
    rows = [[i, "70.55", "131,072", "80 layers, hidden 8192"] for i in ids]
    columns = [("id", "left"), ("params (B)", "right"), ("context", "right"), ("architecture", "left")]
    narrow = console(34)
    render.print_table(narrow, "models", columns, rows)
    out = narrow.export_text()
    assert all(any(line.strip() == i for line in out.splitlines()) for i in ids), out
    assert "context: 131,072" in out and "…" not in out
    wide = console(100)
    render.print_table(wide, "models", columns, rows)
    assert "┃ id" in wide.export_text()  # the table itself when it fits


def _citations(lang: str) -> list[Citation]:
    docs = [("interconnect", "Interconnect: PCIe, NVLink and P2P", "Does the RTX 4090 support NVLink?")]
    docs += [("myths-and-corrections", "GPU myths and corrections", "(f) RTX 4090 NVLink claims")]
    return [
        Citation(
            n=n, doc_id=f"{d}.{lang}", title=t, section=s, lang=lang, source=f"knowledge/guides/{d}.{lang}.md", text="x"
        )
        for n, (d, t, s) in enumerate(docs, start=1)
    ]


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_answer_lists_each_source_once_numbered(lang: str) -> None:
    cites = _citations(lang)
    # The planner's own shape (assistant/capabilities/guides.py): the answer, then a sources paragraph.
    sources = "\n".join(f"[{c.n}] {c.title} — {c.section} ({c.doc_id})" for c in cites)
    listed = catalog_text("sources_head", lang) + "\n" + sources
    answer = "\n\n".join(["**NVLink: no** — the RTX 4090 has none.", listed])
    final = SimpleNamespace(answer=answer, language=lang, citations=cites, tool_calls=[])
    out = console(80)
    render.answer(out, final)
    shown = out.export_text()
    for c in cites:
        assert shown.count(f"({c.doc_id})") == 1, shown
        assert shown.count(c.section) == 1, shown
    numbered = [line for line in shown.splitlines() if line.startswith("[")]
    assert [line[:3] for line in numbered] == ["[1]", "[2]"], shown
    assert shown.count(catalog_text("sources_head", lang)) == 1


@pytest.mark.parametrize(
    ("lang", "expected"),
    [
        ("en", "recommend_gpus · qwen2.5-7b · LoRA · ≤1 GPU · budget ¥15,000"),
        ("zh", "recommend_gpus · qwen2.5-7b · LoRA · 最多 1 张卡 · 预算 ¥15,000"),
    ],
)
def test_tool_call_line_says_what_a_person_needs_not_the_json(lang: str, expected: str) -> None:
    # issue 21: the whole JSON (and a search's padded query) was noise; one short line per call instead
    args = {
        "workload": {"model": "qwen2.5-7b", "mode": "lora", "batch": 1, "grad_checkpointing": True},
        "currency": "CNY",
        "limit": 5,
        "budget": 15000.0,
        "deployment": "local",
        "preference": "balanced",
        "max_gpus": 1,
    }
    call = SimpleNamespace(name="recommend_gpus", args=args)
    final = SimpleNamespace(answer="ok", language=lang, citations=[], tool_calls=[call])
    out = console(80)
    render.answer(out, final)
    lines = [line.rstrip() for line in out.export_text().splitlines()]
    assert lines[: lines.index("ok")] == [expected]


def test_a_real_answer_prints_each_source_once(advisor) -> None:
    final = advisor.ask("render-sources", "Does the RTX 4090 support NVLink?")
    assert final.citations, final.answer
    out = console(80)
    render.answer(out, final)
    shown = out.export_text()
    for c in final.citations:
        assert shown.count(f"({c.doc_id})") <= sum(1 for d in final.citations if d.doc_id == c.doc_id), shown
        assert any(line.startswith(f"[{c.n}] ") for line in shown.splitlines()), shown
