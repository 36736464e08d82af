"""The GPUs a pasted command or config makes visible, and the count a "only one card is used" report leaves.

"CUDA_VISIBLE_DEVICES=0,1,2,3,4 vllm serve ...", "'gpus': '0,1'", "num_gpus: 2": the cards the run can see. A
report that the run stays on one of them ("只能在一张卡上运行", "only one GPU is used") names that one card as the
symptom, not as the user's count: the count is the cards visible, when the message lists them, else unknown.
"""

from __future__ import annotations

import re

from assistant.understanding.text import _State

# "CUDA_VISIBLE_DEVICES=0,1,2,3", "export CUDA_VISIBLE_DEVICES='3,4'", "'gpus': '0,1'", "--gpus 0,1,2,3"
_DEVICE_LIST = re.compile(
    r"(?:(?:cuda|hip|rocr)_visible_devices\s*=|[\"']gpus[\"']\s*:|--gpus[= ])\s*[\"']?"
    r"(?P<ids>\d{1,2}(?:\s*,\s*\d{1,2})+)",
    re.I,
)
# nvidia-smi's table: one row per GPU, its index first ("|   1  NVIDIA GeForce RTX 4090        Off |")
_SMI_ROW = re.compile(r"^\|?\s*(?P<i>\d{1,2})\s+(?:NVIDIA|Tesla|Quadro|GeForce)\b", re.I | re.M)
# "'num_gpus': 2", "num_gpus=4", "--num-gpus 2": a count the config sets
_NUM_GPUS = re.compile(r"[\"']?num[-_]gpus[\"']?\s*[:=]?\s*(?P<n>[1-9])(?![0-9])", re.I)


def visible_count(text: str) -> int | None:
    """The GPUs a pasted command or config lists (the largest list named), or its num_gpus; None when none."""
    counts = [len(set(re.split(r"\s*,\s*", m.group("ids")))) for m in _DEVICE_LIST.finditer(text)]
    counts += [int(m.group("n")) for m in _NUM_GPUS.finditer(text)]
    return max(counts) if counts else None


def visible_gpus(st: _State) -> None:
    """The card count when the message reports the run stuck on one card: the cards listed as visible, else none
    stated (the "one card" of "只能在一张卡上运行" is the symptom). A count the user stated otherwise stays."""
    q = st.q
    if q.symptom is None:
        return
    rows = len({m.group("i") for m in _SMI_ROW.finditer(st.t.text)})
    if rows > 1 and len(q.gpu_counts) == 1:
        # an nvidia-smi table of one card model: every row is one of the user's cards
        ((gpu, n),) = q.gpu_counts.items()
        if n < rows:
            q.gpu_counts[gpu] = rows
            q.num_gpus = max(q.num_gpus or 0, rows)
    if q.symptom != "one_gpu_used" and q.symptom != "oom":
        return
    seen = visible_count(st.t.text)
    if q.symptom == "oom" and _failing_command_elsewhere(st, seen):
        return
    # "CUDA_VISIBLE_DEVICES=0,1,2,3,4 ... 只能在一张卡上运行 ... out of memory": an OOM on one of several visible cards;
    # only when the message says the run stayed on one card and states no other count
    one_card = bool(seen and seen > 1 and q.num_gpus in (None, 1) and _one_card_said(st.t.text))
    if q.symptom == "oom" and not one_card:
        return
    if q.num_gpus in (None, 1):
        q.num_gpus = seen if seen and seen > 1 else None


def _one_card_said(text: str) -> bool:
    from assistant.understanding.symptoms import _rx

    return bool(dict(_rx().symptoms)["one_gpu_used"].search(text))


_TP_SIZE = re.compile(r"(?:--?tensor[-_ ]parallel[-_ ]size|--?tp)(?:\s*=\s*|\s+)(?P<n>\d{1,2})(?![0-9])", re.I)


def _failing_command_elsewhere(st: _State, seen: int | None) -> bool:
    """Two runs told apart: an OOM with a pasted command that makes N cards visible and sets no tensor-parallel size,
    beside another count that works with one ("两张卡 OOM；指定 4 张卡、加 --tp 4 就正常"): the run that fails is the
    command's, on its N cards with no split, so the count is N and the other run's --tp is no setting of it."""
    q, text = st.q, st.t.text
    m = _DEVICE_LIST.search(text)
    if m is None or not seen or seen < 2 or not q.num_gpus:
        return False
    line = text[text.rfind("\n", 0, m.start()) + 1 : (text.find("\n", m.end()) + 1 or len(text) + 1) - 1]
    sizes = {int(t.group("n")) for t in _TP_SIZE.finditer(text)}
    if _TP_SIZE.search(line) or seen in sizes or (q.num_gpus == seen and not sizes):
        return False  # the command splits, the split named is for these cards, or nothing to tell apart
    if q.num_gpus != seen:
        q.num_gpus = seen
        if len(q.gpu_counts) == 1:
            (gpu,) = q.gpu_counts
            q.gpu_counts[gpu] = seen
    q.diagnose_flags = [f for f in q.diagnose_flags if f != "tensor_parallel"]  # the other run's --tp
    return True
