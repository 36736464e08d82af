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


def weighs_worth(text: str) -> bool:
    """A value word with no bill: "划算吗", "值不值", "worth it" — the card weighed as a purchase."""
    return bool(_rx("value").search(text)) and not _rx("bill").search(text)


def worth_on_card(st: _State, out: dict[str, int]) -> None:
    """Turn the cost question of a card's worth for a named job into the card's fit for it (see the module doc)."""
    q = st.q
    _worth_of_old_card(st, out)
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


def _worth_of_old_card(st: _State, out: dict[str, int]) -> None:
    """ "Is a Titan RTX still worth it?", "Titan RTX 现在还值得买吗": one card no longer sold new, weighed with no job
    and no bill named, is bought used: its value (memory, what it runs, support, the used price against newer cards)
    is the answer, as for "is a used Titan RTX a good buy?", not buy versus rent nor which card to buy."""
    from tools.catalog import resolve_gpu
    from tools.errors import AdvisorError

    q = st.q
    if len(q.gpu_mentions) != 1 or q.model or q.params_b or not ({"cost", "recommend"} & set(out)):
        return
    if q.budget or q.monthly_budget or q.buy_or_rent in ("rent", "compare") or q.hours_per_month:
        return
    text = st.t.text
    if not _rx("value").search(text) or _rx("bill").search(text):
        return
    try:
        old = resolve_gpu(q.gpu_mentions[0])[0].discontinued
    except (AdvisorError, ValueError):
        return
    if not (old or q.used_market):
        return
    at = min(out.pop(k) for k in ("cost", "recommend") if k in out)
    out["gpu_info"] = min(out.get("gpu_info", at), at)
    q.used_market, q.buy_or_rent = True, "buy"
