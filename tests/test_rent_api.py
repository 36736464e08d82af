"""Where to rent (tools/rent.py) and API vs self-hosting (tools/api_cost.py): data, arithmetic, answers."""

from __future__ import annotations

import datetime as dt

import pytest

from tools.api_cost import ApiCostRequest, api_mentions, api_rows, compare_api, resolve_api
from tools.errors import AdvisorError
from tools.prices import tco_defaults
from tools.rent import RentRequest, best_rent_precision, find_providers, provider_facts, rent_providers

DAYS = tco_defaults()["hours_per_month"] / 24


# ---- data: every price and fact dated and sourced ------------------------------------------------------------


def test_api_rows_are_dated_sourced_and_positive():
    for row in api_rows().values():
        dt.date.fromisoformat(row.date)
        assert row.source.strip(), row.id
        assert row.output_per_million >= row.input_per_million > 0, row.id
        assert row.currency == ("CNY" if row.market == "cn" else "USD"), row.id


def test_api_rows_name_registry_models():
    from tools.models import resolve_model

    for row in api_rows().values():
        if row.serves:
            assert resolve_model(row.serves)[0].id == row.serves


def test_rental_providers_are_dated_and_sourced():
    for p in provider_facts().values():
        dt.date.fromisoformat(p.date)
        assert p.source.strip(), p.name


# ---- rent_providers ----------------------------------------------------------------------------------------


def test_offers_cheapest_first_each_with_date_and_source():
    r = rent_providers(RentRequest(gpu="A100 80G", currency="USD"))
    prices = [o.price_per_hour for o in r.offers]
    assert prices == sorted(prices) and prices
    assert all(o.date and o.source for o in r.offers)
    assert r.market == "global" and not r.cross_market


def test_chinese_market_lists_chinese_platforms_in_cny():
    r = rent_providers(RentRequest(gpu="4090", currency="CNY"))
    assert r.offers[0].provider == "AutoDL" and r.offers[0].listed_currency == "CNY"


def test_no_offer_in_the_market_shows_the_other_market_and_says_so():
    r = rent_providers(RentRequest(gpu="H100 SXM", currency="CNY"))
    assert r.cross_market and r.offers
    assert any(w.code == "rent_cross_market" for w in r.warnings)


def test_hyperscaler_instances_are_rented_whole():
    """26 GiB on AWS is one L40S (g6e.xlarge), not two T4s from a one-GPU g4dn.xlarge."""
    r = rent_providers(RentRequest(need_gib=26.0, currency="USD", provider="ec2"))
    assert r.provider == "AWS"
    first = r.offers[0]
    assert (first.gpu_id, first.num_gpus) == ("l40s", 1)
    assert all(o.num_gpus == 1 for o in r.offers)


def test_job_cost_and_your_price():
    r = rent_providers(RentRequest(gpu="a10g", currency="USD", hours=7.4, price_per_gpu_hour=3.15))
    yours = r.offers[0]
    assert yours.yours and yours.job_cost == pytest.approx(3.15 * 7.4, abs=0.01)
    assert all(o.job_cost == pytest.approx(o.price_per_hour * 7.4, abs=0.01) for o in r.offers)


def test_free_tiers_and_alternatives():
    assert {f.name for f in rent_providers(RentRequest(gpu="T4", currency="USD")).free_tiers} >= {"Google Colab"}
    p40 = rent_providers(RentRequest(gpu="P40", currency="CNY"))
    assert not p40.offers and p40.alternatives
    assert all(o.memory_gib * o.num_gpus >= 24 * 0.97 for o in p40.alternatives)


def test_a_model_is_sized_at_the_best_format_that_rents_cheapest():
    assert best_rent_precision("baichuan-13b", None, "inference", "CNY") == "int8_wo"  # one 24 GB card, not two
    assert best_rent_precision("qwen2.5-7b", None, "inference", "CNY") == "bf16"  # 16-bit costs what 4-bit does
    assert best_rent_precision("deepseek-r1", None, "inference", "USD") == "fp8"  # the weights' own format
    assert best_rent_precision("qwen2.5-7b", None, "lora", "USD") is None  # training: the estimator's default
    r = rent_providers(RentRequest(model="mixtral-8x7b", currency="USD", provider="AWS"))
    assert r.precision == "awq" and r.offers[0].gpu_id == "l40s"


def test_provider_names_as_people_write_them():
    assert find_providers("Amazon EC2 instances, or Vast.ai? maybe autodl") == ["AWS", "Vast.ai", "AutoDL"]
    with pytest.raises(AdvisorError):
        rent_providers(RentRequest(gpu="4090", provider="no such cloud"))


# ---- compare_api ---------------------------------------------------------------------------------------------


def test_usage_and_api_bill_arithmetic():
    r = compare_api(ApiCostRequest(model="llama-3.3-70b", requests_per_day=10_000, currency="USD"))
    tokens = 10_000 * 1_500 * DAYS
    assert r.input_tokens_per_month + r.output_tokens_per_month == pytest.approx(tokens)
    ref = api_rows()[r.reference.id]
    bill = (tokens * 2 / 3 * ref.input_per_million + tokens / 3 * ref.output_per_million) / 1e6
    assert r.reference.monthly_cost == pytest.approx(bill, rel=1e-3)
    assert r.reference.serves == "llama-3.3-70b"  # like for like: an API serving the model priced
    cheaper_side = "api" if bill <= r.cheapest_self_host.monthly_cost else "self_host"
    assert r.verdict == cheaper_side


def test_break_even_is_where_the_bills_meet():
    r = compare_api(ApiCostRequest(model="llama-3.3-70b", currency="USD"))
    assert r.verdict == "depends" and r.break_even_tokens_per_month
    at = compare_api(
        ApiCostRequest(model="llama-3.3-70b", currency="USD", tokens_per_month=r.break_even_tokens_per_month)
    )
    assert at.reference.monthly_cost == pytest.approx(at.cheapest_self_host.monthly_cost, rel=0.05)


def test_self_hosting_never_pays_when_a_busy_server_costs_more_per_token():
    r = compare_api(ApiCostRequest(api="deepseek", currency="CNY", requests_per_day=1000))
    assert r.self_cost_per_million_at_capacity > r.api_cost_per_million
    assert r.break_even_tokens_per_month is None and r.verdict == "api"


def test_a_provider_word_prices_its_default_model_and_says_so():
    row, by_provider = resolve_api("openai", "global")
    assert by_provider and row.provider == "OpenAI"
    r = compare_api(ApiCostRequest(api="openai", currency="CNY", requests_per_day=100))
    assert any(a.code == "api_provider_default" for a in r.assumptions)
    assert any(w.code in ("api_quality_other", "api_quality_below") for w in r.warnings)


def test_volume_beyond_one_server_adds_servers():
    r = compare_api(ApiCostRequest(api="openai", gpu="rtx-4090", requests_per_day=100_000, currency="USD"))
    assert r.cheapest_self_host.servers > 1
    assert r.gpu_hours_needed_per_month > r.hours_up_per_month


def test_renting_is_priced_when_the_user_rents():
    r = compare_api(ApiCostRequest(api="openai", currency="CNY", self_host="rent"))
    assert r.cheapest_self_host.kind == "rent"


def test_api_mentions_leave_open_models_alone():
    assert api_mentions("直接调用GPT的费用") == ["openai"]
    assert api_mentions("gpt-oss-120b or GPT-J on my own box") == []
    assert api_mentions("gpt-5.4-mini vs claude") == ["gpt-5.4-mini", "anthropic"]


# ---- the answers ---------------------------------------------------------------------------------------------


def _ask(advisor, text: str) -> tuple[str, list[str]]:
    import uuid

    final = advisor.ask(f"rent-api-{uuid.uuid4().hex[:8]}", text)
    return final.answer, [c.name for c in final.tool_calls]


@pytest.mark.parametrize(
    "text, lead, tool",
    [
        ("where can I rent an A100 cheaply?", "Rent it by the hour", "rent_providers"),
        ("求网上推荐的租用GPU的网站，想自己训练个小模型", "按小时租", "rent_providers"),
        ("is it cheaper to use the API than to host Llama 70B?", "API", "compare_api"),
        ("租GPU的费用会不会比直接调用GPT的费用还要昂贵？", "API", "compare_api"),
    ],
)
def test_answers_lead_with_the_verdict(text, lead, tool, advisor):
    answer, tools = _ask(advisor, text)
    assert tool in tools
    assert lead in answer.split("\n")[0]


def test_an_api_bill_is_the_api_question_not_a_purchase_budget():
    from assistant.understanding import parse

    q = parse("我们每月在 OpenAI 上花 2 万块，要不要自己买卡部署？")
    assert q.intents == ["api"] and q.monthly_budget == 20000 and q.budget is None
    assert "rent_where" not in parse("预算 100 万，推荐什么配置？").intents
    assert parse("run Qwen2.5-7B 24/7").model == "qwen2.5-7b"  # "24/7" is a schedule, not part of the name


@pytest.mark.parametrize(
    "text, lead, tool",
    [
        # a card chosen, bought or rented at the user's hours: the verdict with each way's monthly cost leads
        (
            "Should I buy a 4090 or rent one? ~3 hours a day for fine-tuning 7B models.",
            "a month for owning",
            "calculate_tco",
        ),
        ("一周大概跑 15 小时，4090 买还是租", "自购折合每月", "calculate_tco"),
        ("I'll run two 4090s 24/7 for inference for the next 2 years. Buy or rent?", "owning costs", "calculate_tco"),
        ("Should our startup buy 8x H100 or rent? We'd train ~70% of the time.", "Buy 8 ×", "calculate_tco"),
        # no card named: the card that holds the model, each way's monthly cost at the user's hours
        ("Is it cheaper to rent or buy for running Llama 3 70B? ~5 hours a day", "a month to own it", "rent_providers"),
        ("租卡跑Qwen2.5-72B划算还是买卡划算？每天大概用6个小时", "自购折合每月", "rent_providers"),
        # a month of rent: the card kept up all month, priced where it rents
        ("租4090一个月多少钱", "7×24 开着每月", "rent_providers"),
        # money spent on "the API", no provider named: the API against self-hosting, not a purchase budget
        ("每月在API上花5000块，值得自己买卡部署Qwen3-32B吗？", "自己部署更便宜", "compare_api"),
        (
            "We spend about $1,500 a month on the OpenAI API. Should we buy a GPU to run Qwen3-32B?",
            "Self-host",
            "compare_api",
        ),
    ],
)
def test_buy_or_rent_and_api_bills_lead_with_monthly_costs(text, lead, tool, advisor):
    answer, tools = _ask(advisor, text)
    assert tool in tools
    assert lead in answer.split("\n")[0]


def test_a_hosted_model_names_its_memory_and_a_family_of_one_is_that_model(advisor):
    # "[vicgalle/gpt-j-api] ... monthly cost for running a service like this": GPT-J-6B, kept up all month
    answer, tools = _ask(advisor, "[vicgalle/gpt-j-api] What is the monthly cost for running a service like this?")
    assert "estimate_vram" in tools and "rent_providers" in tools
    first = answer.split("\n")[0]
    assert "GPT-J-6B" in first and "GiB" in first and "a month" in first


@pytest.mark.parametrize(
    "text, lead",
    [
        ("Would 2 H100 be enough? If yes, where can I rent them?", "Yes: 2 × NVIDIA H100"),
        ("4张4090够不够用？去哪里租比较便宜？", "够用：4 张"),
    ],
)
def test_enough_asked_of_cards_with_no_model_says_yes_up_to_sizes(text, lead, advisor):
    answer, tools = _ask(advisor, text)
    assert "largest_model" in tools and "rent_providers" in tools
    assert answer.startswith(lead)


def test_a_pc_build_for_llms_with_nothing_named_picks_the_card_and_the_machine(advisor):
    answer, tools = _ask(advisor, "I want to build a PC for running LLMs locally. What specs do you recommend?")
    assert "recommend_gpus" in tools and "plan_workstation" in tools
    assert "Buy 1 ×" in answer.split("\n")[0]
