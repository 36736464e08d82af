"""A hosted service named as the model to run ("run GPT-4 locally on my 3060", "Claude 能本地部署吗", "通义 App"):
its weights are not published (knowledge/data/model_names.yaml `closed_products`, the entries with a `pattern`), so
the question is what open model the user's hardware runs instead. Read only when the message asks to run or host it
and names no open model or size beside it: "GPT-4o API or Qwen2.5-72B on my 2x3090?" names the API side of a
comparison, "ChatGPT told me I can't run 7B" a size, "train a GPT model" an architecture."""

from __future__ import annotations

import re
from functools import lru_cache

from assistant.understanding.text import _State
from tools._data import load_yaml

_TRAINING = ("full", "lora", "qlora")
_SIZING = ("memory", "fit", "capacity", "recommend", "build")
_REPLACED = ("memory", "fit", "capacity", "api", "gpu_info", "concept", "cost")
_API_WORD = re.compile(r"(?<![a-z])apis?(?![a-z])|接口", re.I)  # "the Claude API": its bill, not Claude on a card


@lru_cache(maxsize=1)
def _patterns() -> list[tuple[re.Pattern[str], str]]:
    closed = load_yaml("model_names.yaml").get("closed_products", {})
    return [(re.compile(v["pattern"], re.I), key) for key, v in closed.items() if v.get("pattern")]


def closed_product_in(text: str) -> tuple[str, str] | None:
    """The first hosted service the text names: (its closed_products key, the words as typed)."""
    hits = [(m.start(), key, m.group(0)) for rx, key in _patterns() if (m := rx.search(text))]
    return (min(hits)[1], min(hits)[2]) if hits else None


def _closed_product_asked(st: _State) -> None:
    q = st.q
    hit = closed_product_in(st.t.text)
    if hit is None or q.model or q.params_b is not None or q.sizes_mentioned:
        return
    training = q.mode in _TRAINING or q.fine_tune_unspecified or q.pretrain
    asks_to_run = q.deployment == "local" or q.mode_from_run_words or bool(set(q.intents) & set(_SIZING))
    if training or not asks_to_run or q.tokens_per_month or q.requests_per_day:
        return
    if "api" in q.intents and q.api_mentions and (q.monthly_budget or _API_WORD.search(st.t.text)):
        return  # "$380/month on GPT-4o, move to a local model?": the API's bill against a card, not GPT-4o on the card
    q.model_family, q.unknown_model, q.model_mention, q.model_suggestions = "closed", hit[0], hit[1], []
    rest = [i for i in q.intents if i not in _REPLACED]
    card = q.gpu or q.stated_capacity_gib or q.gpu_mentions
    q.intents = ["capacity" if card else "memory", *rest]  # what the user's cards run instead, else its open models
