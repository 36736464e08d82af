"""Calculator results as people read them: a markdown summary, a table, charts and the result itself.

Each `*_report` takes the request a form sent and the calculator's typed result; nothing here runs a
calculator or imports gradio. A summary string's placeholders are named after the result's fields
(assistant/catalog.yaml), so the result fills them.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any, Generic, TypeVar

import pandas as pd
from pydantic import BaseModel

from assistant.web.cards import fit_card, reference_cards, short_gpu_name
from assistant.web.charts import Chart, gpu_memory_chart, gpu_price_chart, legend_html, memory_chart, tco_chart
from assistant.web.i18n import has, label, note_text, t
from tools.gpu_search import FindGpusResult, GpuRow
from tools.notes import Note, join
from tools.notes import label as note_label
from tools.recommend import RecommendResult
from tools.sizing import COUNTS, GpuFit
from tools.speed import SpeedRequest, SpeedResult
from tools.tco import TcoResult
from tools.vram import VramResult
from tools.workstation import WorkstationPlan

R = TypeVar("R", bound=BaseModel)

GPU_TABLE_COLUMNS = (
    "name",
    "segment",
    "vram_gib",
    "bandwidth_gbs",
    "bf16_tflops",
    "fp8_tflops",
    "nvlink",
    "tdp_w",
    "price",
    "price_per_gib",
)
OPTION_COLUMNS = (
    "gpu",
    "count",
    "deployment",
    "condition",
    "memory_per_gpu_gib",
    "gpu_memory_gib",
    "tokens_per_s",
    "machine_cost",
    "monthly",
    "cost_over_horizon",
)


@dataclass
class CalcOutput(Generic[R]):
    """What a calculator form shows: `data` is the calculator's own result (None when the input was bad)."""

    markdown: str
    data: R | None = None
    charts: dict[str, Chart] = field(default_factory=dict)
    table: pd.DataFrame | None = None


def notes(lang: str, assumptions: Sequence[str | Note], warnings: Sequence[str | Note]) -> str:
    out = ""
    if warnings:
        out += f"\n\n**{t(lang, 'r_warnings')}**\n" + "\n".join(f"- {note_text(w, lang)}" for w in warnings)
    if assumptions:
        items = "\n".join(f"- {note_text(a, lang)}" for a in assumptions)
        out += f"\n\n<details><summary>{t(lang, 'assumptions')}</summary>\n\n{items}\n\n</details>"
    return out


def table(lang: str, rows: Iterable[BaseModel], columns: Sequence[str]) -> pd.DataFrame:
    """One row per result row, the given columns in order, headed in `lang`."""
    frame = pd.DataFrame([r.model_dump(include=set(columns)) for r in rows], columns=list(columns))
    return frame.rename(columns={c: t(lang, f"col.{c}") for c in columns})


def empty_table(lang: str, columns: Sequence[str]) -> pd.DataFrame:
    """A table with headers only, shown before the first calculation."""
    return pd.DataFrame(columns=[t(lang, f"col.{c}") for c in columns])


# --- memory ------------------------------------------------------------------------------------------------


def vram_report(lang: str, request: Any, r: VramResult) -> CalcOutput[VramResult]:
    md = t(lang, "r_vram_head", mode_label=t(lang, f"method.{r.mode}"), **r.model_dump())
    rows = [f"| {t(lang, 'r_component')} | {t(lang, 'r_gib_per_gpu')} |", "|---|---:|"]
    rows += [f"| {t(lang, 'component.' + k)} | {v:.2f} |" for k, v in r.per_gpu_breakdown_gib.items() if v]
    md += "\n\n" + "\n".join(rows)
    if r.fit is not None:
        md += "\n\n" + fit_text(lang, r.fit)
    md += notes(lang, r.assumptions, r.warnings)
    card = fit_card(r)
    chart = memory_chart(r, [card] if card else reference_cards(r.per_gpu_gib), lang)
    # The chart's legend wraps under it on a phone (the summary sits right below the chart).
    return CalcOutput(markdown=legend_html(chart) + "\n\n" + md, data=r, charts={"memory": chart})


def fit_text(lang: str, fit: GpuFit) -> str:
    """Whether the workload fits on the GPUs asked about, and how many it needs (tools/sizing.py's rule)."""
    name = short_gpu_name(fit.gpu)
    gpus = name if fit.num_gpus == 1 else f"{fit.num_gpus} × {name}"
    common = {"gpus": gpus, "usable": fit.usable_gib_per_gpu, "vram": fit.capacity_gib, "headroom": fit.headroom}
    if fit.fits:
        line = t(lang, "r_fits", spare=fit.usable_gib_per_gpu - fit.per_gpu_gib, **common)
    else:
        line = t(lang, "r_not_fits", over=fit.per_gpu_gib - fit.usable_gib_per_gpu, **common)
    if fit.gpus_needed is None:
        return f"{line} {t(lang, 'r_gpus_needed_none', gpu=name, most=COUNTS[-1])}"
    if fit.gpus_needed != fit.num_gpus:
        per_gpu = fit.per_gpu_gib_needed if fit.per_gpu_gib_needed is not None else fit.per_gpu_gib
        return f"{line} {t(lang, 'r_gpus_needed', n=fit.gpus_needed, gpu=name, per_gpu=per_gpu)}"
    return line


# --- speed -------------------------------------------------------------------------------------------------


def speed_report(lang: str, request: SpeedRequest, r: SpeedResult) -> CalcOutput[SpeedResult]:
    bound = t(lang, f"bound.{r.bound}") if has(f"bound.{r.bound}") else str(r.bound)
    if r.training_tokens_per_s is not None:
        method = t(lang, f"method.{request.method}")
        md = t(lang, "r_speed_training", method_label=method, bound_label=bound, **r.model_dump())
    else:
        shown = {  # a number the estimate could not give shows as 0
            "decode": r.decode_tokens_per_s or 0,
            "decode_total": r.decode_tokens_per_s_total or 0,
            "prefill": r.prefill_tokens_per_s or 0,
            "ttft": r.ttft_s or 0,
        }
        md = t(lang, "r_speed_inference", bound_label=bound, **shown, **r.model_dump())
    if not r.fits_in_memory:
        md += "\n\n" + t(lang, "r_not_in_memory")
    md += notes(lang, r.assumptions, r.warnings)
    return CalcOutput(markdown=md, data=r)


# --- catalog -----------------------------------------------------------------------------------------------


def gpu_charts(lang: str, rows: Sequence[GpuRow], currency: str) -> dict[str, Chart]:
    return {"price": gpu_price_chart(rows, currency, lang), "memory": gpu_memory_chart(rows, lang)}


def gpus_report(lang: str, request: Any, r: FindGpusResult) -> CalcOutput[FindGpusResult]:
    md = f"**{t(lang, 'gpus_table')}**: {len(r.gpus)}" + notes(lang, r.assumptions, r.warnings)
    return CalcOutput(
        markdown=md,
        data=r,
        charts=gpu_charts(lang, r.gpus, request.currency),
        table=table(lang, r.gpus, GPU_TABLE_COLUMNS),
    )


# --- buy vs rent -------------------------------------------------------------------------------------------


def tco_report(lang: str, request: Any, r: TcoResult) -> CalcOutput[TcoResult]:
    md = t(lang, "r_tco", **(r.model_dump() | {"cheapest": label("option_label", r.cheapest, lang)}))
    month = r.break_even_month
    md += " " + (t(lang, "r_break_even", month=month) if month is not None else t(lang, "r_no_break_even"))
    rows = [
        f"| {t(lang, 'r_rent_kind')} | {t(lang, 'r_per_hour')} | {t(lang, 'r_monthly')} | {t(lang, 'r_total')} "
        f"| {t(lang, 'r_break_even_hours')} |",
        "|---|---:|---:|---:|---:|",
    ]
    for o in r.rent:
        hours = "-" if o.break_even_hours_per_month is None else f"{o.break_even_hours_per_month:,.0f}"
        kind = note_label("rent_kind", o.kind, lang)
        rows.append(f"| {kind} | {o.price_per_gpu_hour:,.2f} | {o.monthly:,.0f} | {o.total:,.0f} | {hours} |")
    md += "\n\n" + "\n".join(rows) + notes(lang, r.assumptions, r.warnings)
    return CalcOutput(markdown=md, data=r, charts={"tco": tco_chart(r, lang)})


# --- recommend ---------------------------------------------------------------------------------------------


def recommend_report(lang: str, request: Any, r: RecommendResult) -> CalcOutput[RecommendResult]:
    md = f"**{r.workload}**"
    if r.nothing_fits:
        md += "\n\n" + t(lang, "r_nothing_fits")
    if r.suggestions:
        md += f"\n\n**{t(lang, 'r_suggestions')}**\n" + "\n".join(f"- {note_text(s, lang)}" for s in r.suggestions)
    md += notes(lang, r.assumptions, r.warnings)
    options = table(lang, r.options, OPTION_COLUMNS)
    options[t(lang, "col.why")] = ["; ".join(note_text(n, lang) for n in o.reasons) for o in r.options]
    return CalcOutput(markdown=md, data=r, table=options)


# --- workstation -------------------------------------------------------------------------------------------


def _watts(value: float | None) -> str | None:
    return None if value is None else f"{value:,.0f} W"


def _platform(platform: Any, lang: str) -> str:
    """The platform class as the reader's language names it (platforms.yaml holds the English name)."""
    return note_label("platform", platform.id, lang, platform.name)


def build_rows(p: WorkstationPlan, lang: str = "en") -> list[tuple[str, str | None]]:
    """(i18n key under build., value) for each line of the plan; None where the plan has no value."""
    platform = p.platform
    psu_floor = f" (≥ {p.psu_required_w:,.0f} W)" if p.psu_required_w else ""
    kind = f"build_kind.{p.build_kind}"
    return [
        ("build_kind", t(lang, kind) if has(kind) else p.build_kind),
        (
            "platform",
            platform and t(lang, "build_v.platform", name=_platform(platform, lang), lanes=platform.cpu_lanes_usable),
        ),
        ("gpu_power", p.gpu_power_w and f"{p.num_gpus} × {p.gpu_power_w:,.0f} W = {p.gpu_total_w or 0:,.0f} W"),
        ("steady_load", _watts(p.steady_load_w)),
        ("psu", note_text(p.psu_layout, lang) + psu_floor),
        ("wall_power", _watts(p.wall_power_w)),
        ("connectors", ", ".join(f"{n} × {kind}" for kind, n in p.power_connectors.items()) or None),
        ("ram", p.system_ram_gib and f"{p.system_ram_gib} GiB"),
        ("cpu_cores", p.cpu_cores and str(p.cpu_cores)),
        ("pcie", p.pcie_lanes_needed and t(lang, "build_v.pcie", lanes=p.pcie_lanes_needed, width=p.pcie_link_width)),
        ("slots", p.slots_needed and t(lang, "build_v.slots", n=p.slots_needed, width=p.gpu_slots)),
        ("nvlink", note_text(p.nvlink_note, lang)),
        ("cooling", join(p.cooling_notes, lang) or None),
    ]


def build_report(lang: str, request: Any, p: WorkstationPlan) -> CalcOutput[WorkstationPlan]:
    md = f"**{p.num_gpus} × {p.gpu}**\n\n| {t(lang, 'build.item')} | {t(lang, 'build.plan')} |\n|---|---|\n"
    md += "\n".join(f"| {t(lang, 'build.' + k)} | {str(v).replace('|', '/')} |" for k, v in build_rows(p, lang) if v)
    md += notes(lang, p.assumptions, p.warnings)
    return CalcOutput(markdown=md, data=p)
