"""A memory size the user says is theirs, beside a card they ask about ("Do I need an A100? I only have a 16GB card",
"8 A100 the minimum? the max GPU memory I have is 45G", "手上只有一张 16G 的卡，非得用 A100 吗"): the size is the card
they have, sized for what it can do (capacity), not the card named."""

from __future__ import annotations

import re

from assistant.understanding.lexicon import _lex
from assistant.understanding.machine import _patterns as machine_patterns
from assistant.understanding.patterns import _c
from assistant.understanding.text import _State


def own_size_beside_card(st: _State) -> re.Match[str] | None:
    """A memory size the user says is theirs ("I only have a 16GB card", "my max GPU memory is 45G", "我只有 24G 显存")
    next to a card they ask about (an A100 they think they need): the size is the card they have."""
    owns = machine_patterns()["owns"]
    need = _lex().rx["stated_capacity_need_before"]
    rx = {name: _lex().rx[name] for name in ("stated_capacity", "stated_capacity_after", "stated_capacity_before")}
    rx["stated_capacity_owned"] = _c(_lex().raw["stated_capacity_owned"])
    view = st.t.view
    for pattern in rx.values():
        for m in pattern.finditer(view):
            if need.search(view[max(0, m.start() - 14) : m.start()]) or need.search(view[m.start() : m.start("v")]):
                continue  # "needs GPU memory of 40GB": the job's, not the card's
            if owns.search(view[max(0, m.start() - 40) : m.start("v")]):  # type: ignore[attr-defined]
                return m
    return None


def need_said_before(st: _State, m: re.Match[str]) -> bool:
    """ "模型要 40G 显存能跑起来吗", "是不是要 48G 的卡", "does Qwen-32B need a 48GB card?": the size is the job's
    need the user asks about, not the card they have."""
    rx = _c(_lex().raw["stated_capacity_need_asked"])
    return bool(rx.search(st.t.view[max(0, m.start() - 14) : m.start()]))
