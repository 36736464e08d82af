"""OffloadCount: "how many of these cards does it take?" for a full fine-tune whose config offloads to the CPU
("deepspeed --num_gpus 2 ... ds_z3_offload_config.json ... OOM，训练llama2-7b要几张V100？").

With ZeRO-Offload the job fits almost any count on paper, yet the run the user describes ran out of memory, and the
count they ask for is the one that needs no offload. The expert's first sentence gives it (ZeRO-3 sharding without
offload, each card's share), then says that on their own count it runs only with the optimizer states in CPU RAM,
and slowly."""

from __future__ import annotations

from assistant.capabilities.base import Capability, PlanContext, Turn
from assistant.capabilities.workload import vram_args
from assistant.scenario import Scenario
from assistant.strings import Writer
from assistant.toolset import ToolName
from assistant.understanding import ParsedQuery
from tools.vram import VramResult

_COUNTS = (2, 4, 8, 16)


def _asked(parsed: ParsedQuery, s: Scenario) -> bool:
    n = s.num_gpus or 1
    return bool(parsed.asks_gpu_count and s.mode == "full" and s.cpu_offload and s.gpu and n < _COUNTS[-1])


class OffloadCount(Capability):
    intent = "offload_count"
    cites_guides = False
    render_phase = -3  # the count without offload answers "how many", before the verdict with offload

    def active(self, turn: Turn) -> bool:
        return _asked(turn.parsed, turn.plan.scenario) and bool(_rows(turn))

    def render(self, w: Writer, turn: Turn) -> None:
        s, rows = turn.plan.scenario, _rows(turn)
        fitting = next((r for r in rows if r.fit is not None and r.fit.fits), None)
        if fitting is None or fitting.fit is None:
            return
        offloaded = next(
            (
                o.result
                for o in turn.outcomes
                if isinstance(o.result, VramResult) and o.call.owner != self.intent and o.result.cpu_offload_gib
            ),
            None,
        )
        fields = dict(k=fitting.num_gpus, gpu=fitting.fit.gpu, each=fitting.per_gpu_gib, n=s.num_gpus or 1)
        if offloaded is not None:
            w.say("offload_count_lead", ram=offloaded.cpu_offload_gib, **fields)
        else:
            w.say("offload_count_lead_plain", **fields)


def plan_offload_count(ctx: PlanContext) -> None:
    """The job with no offload, ZeRO-3 sharded, on counts above the user's, to find the fewest that hold it."""
    s = ctx.scenario
    if not _asked(ctx.parsed, s):
        return
    plain = s.model_copy(update={"cpu_offload": None, "zero_stage": 3})
    for n in (c for c in _COUNTS if c > (s.num_gpus or 1)):
        ctx.add(OffloadCount.intent, ToolName.ESTIMATE_VRAM, **vram_args(plain, num_gpus=n))


def _rows(turn: Turn) -> list[VramResult]:
    return sorted(turn.own(OffloadCount.intent, VramResult), key=lambda r: r.num_gpus)
