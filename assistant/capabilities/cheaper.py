"""The cheapest way that works: when a job does not fit the GPUs the user named, the next cheaper way that
might (advice.md §5): full -> LoRA -> QLoRA -> a shorter sequence; 16-bit -> FP8 -> 4-bit for inference;
and, when even that does not fit, the 80 GB card that would.

It is not a question anyone asks by name: memory and fit answers call on it in their second round, so it
has no intent keywords, and its estimates are examples that never change the conversation's scenario.
"""

from __future__ import annotations

from assistant.capabilities.base import Capability, Outcome, Plan, ToolCall, Turn
from assistant.capabilities.memory import first_vram
from assistant.capabilities.workload import vram_args
from assistant.scenario import Scenario
from assistant.strings import Writer
from assistant.toolset import ToolName
from tools.vram import VramResult

_SHORTEST_SEQUENCE = 1024
_BIG_CARD = "a100-80gb-pcie"  # the widely rented 80 GB card a too-big job moves to


def _cheaper(s: Scenario, first: VramResult) -> Scenario | None:
    """The next cheaper way of the same job, or None when there is none left."""
    mode = first.mode
    if mode == "full":
        return s.model_copy(update={"mode": "lora", "precision": None})
    if mode == "lora":
        return s.model_copy(update={"mode": "qlora", "precision": None})
    if mode == "qlora" and first.context_tokens > _SHORTEST_SEQUENCE:
        return s.model_copy(update={"context_tokens": _SHORTEST_SEQUENCE})
    if mode == "inference" and first.precision in ("bf16", "fp16", "fp32"):
        return s.model_copy(update={"precision": "awq"})
    if mode == "inference" and first.precision not in ("q3_k_m", "q2_k") and first.context_tokens > 4096:
        # the same format as sized (a default may have chosen it), at a shorter context
        return s.model_copy(update={"context_tokens": 4096, "precision": first.precision})
    return None


class CheaperWay(Capability):
    intent = "cheaper_way"
    cites_guides = False
    render_phase = 1  # right after the answer it improves on

    def second_round(self, plan: Plan, outcomes: list[Outcome]) -> list[ToolCall]:
        first = first_vram(outcomes)
        if first is None or first.fit is None or first.fit.fits:
            return []
        s = plan.scenario.model_copy(update={"num_gpus": first.fit.num_gpus})
        ways: list[Scenario] = []
        cheaper = _cheaper(s, first)
        if cheaper is not None:
            if cheaper.mode != first.mode:
                cheaper.num_gpus = 1  # "两张4090全参不行": LoRA on ONE of them is the cheapest way that works
            ways.append(cheaper)
        last_method = cheaper is None or cheaper.mode == first.mode  # nothing left but a shorter sequence
        if first.mode != "inference" and last_method and first.fit.capacity_gib < 80:
            ways.append(s.model_copy(update={"gpu": _BIG_CARD, "num_gpus": 1}))  # QLoRA of a 70B on a 48 GB card
        return [ToolCall(name=ToolName.ESTIMATE_VRAM, args=vram_args(w), owner=self.intent) for w in ways]

    def render(self, w: Writer, turn: Turn) -> None:
        for i, r in turn.own_indexed(self.intent, VramResult):
            if r.fit is None or i in turn.shown:  # the fit answer may already lead with it
                continue
            bigger = r.fit.gpu_id == _BIG_CARD and turn.plan.scenario.gpu != _BIG_CARD
            key = ("bigger_card_fits" if bigger else "cheaper_fits") if r.fit.fits else "cheaper_still_not"
            w.say(
                key,
                model=r.model,
                method=w.label("method", r.mode),
                precision=r.precision,
                context=r.context_tokens,
                need=r.per_gpu_gib,
                n=r.fit.num_gpus,
                gpu=r.fit.gpu,
                usable=r.fit.usable_gib_per_gpu,
                needed=r.fit.gpus_needed or 0,
            )

    def records(self, tool: ToolName) -> bool:
        return False  # a way the user did not choose: an example, not the scenario
