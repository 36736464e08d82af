"""How two cards named one after the other are joined: one machine's cards ("3090+2060", "I have a 3090 and a
2060") or options to weigh ("8 张 4090 或者 6 张 V100", "A100 and H100: which is faster?")."""

from __future__ import annotations

import itertools
import re
from functools import cache

from assistant.understanding.lexicon import _lex
from assistant.understanding.text import _GpuSpan

_TOGETHER = re.compile(r"^[^,，;；。.?？!！]{0,24}?(?:\+|＋|加上?|plus|along with|together with)", re.I)


_ALTERNATIVE = re.compile(r"^[^,，;；。.?？!！]{0,24}?(?:或者|或是|或|还是|\bor\b|\bvs\.?|versus|/)", re.I)


# "and" joins the cards of one machine only when the user owns them ("I have a 3090 and a 2060"); otherwise it
# lists cards to weigh ("A100 and H100: which is faster?"), or adds one to buy ("a 3090 and want to buy a 4090")
_AND = re.compile(r"^[^,，;；。.?？!！]{0,12}?(?:\band\b|和|与|跟|以及|、|&)[^,，;；。.?？!！]{0,10}$", re.I)
_CLAUSE_BEFORE = re.compile(r"[^;；。.?？!！\n]{0,40}$")


@cache
def _owns_word() -> re.Pattern[str]:
    owns = _lex().raw["machine"]["owns"]
    return re.compile("(?:" + "|".join([*owns["zh"], *owns["en"]]) + ")", re.I)


def together(view: str, known: list[_GpuSpan]) -> bool:
    """Two different cards joined by "+" / "加" / "plus" ("1张RTX5000ADA 32G+1张V100 32G"), or by "and" / "和"
    after an ownership word ("I have two GPUs: an RTX 3090 and a 2060", "我有一张3090和一张3060"): one machine's
    cards, not alternatives to weigh."""
    if _joined(_TOGETHER, view, known):
        return True
    for a, b in itertools.pairwise(known):
        clause = _CLAUSE_BEFORE.search(view[: a.start])
        owned = clause is not None and _owns_word().search(clause.group(0)) is not None
        if a.value != b.value and owned and _AND.match(view[a.end : b.start]):
            return True
    return False


def listed_total(counts: dict[str, int], mentions: list[str]) -> str | None:
    """The card whose count is the machine's total before a list of different cards ("two GPUs: an RTX 3090 and a
    2060" reads 2 before the 3090): the only count stated, equal to the number of cards listed."""
    if len(counts) == 1 and len(mentions) > 1:
        gpu, n = next(iter(counts.items()))
        return gpu if n == len(mentions) else None
    return None


def alternative(view: str, known: list[_GpuSpan]) -> bool:
    """Two different cards joined by "或者" / "or" / "vs": options to weigh."""
    return _joined(_ALTERNATIVE, view, known)


def _joined(rx: re.Pattern[str], view: str, known: list[_GpuSpan]) -> bool:
    """Whether two different cards named one after the other are joined by `rx` ("+", "或者")."""
    pairs = itertools.pairwise(known)
    return any(a.value != b.value and rx.match(view[a.end : b.start]) for a, b in pairs)
