"""Rows of options in a terminal of any width: a table whose every cell and header reads in at most two lines,
or, where no such table fits, one compact block per option (its name, then "label: value" pairs packed).

Used for the calculators' tables and for the tables inside an answer (assistant/render_markdown.py).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from functools import cache
from typing import Any

from rich import box
from rich.cells import cell_len
from rich.console import Console, Group, RenderableType
from rich.measure import Measurement
from rich.padding import Padding
from rich.table import Table
from rich.text import Text

MAX_CELL_LINES = 2  # a cell (or a header) wrapped over more lines no longer reads as one value
LONGEST_KEPT_WORD = 24  # cells: a longer word (a URL) may fold; a shorter Latin word never breaks
PAIR_SEPARATOR = " · "
BLOCK_INDENT = 2
# Full borders first; when they leave too little room, a header rule only.
TABLE_STYLES: tuple[dict[str, Any], ...] = (
    {"box": box.HEAVY_HEAD},
    {"box": box.SIMPLE_HEAD, "show_edge": False, "pad_edge": False, "collapse_padding": True},
)
_CJK = re.compile(r"[\u3000-\u9fff\uff00-\uffef]")  # a run of Chinese may break between characters


@cache
def _vendor() -> re.Pattern[str]:
    """The vendor words before a GPU's own name (assistant/web/cards.py's, as a pattern for running text); the
    name after them must be 3+ characters, as there: "NVIDIA A2" / "NVIDIA L4" keep the vendor."""
    from assistant.web.cards import VENDOR_PREFIXES

    words = sorted((p.strip() for p in VENDOR_PREFIXES), key=len, reverse=True)
    return re.compile(r"\b(?:" + "|".join(map(re.escape, words)) + r") (?=[\w-]{3})")


def short_gpu_names(text: str) -> str:
    """'2 × NVIDIA GeForce RTX 4090' -> '2 × RTX 4090': the name people type, in a cell that has little room."""
    return _vendor().sub("", text)


def _latin_words(texts: Sequence[str]) -> int:
    """The longest word that must not break (Latin letters, digits); a run of Chinese may break anywhere."""
    words = (w for t in texts for w in t.split() if not _CJK.search(w))
    return min(max((cell_len(w) for w in words), default=1), LONGEST_KEPT_WORD)


@cache
def _measure_console() -> Console:
    return Console(width=10_000, file=None, color_system=None)


def lines_at(cell: str, width: int) -> int:
    """How many lines `cell` takes in a column `width` cells wide (rich's own wrapping)."""
    if not cell:
        return 1
    return len(Text(cell).wrap(_measure_console(), width, overflow="fold"))


def _least_width(cells: Sequence[str], natural: int, max_lines: int) -> int:
    """The narrowest width at which every cell takes at most `max_lines` lines and no Latin word breaks."""
    low = min(_latin_words(cells), natural)
    high = natural
    while low < high:  # lines only grow as the column narrows
        mid = (low + high) // 2
        if all(lines_at(c, mid) <= max_lines for c in cells):
            high = mid
        else:
            low = mid + 1
    return low


def column_widths(
    headers: Sequence[str], rows: Sequence[Sequence[str]], room: int, whole: int | None, max_lines: int
) -> list[int] | None:
    """Widths that fit `room` cells with every cell and header in at most `max_lines` lines (column `whole`,
    an id: on one line); the room left goes to the columns that want it, modest ones first. None: no fit."""
    natural, least = [], []
    for i, header in enumerate(headers):
        cells = [header, *(row[i] for row in rows)]
        natural.append(max(cell_len(line) for cell in cells for line in cell.splitlines() or [""]) or 1)
        least.append(natural[-1] if i == whole else _least_width(cells, natural[-1], max_lines))
    if sum(least) > room:
        return None
    if sum(natural) <= room:
        return natural
    widths, spare = list(least), room - sum(least)
    wants = sorted(range(len(widths)), key=lambda i: natural[i] - least[i])
    for k, i in enumerate(wants):
        give = min(natural[i] - least[i], spare // (len(wants) - k))
        widths[i] += give
        spare -= give
    return widths


@cache
def frame_cells(style_index: int, columns: int) -> int:
    """Cells a table style spends on borders and padding around `columns` columns."""
    probe = Table(**TABLE_STYLES[style_index])
    for _ in range(columns):
        probe.add_column(width=1)
    wide = _measure_console()
    return Measurement.get(wide, wide.options, probe).maximum - columns


def options_renderable(
    width: int,
    title: str | None,
    columns: Sequence[tuple[str, str]],
    rows: Sequence[Sequence[str]],
    whole: int | None = 0,
    head: int | None = 0,
    max_lines: int = MAX_CELL_LINES,
) -> RenderableType:
    """`rows` under `columns` ((header, justify) pairs) in `width` cells: a table when one fits with no cell
    over `max_lines` lines and no header cut, else one block per row headed by column `head`."""
    headers = [h for h, _ in columns]
    for style_index, style in enumerate(TABLE_STYLES):
        widths = column_widths(headers, rows, width - frame_cells(style_index, len(columns)), whole, max_lines)
        if widths is None:
            continue
        table = Table(title=title, header_style="bold", show_header=any(headers), **style)
        for i, ((header, justify), cells) in enumerate(zip(columns, widths, strict=True)):
            table.add_column(header, justify=justify, width=cells, no_wrap=i == whole, overflow="fold")  # type: ignore[arg-type]
        for row in rows:
            table.add_row(*(Text(cell, style="bold" if i == head else "") for i, cell in enumerate(row)))
        return table
    return blocks_renderable(width, title, headers, rows, head)


def print_options(
    console: Console,
    title: str | None,
    columns: Sequence[tuple[str, str]],
    rows: Sequence[Sequence[str]],
    whole: int | None = 0,
    head: int | None = 0,
    max_lines: int = MAX_CELL_LINES,
) -> None:
    """Print `rows` as a table that reads at the terminal's width, or as one block per row."""
    console.print(options_renderable(console.width, title, columns, rows, whole, head, max_lines))


def blocks_renderable(
    width: int, title: str | None, headers: Sequence[str], rows: Sequence[Sequence[str]], head: int | None = 0
) -> RenderableType:
    """One block per row: its name (column `head`) on a line, then "label: value" pairs packed into lines."""
    lines: list[RenderableType] = [Text(title, style="bold")] if title else []
    colon = "：" if any(_CJK.search(h) for h in headers) else ": "  # Chinese labels take the full-width colon
    for row in rows:
        if head is not None and row[head]:
            lines.append(Text(row[head], style="bold"))
        named = len(headers) > 2  # a two-column table (item, value) needs no label before each value
        pairs = [
            _pair(h if named else "", v, colon)
            for i, (h, v) in enumerate(zip(headers, row, strict=True))
            if i != head and v
        ]
        lines += [Padding(line, (0, 0, 0, BLOCK_INDENT)) for line in _packed(pairs, width - BLOCK_INDENT)]
    return Group(*lines)


def _pair(header: str, value: str, colon: str) -> Text:
    return Text.assemble((header + colon, "dim"), value) if header else Text(value)


def _packed(pairs: Sequence[Text], room: int) -> list[Text]:
    """Pairs joined by " · " into lines of at most `room` cells; a pair breaks only when it is longer than a line."""
    lines: list[Text] = []
    current: Text | None = None
    for pair in pairs:
        if current is not None and current.cell_len + cell_len(PAIR_SEPARATOR) + pair.cell_len <= room:
            current.append(PAIR_SEPARATOR, style="dim")
            current.append_text(pair)
            continue
        if current is not None:
            lines.append(current)
        if pair.cell_len <= room:
            current = pair.copy()
        else:  # one long value (a sentence): its own lines
            lines.extend(pair.wrap(_measure_console(), room, overflow="fold"))
            current = None
    if current is not None:
        lines.append(current)
    return lines
