"""Fit: what a model can do on GPUs the user has — best precision, longest context, concurrent users."""

from __future__ import annotations

from typing import ClassVar

from pydantic import BaseModel

from assistant.capabilities.base import Capability, PlanContext, Turn
from assistant.capabilities.memory import memory_lines
from assistant.capabilities.speed import speed_lines
from assistant.capabilities.workload import specs_args, speed_args, vram_args, workload_args
from assistant.strings import Writer
from assistant.toolset import ToolName
from tools import advice
from tools.fit import FitResult
from tools.notes import note, render_all
from tools.speed import SpeedResult
from tools.vram import VramResult


def fit_lines(w: Writer, r: FitResult, asked: str | None = None) -> None:
    """What fits; `asked`: the format the user named ("70b q4"), answered yes or no first."""
    if r.best_precision is None:
        w.say("fit_none", model=r.model, n=r.num_gpus, gpu=r.gpu, limiting=r.limiting.render(w.lang))
        return
    w.say(
        "fit_line_asked" if asked and asked == r.best_precision else "fit_line",
        model=r.model,
        n=r.num_gpus,
        gpu=r.gpu,
        usable=r.usable_gib_per_gpu,
        precision=r.best_precision,
        max_context=r.max_context,
        context=r.memory_at_answer.context_tokens if r.memory_at_answer else 0,
        need=r.memory_at_answer.per_gpu_gib if r.memory_at_answer else 0,
        max_seq=r.max_concurrent_sequences or 0,
        limiting=r.limiting.render(w.lang),
    )
    w.bullets("warnings_head", render_all(r.warnings, w.lang), limit=3)


def _personal(ctx: PlanContext) -> bool:
    """One person's local use: a desk-side card, no precision chosen, one or two conversations."""
    from tools.catalog import resolve_gpu
    from tools.errors import AdvisorError

    s = ctx.scenario
    if s.precision or (s.batch or 1) > 2 or s.serving or s.users:
        return False
    try:
        gpu, _ = resolve_gpu(s.gpu or "")
    except AdvisorError:
        return False
    return gpu.segment in ("consumer", "workstation", "apple")


def _shorter_context(turn: Turn, first: VramResult) -> tuple[int, VramResult] | None:
    """The same model and format at a shorter context that fits, when the context was a default: the answer
    to "can I run it" is then yes, at that context."""
    if turn.parsed.context_tokens is not None or first.fit is None or first.fit.fits or first.num_gpus != 1:
        return None
    for i, r in turn.own_indexed("cheaper_way", VramResult):
        same_way = r.precision == first.precision and r.mode == first.mode and r.num_gpus == first.num_gpus
        if same_way and r.fit is not None and r.fit.fits and r.context_tokens < first.context_tokens:
            return i, r
    return None


class Fit(Capability):
    intent = "fit"
    owns = (ToolName.FIT_ON_GPU,)
    scenario_fields: ClassVar[dict[ToolName, dict[str, str]]] = {
        ToolName.FIT_ON_GPU: {
            "model": "model",
            "params_b": "params_b",
            "gpu": "gpu",
            "num_gpus": "num_gpus",
            "precision": "precision",
            "context_tokens": "context_tokens",
        }
    }
    needs_model = True
    guides_topic = "KV cache context length concurrent users GPU memory"

    def topic(self, ctx: PlanContext) -> str | None:
        """Training on the card reads like training memory, not serving; a modded card's risks are a topic."""
        from assistant.capabilities.memory import TOPICS
        from tools.catalog import catalog

        card = catalog().get(ctx.scenario.gpu or "")
        if card is not None and card.unofficial:  # "魔改 4090 48G 靠谱吗": whether to trust the card comes first
            return "modified memory mod card warranty risk 魔改 改装 保修"
        mode = ctx.scenario.mode or "inference"
        if mode != "inference":
            return TOPICS.get(mode, TOPICS["full"])
        return "VRAM capacity weights bytes per parameter 4-bit quantization" if _personal(ctx) else self.guides_topic

    def plan(self, ctx: PlanContext) -> None:
        s = ctx.scenario
        if not s.gpu:
            ctx.need("need_gpu")
            return
        w = workload_args(s)
        ctx.second_round.append("cheaper_way")  # if it does not fit: the next cheaper way that might
        if w["mode"] != "inference":  # training: the memory estimate sized for that GPU answers it
            ctx.add(self.intent, ToolName.ESTIMATE_VRAM, **vram_args(s))
            ctx.add(self.intent, ToolName.GPU_SPECS, **specs_args(s, [s.gpu]))
            return
        ref = {k: w[k] for k in ("model", "params_b") if k in w}
        precision = {"precision": s.precision} if s.precision else {}
        if _personal(ctx):
            self._personal_defaults(ctx)
        ctx.add(
            self.intent,
            ToolName.FIT_ON_GPU,
            **ref,
            gpu=s.gpu,
            num_gpus=s.num_gpus or 1,
            # one context per answer: a personal chat's default when the personal estimate above used it
            context_tokens=s.context_tokens or advice.default_context("inference", personal=_personal(ctx)),
            **precision,
        )

    def _personal_defaults(self, ctx: PlanContext) -> None:
        """ "4060 Ti 跑 14B 够不够": one person's local chat runs a 4-bit GGUF at 8k (advice.md §2): size and
        time exactly that first, then say what else fits."""
        s = ctx.scenario
        local = s.model_copy(
            update={
                "precision": advice.policy()["default_precision"]["personal_inference"],
                "context_tokens": s.context_tokens or advice.default_context("inference", personal=True),
            }
        )
        ctx.add(self.intent, ToolName.ESTIMATE_VRAM, **vram_args(local))
        ctx.add(self.intent, ToolName.ESTIMATE_SPEED, **speed_args(local))
        ctx.notes.append(note("default_precision_personal_inference", precision=local.precision))

    def render(self, w: Writer, turn: Turn) -> None:
        sized = turn.own(self.intent, VramResult)
        shorter = _shorter_context(turn, sized[0]) if sized else None
        if shorter is not None:  # "48G 卡跑 70B": yes, at 4k; the default 8k is just over
            i, r = shorter
            turn.shown.add(i)
            assert r.fit is not None
            w.say(
                "fits_shorter_context",
                model=r.model,
                precision=r.precision,
                context=r.context_tokens,
                need=r.per_gpu_gib,
                gpu=r.fit.gpu,
                usable=r.fit.usable_gib_per_gpu,
                default_context=sized[0].context_tokens,
                default_need=sized[0].per_gpu_gib,
            )
        for i, r in enumerate(sized):
            memory_lines(w, r, detail=i == len(sized) - 1, lead=shorter is None)
        for r in turn.own(self.intent, SpeedResult):
            speed_lines(w, r)
        for r in turn.own(self.intent, FitResult):
            fit_lines(w, r, asked=turn.plan.scenario.precision)

    def summary(self, tool: ToolName, result: BaseModel, lang: str) -> str:
        if not isinstance(result, FitResult):
            return str(tool)
        return f"best {result.best_precision}, max context {result.max_context}"
