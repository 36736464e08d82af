"""The memory a job is said to need, quoted with no model named ("the README says it needs 40GB of VRAM, will it run
on my 4090?", "OlmOcr recommends at least 15GB of GPU RAM", "官方说需要至少 24G 显存，我的 3060 12G 能跑吗"): the
floor the user's cards are set against (min_vram_gib), so the answer compares the two instead of listing what the
card holds. A model named is sized by the calculators instead, and the user's own card ("my 16GB VRAM") is not a
need."""

from __future__ import annotations

import re
from functools import cache

from assistant.understanding.lexicon import _lex
from assistant.understanding.patterns import _c
from assistant.understanding.text import _State

_MODEL_WORD = re.compile(r"模型|model", re.I)


@cache
def _patterns() -> list[re.Pattern[str]]:
    return [_c(p) for p in _lex().raw["stated_need_vram"]]


def _stated_need(st: _State) -> None:
    q = st.q
    if q.min_vram_gib is not None or q.model or q.params_b:
        return
    for rx in _patterns():
        for m in rx.finditer(st.t.view):
            v = float(m.group("v"))
            said_of_model = _MODEL_WORD.match(m.group(0)) is not None  # "模型...需要24g" is never the card's 24G
            if 1 <= v <= 4096 and (said_of_model or (v != q.stated_capacity_gib and v != q.ram_gib)):
                q.min_vram_gib = v
                st.t.take(m.start(), m.end())
                return


def _need_against_card(st: _State) -> None:
    """ "GPU memory requirement: 20GB. Will my 3080 work?": a quoted need beside the user's card, no model, is
    whether the card holds it (capacity, which leads with the two figures), not the card's spec sheet."""
    q = st.q
    if q.min_vram_gib and q.gpu and not (q.model or q.params_b) and q.intents == ["gpu_info"]:
        q.intents = ["capacity"]
        q.enough_asked = True
    several = (q.num_gpus or 1) > 1 and (q.gpu or q.stated_capacity_gib)
    if q.min_vram_gib and several and not (q.model or q.params_b) and set(q.intents) <= _SIZED_BY_NEED:
        # "my model needs about 20GB, 2x 3090: split it or keep it on one?", "4个gpu，每个24g，模型需要24g，单卡还是
        # 多卡": the need against one card and against all of them answers it, not a model to name
        q.intents = ["capacity"]
        q.enough_asked = True


_SIZED_BY_NEED = {"gpu_info", "speed", "memory", "catalog", "fit"}
