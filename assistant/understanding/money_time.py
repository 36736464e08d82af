"""Money and time: electricity price, per-hour rental price, busy hours, horizon, budgets and GPU prices."""

from __future__ import annotations

import re

from assistant.language import currency_for
from assistant.understanding.lexicon import _lex
from assistant.understanding.numbers import _currency_of, _in_range, _number, _other_currency_of
from assistant.understanding.text import _State
from tools.prices import other_currency_rate

_MONTH_HOURS = 730  # tools/prices tco_defaults hours_per_month
_WEEKS_PER_MONTH = _MONTH_HOURS / 168  # a month's weeks


def _electricity(st: _State) -> None:
    lex = _lex()
    units = lex.raw["electricity"]["units"]
    for name in ("elec_words", "elec_per_unit"):
        for m in lex.rx[name].finditer(st.t.view):
            value = _number(m.group("v"))
            unit = next((u for u in units if u.lower() == (m.group("cur") or "").lower()), None)
            scale, currency = units[unit] if unit else (1, None)
            if value is None or not _in_range(value * scale, 0, 10):
                continue
            st.q.electricity_price = round(value * scale, 4)
            st.money_currency = st.money_currency or currency or {"$": "USD", "¥": "CNY"}.get(m.group("pre") or "")
            st.t.take(m.start(), m.end())
            return


def _amount(m: re.Match[str]) -> float | None:
    """The amount of a money match: "1.5万" 15000, "$3k" 3000, "1万5" 15000, "一万五" 15000."""
    value = _number(m.group("num"))
    if value is None:
        return None
    multipliers = _lex().raw["numerals"]["amount_units"]
    unit = (m.group("unit") or "").lower()
    if unit:
        value *= multipliers[unit]
    tail = m.group("tail")
    if tail and unit in ("万", "w", "千", "k"):
        value += (_number(tail) or 0) * multipliers[unit] / 10
    elif tail:
        return None
    return value


def _per_hour_price(st: _State) -> None:
    lex = _lex()
    for m in lex.rx["money"].finditer(st.t.view):
        if not (m.group("pre") or m.group("post")):
            continue
        before = st.t.view[max(0, m.start() - 8) : m.start()]
        if lex.rx["per_hour"].match(st.t.view[m.end() :]) or lex.rx["per_hour_before"].search(before):
            value = _amount(m)
            if _in_range(value, 0, 10_000):
                st.q.cloud_price_per_hour = value
                st.money_currency = st.money_currency or _currency_of(m.group("pre") or m.group("post"))
                st.t.take(m.start(), m.end())
                return


def _hours(st: _State) -> None:
    """Busy hours: "24/7", "每天 8 小时", "3-4 hours a day", "一个月大概用 100 个小时" (before the horizon reads
    "一个月" as a period)."""
    lex = _lex()
    m = lex.rx["always"].search(st.t.view)
    if m:
        st.q.hours_per_day = 24.0
        st.t.take(m.start(), m.end())
        return
    share = _busy_share(st)
    if share is not None:
        st.q.hours_per_month = round(share * _MONTH_HOURS, 1)
        return
    st.q.hours_per_month = _hours_in(st, ("hours_month_first", "hours_hours_first_month"), 744)
    if st.q.hours_per_month is None:  # "10 hours a week": a month is 730/168 weeks
        weekly = _hours_in(st, ("hours_week_first", "hours_hours_first_week"), 168)
        st.q.hours_per_month = round(weekly * _WEEKS_PER_MONTH, 1) if weekly is not None else None
    if st.q.hours_per_month is None:
        st.q.hours_per_day = _hours_in(st, ("hours_day_first", "hours_hours_first"), 24)


def _busy_share(st: _State) -> float | None:
    """ "~70% of the time", "60% utilization": the busy share of the month (0-1), masked once read."""
    m = re.search(_lex().raw["time"]["busy_share"], st.t.view, re.I)
    value = _in_range(_number(m.group("v")), 0, 100) if m else None
    if m is None or not value:
        return None
    st.t.take(m.start(), m.end())
    return value / 100


def _hours_in(st: _State, patterns: tuple[str, ...], most: float) -> float | None:
    """The first hour count (a range's middle) the patterns find, masked once read."""
    for name in patterns:
        for m in _lex().rx[name].finditer(st.t.view):
            low = _number(m.group("v"))
            high = _number(m.group("v2")) if m.group("v2") else low
            value = _in_range((low + high) / 2 if low is not None and high is not None else None, 0, most)
            if value is not None:
                st.t.take(m.start(), m.end())
                return value
    return None


def _horizon(st: _State) -> None:
    lex = _lex()
    for m in lex.rx["years"].finditer(st.t.view):
        value = _number(m.group("v"))
        if value is not None and m.group("half"):
            value += 0.5
        if _in_range(value, 0, 30):
            st.q.horizon_years = value
            st.t.take(m.start(), m.end())
            return
    for m in lex.rx["months"].finditer(st.t.view):
        if lex.rx["per_before_months"].search(st.t.view[max(0, m.start() - 4) : m.start()]):
            continue
        value = _in_range(_number(m.group("v")), 0, 360)
        if value is not None:
            st.q.horizon_years = round(value / 12, 3)
            st.t.take(m.start(), m.end())
            return
    m = lex.rx["one_year"].search(st.t.view)
    if m:  # "for a year": a horizon with no numeral
        st.q.horizon_years = 1.0
        st.t.take(m.start(), m.end())


_PRICE_GAP = re.compile(r"\s*(?:for|at|@|=|:)\s*~?\s*", re.I)  # between a card's name and its price


def _priced_card(st: _State, at: int) -> bool:
    """An amount right after a card's name is its price ("a DGX Spark for $4000", "4090 @ 1.3万")."""
    return any(0 <= at - g.end <= 8 and _PRICE_GAP.fullmatch(st.t.text[g.end : at]) for g in st.gpus if g.value)


def _money(st: _State) -> None:
    """Budgets ("预算2万", "$3k", "15000元"), monthly budgets and stated GPU prices."""
    lex, q = _lex(), st.q
    view = st.t.view
    for m in lex.rx["money"].finditer(view):
        if not m.group("num") or not st.t.is_free(m.start("num"), m.end("num")):
            continue
        unit = _money_unit(m)
        token = m.group("pre") or m.group("post")
        value = _amount(m) if _is_money(st, m, unit) else None
        if not _in_range(value, 0, 1e12):
            continue
        st.t.take(m.start(), m.end())
        value = _in_us_dollars(st, token, value)
        after = view[m.end() : m.end() + 12]
        if lex.rx["price_of"].search(view[max(0, m.start() - 30) : m.start()]) or _priced_card(st, m.start()):
            q.gpu_price = value if q.gpu_price is None else q.gpu_price
        elif lex.rx["monthly_before"].search(view[max(0, m.start() - 24) : m.start()]) or (
            lex.rx["monthly_after"].match(after)
        ):
            q.monthly_budget = value if q.monthly_budget is None else q.monthly_budget
        elif q.budget is None:
            q.budget = value  # a range "1.5-2万" counts as its upper end
        st.money_currency = st.money_currency or _currency_of(token) or ("CNY" if unit in ("万", "千") else None)
    amounts = (q.budget, q.monthly_budget, q.electricity_price, q.gpu_price, q.cloud_price_per_hour)
    if any(a is not None for a in amounts):
        q.currency = st.money_currency or currency_for(q.language)


def _in_us_dollars(st: _State, token: str | None, value: float) -> float:
    """An amount in a currency the answers do not price in ("1000€"): in US dollars at the dated reference rate,
    the amount as said kept for the answer to quote."""
    code = _other_currency_of(token)
    rate = other_currency_rate(code) if code and code not in ("CNY", "USD") else None
    if rate is None:
        return value
    if st.q.budget_as_said is None:
        st.q.budget_as_said, st.q.budget_as_said_currency = value, code
    st.money_currency = st.money_currency or "USD"
    return round(value * rate[0], 2)


def _money_unit(m: re.Match[str]) -> str:
    unit = (m.group("unit") or "").lower()
    if not unit and re.search("[万千]", m.group("num")):
        unit = "万" if "万" in m.group("num") else "千"  # "一万五", "三千": the unit is inside the numeral
    return unit


def _is_money(st: _State, m: re.Match[str], unit: str) -> bool:
    """Whether a number is an amount of money: a currency, a budget word, or a money unit in money context."""
    lex, view = _lex(), st.t.view
    post = m.group("post")
    token = m.group("pre") or post
    after = view[m.end() : m.end() + 12]
    keyword = bool(lex.rx["budget_before"].search(view[max(0, m.start() - 24) : m.start()]))
    if post and post.strip() == "块" and not unit and (_number(m.group("num")) or 0) < 100 and not keyword:
        return False  # "四块" counts cards
    if unit == "w" and st.q.language == "en" and not token:
        return False  # "300W" in English is watts
    near = view[max(0, m.start() - 12) : m.end() + 12]
    if unit == "w" and not keyword and lex.rx["watt_context"].search(near):
        return False  # "电源: 1+1 2000W 冗余": a power supply's watts, not 2000万
    if token or keyword:
        return True
    if unit in ("万", "千"):
        return bool(lex.rx["unit_only_after"].match(after))  # "10万条数据" is not money
    if unit in ("w", "k") and st.q.language == "zh" and _spoken_amount(st.t.text, after):
        return True  # "钱不多，1w以内能搞定吗", "预算有限 15k 左右"
    return unit in ("w", "k") and bool(lex.rx["budget_after"].match(after))


def _spoken_amount(text: str, after: str) -> bool:
    """A w/k amount followed by a limit word ("以内", "左右") in a message about money or buying."""
    raw = _lex().raw["money"]
    return bool(re.match(raw["spoken_amount_after"], after) and re.search(raw["spoken_amount_money"], text, re.I))
