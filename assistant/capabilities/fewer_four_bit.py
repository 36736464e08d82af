"""The cost of cards that already hold the model ("Mixtral + TGI on ml.g5.48xlarge is expensive, must it all fit
in VRAM?"): serving engines (vLLM, TGI, SGLang) keep the whole model in GPU memory, so fewer GPUs means a smaller
format; at 4-bit (AWQ / GPTQ) the count of the same card that holds it is what cuts the bill."""

from __future__ import annotations

from assistant.capabilities.base import PlanContext, Turn
from assistant.capabilities.workload import vram_args
from assistant.strings import Writer
from assistant.toolset import ToolName
from tools.precision import resolve_precision
from tools.vram import VramResult

OWNER = "fewer_four_bit"  # the 4-bit estimate is an example: it never changes the conversation's scenario
_FOUR = "awq"


def plan_fewer(ctx: PlanContext) -> None:
    """Several cards named for serving a model as published, and the bill asked about: size the 4-bit build on
    the same cards too."""
    s = ctx.scenario
    if "cost" not in ctx.parsed.intents or not s.gpu or (s.num_gpus or 1) < 2 or (s.mode or "inference") != "inference":
        return
    if (s.precision and resolve_precision(s.precision).bits < 16) or s.engine in ("llama.cpp", "ollama"):
        return
    ctx.add(OWNER, ToolName.ESTIMATE_VRAM, **vram_args(s.model_copy(update={"precision": _FOUR})))


def fewer_at_four_bit(w: Writer, turn: Turn, r: VramResult) -> None:
    """The cards hold the model as published (`r`): how many of them hold its 4-bit build."""
    fit = r.fit
    if fit is None or not fit.fits or resolve_precision(r.precision).bits < 16:
        return
    for i, four in turn.own_indexed(OWNER, VramResult):
        f4 = four.fit
        if i in turn.shown or f4 is None or not f4.gpus_needed or f4.per_gpu_gib_needed is None:
            continue
        turn.shown.add(i)
        if f4.gpus_needed >= fit.num_gpus:
            return
        w.say(
            "fewer_at_four_bit",
            model=four.model,
            needed=f4.gpus_needed,
            gpu=fit.gpu,
            n=fit.num_gpus,
            need=f4.per_gpu_gib_needed,
        )
        return
