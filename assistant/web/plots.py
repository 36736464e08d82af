"""Charts as Gradio plot updates, and the chat's four charts re-sent only when what they show changed."""

from __future__ import annotations

import dataclasses
import hashlib
import json
from collections.abc import Callable
from typing import Any

import gradio as gr
from pydantic import BaseModel

from assistant.language import currency_for
from assistant.web.cards import catalog_rows
from assistant.web.charts import Chart, legend_html, memory_chart, options_chart, tco_chart
from assistant.web.i18n import t
from assistant.web.reports import gpu_charts
from assistant.web.state import Session


def _plain(value: Any) -> Any:
    if isinstance(value, BaseModel):
        return value.model_dump(mode="json")
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return dataclasses.asdict(value)
    return str(value)


def fingerprint(value: Any) -> str:
    """A short digest of what an output shows, to skip re-sending what the browser already has."""
    text = json.dumps(value, sort_keys=True, default=_plain, ensure_ascii=False)
    return hashlib.blake2b(text.encode("utf-8"), digest_size=12).hexdigest()


def plot_update(chart: Chart | None, lang: str, title_key: str, empty_key: str | None = None) -> Any:
    if chart is None or chart.empty:
        return gr.update(value=None, label=t(lang, title_key), caption=t(lang, empty_key) if empty_key else None)
    return gr.update(value=chart.frame, label=t(lang, title_key), caption=chart.caption or None, **chart.spec)


def _memory(s: Session) -> dict[str, Any]:
    """The latest pick against its card (and the other options), else the latest memory estimate's breakdown."""
    if s.options:
        chart: Chart | None = options_chart(s.options, s.lang)
    else:
        chart = memory_chart(s.vram, s.cards, s.lang) if s.vram else None
    return {
        "memory": plot_update(chart, s.lang, "chart_memory", "chart_memory_empty"),
        "memory_legend": legend_html(chart),
    }


def _cost(s: Session) -> dict[str, Any]:
    chart = tco_chart(s.tco, s.lang) if s.tco else None
    return {"tco": {**plot_update(chart, s.lang, "chart_tco"), "visible": chart is not None}}


def _catalog(s: Session) -> dict[str, Any]:
    currency = s.gpu_currency or currency_for(s.lang)
    charts = gpu_charts(s.lang, s.gpu_rows or catalog_rows(currency), currency)
    return {
        "price": plot_update(charts["price"], s.lang, "chart_gpu_price"),
        "bandwidth": plot_update(charts["memory"], s.lang, "chart_gpu_memory"),
    }


# Each group of charts: what it is drawn from, and how.
_GROUPS: tuple[tuple[str, Callable[[Session], tuple], Callable[[Session], dict[str, Any]]], ...] = (
    ("plot_memory", lambda s: (s.lang, s.vram, s.cards, s.options), _memory),
    ("plot_tco", lambda s: (s.lang, s.tco), _cost),
    ("plot_gpus", lambda s: (s.lang, s.gpu_currency or currency_for(s.lang), s.gpu_rows), _catalog),
)


def chat_plots(session: Session, force: bool = False) -> dict[str, Any]:
    """Updates of the chat's charts (named as in layout.ChatTab.plots) whose inputs changed since the browser
    last got them; `force` draws all (e.g. after a language switch). Records what was sent in `session.shown`."""
    out: dict[str, Any] = {}
    for name, inputs, draw in _GROUPS:
        key = fingerprint(inputs(session))
        if force or session.shown.get(name) != key:
            session.shown[name] = key
            out |= draw(session)
    return out
