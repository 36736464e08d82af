"""Tool-call bubbles in the interface language: what each tool is called and one line on what it found.

The Advisor's own one-line summaries are English; the chat writes its own from the tool's typed result,
so a Chinese page shows Chinese titles. A result this module does not know keeps the Advisor's line.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from pydantic import BaseModel

from assistant.web.cards import short_gpu_name
from assistant.web.i18n import has, label, t
from knowledge.passage import SearchResult
from tools.compare import CompareResult
from tools.diagnose import DiagnoseResult
from tools.fit import FitResult
from tools.gpu_search import FindGpusResult, GpuSpecsResult
from tools.recommend import RecommendResult
from tools.speed import SpeedResult
from tools.tco import TcoResult
from tools.vram import VramResult
from tools.workstation import WorkstationPlan


def tool_label(name: str, lang: str) -> str:
    """'estimate_vram' -> 'Memory estimate' / '显存估算' (the name itself for a tool without a label)."""
    return t(lang, f"tool.{name}") if has(f"tool.{name}") else name


def _gpu_list(rows: list[Any], lang: str) -> str:
    sep = "、" if lang == "zh" else ", "
    return sep.join(short_gpu_name(g.name) for g in rows[:4])


def _vram(r: VramResult, lang: str) -> str:
    return t(lang, "bubble.vram", gib=r.per_gpu_gib, model=r.model, mode=t(lang, f"method.{r.mode}"))


def _speed(r: SpeedResult, lang: str) -> str:
    gpu = short_gpu_name(r.gpu)
    if r.training_tokens_per_s is not None:
        return t(lang, "bubble.speed_training", tps=r.training_tokens_per_s, gpu=gpu)
    return t(lang, "bubble.speed_decode", tps=r.decode_tokens_per_s or 0, gpu=gpu)


def _tco(r: TcoResult, lang: str) -> str:
    from tools.notes import money

    return t(lang, "bubble.tco", buy=money(r.buy_total, r.currency), cheapest=label("option_label", r.cheapest, lang))


def _recommend(r: RecommendResult, lang: str) -> str:
    p = r.primary
    if p is None:
        return t(lang, "r_nothing_fits")
    condition = label("rec_condition", p.condition, lang).strip()
    return t(lang, "bubble.recommend", n=p.count, gpu=short_gpu_name(p.gpu), condition=condition)


def _fit(r: FitResult, lang: str) -> str:
    if r.best_precision is None:
        return t(lang, "bubble.fit_none", gpu=short_gpu_name(r.gpu))
    context = f"{r.max_context:,}" if r.max_context else "-"
    return t(lang, "bubble.fit", precision=r.best_precision, context=context)


def _compare(r: CompareResult, lang: str) -> str:
    pick = short_gpu_name(r.verdict.gpu) if r.verdict.gpu else (r.verdict.label or "-")
    return t(lang, "bubble.compare", n=len(r.rows), pick=pick)


def _search(r: SearchResult, lang: str) -> str:
    titles = list(dict.fromkeys(p.title for p in r.passages))
    return t(lang, "bubble.search", n=len(r.passages), titles=" · ".join(titles[:2]))


def _workstation(r: WorkstationPlan, lang: str) -> str:
    return t(lang, "bubble.workstation", psu=r.psu_w, ram=r.system_ram_gib)


def _diagnose(r: DiagnoseResult, lang: str) -> str:
    """The verdict in numbers, then the first cause in one clause (its `head`, in `lang`)."""
    first = r.causes[0].head if r.causes and r.causes[0].head is not None else None
    cause = first.render(lang) if first is not None else t(lang, "bubble.diagnose_no_cause")
    if r.gap and r.ceiling_tokens_per_s:
        return t(lang, "bubble.diagnose_gap", gap=r.gap, ceiling=r.ceiling_tokens_per_s, cause=cause)
    if r.memory_per_gpu_gib is not None and r.usable_gib_per_gpu and r.symptom in ("oom", "memory_high"):
        return t(lang, "bubble.diagnose_memory", need=r.memory_per_gpu_gib, usable=r.usable_gib_per_gpu, cause=cause)
    return t(lang, "bubble.diagnose", cause=cause)


SUMMARIES: dict[type[BaseModel], Callable[[Any, str], str]] = {
    DiagnoseResult: _diagnose,
    VramResult: _vram,
    SpeedResult: _speed,
    TcoResult: _tco,
    RecommendResult: _recommend,
    FindGpusResult: lambda r, lang: _gpu_list(r.gpus, lang),
    GpuSpecsResult: lambda r, lang: _gpu_list(r.gpus, lang),
    WorkstationPlan: _workstation,
    FitResult: _fit,
    CompareResult: _compare,
    SearchResult: _search,
}


def result_line(result: Any, fallback: str, lang: str) -> str:
    """One line on what a tool found, in `lang`; `fallback` (the Advisor's line) for other results."""
    summarize = SUMMARIES.get(type(result))
    if summarize is None:
        return fallback
    try:
        return summarize(result, lang)
    except (KeyError, ValueError, AttributeError):  # a label the catalog lacks: the Advisor's line will do
        return fallback
