"""Chart data for the web app: pure functions from tool results to plot specs (a DataFrame plus axes).

Gradio's native plots draw them (BarPlot / ScatterPlot / LinePlot); nothing here imports gradio, so
the numbers behind every chart are testable on their own.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

import pandas as pd

from assistant.web.i18n import t
from tools.vram import COMPONENTS

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
SEGMENT_COLORS = {"consumer": "#4C78A8", "workstation": "#54A24B", "datacenter": "#E45756", "apple": "#9D755D"}


@dataclass
class Chart:
    """A plot: `frame` holds the data, `spec` the keyword arguments of the Gradio plot."""

    kind: Kind
    frame: pd.DataFrame
    spec: dict[str, Any] = field(default_factory=dict)
    caption: str = ""

    @property
    def empty(self) -> bool:
        return self.frame.empty


def memory_chart(vram: dict[str, Any], capacities: list[tuple[str, float]], lang: str) -> Chart:
    """Per-GPU memory stacked by component, next to the capacity of each card in `capacities`."""
    per_gpu = vram.get("per_gpu_breakdown_gib") or vram.get("breakdown_gib") or {}
    mode_label = t(lang, f"mode.{vram.get('mode', 'inference')}")
    need = t(lang, "bar_need", label=f"{vram.get('model', '')} {mode_label}".strip())
    rows = [
        {"bar": need, "component": t(lang, f"component.{name}"), "gib": round(float(per_gpu.get(name, 0.0)), 2)}
        for name in COMPONENTS
        if per_gpu.get(name)
    ]
    capacity = t(lang, "capacity")
    for gpu, gib in capacities:
        rows.append({"bar": t(lang, "bar_capacity", gpu=gpu), "component": capacity, "gib": round(float(gib), 2)})
    colors = {t(lang, f"component.{name}"): color for name, color in COMPONENT_COLORS.items()}
    colors[capacity] = CAPACITY_COLOR
    frame = pd.DataFrame(rows, columns=["bar", "component", "gib"])
    total = vram.get("per_gpu_gib")
    caption = f"{need}: {total} GiB" if total is not None else ""
    return Chart(
        kind="bar",
        frame=frame,
        spec={
            "x": "bar",
            "y": "gib",
            "color": "component",
            "color_map": {k: v for k, v in colors.items() if k in set(frame["component"])},
            "x_title": t(lang, "axis_bar"),
            "y_title": t(lang, "axis_gib"),
            "color_title": t(lang, "axis_component"),
            "sort": list(dict.fromkeys(frame["bar"])),
            "tooltip": ["component", "gib"],
        },
        caption=caption,
    )


def _gpu_frame(rows: list[dict[str, Any]], lang: str) -> pd.DataFrame:
    cols = ["name", "segment", "price", "bf16_tflops", "vram_gib", "bandwidth_gbs"]
    frame = pd.DataFrame([{c: r.get(c) for c in cols} for r in rows], columns=cols)
    frame["segment"] = [_segment(s, lang) for s in frame["segment"]]
    return frame


def _segment(segment: Any, lang: str) -> str:
    return t(lang, f"segment.{segment}") if segment in SEGMENT_COLORS else str(segment)


def _segment_colors(lang: str) -> dict[str, str]:
    return {_segment(s, lang): color for s, color in SEGMENT_COLORS.items()}


def gpu_price_chart(rows: list[dict[str, Any]], currency: str, lang: str) -> Chart:
    """Dense BF16 TFLOPS against the price per GPU (GPUs without a price or BF16 are left out)."""
    frame = _gpu_frame(rows, lang).dropna(subset=["price", "bf16_tflops"])
    return Chart(
        kind="scatter",
        frame=frame.reset_index(drop=True),
        spec={
            "x": "price",
            "y": "bf16_tflops",
            "color": "segment",
            "color_map": _segment_colors(lang),
            "x_title": t(lang, "axis_price", currency=currency),
            "y_title": t(lang, "axis_tflops"),
            "color_title": t(lang, "axis_segment"),
            "tooltip": ["name", "price", "bf16_tflops"],
        },
    )


def gpu_memory_chart(rows: list[dict[str, Any]], lang: str) -> Chart:
    """Memory capacity against memory bandwidth."""
    frame = _gpu_frame(rows, lang).dropna(subset=["vram_gib", "bandwidth_gbs"])
    return Chart(
        kind="scatter",
        frame=frame.reset_index(drop=True),
        spec={
            "x": "bandwidth_gbs",
            "y": "vram_gib",
            "color": "segment",
            "color_map": _segment_colors(lang),
            "x_title": t(lang, "axis_bandwidth"),
            "y_title": t(lang, "axis_vram"),
            "color_title": t(lang, "axis_segment"),
            "tooltip": ["name", "vram_gib", "bandwidth_gbs"],
        },
    )


def tco_chart(tco: dict[str, Any], lang: str) -> Chart:
    """Cumulative cost of buying vs renting on demand, month by month, with the break-even month as a line."""
    months = tco.get("cumulative_months") or []
    buy = tco.get("cumulative_buy") or []
    rent = tco.get("cumulative_rent_on_demand") or []
    currency = tco.get("currency", "")
    rows = [
        {"month": m, "cost": round(c, 2), "series": t(lang, "series_buy")} for m, c in zip(months, buy, strict=False)
    ]
    rows += [
        {"month": m, "cost": round(c, 2), "series": t(lang, "series_rent")} for m, c in zip(months, rent, strict=False)
    ]
    month = tco.get("break_even_month")
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
            "y_title": t(lang, "axis_cost", currency=currency),
            "color_title": t(lang, "axis_series"),
            "tooltip": ["series", "month", "cost"],
        },
        caption=caption,
    )
