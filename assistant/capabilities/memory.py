"""Memory: how much GPU memory a workload needs, and whether it fits on the GPU the user names."""

from __future__ import annotations

from typing import Any, ClassVar

from pydantic import BaseModel

from assistant.capabilities.base import Capability, Outcome, Plan, PlanContext, ToolCall, Turn
from assistant.capabilities.workload import specs_args, speed_args, vram_args
from assistant.strings import Writer
from assistant.toolset import ToolName
from tools.notes import render_all
from tools.precision import resolve_precision
from tools.sizing import engine_for, fits_capacity, headroom_for
from tools.vram import VramResult

TOPICS = {  # retrieval words for a workload, by method (the fit capability shares them)
    "inference": "KV cache memory inference",
    "full": "training memory optimizer states",
    "lora": "LoRA training memory",
    "qlora": "QLoRA 4-bit training memory",
}


def memory_lines(
    w: Writer, r: VramResult, detail: bool = True, capacity_gib: float | None = None, lead: bool = True
) -> None:
    """The memory figure, its breakdown and the fit verdict (the one fit rule: `VramResult.fit`); `lead`
    False when the caller has already said the verdict."""
    n = r.num_gpus
    if lead:
        verdict(w, r, capacity_gib)  # the yes/no comes first; the figures that carry it follow
    total_part = w.t("memory_total_part", total=r.total_gib, n=n) if n > 1 else ""
    if r.mode != "inference" and n > 1 and r.zero_stage:
        total_part += w.t("memory_zero_part", stage=r.zero_stage)
    w.say(
        "memory_head",
        model=r.model,
        mode_label=w.label("method", r.mode),
        precision=r.precision,
        context=r.context_tokens,
        batch=r.batch,
        per_gpu=r.per_gpu_gib,
        total_part=total_part,
    )
    items = [f"{w.label('component', k)} {v:.2f} GiB" for k, v in r.per_gpu_breakdown_gib.items() if v >= 0.005]
    w.say("breakdown", items=", ".join(items))
    if detail:
        w.bullets("assumptions_head", render_all(r.assumptions[:5], w.lang), limit=5)
        w.bullets("warnings_head", render_all(r.warnings, w.lang))


def verdict(w: Writer, r: VramResult, capacity_gib: float | None = None) -> None:
    """Fits / does not fit on the named GPU (and how many it needs), or on a card size the user named."""
    fit = r.fit
    if fit is not None:
        shared: dict[str, Any] = dict(
            gpu=fit.gpu, vram=fit.capacity_gib, usable=fit.usable_gib_per_gpu, engine=w.label("engine", fit.engine)
        )
        if fit.fits:
            w.say("fits" if fit.num_gpus == 1 else "fits_n", n=fit.num_gpus, headroom=fit.headroom, **shared)
        elif fit.gpus_needed:
            w.say("not_fits_needs", n=fit.num_gpus, needed=fit.gpus_needed, **shared)
        else:
            w.say("not_fits", n=fit.num_gpus, **shared)
    elif capacity_gib:
        engine = engine_for(None, r.mode, resolve_precision(r.precision).kind)
        headroom = headroom_for(engine)
        fits = fits_capacity(r.per_gpu_gib, capacity_gib, headroom)
        key = "fits_capacity" if fits else "not_fits_capacity"
        w.say(key, vram=capacity_gib, headroom=headroom, engine=w.label("engine", engine))


def sized_lines(w: Writer, results: list[VramResult], capacity_gib: float | None = None) -> None:
    """Estimates in reading order. When a first estimate on one GPU was sized up to the count the job needs,
    the count comes first ("needs 16 × H100") and only the estimate on that count is broken down."""
    first, last = (results[0], results[-1]) if results else (None, None)
    sized = first is not None and last is not None and first is not last and first.fit is not None
    if sized and first.fit is not None and not first.fit.fits and first.fit.gpus_needed == last.num_gpus:
        fit = first.fit
        setup = w.t("needs_setup_training") if last.mode != "inference" and last.zero_stage == 3 else ""
        w.say(
            "needs_gpus",
            needed=fit.gpus_needed,
            gpu=fit.gpu,
            setup=setup,
            one=first.per_gpu_gib,
            usable=fit.usable_gib_per_gpu,
        )
        memory_lines(w, last, detail=True, capacity_gib=capacity_gib)
        return
    for i, r in enumerate(results):
        memory_lines(w, r, detail=i == len(results) - 1, capacity_gib=capacity_gib)


def sizing_calls(plan: Plan, first: VramResult | None, owner: str, then_speed: bool) -> list[ToolCall]:
    """After a first estimate on one GPU: the estimate on the count it needs (and speed on that count)."""
    if first is None or first.fit is None or first.fit.gpus_needed is None:
        return []
    count = first.fit.gpus_needed
    s = plan.scenario.model_copy(update={"num_gpus": count})
    calls = [] if count == 1 else [ToolCall(name=ToolName.ESTIMATE_VRAM, args=vram_args(s, count), owner=owner)]
    if then_speed:
        calls.append(ToolCall(name=ToolName.ESTIMATE_SPEED, args=speed_args(s), owner=owner))
    return calls


def first_vram(outcomes: list[Outcome]) -> VramResult | None:
    """The first round's estimate sized for the named GPU (shared when memory and speed both asked)."""
    return next((o.result for o in outcomes if isinstance(o.result, VramResult) and o.result.fit is not None), None)


class Memory(Capability):
    intent = "memory"
    owns = (ToolName.ESTIMATE_VRAM,)
    scenario_fields: ClassVar[dict[ToolName, dict[str, str]]] = {
        ToolName.ESTIMATE_VRAM: {
            "model": "model",
            "params_b": "params_b",
            "mode": "mode",
            "precision": "precision",
            "kv_dtype": "kv_dtype",
            "context_tokens": "context_tokens",
            "batch": "batch",
            "num_gpus": "num_gpus",
            "lora_rank": "lora_rank",
            "optimizer": "optimizer",
            "zero_stage": "zero_stage",
            "gpu": "gpu",
        }
    }
    needs_model = True

    def topic(self, ctx: PlanContext) -> str | None:
        return TOPICS.get(ctx.scenario.mode or "inference")

    def plan(self, ctx: PlanContext) -> None:
        s = ctx.scenario
        ctx.add(self.intent, ToolName.ESTIMATE_VRAM, **vram_args(s))
        if s.gpu:
            ctx.add(self.intent, ToolName.GPU_SPECS, **specs_args(s, [s.gpu]))
            if s.num_gpus is None:  # "70B on H100s": size the count from the first estimate
                ctx.second_round.append(self.intent)
            ctx.second_round.append("cheaper_way")  # if it does not fit: the next cheaper way that might

    def second_round(self, plan: Plan, outcomes: list[Outcome]) -> list[ToolCall]:
        return sizing_calls(plan, first_vram(outcomes), self.intent, then_speed=False)

    def render(self, w: Writer, turn: Turn) -> None:
        sized_lines(w, turn.own(self.intent, VramResult), turn.parsed.stated_capacity_gib)

    def summary(self, tool: ToolName, result: BaseModel, lang: str) -> str:
        if not isinstance(result, VramResult):
            return str(tool)
        return f"{result.per_gpu_gib} GiB per GPU ({result.model}, {result.mode})"
