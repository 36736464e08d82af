"""A card the user has and two or more to add to it ("I have a 3090; if I buy a 5060 Ti or a 5090 can the 3090's
VRAM be added?", "手上有 3090，再加一张 4060Ti 还是 5090"): the candidates are the options, each weighed as a pair
with the card kept, not the owned card against them (it is not for sale and not a purchase)."""

from __future__ import annotations

import re

from assistant.understanding.text import _State

# words that keep the owned card in the machine: another / a second / add / alongside / together / 再加 / 混用
_ADDS = re.compile(
    r"\b(?:another|second|add(?:ed|ing)?|extra|additional|alongside|together|combined?|pool(?:ed)?|"
    r"both (?:cards|gpus))\b|再(?:买|加|添|上)|加(?:一|1|上|装)|添(?:一|加)|混用|一起用|搭配|组合|双卡",
    re.I,
)
# "switch to", "replace", "换成", "sell": the owned card goes, and the comparison weighs it against the others
_REPLACES = re.compile(r"\b(?:switch(?:ing)? to|replac\w*|sell\w*|instead of|upgrade from)\b|换成|换掉|卖掉|替换", re.I)


def _adds_card(st: _State) -> None:
    """Whether the cards named besides the one owned are to join it (see the module doc)."""
    q = st.q
    others = {g for g in q.gpu_mentions if g != q.owned_gpu}
    if not q.owned_gpu or q.owned_gpu not in q.gpu_mentions or len(others) < 2 or q.gpus_together:
        return
    q.adds_to_owned = bool(_ADDS.search(q.text)) and not _REPLACES.search(q.text)
