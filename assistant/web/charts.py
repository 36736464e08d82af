"""Chart data for the web app: pure functions from tool results to plot specs (a DataFrame plus axes).

Gradio's native plots draw them (BarPlot / ScatterPlot / LinePlot); nothing here imports gradio, so
the numbers behind every chart are testable on their own.
"""

from __future__ import annotations

import html
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal

import pandas as pd

from assistant.web.i18n import t
from tools.compare import CompareResult
from tools.gpu_search import GpuRow
from tools.recommend import Pick, RecommendResult
from tools.tco import TcoResult
from tools.vram import COMPONENTS, VramResult

if TYPE_CHECKING:
    from assistant.web.cards import Card

Kind = Literal["bar", "scatter", "line"]

# One colour per memory component, the card's capacity in grey: the same colours in every chart.
COMPONENT_COLORS = {
    "weights": "#4C78A8",
    "kv_cache": "#F58518",
    "activations": "#54A24B",
    "gradients": "#E45756",
    "optimizer": "#B279A2",
    "adapters": "#72B7B2",
    "overhead": "#9D755D",
}
CAPACITY_COLOR = "#BAB0AC"
HEADROOM_COLOR = "#E7E2DF"
MAX_FLAT_BARS = 3  # more bars than this get slanted labels (a phone has about 80 px per bar)
SEGMENT_COLORS = {"consumer": "#4C78A8", "workstation": "#54A24B", "datacenter": "#E45756", "apple": "#9D755D"}


@dataclass(frozen=True)
class LegendItem:
    label: str
    color: str
    note: str = ""  # e.g. the component's GiB


@dataclass
class Chart:
    """A plot: `frame` holds the data, `spec` the keyword arguments of the Gradio plot.

    A chart with many colours carries its own `legend`, drawn as HTML that wraps on a narrow screen (Vega
    draws a bottom legend on one line and cuts it at the plot's edge), and hides Vega's."""

    kind: Kind
    frame: pd.DataFrame
    spec: dict[str, Any] = field(default_factory=dict)
    caption: str = ""
    legend: list[LegendItem] = field(default_factory=list)

    @property
    def empty(self) -> bool:
        return self.frame.empty


def legend_html(chart: Chart | None) -> str:
    """The chart's legend as HTML (empty when it has none): a swatch, the label and its note per item."""
    if chart is None or chart.empty or not chart.legend:
        return ""
    items = "".join(
        f'<span class="legend-item"><span class="swatch" style="background:{i.color}"></span>'
        f"{html.escape(i.label)}{' ' + html.escape(i.note) if i.note else ''}</span>"
        for i in chart.legend
    )
    return f'<div class="chart-legend">{items}</div>'


def memory_chart(vram: VramResult, cards: Sequence[Card], lang: str) -> Chart:
    """Per-GPU memory stacked by component, next to each card's usable memory and the share kept free."""
    per_gpu = vram.per_gpu_breakdown_gib
    workload = f"{vram.model} {t(lang, f'method.{vram.mode}')}".strip()
    need = t(lang, "bar_need_short")  # short: the bars' labels must not run into each other on a phone
    rows = [
        {"bar": need, "component": t(lang, f"component.{name}"), "gib": round(per_gpu[name], 2)}
        for name in COMPONENTS
        if per_gpu.get(name)
    ]
    legend = [
        LegendItem(t(lang, f"component.{name}"), COMPONENT_COLORS[name], f"{per_gpu[name]:.2f} GiB")
        for name in COMPONENTS
        if per_gpu.get(name)
    ]
    usable, kept = t(lang, "capacity_usable"), t(lang, "capacity_headroom")
    for card in cards:
        bar = t(lang, "bar_capacity", gpu=card.name)
        rows.append({"bar": bar, "component": usable, "gib": round(card.usable_gib, 2)})
        if card.capacity_gib > card.usable_gib:
            rows.append({"bar": bar, "component": kept, "gib": round(card.capacity_gib - card.usable_gib, 2)})
    colors = {t(lang, f"component.{name}"): color for name, color in COMPONENT_COLORS.items()}
    colors |= {usable: CAPACITY_COLOR, kept: HEADROOM_COLOR}
    frame = pd.DataFrame(rows, columns=["bar", "component", "gib"])
    present = set(frame["component"])
    legend += [LegendItem(name, colors[name]) for name in (usable, kept) if name in present]
    bars = list(dict.fromkeys(frame["bar"]))
    return Chart(
        kind="bar",
        frame=frame,
        spec=_stacked_gib(lang, colors, present, bars, "axis_bar", ["component", "gib"]),
        caption=t(lang, "memory_caption", workload=workload, gib=vram.per_gpu_gib),
        legend=legend,
    )


@dataclass(frozen=True)
class Option:
    """One option of a recommendation or a comparison as the memory chart draws it: its memory per GPU against
    what its card may use. Language-free: the chart labels it in the interface language of the moment."""

    gpu: str  # the short name ("RTX 3090")
    count: int
    need_gib: float
    usable_gib: float
    capacity_gib: float
    picked: bool = False
    rented: bool = False
    mode: str | None = None
    precision: str | None = None


def _option(p: Pick, picked: bool = False) -> Option:
    from assistant.web.cards import short_gpu_name

    return Option(
        short_gpu_name(p.gpu),
        p.count,
        p.memory_per_gpu_gib,
        p.usable_gib_per_gpu,
        max(p.gpu_memory_gib, p.usable_gib_per_gpu),
        picked,
        p.deployment == "cloud",
        p.mode,
        p.precision,
    )


def recommend_options(rec: RecommendResult) -> list[Option]:
    """The pick first, then the alternatives and the stretch (what going over the budget buys), as the answer lists
    them; empty when nothing fits."""
    from assistant.scenario import recommended

    pick = recommended(rec)
    if pick is None:
        return []
    others = [p for p in [*rec.alternatives, *([rec.stretch] if rec.stretch else [])] if p is not pick]
    return [_option(pick, picked=True), *(_option(p) for p in others)]


def compare_options(result: CompareResult) -> list[Option]:
    """The comparison's rows best first (the verdict's order), the picked one marked; rows with no memory figure
    (not computed, or no number of the cards holds the job) are left out."""
    from assistant.web.cards import short_gpu_name

    out = []
    for i in result.verdict.order or range(len(result.rows)):
        row = result.rows[i]
        if row.fit is None or row.memory_per_gpu_gib is None or row.count is None:
            continue
        usable = row.fit.usable_gib_per_gpu
        option = Option(
            short_gpu_name(row.gpu),
            row.count,
            row.memory_per_gpu_gib,
            usable,
            max(row.fit.capacity_gib, usable),
            i == result.verdict.pick,
            mode=row.mode,
            precision=row.precision,
        )
        out.append(option)
    return out if any(o.picked for o in out) else []


def _option_labels(options: Sequence[Option], lang: str) -> list[str]:
    """'1× RTX 3090'; where two options would read the same, what tells them apart (rented, the method, the format)."""
    labels = [f"{o.count}× {o.gpu}" for o in options]
    extras = (
        lambda o: t(lang, "option_rented") if o.rented else "",
        lambda o: t(lang, f"method.{o.mode}") if o.mode else "",
        lambda o: o.precision or "",
    )
    for extra in extras:
        if len(set(labels)) == len(labels):
            break
        labels = [
            f"{label} {extra(o)}".strip() if labels.count(label) > 1 else label
            for label, o in zip(labels, options, strict=True)
        ]
    return labels


def options_chart(options: Sequence[Option], lang: str) -> Chart:
    """Each option's memory per GPU stacked under its card's usable memory and the share kept free: the pick in
    the memory colour, the other options lighter, so "does it fit, with how much to spare" reads at a glance."""
    pick_need, other_need = t(lang, "pick_need"), t(lang, "other_need")
    left, kept = t(lang, "capacity_left"), t(lang, "capacity_headroom")
    labels = _option_labels(options, lang)
    rows = []
    # Vega stacks a bar's parts top to bottom in the order their colours first appear in the data: the share kept
    # free on top, then what is usable and still free, the need at the bottom, in every bar alike.
    for label, o in zip(labels, options, strict=True):
        need = min(o.need_gib, o.usable_gib)
        if o.capacity_gib > o.usable_gib:
            rows.append({"bar": label, "component": kept, "gib": round(o.capacity_gib - o.usable_gib, 2)})
        if o.usable_gib > need:
            rows.append({"bar": label, "component": left, "gib": round(o.usable_gib - need, 2)})
        rows.append({"bar": label, "component": pick_need if o.picked else other_need, "gib": round(o.need_gib, 2)})
    colors = {pick_need: COMPONENT_COLORS["weights"], other_need: COMPONENT_COLORS["adapters"]}
    colors |= {left: CAPACITY_COLOR, kept: HEADROOM_COLOR}
    frame = pd.DataFrame(rows, columns=["bar", "component", "gib"])
    present = set(frame["component"])
    legend = [LegendItem(name, color) for name, color in colors.items() if name in present]  # the need first
    picked = next((i for i, o in enumerate(options) if o.picked), None)
    caption = ""
    if picked is not None:
        p = options[picked]
        caption = t(lang, "options_caption", pick=labels[picked], need=p.need_gib, usable=p.usable_gib)
    return Chart(
        kind="bar",
        frame=frame,
        spec=_stacked_gib(lang, colors, present, labels, "axis_option", ["bar", "component", "gib"]),
        caption=caption,
        legend=legend,
    )


def _gpu_frame(rows: Sequence[GpuRow], lang: str) -> pd.DataFrame:
    cols = ["name", "segment", "price", "bf16_tflops", "vram_gib", "bandwidth_gbs"]
    frame = pd.DataFrame([r.model_dump(include=set(cols)) for r in rows], columns=cols)
    frame["segment"] = [_segment(s, lang) for s in frame["segment"]]
    return frame


def _segment(segment: Any, lang: str) -> str:
    return t(lang, f"segment.{segment}") if segment in SEGMENT_COLORS else str(segment)


def _segment_colors(lang: str) -> dict[str, str]:
    return {_segment(s, lang): color for s, color in SEGMENT_COLORS.items()}


def _gpu_scatter(rows: Sequence[GpuRow], lang: str, x: str, y: str, x_title: str, y_title: str) -> Chart:
    """GPUs as points by segment (GPUs missing either number are left out)."""
    frame = _gpu_frame(rows, lang).dropna(subset=[x, y])
    return Chart(
        kind="scatter",
        frame=frame.reset_index(drop=True),
        spec={
            "x": x,
            "y": y,
            "color": "segment",
            "color_map": _segment_colors(lang),
            "x_title": x_title,
            "y_title": y_title,
            "color_title": t(lang, "axis_segment"),
            "tooltip": ["name", x, y],
        },
    )


def gpu_price_chart(rows: Sequence[GpuRow], currency: str, lang: str) -> Chart:
    """Dense BF16 TFLOPS against the price per GPU."""
    x_title = t(lang, "axis_price", currency=currency)
    return _gpu_scatter(rows, lang, "price", "bf16_tflops", x_title, t(lang, "axis_tflops"))


def gpu_memory_chart(rows: Sequence[GpuRow], lang: str) -> Chart:
    """Memory capacity against memory bandwidth."""
    return _gpu_scatter(rows, lang, "bandwidth_gbs", "vram_gib", t(lang, "axis_bandwidth"), t(lang, "axis_vram"))


def tco_chart(tco: TcoResult, lang: str) -> Chart:
    """Cumulative cost of buying vs renting on demand, month by month, with the break-even month as a line."""
    months = tco.cumulative_months
    series = (
        (t(lang, "series_buy"), tco.cumulative_buy),
        (t(lang, "series_rent"), tco.cumulative_rent_on_demand or []),
    )
    rows = [
        {"month": m, "cost": round(c, 2), "series": label}
        for label, costs in series
        for m, c in zip(months, costs, strict=False)
    ]
    month = tco.break_even_month
    caption = ""
    if month is not None and rows:
        label = t(lang, "series_break_even", month=month)
        top = max(r["cost"] for r in rows)
        rows += [{"month": month, "cost": 0.0, "series": label}, {"month": month, "cost": top, "series": label}]
        caption = label
    return Chart(
        kind="line",
        frame=pd.DataFrame(rows, columns=["month", "cost", "series"]),
        spec={
            "x": "month",
            "y": "cost",
            "color": "series",
            "x_title": t(lang, "axis_month"),
            "y_title": t(lang, "axis_cost", currency=tco.currency),
            "color_title": t(lang, "axis_series"),
            "tooltip": ["series", "month", "cost"],
        },
        caption=caption,
    )


def _stacked_gib(
    lang: str, colors: dict[str, str], present: set[str], bars: list[str], x_title: str, tooltip: list[str]
) -> dict[str, Any]:
    """The spec of a bar chart of GiB stacked by component, bars in the given order (both memory charts)."""
    return {
        "x": "bar",
        "y": "gib",
        "color": "component",
        "color_map": {k: v for k, v in colors.items() if k in present},
        "colors_in_legend": [],  # the HTML legend (legend_html) lists them
        "x_title": t(lang, x_title),
        "y_title": t(lang, "axis_gib"),
        "color_title": t(lang, "axis_component"),
        "sort": bars,
        "x_label_angle": -30 if len(bars) > MAX_FLAT_BARS else 0,
        "tooltip": tooltip,
    }
