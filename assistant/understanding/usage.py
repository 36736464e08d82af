"""How much a service is used, and which APIs and rental providers a message names.

"10,000 requests a day", "5 calls per minute", "每天 1 万次调用", "每月 1 亿 tokens" are a volume to price through
an API and on self-hosted GPUs (tools/api_cost.py); "$0.0525/minute" is a rental price per hour x 60. The API
providers ("OpenAI", "调用 GPT", "DeepSeek") come from knowledge/data/api_prices.yaml and the rental providers
("AutoDL", "EC2", "Colab") from rental_providers.yaml, both read through tools/, so a provider added to the
data is understood without a code change.
"""

from __future__ import annotations

import re
from functools import cache

from assistant.understanding.api_choice import api_choice_intent, api_sides
from assistant.understanding.lexicon import _lex
from assistant.understanding.money_time import _amount
from assistant.understanding.numbers import _currency_of, _number
from assistant.understanding.patterns import _NUM, _c
from assistant.understanding.query import ParsedQuery
from assistant.understanding.text import _State

_MAX_REQUESTS_PER_DAY = 1e9
_MAX_TOKENS_PER_MONTH = 1e15
_DAYS_PER_MONTH = 730 / 24  # tools/prices tco_defaults hours_per_month / 24


@cache
def _patterns() -> dict[str, re.Pattern[str]]:
    u = _lex().raw["usage"]
    num = rf"(?P<v>{_NUM}|{_lex().cn_amount})\s*(?P<u>{u['scale']})?\s*"
    per = rf"\s*(?:{u['per_words']})(?P<p>{u['period']})(?![a-z])"
    return {
        "requests_after": _c(rf"{num}(?:{u['request_words']}){per}"),
        "requests_lead": _c(rf"(?:{u['period_lead']})\D{{0,8}}?{num}(?:{u['request_words']})"),
        "requests_verb": _c(
            rf"(?:{u['period_verb']})[^，。,;；\n]{{0,20}}?(?<![A-Za-z0-9.-]){num}(?:{u['request_words']})"
        ),
        "tokens_after": _c(rf"{num}(?:{u['token_words']}){per}"),
        "tokens_lead": _c(rf"(?:{u['period_lead']})\D{{0,8}}?{num}(?:{u['token_words']})"),
        "per_minute": _c(r"^\s*(?:/\s*(?:min|minute)|per minute|a minute|每分钟)(?![a-z])"),
        "monthly": _c(u["monthly"]),
        "hosting": _c(u["hosting"]),
        "occasional": _c(u["occasional"]),
        "a_month": _c(u["a_month"]),
        "api_word": _c(u["api_word"]),
        "api_switch": _c(u["api_switch"]),
        "privacy": _c(u["privacy"]),
    }


@cache
def _shape(words: str) -> list[re.Pattern[str]]:
    """One request's prompt or reply length: "Input:2,000 tokens", "输入 2000 token", "1k prompt tokens"."""
    num = rf"(?P<v>{_NUM})\s*(?P<u>k|千)?\s*"
    tok = r"(?:tokens?|toks?)(?![a-z])"
    glue = r"(?:[:：=]|约|大约|about|~|≈|of)?\s*"
    return [
        _c(rf"(?<![a-z])(?:{words})(?![a-z])\s*(?:{tok}\s*)?{glue}{num}{tok}"),
        _c(rf"(?<![a-z])(?:{words})\s*{tok}\s*{glue}{num}"),
        _c(rf"{num}(?:{words})\s*{tok}"),
    ]


def _per_day(m: re.Match[str]) -> float | None:
    """How many of the period a day: 1440 for a minute, 1/30.4 for a month."""
    periods = _lex().raw["usage"]["periods"]
    groups = m.groupdict()
    word = (groups.get("p") or groups.get("p2") or groups.get("p3") or "").lower()  # p3: "日均 10 万次"
    for key in sorted(periods, key=len, reverse=True):
        if key in word:
            return 1 / _DAYS_PER_MONTH if key in ("month", "月") else float(periods[key])  # exact: 1 亿 a month
    return None


def _value(m: re.Match[str]) -> float | None:
    value = _number(m.group("v"))
    unit = (m.group("u") or "").lower()
    scales = _lex().raw["usage"]["scales"]
    return value * float(scales.get(unit, 1)) if value is not None else None


def _volume(st: _State, names: tuple[str, str]) -> float | None:
    """The first volume per period the patterns find, per day, masked once read."""
    for name in names:
        m = _patterns()[name].search(st.t.view)
        if not m:
            continue
        value, per_day = _value(m), _per_day(m)
        if value and per_day:
            st.t.take(m.start(), m.end())
            return value * per_day
    return None


def _request_shape(st: _State) -> None:
    """Prompt and reply tokens of one request, masked so no context length or dataset reads them."""
    u = _lex().raw["usage"]
    for side in ("input", "output"):
        m = next((m for rx in _shape(u[f"{side}_words"]) if (m := rx.search(st.t.view))), None)
        value = _number(m.group("v")) if m else None
        if m is None or value is None:
            continue
        tokens = int(value * (1000 if m.group("u") else 1))
        if 1 <= tokens <= 1_000_000:
            setattr(st.q, f"{side}_tokens_per_request", tokens)
            st.t.take(m.start(), m.end())


def _usage(st: _State) -> None:
    """Requests a day and tokens a month (before the dataset reader takes "1 亿 tokens" as training data)."""
    q = st.q
    _request_shape(st)
    tokens_a_day = _volume(st, ("tokens_after", "tokens_lead"))
    if tokens_a_day and tokens_a_day * _DAYS_PER_MONTH <= _MAX_TOKENS_PER_MONTH:
        q.tokens_per_month = float(round(tokens_a_day * _DAYS_PER_MONTH))
    requests = _volume(st, ("requests_after", "requests_lead", "requests_verb"))
    if requests and requests <= _MAX_REQUESTS_PER_DAY:
        q.requests_per_day = requests
    from tools.api_cost import api_mentions
    from tools.rent import find_providers

    q.api_mentions = api_mentions(st.t.text)
    q.rent_providers = find_providers(st.t.text)
    rx = _patterns()
    q.hosted_all_month = bool(rx["monthly"].search(st.t.text) and rx["hosting"].search(st.t.text))
    q.occasional_use = bool(rx["occasional"].search(st.t.text))
    q.privacy = bool(rx["privacy"].search(st.t.text))


def _per_minute_price(st: _State) -> None:
    """A rental price per minute ("$0.0525/minute", "每分钟 0.4 元") as a price per hour."""
    lex = _lex()
    for m in lex.rx["money"].finditer(st.t.view):
        if not (m.group("pre") or m.group("post")) or not _patterns()["per_minute"].match(st.t.view[m.end() :]):
            continue
        value = _amount(m)
        per = _patterns()["per_minute"].match(st.t.view[m.end() :])
        if value is None or per is None or not 0 < value <= 1000:
            continue
        st.q.cloud_price_per_hour = round(value * 60, 4)
        st.money_currency = st.money_currency or _currency_of(m.group("pre") or m.group("post"))
        st.t.take(m.start(), m.end() + per.end())
        return


def _apis_meant(q: ParsedQuery) -> list[str]:
    """The APIs the message means: "DeepSeek-V3 的最佳配置" names the model, not its maker's API ("deepseek"),
    unless an API word says so; "train a 124M GPT, budget $600" names the architecture trained from scratch."""
    from tools.api_cost import api_mentions

    if q.pretrain and not _patterns()["api_word"].search(q.text):
        return []
    named = api_mentions(q.model_mention) if q.model and q.model_mention else []  # "GPT-3 规模的模型": a size
    return [a for a in q.api_mentions if not (q.model and q.model.lower().startswith(a.lower())) and a not in named]


def usage_intent(st: _State, out: dict[str, int]) -> None:
    """API vs self-hosting and where to rent: each answers the cost question it is part of ("租GPU会不会比调用
    GPT 还贵" is API vs renting, not buy vs rent), unless buying or renting is asked as such; naming a rental
    provider with a cost word asks where to rent; a card choice named with "where to rent" is that list."""
    q = st.q
    if q.rent_providers and "cost" in out and "api" not in out and q.buy_or_rent != "compare":
        out.setdefault("rent_where", out["cost"])
    _run_at_provider(q, out)
    if q.buy_or_rent == "rent" and q.gpu_mentions and "cost" in out and not (q.budget or q.monthly_budget):
        out.setdefault("rent_where", out["cost"])  # "租4090一个月多少钱": the card's rental price, not buy vs rent
    if q.buy_or_rent == "rent" and {"cost", "recommend"} <= set(out) and not (q.budget or q.monthly_budget):
        # "租云 GPU 跑满血 R1，有什么推荐": which rental holds the model, cheapest first, not a purchase ranking
        out.setdefault("rent_where", min(out["cost"], out["recommend"]))
    if q.buy_or_rent == "compare":
        _buy_or_rent(q, out)
    _a_month_of_rent(q)
    costed = [out[k] for k in ("cost", "recommend") if k in out]
    apis = _apis_meant(q)
    if apis and costed and "api" not in out and q.buy_or_rent != "compare" and not q.gpu_price:
        out["api"] = min(costed)  # "每月在 OpenAI 上花 2 万，要不要自己买卡部署": the API against the card
    buying = q.gpu_mentions and (q.budget or q.gpu_price or q.buy_or_rent in ("buy", "compare"))
    if apis and buying and "api" not in out and _patterns()["api_word"].search(st.t.text):
        # "该不该花 2 万买 4090，还是继续用 Claude API": the card bought against the API the user pays now
        out["api"] = min(costed, default=len(st.t.text) + 1)
    _api_by_volume(q, bool(apis), out)
    _api_switch(st, bool(apis), out)
    api_choice_intent(st, bool(apis), out)  # "API还是买一张4090", "a local server instead of the Claude API"
    api_sides(st, out)  # "和调用云端大模型API比": the cloud is the API's, not a rented GPU
    if "api" in out:
        out.pop("recommend", None)
        if len(q.gpu_mentions) <= 1:
            out.pop("compare", None)  # "DeepSeek API vs self-hosting it on 8xH100": the API is what is compared
        _api_bill(st)
    if ("api" in out or "rent_where" in out) and q.buy_or_rent != "compare":
        out.pop("cost", None)
    if "rent_where" in out and not (q.budget or q.monthly_budget):
        out.pop("recommend", None)  # "推荐租 GPU 的网站", "recommend an EC2 instance": where, not which card to buy
    if "api" in out and "rent_where" in out:
        out.pop("rent_where")  # "租 GPU 会不会比调用 API 贵": the comparison names where it rents
    _card_for_rent(q, out)
    _rented_config(q, out)
    from assistant.understanding.worth_it import worth_on_card

    worth_on_card(st, out)  # "is a 4090 worth it for Qwen2.5-32B?": does it hold the job, not buy vs rent


def _run_at_provider(q: ParsedQuery, out: dict[str, int]) -> None:
    """ "How long did it take? Assuming Lambda Labs 8xA100", "在 AutoDL 上用 4090 微调要多久": a training run's hours
    asked at a rental provider named are priced there (capabilities/job_cost.py)."""
    training = q.fine_tune_unspecified or q.pretrain or {"full", "lora", "qlora"} & set(q.jobs)
    if q.rent_providers and q.asks_time and training and "speed" in out and "api" not in out:
        out.setdefault("rent_where", out["speed"] + 1)


def _api_switch(st: _State, apis: bool, out: dict[str, int]) -> None:
    """ "服务器部署一个Qwen72b模型--替换通过apiKey来调用Qwen-max模型", "host Llama 3.1 70B on our own server instead of
    the OpenAI API": a paid API given up for a model hosted by the user is API against self-hosting, with no cost
    word said (the API named, or an API word, beside a model or a hosting word)."""
    q, p = st.q, _patterns()
    if "api" in out or q.buy_or_rent == "compare" or not p["api_switch"].search(st.t.text):
        return
    hosted = q.model or q.params_b or p["hosting"].search(st.t.text)
    if hosted and (apis or p["api_word"].search(st.t.text)):
        out["api"] = min(out.values(), default=len(q.text) + 1)


def _api_by_volume(q: ParsedQuery, apis: bool, out: dict[str, int]) -> None:
    """ "Use the GPT-4o API or run Qwen2.5-72B on my 2x3090 for 500 requests a day?": an API named with an API word
    and a volume is that volume priced both ways, with no cost word said."""
    volume = q.requests_per_day or q.tokens_per_month
    if apis and volume and "api" not in out and q.buy_or_rent != "compare" and _patterns()["api_word"].search(q.text):
        out["api"] = min(out.values(), default=len(q.text) + 1)


def _rented_config(q: ParsedQuery, out: dict[str, int]) -> None:
    """ "租云服务器跑 grok-1，有啥 GPU 配置推荐", "rent a cloud server for 70B, what config?": the configuration of the
    server rented is its cards, which where-to-rent answers; there is no machine to assemble. A service sized for its
    users ("200 人、并发 100，选购何种规格的云服务器") keeps the server planned for that load."""
    if "rent_where" in out and q.buy_or_rent == "rent" and not (q.batch or q.users or q.persona in ("team", "company")):
        out.pop("build", None)


def _card_for_rent(q: ParsedQuery, out: dict[str, int]) -> None:
    """ "3090 租不到，3080Ti 12G 够 minimind 吗", "rent an A10 for Llama 3.1 8B, enough?": whether the named card
    holds the model decides what to rent, so its fit leads where it rents."""
    named = (q.gpu_mentions or q.unknown_gpu) and (q.model or q.params_b or q.unknown_model or q.model_family)
    if {"rent_where", "fit"} <= set(out) and named:
        out["fit"] = min(out["fit"], out["rent_where"] - 1)


def _buy_or_rent(q: ParsedQuery, out: dict[str, int]) -> None:
    """Buying weighed against renting leads: "should I buy a 4090 or rent one? ~3 h a day, LoRA on 7B" has chosen
    its card, so owning it against renting it at those hours leads (not a purchase ranking), then whether the job
    fits that card. In "购买这种高性能主机，和购买云计算服务相比，有哪些优势和劣势？" nothing is named, and
    "高性能" and "有哪些" ask for no speed figure or card list."""
    # a budget with occasional use ("预算2w，偶尔微调一下7B") still asks rent or buy: renting by the hour is the verdict
    if len(q.gpu_mentions) <= 1 and "recommend" in out and (not (q.budget or q.monthly_budget) or q.occasional_use):
        # with no card named ("租卡跑 Qwen2.5-72B 划算还是买卡划算"), the card that holds the model is priced both ways
        at = out.pop("recommend")
        out["cost"] = min(out.get("cost", at), at)
        if q.model or q.params_b:
            out.setdefault("fit", out["cost"] + 1)
    if not (q.gpu_mentions or q.model or q.params_b):
        asked = [out.pop(k) for k in ("speed", "catalog") if k in out]
        if asked:
            out["cost"] = min(out.get("cost", min(asked)), min(asked))


def _a_month_of_rent(q: ParsedQuery) -> None:
    """ "租一台 8 卡 A100 一个月要多少钱", "rent 8x A100 for a month": a month of rent is the cards kept up all month
    (730 hours), not a one-month horizon at half use."""
    one_month = q.horizon_years is not None and abs(q.horizon_years - 1 / 12) < 0.01
    one_month = one_month or (q.horizon_years is None and bool(_patterns()["a_month"].search(q.text)))
    if q.buy_or_rent == "rent" and one_month and q.hours_per_month is None and q.hours_per_day is None:
        q.hours_per_month, q.horizon_years = 730.0, None


def _api_bill(st: _State) -> None:
    """An amount said to be spent on the API every month ("每月在 OpenAI 上花 2 万块") is the bill, not a budget."""
    q = st.q
    if q.budget and not q.monthly_budget and _patterns()["monthly"].search(st.t.text):
        q.monthly_budget, q.budget = q.budget, None
