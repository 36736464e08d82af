"""Fine-tuning and buy-vs-rent kinds (issue 19, round 6): "how long and what will it cost" leads with the run's hours
and price (provider and date) even when another part planned the same speed call; a card size the user has, beside a
card they think they need, is what gets sized; the API against self-hosting is that comparison however it is worded,
and two equal bills are "about the same"; occasional use with a budget is answered rent-first."""

from __future__ import annotations

import re

import pytest
from asking import ask_checked, lead_of


@pytest.mark.parametrize(
    ("question", "money"),
    [
        ("How long would it take to fine-tune Llama 3 8B on 50k examples on a rented A100, and what's the cost?", "$"),
        ("用 8 张 A100 全参微调 Qwen2.5-7B，1B tokens 的数据要训练多久？大概多少钱？", "¥"),
        ("Full fine-tune of Qwen2.5-7B on 2x H100, 500M tokens: how many hours and how much money?", "$"),
        ("4 张 4090 LoRA 微调 Qwen2.5-14B，数据 5 万条，要多久、多少钱？", "¥"),
    ],
)
def test_a_run_asked_how_long_and_what_cost_leads_with_hours_and_price(advisor, question, money):
    final = ask_checked(advisor, question)
    lead = lead_of(final.answer)
    assert money in lead and re.search(r"\d{4}-\d{2}-\d{2}", lead), final.answer  # a dated price
    assert "hour" in lead or "小时" in lead, final.answer
    assert any(c.name == "rent_providers" and c.args.get("hours") for c in final.tool_calls), final.tool_calls
    assert lead not in final.answer[len(lead) :], "the priced run is said once"


@pytest.mark.parametrize(
    ("question", "size"),
    [
        ("Do I really need an A100 to fine-tune? I only have a 16GB card, what can I fine-tune with it?", "16 GB"),
        ("8 A100 80GB the minimum for finetune? my max GPU memory is 45G, can I finetune in some ways?", "45 GB"),
        ("手上只有一张 16G 的卡，非得用 A100 才能微调吗？", "16 GB"),
        ("我只有一张 24G 的卡，能微调什么模型？", "24 GB"),
    ],
)
def test_the_card_size_the_user_has_is_sized_first(advisor, question, size):
    final = ask_checked(advisor, question)
    first = next(c for c in final.tool_calls if c.name == "largest_model")
    assert first.args.get("vram_gib") == float(size.split()[0]), final.tool_calls
    assert size in lead_of(final.answer) and "QLoRA" in lead_of(final.answer), final.answer
    assert not any(c.name == "find_gpus" for c in final.tool_calls)  # no list of bigger cards


@pytest.mark.parametrize(
    "question",
    [
        "DeepSeek API vs self-hosting DeepSeek-V3 on 8xH100: which is cheaper at 500M tokens a month?",
        "OpenAI API or self-hosting Llama 3.1 8B on an L4, which is cheaper for 1M tokens a day?",
        "我们每天调用 GPT-4o 大概 5 万次，自己买卡部署 Qwen2.5-72B 会不会更便宜？",
    ],
)
def test_api_against_self_hosting_is_that_comparison(advisor, question):
    final = ask_checked(advisor, question)
    assert [c.name for c in final.tool_calls if c.name != "search_guides"] == ["compare_api"], final.tool_calls
    api = final.tool_calls[0]
    assert api.args.get("tokens_per_month") or api.args.get("requests_per_day"), api.args  # the user's volume


def test_equal_bills_are_about_the_same(advisor):
    question = (
        "Is it cheaper to use the OpenAI API or run Llama 3 70B on my own GPUs? We do about 2 million tokens a day."
    )
    final = ask_checked(advisor, question)
    lead = lead_of(final.answer)
    assert "about the same" in lead and "cheaper at your volume" not in lead, final.answer


@pytest.mark.parametrize(
    "question",
    [
        "租卡还是买卡？预算2w，主要是偶尔微调一下7B模型",
        "Rent or buy a GPU? Budget $1500, I only occasionally run Llama 3 8B fine-tunes",
        "预算1万，不经常用，跑 Qwen2.5-14B 推理，买卡还是租卡",
    ],
)
def test_occasional_use_with_a_budget_rents_first(advisor, question):
    final = ask_checked(advisor, question)
    lead = lead_of(final.answer)
    assert "租" in lead or "Rent" in lead, final.answer
    assert "建议买" not in lead and "**Buy" not in lead, final.answer
    assert any(c.name == "calculate_tco" for c in final.tool_calls)  # from how many hours owning pays


@pytest.mark.parametrize(
    ("question", "gpu"),
    [
        ("租一台 8 卡 A800 一个月多少钱？跟买比呢", "a800-80gb-sxm"),
        ("Buy or rent 8x H800? No idea what they cost to buy", "h800-sxm"),
    ],
)
def test_a_card_with_no_purchase_price_still_gets_its_rental_side(advisor, question, gpu):
    final = ask_checked(advisor, question)
    assert any(c.name == "rent_providers" and c.args.get("gpu") == gpu for c in final.tool_calls), final.tool_calls
    assert re.search(r"\d{4}-\d{2}-\d{2}", lead_of(final.answer)), final.answer  # a dated hourly price leads


def test_a_datacenter_card_run_all_month_is_weighed_against_datacenter_rentals(advisor):
    final = ask_checked(advisor, "我们公司打算 7x24 跑 Qwen2.5-72B 推理服务，买 H20 还是租云划算？三年")
    tco = next(c for c in final.tool_calls if c.name == "calculate_tco")
    from tools.catalog import resolve_gpu

    rented = tco.args.get("rent_gpu")
    assert rented is None or resolve_gpu(rented)[0].segment == "datacenter", tco.args
    assert "自购" in lead_of(final.answer), final.answer  # 730 hours a month: buying wins


def test_a_plain_rental_listing_next_to_a_training_speed_stays_a_listing(advisor):
    """A training speed on a card whose rental was only listed (no run to price) leaves the listing as it is."""
    final = ask_checked(advisor, "Where can I rent a 4090, and how fast does LoRA on Llama 3 8B train on it?")
    lead = lead_of(final.answer)
    assert "an hour" in lead and "for the run" not in lead, final.answer
