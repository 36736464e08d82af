"""The proposal as data: sections of text already in the conversation's language, the memory chart's bars and
the parts list. build.py fills it from a turn's typed results; markdown.py, pdf.py and parts.py only lay it out."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field

from assistant.language import Language
from tools.prices import Currency


class Table(BaseModel):
    header: list[str]
    rows: list[list[str]]
    total_row: list[str] | None = Field(default=None, description="Set apart below the rows (bold)")


class Section(BaseModel):
    """Laid out in this order: lead, chart, table, paragraphs, bullets."""

    key: str = Field(description="need, recommendation, machine, cloud, cost, alternatives, risks, assumptions...")
    title: str
    lead: list[str] = Field(default_factory=list, description="Paragraphs before the chart and the table")
    chart: bool = Field(default=False, description="The memory chart goes after the lead")
    table: Table | None = None
    paragraphs: list[str] = Field(default_factory=list, description="Paragraphs after the table")
    bullets: list[str] = Field(default_factory=list)


class MemoryBar(BaseModel):
    """One option's memory per GPU against the usable capacity of its card."""

    label: str
    need_gib: float = Field(ge=0)
    usable_gib: float = Field(gt=0)
    chosen: bool = False


class PartLine(BaseModel):
    item: str
    quantity: float = Field(ge=0)
    unit_price: float | None = Field(description="None: no price of its own (included in another line)")
    currency: Currency
    source: str
    date: str
    line_total: float | None


class Parts(BaseModel):
    lines: list[PartLine]
    total: float = Field(description="The sum of the line totals, in `currency`")
    currency: Currency
    kind: Literal["buy", "rent"] = Field(description="rent: the total is a month's rent")


class Proposal(BaseModel):
    language: Language
    title: str
    subtitle: str
    summary: str = Field(description="The recommendation in one paragraph (the answer's verdict line)")
    sections: list[Section]
    chart_title: str
    chart_labels: tuple[str, str] = Field(description="The legend: needed, usable")
    chart: list[MemoryBar]
    parts_title: str
    parts_header: list[str] = Field(description="item, quantity, unit price, currency, source, date, line total")
    parts_total_label: str
    parts: Parts
    total_label: str = Field(description="What `total_text` is: the up-front total, or a month's rent")
    total_text: str = Field(description="The document's total as the answer writes amounts (¥90,097)")
    recheck: str
