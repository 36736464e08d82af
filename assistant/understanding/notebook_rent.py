"""A free notebook tier named beside a question about renting ("Options similar to Google Colab, but allowing 4-8
GPUs", "Kaggle的白嫖确实香，但是希望可以支持autoDL的显卡租用"): the tier is what the user has or compares with, not a
card to assess. With no model named, its card and note are dropped and the rental question is the one answered; a
paid provider named beside the tier is the one asked about (the free words were about the tier)."""

from __future__ import annotations

from assistant.understanding.text import _State


def _notebook_rent(st: _State) -> None:
    from tools.rent import provider_facts

    q = st.q
    tier = [n for n in q.notes if getattr(n, "code", "").startswith("notebook_tier")]
    if not tier or "rent_where" not in q.intents or q.buy_or_rent != "rent" or q.rent_ask == "resume":
        return
    if q.model or q.params_b or q.gpu_mentions != [q.gpu]:
        return  # "can I run 7B on free Colab, or rent?": the tier's card sizes the model
    facts = provider_facts()
    paid = [p for p in q.rent_providers if p in facts and facts[p].kind != "free_tier"]
    q.notes = [n for n in q.notes if n not in tier]
    q.gpu, q.num_gpus, q.gpu_mentions, q.gpu_counts = None, None, [], {}
    q.intents = ["rent_where"]
    if paid and q.rent_ask == "free":
        q.rent_ask = None  # "Kaggle 白嫖很香，但想用 AutoDL": the paid platform is asked about
