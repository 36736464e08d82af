"""RAM: how much system memory to buy next to the cards, and whether more makes a model faster ("I have a 3090,
I can order up to 192GB of RAM, will it make a big difference?", "will 96GB of RAM give the same speed as 256GB?").

System RAM only holds what is not on the GPUs (plus the OS while loading): a model that fits the cards runs at
GPU speed whatever the RAM; one that does not runs the spilled part from RAM at RAM bandwidth, and needs that much
RAM. So the answer sizes two models with the calculators: the biggest common one the cards hold at 4-bit, and the
user's model (else the next size up) with its spill in RAM (`estimate_offload`), and says the RAM that takes.
"""

from __future__ import annotations

from typing import Any

from assistant.capabilities.base import Capability, PlanContext, Turn
from assistant.strings import Writer
from assistant.toolset import ToolName
from tools import advice
from tools.catalog import catalog
from tools.offload import OffloadResult
from tools.recommend import RecommendResult
from tools.vram import VramResult

_FORMAT = "q4_k_m"  # what runs on one person's cards and spills into RAM (llama.cpp / Ollama)


def _tiers(card_gib: float) -> tuple[str, str | None]:
    """(the biggest common model a card of this size holds at 4-bit, the next size up), advice.yaml tiers."""
    rows = advice.policy()["reference_model_by_memory"]
    i = next(i for i, r in enumerate(rows) if card_gib >= r["min_gib"])
    return rows[i]["model"], (rows[i - 1]["model"] if i > 0 else None)


class Ram(Capability):
    intent = "ram"
    owns = ()
    guides_topic = "CPU offload system RAM memory bandwidth llama.cpp layers experts"

    def plan(self, ctx: PlanContext) -> None:
        s = ctx.scenario
        gpu = catalog().get(s.gpu or "")
        n = s.num_gpus or 1
        ctx.intents = [i for i in ctx.intents if i != "concept"]  # the RAM figure answers it
        ref: dict[str, Any] = {"model": s.model} if s.model else ({"params_b": s.params_b} if s.params_b else {})
        if gpu is not None:
            fits, bigger = _tiers(gpu.usable_memory_gib * n)
            base = dict(precision=_FORMAT, context_tokens=advice.default_context("inference", personal=True))
            ctx.add(self.intent, ToolName.ESTIMATE_VRAM, model=fits, mode="inference", num_gpus=n, gpu=gpu.id, **base)
            spill = ref or ({"model": bigger} if bigger else {})
            if spill:
                ctx.add(self.intent, ToolName.ESTIMATE_OFFLOAD, **spill, **base, gpu=gpu.id, num_gpus=n)
        elif ref:  # no card named: what the RAM must hold to run the model at all, and how fast from RAM alone
            ctx.add(self.intent, ToolName.ESTIMATE_OFFLOAD, **ref, precision=_FORMAT)

    def records(self, tool: ToolName) -> bool:
        return False  # reference models, not the user's workload

    def phase(self, turn: Turn) -> int:
        return -1  # the RAM question is the one asked: its verdict leads

    def render(self, w: Writer, turn: Turn) -> None:
        # the most RAM named is the amount being weighed ("64 or better 128 ... I can order up to 192GB")
        said = max([*turn.parsed.ram_mentions, turn.plan.scenario.ram_gib or 0]) or None
        fits = next(iter(turn.own(self.intent, VramResult)), None)
        for o in turn.own(self.intent, OffloadResult):
            if fits is not None and fits.fit is not None:
                key = "ram_lead_over" if said and said > o.ram_needed_gib else "ram_lead_gpu"
                w.say(
                    key,
                    said=said or 0,
                    gpu=fits.fit.gpu,
                    n=fits.fit.num_gpus,
                    fit_model=fits.model,
                    fit_gib=fits.per_gpu_gib,
                    big=o.model,
                    precision=o.precision,
                    in_ram=o.in_ram_gib,
                    ram=o.ram_needed_gib,
                    tps=o.decode_tokens_per_s,
                )
            else:
                pick = next((r.primary for _, r in turn.results(RecommendResult) if r.primary is not None), None)
                cards = w.t("ram_cards", n=pick.count, gpu=pick.gpu) if pick and pick.deployment == "local" else ""
                w.say(
                    "ram_lead_cpu",
                    cards=cards,
                    model=o.model,
                    precision=o.precision,
                    weights=o.weights_gib,
                    ram=o.ram_needed_gib,
                    tps=o.decode_tokens_per_s,
                    memory=o.ram.memory.upper(),
                )
