"""An answer's markdown in the terminal: prose through rich's Markdown, every table through
assistant/render_options.py, so a table reads at any width (a table or one block per option).

A guide quote holds a passage flattened onto one line (assistant/capabilities/guides.py `excerpt`): a table
in it arrives as "| a | b | |---|---| | 1 | 2 |". That run is rebuilt into its rows here, the rows cut off by
the excerpt's length left out, so a quote never prints as a line of pipes.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from rich.console import Console, Group, RenderableType
from rich.markdown import Markdown
from rich.padding import Padding
from rich.text import Text

from assistant.markdown_cjk import closable_bold
from assistant.render_options import options_renderable, short_gpu_names

_QUOTE = re.compile(r"^(\s*>\s?)")
_SEPARATOR_CELL = re.compile(r"^\s*(:?)-{3,}(:?)\s*$")
# "|---|:---:|---:|" anywhere in a line: two or more columns, the mark of a (possibly flattened) table
_SEPARATOR_RUN = re.compile(r"\|(?:\s*:?-{3,}:?\s*\|){2,}")
_MARKER = re.compile(r"(?:\s*\[\d+\])+\s*$")  # the citation marker that closes a quote: "[1]"
_EMPHASIS = re.compile(r"\*\*|__|`")


@dataclass
class Grid:
    """A markdown table: headers with their justification, and rows of plain cells."""

    headers: list[str]
    justify: list[str]
    rows: list[list[str]] = field(default_factory=list)
    quoted: bool = False
    marker: str = ""  # the quote's citation marker ("[2]") when the table closes the quote


def _cells(row: str) -> list[str]:
    body = row.strip()
    body = body[1:] if body.startswith("|") else body
    body = body[:-1] if body.endswith("|") else body
    return [_plain(c) for c in body.split("|")]


def _plain(cell: str) -> str:
    return short_gpu_names(_EMPHASIS.sub("", cell).strip())


def _justify(separator: str) -> list[str]:
    out = []
    for cell in separator.strip().strip("|").split("|"):
        m = _SEPARATOR_CELL.match(cell)
        out.append("right" if m and m.group(2) and not m.group(1) else "center" if m and m.group(1) else "left")
    return out


def _unquoted(line: str) -> tuple[bool, str]:
    m = _QUOTE.match(line)
    return (True, line[m.end() :]) if m else (False, line)


def _is_separator(line: str) -> bool:
    cells = line.strip().strip("|").split("|")
    return line.strip().startswith("|") and len(cells) >= 2 and all(_SEPARATOR_CELL.match(c) for c in cells)


def _rows(rest: str, n: int) -> tuple[list[list[str]], str]:
    """Rows of `n` cells read off the front of a flattened run, and the text after them."""
    row = re.compile(r"\s*\|" + r"([^|]*)\|" * n)
    rows = []
    while (m := row.match(rest)) is not None:
        rows.append([_plain(c) for c in m.groups()])
        rest = rest[m.end() :]
    return rows, rest


def _flattened(line: str) -> tuple[str, Grid, str] | None:
    """A table run inside one line: (text before, the table, text after); None when the line holds none.
    A last row the excerpt cut short is left out; the citation marker after it stays with the text. A run
    of rows with no header (a quote that starts inside a table) becomes a table without one."""
    quoted, body = _unquoted(line)
    sep = _SEPARATOR_RUN.search(body)
    if sep is not None:
        n = sep.group(0).count("|") - 1
        parts = body[: sep.start()].rstrip().split("|")
        if len(parts) < n + 2 or parts[-1].strip():
            return None  # no header of n cells right before the separator
        headers, justify = [_plain(c) for c in parts[-(n + 1) : -1]], _justify(sep.group(0))
        before, (rows, rest) = "|".join(parts[: -(n + 1)]).rstrip(), _rows(body[sep.end() :], n)
    else:
        start = body.find("|")
        boundary = body.find("| |", start)
        n = body[start:boundary].count("|") if start >= 0 and boundary > start else 0
        if n < 2:
            return None
        rows, rest = _rows(body[start:], n)
        if len(rows) < 2:
            return None
        headers, justify, before = [""] * n, ["left"] * n, body[:start].rstrip()
    marker = ""
    if rest.strip().startswith("|") or _MARKER.fullmatch(rest):  # a row cut short, or only the marker after
        found = _MARKER.search(rest)
        marker, rest = (found.group(0).strip() if found else ""), ""
    grid = Grid(headers, justify, rows, quoted, marker)
    prefix = _QUOTE.match(line).group(1) if quoted else ""  # type: ignore[union-attr]
    return (prefix + before if before.strip() else "", grid, prefix + rest if rest.strip() else "")


def blocks(text: str) -> list[str | Grid]:
    """The answer as prose chunks (markdown) and tables, in order."""
    out: list[str | Grid] = []
    prose: list[str] = []

    def flush() -> None:
        if any(p.strip() for p in prose):
            out.append("\n".join(prose).strip("\n"))
        prose.clear()

    lines = text.split("\n")
    i = 0
    while i < len(lines):
        quoted, body = _unquoted(lines[i])
        nxt = _unquoted(lines[i + 1])[1] if i + 1 < len(lines) else ""
        if body.strip().startswith("|") and _is_separator(nxt):
            flush()
            grid = Grid(_cells(body), _justify(nxt), quoted=quoted)
            i += 2
            while i < len(lines) and _unquoted(lines[i])[1].strip().startswith("|"):
                cells = _cells(_unquoted(lines[i])[1])
                grid.rows.append((cells + [""] * len(grid.headers))[: len(grid.headers)])
                i += 1
            out.append(grid)
            continue
        pending = lines[i]
        while (split := _flattened(pending)) is not None:
            before, grid, pending = split
            prose.append(before)
            flush()
            out.append(grid)
        prose.append(pending)
        i += 1
    flush()
    return out


QUOTE_INDENT = 2  # a table from a guide quote sits under the quote's bar


def renderables(text: str, width: int) -> list[RenderableType]:
    """The answer's parts in order: prose as Markdown, each table as one that fits `width` cells (or blocks)."""
    out: list[RenderableType] = []
    for block in blocks(text):
        if isinstance(block, Grid):
            justify = (block.justify + ["left"] * len(block.headers))[: len(block.headers)]
            columns = list(zip(block.headers, justify, strict=True))
            indent = QUOTE_INDENT if block.quoted else 0
            table = options_renderable(width - indent, None, columns, block.rows, whole=None, head=0)
            if block.marker:
                table = Group(table, Text(block.marker))
            out.append(Padding(table, (0, 0, 0, indent)) if indent else table)
        else:
            out.append(Markdown(closable_bold(block)))
    return out


def print_markdown(console: Console, text: str) -> None:
    """Print an answer's markdown; its tables fit the terminal (a table, or a block per row)."""
    for n, part in enumerate(renderables(text, console.width)):
        quote_first = isinstance(part, Markdown) and part.markup.lstrip().startswith(">")
        if n and not quote_first:  # rich opens a block quote with its own blank line
            console.print()
        console.print(part)
