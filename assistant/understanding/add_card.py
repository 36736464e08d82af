"""A card the user has and two or more to add to it ("I have a 3090; if I buy a 5060 Ti or a 5090 can the 3090's
VRAM be added?", "手上有 3090，再加一张 4060Ti 还是 5090"): the candidates are the options, each weighed as a pair
with the card kept, not the owned card against them (it is not for sale and not a purchase)."""

from __future__ import annotations

import re

from assistant.understanding.numbers import _number
from assistant.understanding.text import _State

# words that keep the owned card in the machine: another / a second / add / alongside / together / 再加 / 混用
_ADDS = re.compile(
    r"\b(?:another|second|add(?:ed|ing)?|extra|additional|alongside|together|combined?|pool(?:ed)?|"
    r"both (?:cards|gpus))\b|再(?:买|加|添|上)|加(?:一|1|上|装)|添(?:一|加)|混用|一起用|搭配|组合|双卡",
    re.I,
)
# "switch to", "replace", "换成", "sell": the owned card goes, and the comparison weighs it against the others
_REPLACES = re.compile(r"\b(?:switch(?:ing)? to|replac\w*|sell\w*|instead of|upgrade from)\b|换成|换掉|卖掉|替换", re.I)


# right before the owned card named again: it is proposed as a second one ("another 3090", "再加一张4090")
_ANOTHER = re.compile(
    r"\b(?:another|a second|second|one more|2nd)\W*(?:used\s+)?(?:rtx\s*)?$|再(?:加|买|来|上)(?:一|1)?张?\W*$", re.I
)


def _owned_again(st: _State) -> list:
    """The owned card's spans after its first: where it is named again."""
    mine = [s for s in st.gpus if s.value and s.value == st.q.owned_gpu]
    return mine[1:]


# "再买一张", "再加两张", "add another", "a second one", "one more": more of the card the user has
_ONE_MORE = re.compile(
    r"再\s*(?:买|加|添|来|上|入|插)\s*(?P<n>[一二两三四1-4])?\s*[张块个]|(?:多|另)\s*(?:加|买)\s*(?P<n2>[一二两1-2])\s*[张块]"
    r"|\b(?:add(?:ing)?|buy(?:ing)?|get(?:ting)?|plug(?:ging)? in)\s+(?:in\s+)?(?:another|a second|one more|a 2nd)\b"
    r"|\b(?:another|a second|one more|a 2nd)\s+(?:one|card|gpu|(?:rtx\s*)?\d{4})\b",
    re.I,
)


def _one_more_of_owned(st: _State) -> None:
    """ "我有一张3090，再买一张3090能跑70B吗", "I have a 3090; if I add another one can I run a 70B?": the card the
    user has plus the ones they add is the machine asked about (two 3090s), not the one they own. Only with that
    card alone named, and not when it is replaced ("换 4090", "sell it")."""
    q = st.q
    m = None if _REPLACES.search(q.text) else _ONE_MORE.search(q.text)
    if m is None:
        return
    added = int(_number(m.group("n") or m.group("n2") or "1") or 1)
    gpu = q.owned_gpu or (q.gpu if q.owns_hardware else None)
    if q.is_followup and not q.owns_hardware and len(q.gpu_mentions) <= 1:
        # "那再买一张3090呢", "what if I add another one?": the cards of the turn before plus these (plan.merge)
        q.adds_to_owned = True
        q.num_gpus = added
        if q.gpu:
            q.gpu_counts[q.gpu] = added
        return
    if not gpu or q.gpu_mentions != [gpu] or not set(q.intents) & _SIZED:
        return
    have = q.gpu_counts.get(gpu) or 1
    q.gpu_counts[gpu] = q.num_gpus = have + added


_SIZED = {"fit", "memory", "speed", "capacity"}


def _adds_card(st: _State) -> None:
    """Whether the cards named besides the one owned are to join it (see the module doc). "another 3090" beside an
    owned 3090 makes a second one of it an option too (counted as 2 of it); "加 4060Ti 还是加 4090" joins either
    card to the owned one ('加' reads as cards together) while '还是' makes them options: options, then."""
    _one_more_of_owned(st)
    q = st.q
    again = any(_ANOTHER.search(st.t.view[max(0, s.start - 20) : s.start]) for s in _owned_again(st))
    others = {g for g in q.gpu_mentions if g != q.owned_gpu} | ({q.owned_gpu} if again else set())
    options = q.gpus_alternative and len(others) >= 2
    if not q.owned_gpu or q.owned_gpu not in q.gpu_mentions or len(others) < 2 or (q.gpus_together and not options):
        return
    q.adds_to_owned = bool(_ADDS.search(q.text)) and not _REPLACES.search(q.text)
    if not q.adds_to_owned:
        return
    if again:
        q.gpu_counts[q.owned_gpu] = 2  # the owned card and another of it: one of the options
    if q.gpus_together and set(q.intents) & {"fit", "capacity"}:
        # the one machine's cards were read as the question ("does it fit them together"): it is a choice of card
        q.intents = ["compare", *(i for i in q.intents if i not in ("fit", "capacity", "compare"))]
