"""An accelerator outside the GPU catalog named by the user ("MTT S80", "昇腾910A", "910B"): not a card nobody
knows, but one the catalog's CUDA/ROCm calculators cannot time. What an expert says first is the stack that runs it
(notes `accel_*`, said before anything else: planner/compose.py), then what its memory holds: sized as a card of
that memory (knowledge/data/accelerators.yaml)."""

from __future__ import annotations

import re
from functools import cache
from typing import TYPE_CHECKING, Any

from assistant.understanding.numbers import _number
from tools._data import load_yaml
from tools.notes import Note, note

if TYPE_CHECKING:
    from assistant.understanding.text import _State


@cache
def _families() -> list[tuple[re.Pattern[str], dict[str, Any], list[tuple[re.Pattern[str], dict[str, Any]]]]]:
    return [
        (re.compile(f["match"], re.I), f, [(re.compile(v["match"], re.I), v) for v in f["variants"]])
        for f in load_yaml("accelerators.yaml")["families"]
    ]


# a count right before the name ("8张昇腾910B", "two Ascend 910B", "4x 910B"): how many the user has
_COUNT = re.compile(
    r"(?P<n>\d{1,3}|[两二三四五六七八九十]|two|four|eight)\s*(?:张|块|卡|台|x|×|\*)?\s*(?:huawei\s*|华为\s*)?$", re.I
)


def family_of(text: str) -> tuple[dict[str, Any], dict[str, Any]] | None:
    """The family and variant the text names (the first family whose words appear; its most specific variant)."""
    for rx, fam, variants in _families():
        if rx.search(text):
            return fam, next(v for vrx, v in variants if vrx.search(text))
    return None


def _count_before(text: str) -> int | None:
    for rx, _fam, _variants in _families():
        m = rx.search(text)
        if m:
            c = _COUNT.search(text[max(0, m.start() - 12) : m.start()])
            if c:
                n = _number(c.group("n").lower())
                return int(n) if n else None
    return None


def _accelerator(st: _State) -> None:
    q = st.q
    hit = family_of(st.t.text)
    if hit is None or q.gpu:
        return
    fam, variant = hit
    q.unknown_gpu, q.gpu_suggestions = None, []  # known: said with its stack, not asked about
    q.notes.append(note(fam["stack"], name=variant["name"]))
    if variant.get("caveat"):
        q.notes.append(note(variant["caveat"]))
    count = _count_before(st.t.text)
    if count and 1 < count <= 64 and q.num_gpus is None:
        q.num_gpus = count
    gib = variant.get("memory_gib")
    if gib and q.stated_capacity_gib is None:
        q.stated_capacity_gib = float(gib)
        q.notes.append(note("accel_memory", gib=float(gib)))


def _accelerator_intents(st: _State) -> None:
    """No model named ("MTT S80 能跑大模型吗", "910A 能装 vllm-ascend 吗"): what its memory holds is the sizing
    question (the biggest model per way), not one model's memory; the intents read after the parse say so."""
    q = st.q
    named = any(isinstance(n, Note) and n.code == "accel_memory" for n in q.notes)
    if not named or q.model or q.params_b or q.gpu:
        return
    rest = [i for i in q.intents if i not in ("memory", "fit", "capacity")]
    q.intents = ["capacity", *rest]


def named_figures(texts: list[str]) -> list[str]:
    """The memory of each accelerator the user named, as text: a figure the answer may state as if the user had
    (the grounding check traces numbers to what the user said; accelerators.yaml says it for them)."""
    out = []
    for text in texts:
        hit = family_of(text)
        if hit and hit[1].get("memory_gib"):
            out.append(f"{hit[1]['name']}: {hit[1]['memory_gib']} GB")
    return out
