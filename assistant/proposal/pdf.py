"""The proposal as a PDF (fpdf2): a CJK font for both languages, tables, and the memory chart drawn with fpdf2's
own rectangles and lines — each option's memory per GPU against its card's usable capacity."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from assistant.proposal.fonts import NoCjkFont, cjk_fonts
from assistant.proposal.labels import say
from assistant.proposal.model import Proposal, Table
from assistant.proposal.parts import part_rows

_FONT = "cjk"
_INK = (33, 37, 41)
_MUTED = (108, 117, 125)
_ACCENT = (13, 110, 253)  # the recommended option's bar
_OTHER = (134, 142, 150)  # the other options' bars
_CAPACITY = (222, 226, 230)  # the usable capacity behind each bar
_HEAD_FILL = (233, 236, 239)


def _document(lang: str) -> Any:
    from fpdf import FPDF

    fonts = cjk_fonts()
    if fonts is None:
        raise NoCjkFont(say("errors.no_cjk_font", lang, markdown="{markdown}"))
    pdf = FPDF(orientation="P", unit="mm", format="A4")
    pdf.set_margins(16, 16, 16)
    pdf.set_auto_page_break(True, margin=16)
    # one face: a CJK font is large and fpdf2 subsets each face it embeds (seconds apiece), so bold is drawn
    pdf.add_font(_FONT, "", str(fonts.regular.path), collection_font_number=fonts.regular.index)
    pdf.set_text_color(*_INK)
    return pdf


@contextmanager
def _bold(pdf: Any, on: bool = True, color: tuple = _INK) -> Iterator[None]:
    """Bold as a stroked outline of the one face (fill and stroke the glyphs)."""
    if not on:
        yield
        return
    pdf.text_mode = "FILL_STROKE"
    pdf.set_draw_color(*color)
    pdf.set_line_width(max(0.12, pdf.font_size_pt * 0.014))  # heavier for bigger type, as a bold face is
    try:
        yield
    finally:
        pdf.text_mode = "FILL"
        pdf.set_line_width(0.2)


def _keep_room(pdf: Any, mm: float) -> None:
    """Start a new page when less than `mm` is left on this one."""
    if pdf.get_y() > pdf.h - pdf.b_margin - mm:
        pdf.add_page()


def _wrap(lang: str) -> Any:
    """Chinese breaks between any two characters; English between words."""
    from fpdf.enums import WrapMode

    return WrapMode.CHAR if lang == "zh" else WrapMode.WORD


def _text(pdf: Any, lang: str, text: str, size: float = 10, bold: bool = False, color: tuple = _INK) -> None:
    pdf.set_font(_FONT, "", size)
    pdf.set_text_color(*color)
    with _bold(pdf, bold, color):
        pdf.multi_cell(0, size * 0.5, text, align="L", wrapmode=_wrap(lang), new_x="LMARGIN", new_y="NEXT")
    pdf.set_text_color(*_INK)
    pdf.ln(1.2)


def _bullets(pdf: Any, lang: str, items: list[str], size: float = 9.5) -> None:
    pdf.set_font(_FONT, "", size)
    for item in items:
        pdf.set_x(pdf.l_margin)
        pdf.cell(5, size * 0.5, "•")
        pdf.multi_cell(0, size * 0.5, item, align="L", wrapmode=_wrap(lang), new_x="LMARGIN", new_y="NEXT")
        pdf.ln(0.6)
    pdf.ln(1)


def _table(pdf: Any, lang: str, table: Table, widths: tuple[float, ...], size: float = 8.5) -> None:
    from fpdf.enums import WrapMode
    from fpdf.fonts import FontFace

    pdf.set_font(_FONT, "", size)
    pdf.set_fill_color(255, 255, 255)  # the chart's last colour must not fill the rows
    headings = FontFace(emphasis=None, fill_color=_HEAD_FILL)  # set apart by their fill (one face: no bold)
    with pdf.table(
        cell_fill_mode="NONE",
        col_widths=widths,
        text_align="LEFT",
        wrapmode=WrapMode.WORD,  # cells are mostly card names and figures: keep their words whole
        headings_style=headings,
        line_height=size * 0.5,
        padding=1,
        width=pdf.epw,
    ) as out:
        for row in [table.header, *table.rows]:
            cells = out.row()
            for value in row:
                cells.cell(value)
        if table.total_row:
            cells = out.row(style=FontFace(fill_color=_HEAD_FILL))
            for value in table.total_row:
                cells.cell(value)
    pdf.ln(3)


def _chart(pdf: Any, p: Proposal) -> None:
    """Horizontal bars: grey for the card's usable memory, coloured for what the job needs on each GPU."""
    if not p.chart:
        return
    label_w, value_w, bar_h, gap = 62.0, 30.0, 5.0, 3.0
    plot_w = pdf.epw - label_w - value_w
    top = max(b.usable_gib for b in p.chart)
    height = 14 + len(p.chart) * (bar_h + gap)
    if pdf.get_y() + height > pdf.h - pdf.b_margin:
        pdf.add_page()
    _text(pdf, p.language, p.chart_title, size=9.5, bold=True)
    need_label, usable_label = p.chart_labels
    x0, y = pdf.l_margin, pdf.get_y()
    for i, (colour, name) in enumerate(((_ACCENT, need_label), (_CAPACITY, usable_label))):
        pdf.set_fill_color(*colour)
        pdf.rect(x0 + label_w + i * 30, y + 0.8, 4, 3, style="F")
        pdf.set_font(_FONT, "", 8)
        pdf.set_xy(x0 + label_w + i * 30 + 5, y)
        pdf.cell(24, 4.5, name)
    y += 7
    first = y
    for bar in p.chart:
        pdf.set_font(_FONT, "", 7.5)
        pdf.set_xy(x0, y)
        with _bold(pdf, bar.chosen):
            pdf.multi_cell(label_w - 2, 3.2, bar.label, align="R", max_line_height=3.2)  # a card's name: whole words
        pdf.set_fill_color(*_CAPACITY)
        pdf.rect(x0 + label_w, y, plot_w * bar.usable_gib / top, bar_h, style="F")
        pdf.set_fill_color(*(_ACCENT if bar.chosen else _OTHER))
        pdf.rect(x0 + label_w, y + 1, plot_w * min(bar.need_gib, bar.usable_gib) / top, bar_h - 2, style="F")
        pdf.set_font(_FONT, "", 7.5)
        pdf.set_xy(x0 + label_w + plot_w + 1, y)
        pdf.cell(value_w - 1, bar_h, say("rec.memory_cell", p.language, need=bar.need_gib, usable=bar.usable_gib))
        y += bar_h + gap
    pdf.set_draw_color(*_MUTED)
    pdf.line(x0 + label_w, first, x0 + label_w, y - gap)  # the axis at zero
    pdf.set_xy(x0, y + 1)


_TABLE_WIDTHS: dict[str, tuple[float, ...]] = {
    "recommendation": (20, 50, 26, 30, 34),
    "cost": (62, 24, 60),
}
_PARTS_WIDTHS = (52, 12, 20, 13, 26, 15, 21)


def write_pdf(p: Proposal, path: Path) -> Path:
    """Write the PDF; NoCjkFont (with the package to install) when no font draws Chinese."""
    pdf = _document(p.language)
    lang = p.language
    pdf.set_title(p.title)
    pdf.set_creator("GPU Advisor")
    pdf.add_page()
    _text(pdf, lang, p.title, size=17, bold=True)
    _text(pdf, lang, p.subtitle, size=8.5, color=_MUTED)
    pdf.ln(1)
    _text(pdf, lang, p.summary, size=10.5, bold=True)
    _text(pdf, lang, f"{p.total_label}: {p.total_text}", size=10.5, bold=True, color=_ACCENT)
    for s in p.sections:
        pdf.ln(2)
        _keep_room(pdf, 30)  # a section's title starts with its first lines, not alone at a page's foot
        _text(pdf, lang, s.title, size=13, bold=True)
        for paragraph in s.lead:
            _text(pdf, lang, paragraph, size=9.5)
        if s.chart:
            _chart(pdf, p)
        if s.table is not None:
            _table(pdf, lang, s.table, _TABLE_WIDTHS.get(s.key, tuple([1.0] * len(s.table.header))))
        if s.paragraphs and s.bullets:
            _keep_room(pdf, 20)  # "Why:" stays with its list
        for paragraph in s.paragraphs:
            _text(pdf, lang, paragraph, size=9.5)
        _bullets(pdf, lang, s.bullets)
    pdf.ln(2)
    _text(pdf, lang, p.parts_title, size=13, bold=True)
    header, rows, total = part_rows(p)
    _table(pdf, lang, Table(header=header, rows=rows, total_row=total), _PARTS_WIDTHS, size=7.5)
    _text(pdf, lang, p.recheck, size=9.5, bold=True)
    pdf.output(str(path))
    return path
