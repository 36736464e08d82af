"""A card run on a driver that is not NVIDIA's own ("cards like the 3060M 12GB with FrankenDriver", "魔改驱动的 3070M
能跑大模型吗"): what runs on it is the card's question; that the driver is unsupported and voids the warranty is
said beside it (notes.yaml risk_modified_driver; the words: lexicon.yaml risk.driver_mod_words)."""

from __future__ import annotations

import re
from functools import cache

from assistant.understanding.lexicon import _lex
from assistant.understanding.patterns import _rx
from assistant.understanding.text import _State


@cache
def _words() -> re.Pattern[str]:
    return _rx(_lex().raw["risk"]["driver_mod_words"])


def _driver_mod(st: _State) -> None:
    from tools.notes import note

    q = st.q
    if (q.gpu_mentions or q.stated_capacity_gib) and _words().search(st.t.text):
        q.notes.append(note("risk_modified_driver"))
