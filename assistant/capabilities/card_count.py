"""Card count: "4090 需要几张？", "how many A100s for Llama-2-70B?" with no format named. How many of the card it
takes depends on the format more than on anything else, so the answer leads with the count at each common one:
4-bit (AWQ), 8-bit (FP8 on cards that have it, INT8 weight-only on the rest) and the model as published.

The figure per format is `estimate_vram` on one card and its fit's `gpus_needed` (the sizing rule everywhere in
GPU Advisor); the published format's count is the memory answer's own first estimate. The counts are examples of
formats the user did not choose: they never change the scenario. The formats are knowledge/data/advice.yaml
`card_count`; a model too big for any card is big_model's (servers, RAM offload), not this.
"""

from __future__ import annotations

from assistant.capabilities.base import Capability, PlanContext, Turn
from assistant.capabilities.big_model import too_big_for_cards
from assistant.capabilities.workload import vram_args
from assistant.strings import Writer
from assistant.toolset import ToolName
from tools.advice import policy
from tools.catalog import catalog
from tools.vram import VramResult


def _formats(gpu_id: str) -> list[str]:
    """The formats counted on this card: 4-bit, then 8-bit as this card runs it fast."""
    rules = policy()["card_count"]
    gpu = catalog().get(gpu_id)
    fp8 = bool(gpu and (gpu.fp8_tflops or gpu.fp8_fp32acc_tflops))
    return [rules["four_bit"], rules["eight_bit_fp8" if fp8 else "eight_bit"]]


def _count(r: VramResult) -> int | None:
    f = r.fit
    if f is None:
        return None
    return f.num_gpus if f.fits else f.gpus_needed


class CardCount(Capability):
    intent = "card_count"
    cites_guides = False
    render_phase = -1  # the counts answer "how many" and lead; the memory figures follow

    def plan(self, ctx: PlanContext) -> None:
        self._four_bit_parts(ctx)
        s, parsed = ctx.scenario, ctx.parsed
        asked = parsed.asks_gpu_count and s.gpu and s.num_gpus is None and not s.precision
        if not asked or not ctx.has_model or (s.mode or "inference") != "inference" or "memory" not in ctx.intents:
            return
        if len(parsed.models_mentioned) > 1:
            return  # "7B、14B、72B 分别要几张": each model's count leads (the parts summary), not one's formats
        if too_big_for_cards(s.model):
            return  # servers and RAM offload answer it (big_model.py)
        for precision in _formats(s.gpu or ""):
            ctx.add(self.intent, ToolName.ESTIMATE_VRAM, **vram_args(s.model_copy(update={"precision": precision}), 1))
        # the counts say what a cheaper format takes: "even at 4-bit one card does not hold it" adds nothing
        ctx.second_round = [i for i in ctx.second_round if i != "cheaper_way"]

    def _four_bit_parts(self, ctx: PlanContext) -> None:
        """ "GPU requirements for the Code Llama models": each size as published and at 4-bit, the format most
        people run (the parts summary says both, card_needed.py)."""
        s, parsed = ctx.scenario, ctx.parsed
        models = parsed.models_mentioned[: policy()["card_count"]["max_parts"]]
        if len(models) < 2 or s.precision or s.gpu or (s.mode or "inference") != "inference":
            return
        if "memory" not in ctx.intents:
            return
        four_bit = policy()["card_count"]["parts_four_bit"]
        for model in models:
            part = s.model_copy(update={"model": model, "params_b": None, "precision": four_bit})
            ctx.add(self.intent, ToolName.ESTIMATE_VRAM, **vram_args(part, 1, sized=False))

    def records(self, tool: ToolName) -> bool:
        return False  # formats the user did not choose: examples, not the scenario

    def render(self, w: Writer, turn: Turn) -> None:
        own = [r for r in turn.own(self.intent, VramResult) if r.fit is not None and _count(r)]
        published = [r for r in turn.own("memory", VramResult) if r.fit is not None and r.num_gpus == 1 and _count(r)][
            :1
        ]
        rows = sorted([*own, *published], key=lambda r: _count(r) or 0)
        if len(rows) < 2:
            return
        gpu = rows[0].fit.gpu if rows[0].fit else ""
        sep = "，" if w.lang == "zh" else ", "
        items = sep.join(w.t("count_item", format=w.label("format", r.precision), n=_count(r)) for r in rows)
        w.say("count_lead", model=rows[0].model, gpu=gpu, items=items)
