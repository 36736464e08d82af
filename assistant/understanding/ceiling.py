"""A size named as the supposed ceiling of a card ("16G 的 4080 上 7B 模型是否是最优解", "is 7B the best I can do
on a 16GB card?", "24G 最多只能跑 14B 吗"): the question is what the card holds, so the size is no model to size;
the capacity answer (biggest model per format) says whether something bigger fits."""

from __future__ import annotations

import re
from functools import cache

from assistant.understanding.lexicon import _lex
from assistant.understanding.text import _State


@cache
def _rx() -> re.Pattern[str]:
    return re.compile(_lex().raw["models"]["size_ceiling"], re.IGNORECASE)


def _size_ceiling(st: _State) -> None:
    q = st.q
    if not (st.gpus or q.stated_capacity_gib) or q.symptom or len(q.models_mentioned) > 1:
        return
    if not (q.model or q.params_b) or not _rx().search(st.t.text):
        return
    q.model = q.params_b = q.unknown_model = q.model_family = q.model_mention = None
    q.models_mentioned = []
