"""A paid API weighed against hardware of one's own, said without a volume or a provider the other rules need.

"API还是买一张4090？", "外部API越来越便宜，本地部署真的划算吗", "a $6,400 local LLM server instead of paying for the
Claude API", "our OpenAI bill is $380/month, is it worth moving to a local model on our own GPU": an API (named, or the
word API) on one side, running it on one's own or rented card on the other, and a choice or a cost between them is the
API-versus-self-hosting question (capabilities/api_cost.py), priced at the user's bill when one is said. An API served
by the user's own engine ("OpenAI 兼容 API") is not a paid API. The words live in knowledge/data/lexicon.yaml
(usage: self_host_side, api_choice, own_api)."""

from __future__ import annotations

import re
from functools import cache

from assistant.understanding.lexicon import _lex
from assistant.understanding.patterns import _c
from assistant.understanding.text import _State


@cache
def _rx() -> dict[str, re.Pattern[str]]:
    u = _lex().raw["usage"]
    out = {k: _c(u[k]) for k in ("self_host_side", "api_choice", "own_api", "api_word", "monthly", "cloud_api")}
    return out | {"budget_word": _c(_lex().raw["money"]["budget_words"])}


def api_choice_intent(st: _State, apis: bool, out: dict[str, int]) -> None:
    """Adds the API-vs-self-hosting intent when the message weighs a paid API against its own or rented hardware."""
    q, rx, text = st.q, _rx(), st.t.text
    if "api" in out or q.buy_or_rent == "compare" or rx["own_api"].search(text):
        return
    # "the bill is $380/month"; a budget said as one ("每月预算 3000 块租卡") is what may be spent, not an API's bill
    bill = (q.monthly_budget or (q.budget and rx["monthly"].search(text))) and not rx["budget_word"].search(text)
    # the API said as such, or a provider with its bill: "run GPT locally, I don't want a paid tier" asks to run GPT
    paid_api = rx["api_word"].search(text) or (apis and bill)
    own_side = rx["self_host_side"].search(text) or q.gpu_mentions or q.buy_or_rent in ("buy", "rent")
    if paid_api and own_side and (rx["api_choice"].search(text) or bill):
        out["api"] = min(out.values(), default=len(text) + 1)


def api_sides(st: _State, out: dict[str, int]) -> None:
    """Once the API question is asked: "调用云端大模型API" is the API side, so a cloud word said only there is no GPU
    rented (the self-hosted side is what the rest says: "在一台 4090 工作站上本地跑" is the user's own card); and the
    machine the model runs on is the user's card, not a workstation to assemble, unless a budget asks for one."""
    q, rx = st.q, _rx()
    if "api" not in out:
        return
    rest = rx["cloud_api"].sub(" ", st.t.text)
    if q.buy_or_rent == "rent" and not _lex().rx["rent"].search(rest):
        q.buy_or_rent = "buy" if rx["self_host_side"].search(rest) else None
        q.deployment = "local" if q.buy_or_rent == "buy" else q.deployment
    if not (q.budget or q.monthly_budget):
        out.pop("build", None)
