"""What a rental question asks beyond a price: free GPUs ("有没有免费的GPU可以微调", "Can't afford paying cloud
services": the free notebook tiers lead), or somewhere other than the providers named ("cheaper than AWS, GCP,
Azure", "除了阿里云还有哪里": they are a reference, not a filter) - assistant/capabilities/rent.py."""

from __future__ import annotations

import re
from functools import cache

from assistant.understanding.lexicon import _lex
from assistant.understanding.patterns import _rx
from assistant.understanding.text import _State


@cache
def _patterns() -> tuple[re.Pattern[str], re.Pattern[str]]:
    raw = _lex().raw
    return _rx(raw["free_compute"]), _rx(raw["rent_elsewhere"])


def _free_compute(st: _State) -> None:
    free, elsewhere = _patterns()
    if free.search(st.t.text):
        st.q.rent_ask = "free"
    elif st.q.rent_providers and elsewhere.search(st.t.text):
        st.q.rent_ask = "elsewhere"
