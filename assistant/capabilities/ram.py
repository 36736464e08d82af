"""RAM: how much system memory to buy next to the cards, and whether more makes a model faster ("I have a 3090,
I can order up to 192GB of RAM, will it make a big difference?", "will 96GB of RAM give the same speed as 256GB?").

System RAM only holds what is not on the GPUs (plus the OS while loading): a model that fits the cards runs at
GPU speed whatever the RAM; one that does not runs the spilled part from RAM at RAM bandwidth, and needs that much
RAM. So the answer sizes two models with the calculators: the biggest common one the cards hold at 4-bit, and the
user's model (else the next size up) with its spill in RAM (`estimate_offload`), and says the RAM that takes.
"""

from __future__ import annotations

import re
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


def _tiers(card_gib: float, family: str | None = None) -> tuple[str, str | None]:
    """(the biggest common model a card of this size holds at 4-bit, the next size up), advice.yaml tiers; of the
    family the user named when there is one ("to work with LLaMA": LLaMA-33B and LLaMA-65B, not Qwen)."""
    rows = advice.policy()["reference_model_by_memory"]
    i = next(i for i, r in enumerate(rows) if card_gib >= r["min_gib"])
    fits, bigger = rows[i]["model"], (rows[i - 1]["model"] if i > 0 else None)
    return _of_family(family, fits, bigger) if family else (fits, bigger)


def _of_family(family: str, fits: str, bigger: str | None) -> tuple[str, str | None]:
    """The family's dense text model of the tier's size or just under, and its next size up."""
    from tools.models import registry

    def size(model_id: str) -> float:
        arch = registry()[model_id]
        return arch.official_params_b or arch.params / 1e9

    def newest(ids: list[str]) -> str:
        return max(ids, key=lambda m: registry()[m].released or "")

    text = re.compile(r"vision|-vl|-omni|-audio|coder|math", re.I)  # the family's chat models, not its specialists
    rows = [a.id for a in registry().values() if a.family == family and not a.moe and not text.search(a.id)]
    cap = size(fits) * 1.05  # "a 32B card" also holds LLaMA-33B (32.5B)
    under = [m for m in rows if size(m) <= cap]
    if not under:
        return fits, bigger
    top = max(size(m) for m in under)
    mine = newest([m for m in under if size(m) >= 0.9 * top])  # Qwen3-32B over Qwen2.5-32B: one size, newest
    over = [m for m in rows if size(m) > size(mine) * 1.2]
    if not over:
        return mine, bigger
    least = min(size(m) for m in over)
    return mine, newest([m for m in over if size(m) <= 1.1 * least])


def _within(model: str, tokens: int) -> int:
    """The default context, never past what the model was trained for (LLaMA-1: 2,048)."""
    from tools.errors import AdvisorError
    from tools.models import resolve_model

    try:
        most = resolve_model(model)[0].max_context
    except AdvisorError:
        return tokens
    return min(tokens, most) if most else tokens


class Ram(Capability):
    intent = "ram"
    owns = ()
    guides_topic = "CPU offload system RAM memory bandwidth llama.cpp layers experts"

    def plan(self, ctx: PlanContext) -> None:
        s = ctx.scenario
        if s.cpu_offload and s.mode in ("full", "lora", "qlora"):
            # "全参训练用 zero3 offload 要多少内存": the optimizer states ZeRO-Offload moves to RAM (the training
            # estimate says how much, capabilities/training.py), not a model run from RAM
            ctx.intents = [i for i in ctx.intents if i != self.intent]
            return
        gpu = catalog().get(s.gpu or "")
        n = s.num_gpus or 1
        ctx.intents = [i for i in ctx.intents if i != "concept"]  # the RAM figure answers it
        ref: dict[str, Any] = {"model": s.model} if s.model else ({"params_b": s.params_b} if s.params_b else {})
        if gpu is not None:
            fits, bigger = _tiers(gpu.usable_memory_gib * n, ctx.parsed.model_family)
            tokens = advice.default_context("inference", personal=True)
            ctx.add(
                self.intent,
                ToolName.ESTIMATE_VRAM,
                model=fits,
                mode="inference",
                num_gpus=n,
                gpu=gpu.id,
                precision=_FORMAT,
                context_tokens=_within(fits, tokens),
            )
            spill = ref or ({"model": bigger} if bigger else {})
            if spill:
                within = _within(spill["model"], tokens) if "model" in spill else tokens
                args = dict(precision=_FORMAT, context_tokens=within, gpu=gpu.id, num_gpus=n)
                if ctx.scenario.machine:  # the user's platform ("my AM5 desktop"): its channels and RAM slots
                    args["machine"] = ctx.scenario.machine
                ctx.add(self.intent, ToolName.ESTIMATE_OFFLOAD, **spill, **args)
        elif ref:  # no card named: what the RAM must hold to run the model at all, and how fast from RAM alone
            said = {"ram_gib": s.ram_gib} if s.ram_gib else {}  # "is 64GB of RAM enough?": that RAM judged
            said |= {"memory": s.ram_type} if s.ram_type else {}
            ctx.add(self.intent, ToolName.ESTIMATE_OFFLOAD, **ref, precision=_FORMAT, **said)

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
                key = "ram_lead_cpu"
                if o.ram_gib and o.strategy == "cpu":  # "is 64GB of RAM enough to run it on the CPU?": yes or no
                    key = "ram_lead_cpu_enough" if o.fits_in_ram else "ram_lead_cpu_short"
                w.say(
                    key,
                    said=o.ram_gib or 0,
                    cards=cards,
                    model=o.model,
                    precision=o.precision,
                    weights=o.weights_gib,
                    ram=o.ram_needed_gib,
                    tps=o.decode_tokens_per_s,
                    memory=o.ram.memory.upper(),
                )
