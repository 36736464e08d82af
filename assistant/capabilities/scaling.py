"""Scaling: whether more cards scale a service's throughput, asked with two card counts or layouts side by side
("双卡部署的吞吐量达不到单卡的两倍，单卡性价比更高？", "4卡/8卡 qps 没有很大区别", "TP=8 gives only 1.5x of TP=4";
understanding/scaling.py reads the question).

The expert answers the rule first, whatever else is computed after: cards added to one tensor-parallel group end every
layer in an all-reduce across all of them, so a wider group scales sub-linearly (worse over PCIe than NVLink); a model
that fits fewer cards gains throughput from more replicas of the fewest cards that hold it (data parallel behind a load
balancer), nearly in proportion. A wider group buys latency per request and KV-cache room, not throughput per card.
With a memory figure quoted and a card named, the lead says first how many of the cards one replica needs."""

from __future__ import annotations

import math

from assistant.capabilities.base import Capability, PlanContext, Turn
from assistant.strings import Writer
from assistant.toolset import ToolName
from tools.catalog import resolve_gpu
from tools.errors import AdvisorError
from tools.sizing import usable_gib


def _replica_cards(turn: Turn) -> tuple[str, float, int] | None:
    """(the card's name, the quoted need in GB, how many of the card one replica needs), when both are known."""
    p, s = turn.parsed, turn.plan.scenario
    card = s.gpu or p.gpu
    if not (p.min_vram_gib and card):
        return None
    try:
        spec = resolve_gpu(card)[0]
    except AdvisorError:
        return None
    return spec.name, p.min_vram_gib, max(1, math.ceil(p.min_vram_gib / usable_gib(spec)))


class Scaling(Capability):
    intent = "scaling"
    cites_guides = False
    render_phase = -3  # the rule answers "why not 2x?" before any sizing or spec sheet

    def active(self, turn: Turn) -> bool:
        return bool(turn.parsed.asks_scaling or turn.parsed.asks_many_small)

    def phase(self, turn: Turn) -> int:
        return self.render_phase if turn.parsed.asks_scaling else 1  # several small cards: after the comparison

    def topic(self, ctx: PlanContext) -> str | None:
        return (
            "多卡并行 张量并行 数据并行 吞吐"
            if ctx.parsed.language == "zh"
            else "multi-GPU tensor data parallel throughput"
        )

    def plan(self, ctx: PlanContext) -> None:
        card = ctx.parsed.gpu_mentions[:1] or ([ctx.scenario.gpu] if ctx.scenario.gpu else [])
        if card:  # the card one replica is set against
            ctx.add(self.intent, ToolName.GPU_SPECS, names=card)
        if not (ctx.parsed.model or ctx.parsed.params_b):  # nothing to size: the guides on parallelism back the rule
            query = f"{self.topic(ctx)} {ctx.parsed.text}"[:500]
            ctx.add("concept", ToolName.SEARCH_GUIDES, query=query, k=4, lang=ctx.parsed.language)

    def render(self, w: Writer, turn: Turn) -> None:
        if not turn.parsed.asks_scaling:
            w.say("scaling_many_small")
            return
        counts = sorted({*turn.parsed.capacity_counts, turn.parsed.num_gpus or 1})
        total = counts[-1]
        replica = _replica_cards(turn)
        if replica:
            name, need, k = replica
            if k == 1:
                w.say("scaling_need_one", need=f"{need:g}", card=name, n=max(total, 2))
            elif total >= 2 * k:
                w.say("scaling_need_k", need=f"{need:g}", card=name, k=k, n=total, r=total // k)
        w.say("scaling_lead" if turn.parsed.scaling_seen else "scaling_lead_which")
