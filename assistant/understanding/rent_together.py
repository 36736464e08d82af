"""Several models named for one rented server, run at the same time ("租一台服务器同时跑 Qwen2.5-7B 和 Qwen2.5-14B",
"serve both Llama-3.1-8B and Mistral-7B at the same time"): rent_ask "together", the rental holds their sum
(assistant/capabilities/rent_together.py). Wording: knowledge/data/lexicon.yaml `rent_together`."""

from __future__ import annotations

import re
from functools import cache

from assistant.understanding.lexicon import _lex
from assistant.understanding.patterns import _langs, _rx
from assistant.understanding.text import _State


@cache
def _together() -> re.Pattern[str]:
    return _rx(_langs(_lex().raw["rent_together"]))


def _rent_together(st: _State) -> None:
    q = st.q
    renting = "rent_where" in q.intents or q.buy_or_rent == "rent"
    if not renting or q.rent_ask is not None or len(set(q.models_mentioned)) < 2:
        return
    if _together().search(st.t.text):
        q.rent_ask = "together"
        q.intents = ["rent_where", *(i for i in q.intents if i not in ("rent_where", "recommend"))]
