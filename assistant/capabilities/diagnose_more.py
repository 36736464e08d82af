"""Lines a diagnosis adds beside its verdict: the other cards the user measured, the 4-bit margin of a model that
fits but runs out of memory, and where a Mac loses (the prompt)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from assistant.strings import Writer
from tools.catalog import catalog
from tools.diagnose import DiagnoseResult
from tools.speed import SpeedResult
from tools.vram import VramResult

# causes a smaller weight file does not cure: another process, a long prompt's peak, a load on one card or in fp32,
# a faulty memory mod
_NOT_THE_WEIGHTS = {"others_hold", "prefill_peak", "one_gpu_loaded", "fp32_default_load", "mps_fp32", "modded_memory"}
_TIGHT_WEIGHTS = 0.5  # 16-bit weights over half of what the engine may use: little left for cache and peaks


def tight_weights(w: Writer, r: DiagnoseResult, memory: VramResult | None) -> None:
    """An out-of-memory where the model fits by the numbers but its 16-bit weights fill most of the card
    (MiniCPM-V on a 3090, an 8B on an A10): a 4-bit build is the margin, with what it weighs."""
    if r.symptom != "oom" or not r.fits or memory is None or not r.usable_gib_per_gpu:
        return
    if {c.id for c in r.causes} & _NOT_THE_WEIGHTS:
        return
    weights = memory.per_gpu_breakdown_gib.get("weights", 0.0)
    if memory.weight_bits_per_param < 16 or weights < r.usable_gib_per_gpu * _TIGHT_WEIGHTS:
        return
    w.say("diag_oom_tight_weights", weights=weights, usable=r.usable_gib_per_gpu)


def more_cards(by_card: dict[str, float], args: dict[str, Any]) -> list[tuple[str, float]]:
    """Cards measured beside the two the diagnosis compares ("A100 40 tokens/s; the 4090 and the L40 both over 50"),
    with their speeds: every card the user measured is named in the answer."""
    if not args.get("other_measured_tokens_per_s"):
        return []
    pair = {args.get("gpu"), args.get("other_gpu")}
    return [(gpu, speed) for gpu, speed in by_card.items() if gpu not in pair]


def more_cards_line(w: Writer, r: DiagnoseResult, more: list[tuple[str, float]], num: Callable[[float], str]) -> None:
    """One line per further card measured: its speed and memory bandwidth, and whether it, too, outruns a card with
    more bandwidth (then the slow card's setup, not the hardware, is what differs)."""
    for gpu_id, speed in more:
        spec = catalog().get(gpu_id)
        if spec is None:
            continue
        pairs = [(r.gpu, r.measured_tokens_per_s, r.gpu_bandwidth_gbs)]
        pairs.append((r.other_gpu, r.other_measured_tokens_per_s, r.other_bandwidth_gbs))
        slower = [(g, m, b) for g, m, b in pairs if g and m and b and m < speed and b > spec.bandwidth_gbs]
        card = dict(gpu=spec.name, measured=num(speed), gbs=spec.bandwidth_gbs)
        if slower:
            w.say("diag_more_card_inverted", slow=slower[0][0], slow_gbs=slower[0][2], **card)
        else:
            w.say("diag_more_card", **card)


def mac_prompt(r: DiagnoseResult, args: dict[str, Any], speeds: list[SpeedResult]) -> SpeedResult | None:
    """A Mac's speed in question: where it loses to GPUs is the prompt (prefill follows compute, and a Mac's GPU has
    a fraction of a data-centre card's), so the answer says a long prompt's wait with the number."""
    spec = catalog().get(args.get("gpu") or "")
    if spec is None or spec.form_factor != "soc" or r.mode == "training" or r.symptom != "slow":
        return None
    return next((s for s in speeds if s.prefill_tokens_per_s and s.ttft_s and s.method == "inference"), None)
