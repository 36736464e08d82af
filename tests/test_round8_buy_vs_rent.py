"""Buy-vs-rent kinds from real questions (issue 19, round 8): a rented server several people share states each
one's speed and each one's month; a provider's price quoted (or a provider named only to be beaten) does not
filter the offers, the cheapest dated ones lead; free GPUs asked for lead with the free notebook tiers; the price of
a fine-tune run asked leads with the run priced; a job far too big for the user's small cards is timed on one card
that holds it, not on a stack of theirs."""

from __future__ import annotations

import pytest
from asking import ask_checked, lead_of


@pytest.mark.parametrize(
    ("question", "speed", "each"),
    [
        (
            "可不可以 共享一个130B服务器 — 有没有人愿意一起合租一个中型GPU服务器？发起一个10人合伙业务",
            "tokens/s",
            "每人",
        ),
        ("几个朋友合租一台服务器跑 Qwen2.5-72B，5个人共用，每人每月多少钱？", "tokens/s", "每人"),
        (
            "Three of us want to split a rented GPU server to run Llama-3.3-70B. How much per person per month?",
            "per user",
            "each",
        ),
        (
            "My friends and I (4 people) want to share a cloud GPU for Qwen2.5-32B, what does it cost each of us?",
            "per user",
            "each",
        ),
    ],
)
def test_a_shared_server_states_each_ones_speed_and_month(advisor, question, speed, each):
    final = ask_checked(advisor, question)
    assert speed in final.answer and each in final.answer, final.answer


@pytest.mark.parametrize(
    ("question", "speed"),
    [
        ("租4张3090给10个人同时用GLM-130B，速度怎么样", "每人约"),
        ("Rent 4x RTX 4090 for 8 users at once on Llama-3-70B, how fast for each?", "each gets about"),
    ],
)
def test_a_named_rental_for_several_at_once_states_each_ones_speed(advisor, question, speed):
    final = ask_checked(advisor, question)
    assert speed in lead_of(final.answer, 2), final.answer
    assert any(c.name == "estimate_speed" and (c.args.get("batch") or 1) > 1 for c in final.tool_calls)


@pytest.mark.parametrize(
    ("question", "named"),
    [
        ("What's the best cloud provider for A100 ? I checked GCP provides it for $4/hr", "GCP"),
        ("Where can I rent an A100 cheaper? AWS charges $4.1/h", "AWS"),
        ("哪里租A100便宜？阿里云要30元一小时", "阿里云"),
        ("Where can I rent an A100 for less than AWS or GCP?", None),
        ("Also any other cloud services where GPU are rented at a lower rate, then aws, gcp, azure.", None),
    ],
)
def test_a_provider_named_to_be_beaten_does_not_filter_the_offers(advisor, question, named):
    final = ask_checked(advisor, question)
    lead = lead_of(final.answer)
    assert "No rental" not in lead and "没有" not in lead, final.answer
    assert not any(c.name == "rent_providers" and c.args.get("provider") for c in final.tool_calls)
    if named:
        assert named in lead_of(final.answer, 2), final.answer  # the quote is weighed against the cheapest


def test_a_provider_asked_for_still_filters(advisor):
    final = ask_checked(advisor, "Which EC2 instance should I use for Llama-3-8B?")
    assert any(c.name == "rent_providers" and c.args.get("provider") == "AWS" for c in final.tool_calls)


@pytest.mark.parametrize(
    "question",
    [
        "有没有免费的GPU可以用来微调大模型？",
        "Can't Afford Paying Cloud Services , how can i still follow up with the book ?",
        "Is there a free GPU where I can fine-tune Llama-3-8B with QLoRA?",
    ],
)
def test_free_gpus_asked_for_lead_with_the_free_tiers(advisor, question):
    final = ask_checked(advisor, question)
    lead = lead_of(final.answer)
    assert "Colab" in lead and "Kaggle" in lead, final.answer


def test_free_tiers_too_small_for_the_model_say_so(advisor):
    final = ask_checked(advisor, "有没有免费的GPU可以跑Qwen2.5-7B？")
    assert "Colab" in lead_of(final.answer) and "放不下" in lead_of(final.answer), final.answer


@pytest.mark.parametrize(
    ("question", "money"),
    [
        ("How much would it cost to fine-tune Llama-2-7B on an A100?", "$"),
        ("在A100上微调Qwen2.5-7B要花多少钱", "¥"),
        ("I want to determine how costly it is to fine-tune the 7B model on one A100.", "$"),
    ],
)
def test_the_price_of_a_fine_tune_leads_with_the_run_priced(advisor, question, money):
    final = ask_checked(advisor, question)
    lead = lead_of(final.answer)
    assert money in lead and ("hour" in lead or "小时" in lead), final.answer
    assert any(c.name == "rent_providers" and c.args.get("hours") for c in final.tool_calls), final.tool_calls


@pytest.mark.parametrize(
    ("question", "stack"),
    [
        (
            "I want to full fine-tune Gemma-3-4B. Colab T4 has not enough memory. How long for one epoch?",
            "the hours are for the",
        ),
        ("我想全参微调 Qwen2.5-7B，Kaggle 的两张 T4 显存不够，要训练多久？", "下面按它需要的"),
    ],
)
def test_a_job_far_too_big_for_small_cards_is_timed_on_one_that_holds_it(advisor, question, stack):
    final = ask_checked(advisor, question)
    assert stack not in final.answer, final.answer
    speeds = [c for c in final.tool_calls if c.name == "estimate_speed" and c.args.get("mode") == "training"]
    assert any(c.args.get("num_gpus") == 1 and c.args.get("gpu") != "t4" for c in speeds), final.tool_calls
