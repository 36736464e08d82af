"""SameChip: two versions of one GPU that differ only in memory are compared ("V100 32G vs 16G for training",
"4060 Ti 8G 和 16G 出图速度差多少", "MI50 16GB or 32GB", "Quadro RTX 6000 vs 8000"): the catalog rows share the
memory bandwidth and the tensor math, so the expert says first that the bigger one is no faster — it holds a bigger
batch, a longer context or a bigger model — and, for training, that a bigger batch wants the learning rate scaled with
it. The two rows come from the cards the user named (understanding/memory_pair.py reads "8G 和 16G" of one card)."""

from __future__ import annotations

from assistant.capabilities.base import Capability, Turn
from assistant.strings import Writer
from assistant.toolset import ToolName
from tools.catalog import GpuSpec, resolve_gpu
from tools.errors import AdvisorError

_TRAINING = ("full", "lora", "qlora")
_SHOWN = (ToolName.COMPARE_GPUS, ToolName.GPU_SPECS)  # a result that carries the two rows' figures


def _tensor(g: GpuSpec) -> float | None:
    return g.bf16_tflops or g.fp16_fp32acc_tflops or g.fp16_tflops


def same_chip_pair(gpu_ids: list[str]) -> tuple[GpuSpec, GpuSpec] | None:
    """(the smaller, the bigger) version when two cards named share bandwidth and tensor math but not memory."""
    specs: list[GpuSpec] = []
    for gid in gpu_ids:
        try:
            specs.append(resolve_gpu(gid)[0])
        except AdvisorError:
            continue
    for i, a in enumerate(specs):
        for b in specs[i + 1 :]:
            same = a.bandwidth_gbs == b.bandwidth_gbs and _tensor(a) is not None and _tensor(a) == _tensor(b)
            if same and abs(a.vram_gib - b.vram_gib) >= 1 and a.vendor != "apple":
                return (a, b) if a.vram_gib < b.vram_gib else (b, a)
    return None


class SameChip(Capability):
    intent = "same_chip"
    cites_guides = False
    render_phase = -3  # "the bigger one is no faster" answers the comparison before the table or the card's traps

    def active(self, turn: Turn) -> bool:
        p = turn.parsed
        if p.model or p.params_b or "app_fit" in turn.plan.intents:
            return False  # a model or an app named may fit only the bigger one: its sizing says how they differ
        shown = any(o.call.name in _SHOWN and o.ok for o in turn.outcomes)
        return shown and same_chip_pair(p.gpu_mentions) is not None

    def render(self, w: Writer, turn: Turn) -> None:
        pair = same_chip_pair(turn.parsed.gpu_mentions)
        if pair is None:
            return
        small, big = pair
        w.say(
            "same_chip_lead",
            a=big.name,
            b=small.name,
            bw=f"{big.bandwidth_gbs:,.0f}",
            small=f"{small.vram_gib:g}",
            big=f"{big.vram_gib:g}",
        )
        p, s = turn.parsed, turn.plan.scenario
        if s.mode in _TRAINING or p.mode in _TRAINING or any(j in _TRAINING for j in p.jobs):
            w.say("same_chip_train")
