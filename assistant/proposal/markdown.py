"""The proposal as Markdown: the summary, each section, the memory chart as a table, the parts list."""

from __future__ import annotations

from assistant.proposal.model import Proposal, Table
from assistant.proposal.parts import part_rows


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def _table(table: Table) -> list[str]:
    header = [_cell(h) for h in table.header]
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(_cell(c) for c in row) + " |" for row in table.rows]
    if table.total_row:
        lines.append("| " + " | ".join(f"**{_cell(c)}**" if c else "" for c in table.total_row) + " |")
    return lines


def _chart(p: Proposal) -> list[str]:
    need, usable = p.chart_labels
    rows = [[b.label, f"{b.need_gib:.1f}", f"{b.usable_gib:g}"] for b in p.chart]
    return [f"**{p.chart_title}**", "", *_table(Table(header=["", need, usable], rows=rows))]


def to_markdown(p: Proposal) -> str:
    out = [f"# {p.title}", "", f"*{p.subtitle}*", "", f"**{p.summary}**", ""]
    out += [f"**{p.total_label}: {p.total_text}**", ""]
    for s in p.sections:
        out += [f"## {s.title}", ""]
        for paragraph in s.lead:
            out += [paragraph, ""]
        if s.chart and p.chart:
            out += [*_chart(p), ""]
        if s.table is not None:
            out += [*_table(s.table), ""]
        for paragraph in s.paragraphs:
            out += [paragraph, ""]
        out += [f"- {b}" for b in s.bullets] + ([""] if s.bullets else [])
    header, rows, total = part_rows(p)
    out += [f"## {p.parts_title}", "", *_table(Table(header=header, rows=rows, total_row=total)), ""]
    out += [f"> {p.recheck}", ""]
    return "\n".join(out)
