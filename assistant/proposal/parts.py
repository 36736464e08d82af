"""The parts list as XLSX (openpyxl) and CSV: item, quantity, unit price, currency, source, date, line total,
and a total row equal to the proposal's total."""

from __future__ import annotations

import csv
from pathlib import Path

from assistant.proposal.model import Proposal
from tools.notes import money


def _amount(value: float | None, currency: str) -> str:
    """An amount as the document writes it (tools.notes.money: ¥60,065, $1.57)."""
    return "" if value is None else money(value, currency)


def _quantity(value: float) -> str:
    return f"{value:g}"


def part_rows(p: Proposal) -> tuple[list[str], list[list[str]], list[str]]:
    """The header, the lines and the total row as text (Markdown, PDF, CSV)."""
    rows = [
        [
            line.item,
            _quantity(line.quantity),
            _amount(line.unit_price, line.currency),
            line.currency,
            line.source,
            line.date,
            _amount(line.line_total, line.currency),
        ]
        for line in p.parts.lines
    ]
    total = [p.parts_total_label, "", "", p.parts.currency, "", "", _amount(p.parts.total, p.parts.currency)]
    return p.parts_header, rows, total


def _number(value: float | None) -> str:
    return "" if value is None else f"{value:.2f}"


def write_csv(p: Proposal, path: Path) -> Path:
    """Plain numbers (a spreadsheet imports them as numbers), UTF-8 with a byte-order mark so that Excel opens the
    Chinese items as Chinese; the last row is the total."""
    with path.open("w", encoding="utf-8-sig", newline="") as f:
        writer = csv.writer(f)
        writer.writerow(p.parts_header)
        for line in p.parts.lines:
            row = [line.item, f"{line.quantity:g}", _number(line.unit_price), line.currency, line.source, line.date]
            writer.writerow([*row, _number(line.line_total)])
        writer.writerow([p.parts_total_label, "", "", p.parts.currency, "", "", _number(p.parts.total)])
    return path


def write_xlsx(p: Proposal, path: Path) -> Path:
    """Numbers as numbers, so a spreadsheet can sum and check them; the total row holds the proposal's total."""
    from openpyxl import Workbook
    from openpyxl.styles import Font

    book = Workbook()
    sheet = book.active
    sheet.title = p.parts_title[:31]
    sheet.append(p.parts_header)
    for cell in sheet[1]:
        cell.font = Font(bold=True)
    for line in p.parts.lines:
        sheet.append(
            [line.item, line.quantity, line.unit_price, line.currency, line.source, line.date, line.line_total]
        )
    sheet.append([p.parts_total_label, None, None, p.parts.currency, None, None, p.parts.total])
    for cell in sheet[sheet.max_row]:
        cell.font = Font(bold=True)
    for row in sheet.iter_rows(min_row=2, min_col=3, max_col=7):
        for cell in (row[0], row[4]):
            cell.number_format = "#,##0"  # whole units, as the document writes amounts
    for column, width in zip("ABCDEFG", (60, 9, 14, 8, 50, 12, 14), strict=True):
        sheet.column_dimensions[column].width = width
    book.save(path)
    return path
