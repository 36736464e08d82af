"""A card the user is moving to from the one they have, with no model to size ("I currently have a Tesla P4 ... and I
would like to change it to a V100: will it work in a 2-lane slot?", "现在用 P40，想换成 3090，电源够吗"): the questions
are about the new card (machine.bought_card reads which one), not a comparison of the two; a comparison word
("which is faster", "哪个好") keeps the comparison."""

from __future__ import annotations

import re

from assistant.understanding.text import _State

_WEIGHED = re.compile(
    r"\bvs\.?\b|versus|faster|slower|better|worse|compared?|which (?:one|card|is)|worth|speed-?up|\bgains?\b"
    r"|哪个|哪张|比较|对比|还是|更快|更好|区别|快多少|慢多少|差多少|多快|提升|值不值|值得|划算",
    re.I,
)


# a card bought beside the one owned ("should I buy a 4090 D too?", "再加一张 3090"): both stay, nothing is replaced
_ADDED = re.compile(
    r"\b(?:too|as well|also|another|second|additional|extra|alongside|in addition)\b"
    r"|再(?:加|买|添|上)|加(?:一|1)?张|多(?:一|1)张|第二张|另一张|一起用|并用",
    re.I,
)


def _switch_to(st: _State) -> None:
    q = st.q
    new = q.upgrade_to
    if not new or not q.owns_hardware or q.model or q.params_b:
        return
    if _WEIGHED.search(st.t.text) or _ADDED.search(st.t.text):
        return
    q.intents = [i for i in q.intents if i != "compare"] or ["gpu_info"]
    q.gpu = new
    old = [g for g in q.gpu_mentions if g != new]
    if len(old) == 1:  # the card given up is no subject (its traps, its specs), only named as the one replaced
        q.replaced_gpu = q.replaced_gpu or old[0]
        q.gpu_mentions = [new]
