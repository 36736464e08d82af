"""A card weighed for a job by its worth: "is a 4090 worth it for Qwen2.5-32B?", "is the 5090 worth the price for
LoRA of a 14B?", "A6000 值不值得买，跑 Qwen2.5-14B".

"Worth it" is a cost word, and a cost question about one named card is otherwise read as buy versus rent. Nobody
asked about renting here: an expert answers whether the card holds and runs the job (fit, with what holds it
for less when it is more card than the job needs, the budget included). With no model named ("is a 3090 worth
it at $800?") the question stays with the cost capability: there is no job to fit.
Any sign of a bill (renting, the cloud, hours, electricity, break-even, an API) keeps the cost question.
"""

from __future__ import annotations

import re
from functools import cache

from assistant.understanding.lexicon import lexicon_raw
from assistant.understanding.text import _State


@cache
def _rx(kind: str) -> re.Pattern[str]:
    words = lexicon_raw()["worth_on_card"][kind]
    return re.compile("|".join([*words["en"], *words["zh"]]), re.I)


def worth_on_card(st: _State, out: dict[str, int]) -> None:
    """Turn the cost question of a card's worth for a named job into the card's fit for it (see the module doc)."""
    q = st.q
    if "cost" not in out or not q.gpu_mentions or not (q.model or q.params_b):
        return
    bill = q.buy_or_rent in ("rent", "compare") or q.cloud_price_per_hour or q.electricity_price or q.hours_per_day
    if bill or q.hours_per_month or q.rent_providers or q.api_mentions or q.monthly_budget:
        return
    text = st.t.text
    if not _rx("value").search(text) or _rx("bill").search(text):
        return
    at = out.pop("cost")
    out["fit"] = min(out.get("fit", at), at)
