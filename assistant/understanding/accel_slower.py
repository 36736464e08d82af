"""An accelerator outside the CUDA world seen slower than an NVIDIA card on the same job ("昇腾 910B 训练耗时是 A100
的 2 至 3 倍", "UIE 在 910B 上比 3090Ti 慢很多", "our Ascend 910B is 2x slower than the A100"): the expert says first
that the gap is the stack (eager operator dispatch, unfused or CPU-fallback operators), not the chip, and how to close
it (graph mode, batching, profiling, the vendor's versions) — note `accel_slower_stack`, which leads like the other
`accel_*` notes. With no model named there is nothing to size: the card comparison of the NVIDIA card alone is
dropped for its figures and the guides on the stack. A model named for inference is left to the sizing: its decode is
bound by memory bandwidth, where the NVIDIA card may well be the faster one (H20 against 910B4)."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from assistant.understanding.accelerators import family_of
from tools.catalog import resolve_gpu
from tools.errors import AdvisorError
from tools.notes import note

if TYPE_CHECKING:
    from assistant.understanding.text import _State

_TRAINING = ("full", "lora", "qlora", "training", "pretrain")
# the accelerator is behind: slower, a gap, more time, "2至3倍"
_BEHIND = re.compile(
    r"慢|差距|低于|不如|比不上|耗时[^。，,]{0,12}(?:高|长|多)|耗时[^。]{0,20}倍|还能[^。]{0,8}提升"
    r"|slower|behind|gap|takes?\s+(?:\d+(?:\.\d+)?\s*x\s+)?longer|\d+(?:\.\d+)?\s*x\s+(?:slower|longer)|lags?",
    re.I,
)


def _accel_slower(st: _State) -> None:
    q = st.q
    hit = family_of(st.t.text)
    if hit is None or not q.gpu or not _BEHIND.search(st.t.text):
        return
    training = q.mode in _TRAINING or q.fine_tune_unspecified or q.pretrain or any(j in _TRAINING for j in q.jobs)
    if (q.model or q.params_b) and not training:
        return  # a model served on both: its decode is bound by memory bandwidth, which the sizing compares
    try:
        other = resolve_gpu(q.gpu)[0]
    except AdvisorError:
        return
    if other.vendor != "nvidia":
        return
    q.notes.append(note("accel_slower_stack", name=hit[1]["name"], other=other.name))
    if not (q.model or q.params_b):
        # nothing to size: the NVIDIA card's figures and the guides on the stack, not a pick of that card alone
        q.intents = ["gpu_info", "concept"]
