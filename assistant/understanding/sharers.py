"""People who share one server: "10人合伙", "5个人共用", "几个朋友合租…5个人", "three of us split a rented server".

Each of them may ask at the same time, so they are counted like users: up to the concurrency bound as sequences
served at once (the answer states each person's speed then), above it as a population. Read only when no batch
or users were said already ("50 concurrent users" wins).
"""

from __future__ import annotations

import re
from functools import cache

from assistant.understanding.lexicon import _lex
from assistant.understanding.numbers import _number
from assistant.understanding.patterns import _NUM, _c
from assistant.understanding.text import _State
from assistant.understanding.workload import _count_in


@cache
def _patterns() -> list[re.Pattern[str]]:
    lex = _lex()
    b = lex.raw["batch"]
    v = f"(?P<v>{_NUM}|{lex.cn}|{lex.en})"
    cls = f"(?:{b['classifiers']})"
    who_zh, share_zh = f"(?:{b['share_who_zh']})", f"(?:{b['share_zh']})"
    who_en, share_en = f"(?:{b['share_who_en']})", f"(?:{b['share_en']})"
    return [
        # "10人合伙", "5个人共用", "3个朋友一起合租", "5个同学想合租"
        _c(f"{v}\\s*{cls}?\\s*{who_zh}\\s*(?:想|要|打算|准备|计划|一起|一块|共同|来)*\\s*{share_zh}"),
        # "合租…给出资的 10 个人", "分摊给 5 人"
        _c(f"{share_zh}[^。！？!?\\n]{{0,12}}?(?:给|由|的)\\s*{v}\\s*{cls}?\\s*{who_zh}"),
        # "three of us want to split", "5 friends to share a server"
        _c(f"{v}\\s+{who_en}\\W{{0,3}}\\s*(?:\\w+\\s+){{0,3}}?{share_en}"),
        # "split between 4 people", "shared by 3 users", "split it among the 5 of us"
        _c(f"{share_en}\\s+(?:\\w+\\s+){{0,3}}?(?:between|among|by|with)\\s+(?:the\\s+)?{v}\\s+{who_en}"),
    ]


def _sharers(st: _State) -> None:
    """People sharing one server: counted as sequences at once up to the bound (as users above it) when the
    message said no batch or users; `shared` when the count read is theirs ("三个同学合买": the named users)."""
    if st.q.batch is None and st.q.users is None:
        n = _count_in(st, _patterns())
        if n is None or n < 2:
            return
        if n <= _lex().raw["batch"]["users_concurrent_up_to"]:
            st.q.batch = n
        else:
            st.q.users = n
        st.q.shared = True
        return
    for rx in _patterns():  # the count was read as users already: the text before masking says they share
        for m in rx.finditer(st.t.text):
            value = _number(m.group("v"))
            if value is not None and value in (st.q.batch, st.q.users):
                st.q.shared = True
                if st.q.batch is None and value <= _lex().raw["batch"]["users_concurrent_up_to"]:
                    st.q.batch, st.q.users = int(value), None  # a few who share it may all ask at once
                return
