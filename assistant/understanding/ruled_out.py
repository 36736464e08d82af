"""A card the user rules out, and why: by its price ("4090太贵了") or by the market ("A100国内很难买到", "H100s are
impossible to get"). hardware.py already drops it from the cards asked about (card_joins.priced_out); this keeps
it, so the answer can name it once with what can be bought instead (capabilities/ruled_out.py), and reads the
market words as the reason it is out, not as a question whether the card asked about can be bought.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Literal

from pydantic import BaseModel, Field

if TYPE_CHECKING:
    from assistant.understanding.text import _State

# The market, not the price: "很难买到", "买不到", "缺货", "禁售", "hard/impossible to get", "unavailable"
_MARKET = re.compile(
    r"很难买|难买到|买不到|不好买|缺货|禁售|出口管制|(?:hard|impossible) to (?:get|find|buy)|unavailable"
    r"|export[- ]control",
    re.I,
)
_AFTER = 24  # the words after the card that say why it is out ("A100国内很难买到")
_BEFORE = 16


class RuledOut(BaseModel):
    """The slots of a card ruled out (a base of ParsedQuery: query.py is at its size limit)."""

    ruled_out_gpu: str | None = Field(
        default=None, description="A card the user rules out beside the one asked about ('A100国内很难买到')"
    )
    ruled_out_by: Literal["price", "market", "capacity"] | None = Field(
        default=None,
        description="Why: its price ('4090太贵了'), the market ('H100s are impossible to get') or its memory ('my "
        "4090 can't handle 65B, so a 96GB MacBook?')",
    )


def _ruled_out(st: _State) -> None:
    from assistant.understanding.card_joins import priced_out

    text = st.t.text
    gpu = priced_out(text, st.gpus)
    if gpu is None:
        return
    spans = [s for s in st.gpus if s.value == gpu]
    market = any(_MARKET.search(text[max(0, s.start - _BEFORE) : s.end + _AFTER]) for s in spans)
    st.q.ruled_out_gpu = gpu
    st.q.ruled_out_by = "market" if market else "price"
    if market:
        # the market words say why that card is out; they do not ask whether the card asked about can be bought
        st.q.asks_availability = False
