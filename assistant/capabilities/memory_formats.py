"""Memory formats: "how much VRAM does Qwen2-57B-A14B need?", "Llama-3.1-70B 要多少显存" with no card and no
format named. The answer depends on the format more than on anything else, so an expert's first sentence gives the
memory as published, at 8-bit and at 4-bit, each with the card that holds it (advice.md §9: "what every answer of a
kind must contain"); the breakdown of the published format follows (memory.py).

The figures are `estimate_vram` on one GPU at each format (advice.yaml `card_count`: AWQ for 4-bit, INT8
weight-only for 8-bit); the card each needs is card_needed.py's second round, which sizes every estimate made
without a card. The formats are examples the user did not choose: they never change the scenario. Several models
(card_count.py's parts), a card named (fit, card_count), a format named, and models too big for any card
(big_model.py) are answered elsewhere.
"""

from __future__ import annotations

from assistant.capabilities.base import Capability, PlanContext, Turn
from assistant.capabilities.big_model import too_big_for_cards
from assistant.capabilities.card_needed import card_for
from assistant.capabilities.workload import vram_args
from assistant.strings import Writer
from assistant.toolset import ToolName
from tools.advice import policy
from tools.vram import VramResult

_ANSWERED_ELSEWHERE = {"fit", "recommend", "diagnose", "capacity", "speed", "cost", "offload", "ram"}


def plan_formats(ctx: PlanContext) -> None:
    """Called by memory.py: the 8-bit and 4-bit estimates beside a plain memory question about one model."""
    s, parsed = ctx.scenario, ctx.parsed
    if s.gpu or s.precision or parsed.stated_capacity_gib or (s.mode or "inference") != "inference":
        return
    if len(parsed.models_mentioned) > 1 or _ANSWERED_ELSEWHERE & set(ctx.intents) or parsed.asks_minimum:
        return
    if too_big_for_cards(s.model):
        return  # servers and RAM offload answer it (big_model.py)
    rules = policy()["card_count"]
    for precision in (rules["eight_bit"], rules["four_bit"]):
        at = s.model_copy(update={"precision": precision})
        ctx.add(MemoryFormats.intent, ToolName.ESTIMATE_VRAM, **vram_args(at))


class MemoryFormats(Capability):
    intent = "memory_formats"
    cites_guides = False
    render_phase = -1  # the lead: the memory at each format, then the published one's breakdown

    def records(self, tool: ToolName) -> bool:
        return False  # formats the user did not choose: examples, not the scenario

    def render(self, w: Writer, turn: Turn) -> None:
        published = next((r for r in turn.own("memory", VramResult) if r.fit is None and r.num_gpus == 1), None)
        if published is None:
            return
        items = []
        for r in [published, *turn.own(self.intent, VramResult)]:
            found = card_for(turn, r)
            fit = found[1].fit if found is not None else None
            label = w.label("format", r.precision)
            if fit is not None and fit.fits:
                card = w.t("formats_one_card", gpu=fit.gpu)
            elif fit is not None and fit.gpus_needed:
                card = w.t("formats_n_cards", n=fit.gpus_needed, gpu=fit.gpu)
            else:
                card = ""
            if found is not None and r is not published:
                turn.shown.add(found[0])  # its card is said here, not again below
            items.append(w.t("formats_item", format=label, need=r.per_gpu_gib, card=card))
        if len(items) < 2:
            return
        sep = "；" if w.lang == "zh" else "; "
        w.say("formats_lead", model=published.model, items=sep.join(items))
