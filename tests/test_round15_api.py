"""Round 15, API versus self-hosting (issue 20 item 3), read as a user and as a reviewer:

- the providers people compare against are all on record (DeepSeek, Qwen/DashScope, GLM, Kimi, Doubao, OpenAI,
  Anthropic, Gemini), each row dated and sourced, in CNY or USD and shown in the user's currency;
- "日均 10 万次请求" is a volume a day (the period said in front as 日);
- an API weighed against a card of one's own with no provider or volume named ("API还是买一张4090") is the API
  question, and a monthly bill with the API named is priced as the bill, not as "GPT-4o cannot run on your card";
- "调用云端大模型API" is the API side, not a rented GPU;
- the answer shows its arithmetic (volume, API price at the mix, each option's month, the break-even) and always says
  when privacy, offline use or fine-tuning is the reason to own;
- a bare "70B" is set against the hosted APIs of that size; a model named beside its provider is the one priced.
"""

import pytest
from asking import ask_checked, lead_of

from assistant.understanding import parse
from tools.api_cost import ApiCostRequest, api_mentions, api_rows, compare_api, resolve_api
from tools.errors import AdvisorError


def _calls(final, name: str = "compare_api") -> list[dict]:
    return [c.args for c in final.tool_calls if c.name == name]


# ---- data: every provider the issue names, dated and sourced --------------------------------------------------


@pytest.mark.parametrize(
    ("word", "provider"),
    [
        ("deepseek", "DeepSeek"),
        ("dashscope", "Alibaba"),
        ("智谱", "Zhipu"),
        ("kimi", "Moonshot"),
        ("豆包", "Volcano"),
        ("openai", "OpenAI"),
        ("claude", "Anthropic"),
        ("gemini", "Google"),
    ],
)
def test_every_provider_the_issue_names_resolves_to_a_dated_sourced_row(word, provider) -> None:
    for market in ("cn", "global"):
        row, by_provider = resolve_api(word, market)
        assert provider in row.provider and by_provider
        assert row.date[:4] in ("2025", "2026") and len(row.source) > 20
        assert row.input_per_million > 0 and row.output_per_million >= row.input_per_million


def test_prices_are_held_in_both_currencies_and_unknown_apis_fail() -> None:
    currencies = {r.currency for r in api_rows().values()}
    assert currencies == {"CNY", "USD"}
    assert {r.provider_key for r in api_rows().values() if r.currency == "CNY"} >= {
        "deepseek",
        "alibaba",
        "zhipu",
        "moonshot",
        "volcengine",
    }
    with pytest.raises(AdvisorError):
        resolve_api("no-such-llm-api", "cn")


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("the OpenAI API (mostly GPT-4o for extraction)", ["gpt-4o"]),
        ("还在用 GPT-4o Mini 的接口", ["gpt-4o-mini"]),
        ("用智谱 GLM 的 API 每月花 5000", ["zhipu"]),
        ("火山引擎（豆包）的大模型 API", ["volcengine"]),
        ("Kimi API 太贵了", ["moonshot"]),
    ],
)
def test_the_model_named_is_priced_rather_than_its_providers_default(text, expected) -> None:
    assert api_mentions(text) == expected


# ---- parsing: the volume and the question --------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "per_day"),
    [
        ("我们的客服机器人日均 3 万次调用，用 API 还是自己部署？", 30000),
        ("日均处理 2000 条请求，本地部署划算吗", 2000),
        ("日请求量 8000 次左右，DeepSeek API 和自建哪个便宜", 8000),
    ],
)
def test_a_volume_with_its_day_said_in_front_as_ri_is_read_per_day(text, per_day) -> None:
    assert parse(text).requests_per_day == per_day


@pytest.mark.parametrize(
    "text",
    [
        "API 还是买两张 3090 划算？",
        "调用接口还是自己买卡部署，哪个省钱？",
        "Should I keep using the API or buy a 3090 for my chatbot?",
        "Is paying for an API cheaper than running a local model on my own GPU?",
    ],
)
def test_an_api_weighed_against_a_card_of_ones_own_is_the_api_question(text) -> None:
    assert parse(text).intents[0] == "api"


@pytest.mark.parametrize(
    "text",
    [
        "用 vLLM 在本地起一个 OpenAI 兼容 API，4090 还是 3090？",
        "run GPT-4 locally on my 3060",
        "Serve an OpenAI-compatible API from my 4090 or my 3090?",
        "Budget 1000€: which GPU, RAM and CPU should I buy? I want to make an API for personal use, 5 tokens/s or more",
        "买一张4090把模型封装成接口给同事用，还是3090就够？",
    ],
)
def test_an_api_served_by_ones_own_engine_or_a_closed_model_on_a_card_is_not_the_api_question(text) -> None:
    assert "api" not in parse(text).intents


@pytest.mark.parametrize(
    ("text", "bill"),
    [
        ("We pay Anthropic about $1,200 a month for Claude. Would a local model on our own GPUs be cheaper?", 1200),
        ("Our GPT-4o bill is $900/month. Is it worth moving to local hardware?", 900),
        ("我们每个月在 Kimi API 上花 6000 元，换成本地部署划算吗？", 6000),
    ],
)
def test_a_monthly_bill_with_the_api_named_is_priced_as_that_bill(advisor, text, bill) -> None:
    final = ask_checked(advisor, text)
    calls = _calls(final)
    assert calls and calls[0].get("monthly_bill") == bill, final.tool_calls
    assert "weights are not published" not in final.answer and "权重" not in lead_of(final.answer)


@pytest.mark.parametrize(
    "text",
    [
        "用 RTX 3090 在本地跑 Qwen3-8B，和调用云端 API 比哪个便宜？每天 1 万次请求",
        "Running Llama 3.1 8B locally on my 4090 vs a cloud API, 20k requests a day: which is cheaper?",
        "本地 4090 工作站跑 Qwen3-14B，对比云上的大模型接口，每天 5000 次调用，哪个划算",
    ],
)
def test_the_cloud_of_a_cloud_api_is_the_api_side_not_a_rented_gpu(advisor, text) -> None:
    final = ask_checked(advisor, text)
    calls = _calls(final)
    assert calls and calls[0].get("self_host") != "rent" and calls[0].get("gpu"), final.tool_calls
    assert not _calls(final, "plan_workstation"), final.tool_calls


def test_the_cost_question_leads_a_side_remark_about_slowness(advisor) -> None:
    text = "本地部署到底划不划算？API 越来越便宜了，而且我这张卡并发一多就很卡。"
    assert parse(text).intents[0] == "api"
    final = ask_checked(advisor, text)
    assert "API" in lead_of(final.answer), final.answer


# ---- the answer: arithmetic shown, reasons to own said, providers priced ------------------------------------------


def test_the_arithmetic_behind_every_figure_is_in_the_assumptions_and_adds_up() -> None:
    r = compare_api(ApiCostRequest(requests_per_day=3000, api="deepseek", gpu="rtx-4090", currency="CNY"))
    codes = [n.code for n in r.assumptions]
    for code in ("api_arith_volume", "api_arith_price", "api_arith_api_month", "api_arith_buy"):
        assert code in codes, codes
    assert r.tokens_per_month == pytest.approx(3000 * 1500 * 730 / 24)
    assert r.reference.monthly_cost == pytest.approx(r.tokens_per_month * r.api_cost_per_million / 1e6, rel=1e-3)
    buy = next(h for h in r.self_host if h.kind == "buy")
    assert buy.upfront and buy.months
    parts = (buy.upfront - (buy.resale or 0)) / buy.months + (buy.power_monthly or 0) + (buy.upkeep_monthly or 0)
    assert parts == pytest.approx(buy.monthly_per_server, rel=1e-3)
    if r.break_even_tokens_per_month:
        assert "api_arith_break_even" in codes


def test_a_bill_is_turned_into_tokens_with_the_division_shown() -> None:
    r = compare_api(ApiCostRequest(monthly_bill=380, api="gpt-4o", currency="USD"))
    bill = next(n for n in r.assumptions if n.code == "api_arith_bill")
    assert "$380" in bill.text and "million tokens" in bill.text
    assert r.tokens_per_month == pytest.approx(380 / r.api_cost_per_million * 1e6, rel=1e-3)


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ("We have been on OpenAI for a year; keep paying or self-host? 2,000 requests a day", ("offline", "fine-tune")),
        ("智谱 GLM 的 API 每天 5000 次调用，还是自己部署 GLM-4.5-Air？", ("离线", "微调")),
        ("豆包 API 每天 2 万次调用，还是自己买卡跑 Qwen3-32B？", ("离线", "微调")),
    ],
)
def test_the_reasons_to_own_are_always_said(advisor, text, words) -> None:
    final = ask_checked(advisor, text, consistent=True)
    assert all(w in final.answer for w in words), final.answer


@pytest.mark.parametrize(
    ("text", "priced"),
    [
        ("智谱 GLM 的 API 每天 5000 次调用，还是自己部署 GLM-4.5-Air？", "GLM-4.5-Air"),
        ("豆包 API 每天 2 万次调用，还是自己买卡跑 Qwen3-32B？", "Doubao"),
        ("Kimi API or self-hosting Kimi K2 for 10k requests a day?", "Kimi K2"),
    ],
)
def test_the_chinese_providers_are_priced_by_name(advisor, text, priced) -> None:
    final = ask_checked(advisor, text, consistent=True)
    assert priced in lead_of(final.answer, 2), final.answer


@pytest.mark.parametrize(
    ("text", "peer"),
    [
        ("Is it cheaper to self-host a 70B model than to use an API for 5,000 requests a day?", "llama-3.3-70b"),
        ("Self-host a 70B or pay per token? About 100 million tokens a month.", "70B"),
    ],
)
def test_a_bare_70b_is_set_against_the_hosted_apis_of_that_size(advisor, text, peer) -> None:
    final = ask_checked(advisor, text)
    assert peer.lower() in final.answer.lower(), final.answer
    r = compare_api(ApiCostRequest(params_b=70, requests_per_day=5000, currency="USD"))
    assert r.reference.serves and "70b" in r.reference.serves


@pytest.mark.parametrize(
    ("text", "said"),
    [
        ("我有一张3090，调用 API 还是本地跑划算？每天 500 次请求", "现有"),
        ("I already have an RTX 3050, should I use the OpenAI API or run locally? 300 requests a day", "already paid"),
        ("家里有张 4090，用 DeepSeek API 还是本地跑 Qwen3-14B，每天 1000 次调用？", "电费"),
    ],
)
def test_a_card_the_user_already_has_costs_its_electricity_not_a_purchase(advisor, text, said) -> None:
    final = ask_checked(advisor, text, consistent=True)
    calls = _calls(final)
    assert calls and calls[0].get("owned") is True, final.tool_calls
    assert said in final.answer, final.answer
    r = compare_api(ApiCostRequest(requests_per_day=500, gpu="rtx-3090", owned=True, currency="CNY"))
    own = next(h for h in r.self_host if h.kind == "own")
    assert own.monthly_cost == own.power_monthly and not any(h.kind == "buy" for h in r.self_host)


def test_buying_another_card_is_not_the_card_already_owned(advisor) -> None:
    final = ask_checked(advisor, "我有一张3090，想再买一张 3090 自己部署，还是直接用 DeepSeek API？每天 3000 次请求")
    calls = _calls(final)
    assert calls and not calls[0].get("owned"), final.tool_calls


@pytest.mark.parametrize(
    ("text", "models"),
    [
        ("每天 2 万次调用，用 DeepSeek API 还是自己部署 Qwen3-32B 和 Qwen3-8B 两个模型？", {"qwen3-32b", "qwen3-8b"}),
        (
            "OpenAI API vs self-hosting Llama 3.1 8B or Qwen2.5-32B for 5,000 requests a day?",
            {"llama-3.1-8b", "qwen2.5-32b"},
        ),
        (
            "豆包 API 还是本地部署 GLM-4.5-Air 或者 Qwen3-30B-A3B，每天 1 万次请求，哪个划算",
            {"glm-4.5-air", "qwen3-30b-a3b"},
        ),
    ],
)
def test_each_open_model_named_is_priced_against_the_api(advisor, text, models) -> None:
    final = ask_checked(advisor, text, consistent=True)
    assert {c.get("model") for c in _calls(final)} >= models, final.tool_calls
