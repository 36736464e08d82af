"""PooledCards: several cards named only by their memory, for a training job ("两张 24G 能 LoRA 微调 ChatGLM3 吗，双卡
显存能叠加吗", "Is 8*24G possible for a QLoRA of Qwen2-72B?").

Whether the cards' memory adds up is the question under every such message, and the expert's first sentence
answers it: when one card already holds the job, the other cards are plain data parallel (DDP: a whole copy on each,
more speed, not more room); when it does not, they hold it only sharded (DeepSpeed ZeRO-3 / FSDP, or FSDP+QLoRA),
and plain data parallel runs out of memory. The same rule as tools/vram.py _training_strategy for named cards
(memory.py fits_ddp / fits_sharded), here on a card size."""

from __future__ import annotations

from assistant.capabilities.base import Capability, PlanContext, Turn
from assistant.capabilities.workload import vram_args
from assistant.strings import Writer
from assistant.toolset import ToolName
from tools.precision import resolve_precision
from tools.sizing import engine_for, fits_capacity, headroom_for
from tools.vram import VramResult

_TRAINING = ("full", "lora", "qlora")


_COUNTS = (2, 4, 8)  # "how many cards of this size": the counts a machine holds, sharded


def plan_pooled(ctx: PlanContext) -> None:
    """The job on ONE card of the size named, next to the estimate on all of them (which is sharded, ZeRO-3);
    with no count said ("多张显卡可以吗", "how many 24G cards"), sharded on 2, 4 and 8 of them too."""
    s, q = ctx.scenario, ctx.parsed
    counted = (s.num_gpus or 1) >= 2
    if s.gpu or not q.stated_capacity_gib or s.mode not in _TRAINING or not (counted or q.asks_gpu_count):
        return
    if s.zero_stage is not None:
        return  # a ZeRO stage the user set is the layout asked about, not a choice to explain
    ctx.add(PooledCards.intent, ToolName.ESTIMATE_VRAM, **vram_args(s, num_gpus=1))
    if not counted:
        for n in _COUNTS:
            ctx.add(PooledCards.intent, ToolName.ESTIMATE_VRAM, **vram_args(s, num_gpus=n))


def _planned(turn: Turn) -> list[VramResult]:
    """The estimates this capability planned, those shared with another's identical call included."""
    return [
        r
        for i, r in turn.results(VramResult)
        if PooledCards.intent in (turn.outcomes[i].call.owner, *turn.outcomes[i].call.shared_with)
    ]


def _rows(turn: Turn) -> tuple[VramResult, VramResult] | None:
    """(the job on all the cards, the job on one of them), same model and method. With no count said, "all the
    cards" is the fewest of 2, 4, 8 that hold it sharded (else 8)."""
    own = _planned(turn)
    job = next(iter(own), None)
    if job is None:
        return None
    # the job on one card: this capability's call, or memory's identical one it shares
    one = next(
        (
            r
            for i, r in turn.results(VramResult)
            if r.num_gpus == 1
            and (r.model, r.mode, r.precision) == (job.model, job.mode, job.precision)
            and turn.outcomes[i].call.owner in ("memory", PooledCards.intent)
            and r.fit is None
        ),
        None,
    )
    if one is None:
        return None
    s, capacity = turn.plan.scenario, turn.parsed.stated_capacity_gib or 0
    if s.num_gpus is None or s.num_gpus < 2:
        counts = [r for r in own if r.num_gpus > 1]
        headroom = headroom_for(engine_for(None, one.mode, resolve_precision(one.precision).kind))
        fitting = next((r for r in counts if fits_capacity(r.per_gpu_gib, capacity, headroom)), None)
        every_ = fitting or (counts[-1] if counts else None)
        return (every_, one) if every_ is not None else None
    n = s.num_gpus
    every = next(
        (
            r
            for i, r in turn.results(VramResult)
            if turn.outcomes[i].call.owner == "memory"
            and r.num_gpus == n
            and r.model == one.model
            and r.mode == one.mode
        ),
        None,
    )
    return (every, one) if every is not None else None


def pooled_lead_said(turn: Turn) -> bool:
    """The lead below answers the card-size verdict (memory.py then leaves out its one-card sentence)."""
    return _rows(turn) is not None and turn.parsed.stated_capacity_gib is not None


class PooledCards(Capability):
    intent = "pooled_cards"
    cites_guides = False
    render_phase = -2  # whether the cards' memory adds up leads, before each method's verdict on one card

    def render(self, w: Writer, turn: Turn) -> None:
        rows = _rows(turn)
        capacity = turn.parsed.stated_capacity_gib
        if rows is None or not capacity:
            return
        every, one = rows
        engine = engine_for(None, one.mode, resolve_precision(one.precision).kind)
        headroom = headroom_for(engine)
        fields = dict(vram=capacity, n=every.num_gpus, headroom=headroom, engine=w.label("engine", engine))
        counted = (turn.plan.scenario.num_gpus or 1) >= 2
        if fits_capacity(one.per_gpu_gib, capacity, headroom):
            w.say("capacity_fits_ddp" if counted else "capacity_one_enough", one=one.per_gpu_gib, **fields)
        elif fits_capacity(every.per_gpu_gib, capacity, headroom):
            how = w.t("sharding_qlora" if every.mode == "qlora" else "sharding_plain")
            w.say("capacity_fits_sharded", one=one.per_gpu_gib, need=every.per_gpu_gib, how=how, **fields)
        else:
            w.say("capacity_not_fits_sharded", one=one.per_gpu_gib, need=every.per_gpu_gib, **fields)

    def records(self, tool: ToolName) -> bool:
        return False  # one card of the size is a comparison, not the scenario
