"""Buy instead: a card the user is about to buy for a model ("Will Ollama run dolphin-mixtral on a 1080 Ti? I'm
about to buy one") that does not hold it: the card that would, said after the verdict on theirs.

The card is one person's best memory for the money (advice.yaml pc_reference_gpu, a used RTX 3090), sized for the
same job; how many of it hold the job comes from `estimate_vram`'s fit. Nothing is said when the card named fits.
"""

from __future__ import annotations

from assistant.capabilities.base import Capability, PlanContext, Turn
from assistant.capabilities.workload import vram_args
from assistant.strings import Writer
from assistant.toolset import ToolName
from tools.advice import pc_reference_gpu
from tools.boards import sized_on
from tools.vram import VramResult


class BuyInstead(Capability):
    intent = "buy_instead"
    cites_guides = False
    render_phase = 2  # after the verdict on the card named

    def plan(self, ctx: PlanContext) -> None:
        s, parsed = ctx.scenario, ctx.parsed
        if parsed.buy_or_rent != "buy" or not s.gpu or not ctx.has_model:
            return
        if set(ctx.intents) & {"recommend", "compare", "build"} or s.gpu == pc_reference_gpu():
            return  # a purchase already weighed, or the reference card itself
        ctx.add(self.intent, ToolName.ESTIMATE_VRAM, **(vram_args(s, num_gpus=1) | {"gpu": pc_reference_gpu()}))

    def records(self, tool: ToolName) -> bool:
        return False  # a card the user did not name: an example, not the scenario

    def render(self, w: Writer, turn: Turn) -> None:
        s = turn.plan.scenario
        count = s.num_gpus or 1  # on the cards as named: "2 of them would" is this line's job, not a verdict
        asked = {r.model for r in turn.own(self.intent, VramResult)}  # a smaller model tried on theirs is no verdict
        theirs = [
            r
            for _, r in turn.results(VramResult)
            if r.fit and r.model in asked and sized_on(r.fit.gpu_id, r.fit.num_gpus, s.gpu, count)
        ]
        if not theirs or any(r.fit is not None and r.fit.fits for r in theirs):
            return
        for r in turn.own(self.intent, VramResult):
            f = r.fit
            if f is None or not (f.fits or f.gpus_needed):
                continue
            n = 1 if f.fits else f.gpus_needed
            w.say(
                "buy_instead",
                model=r.model,
                precision=r.precision,
                need=r.per_gpu_gib,
                n=n,
                gpu=f.gpu,
                cap=f.capacity_gib,
            )
