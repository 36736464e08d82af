"""Round 13, buy vs rent and API vs self-hosting, read as a user:

- an API priced against an open model a class smaller (a 7B or a 72B against GPT-4o or DeepSeek-V3) says so in the
  first two sentences, right after the price verdict, not only in the warnings at the bottom;
- a usage volume with an API named ("the GPT-4o API or Qwen2.5-72B on my 2x3090 for 500 requests a day?") is the
  API-versus-self-hosting question even with no cost word;
- a deployment's price asked by the year ("一年多少钱", "cost per year", "每年") is the card kept up all year: the
  lead carries the year's rent;
- a fine-tune's price asked with no card named ("what does it cost to fine-tune Llama-3.1-8B?") is the run's hours
  and cost on the cheapest rental that holds it, not a listing of rentals;
- two families offered with a slash ("models like LLama2/Mistral") are alternatives, the first one sized, not a
  Hugging Face id whose org is "LLama2" (ids such as "Qwen/QwQ-32B" keep their org).
"""

import pytest
from asking import ask_checked

from assistant.understanding import parse
from evals.runner import lead_of as first_sentences


@pytest.mark.parametrize(
    ("text", "caveat"),
    [
        ("Is self-hosting Llama-3.1-8B cheaper than GPT-4o for 2 million tokens a month?", "smaller model than"),
        ("自己部署 Qwen2.5-7B 代替 DeepSeek API，每月 5000 万 tokens，哪个便宜", "小一档"),
        ("我有两张3090，用 Qwen2.5-72B 自己部署替代 GPT-4o，每天 2000 次请求，划算吗", "小一档"),
        ("Should I use the GPT-4o API or run Qwen2.5-72B on my 2x3090 for 500 requests a day?", "smaller model than"),
    ],
)
def test_a_smaller_self_hosted_model_is_said_in_the_first_two_sentences(advisor, text, caveat) -> None:
    final = ask_checked(advisor, text, consistent=True)
    assert caveat in first_sentences(final.answer), final.answer
    assert final.answer.count(caveat) == 1, final.answer  # said once: moved to the lead, not repeated below


def test_the_same_model_through_the_api_carries_no_smaller_model_caveat(advisor) -> None:
    final = ask_checked(advisor, "DeepSeek API or self-host DeepSeek-V3 on 8x H200 for 1 billion tokens a month?")
    assert "smaller model than" not in final.answer, final.answer


@pytest.mark.parametrize(
    "text",
    [
        "Should I use the GPT-4o API or run Qwen2.5-72B on my 2x3090 for 500 requests a day?",
        "OpenAI API or Llama-3.1-8B on my own 4090 for 20k requests a day?",
        "每月 3000 万 tokens 走 Claude API，还是两张 4090 跑 Qwen2.5-32B？",
    ],
)
def test_a_volume_with_an_api_named_asks_api_against_self_hosting(text) -> None:
    assert "api" in parse(text).intents


def test_a_volume_asked_as_a_fit_on_owned_cards_keeps_the_fit_first() -> None:
    q = parse("I serve 500 requests a day via the OpenAI API, will Qwen2.5-72B fit on 2x3090?")
    assert q.intents[0] == "fit"


@pytest.mark.parametrize(
    ("text", "years"),
    [
        ("部署 Qwen2.5-7B 每年要花多少钱", 1.0),
        ("How much would it cost per year to host Llama-3.1-8B in the cloud?", 1.0),
        ("yearly cost of running Mistral 7B on a rented GPU", 1.0),
    ],
)
def test_a_price_asked_by_the_year_is_a_one_year_horizon(text, years) -> None:
    assert parse(text).horizon_years == years


@pytest.mark.parametrize(
    ("text", "year"),
    [
        ("ChatGLM-6B 部署一年要多少钱", "开一整年共"),
        ("租卡部署 Qwen2.5-32B，一年大概多少钱", "开一整年共"),
        ("How much would it cost per year to host Llama-3.1-8B in the cloud?", "a year kept up 24/7"),
    ],
)
def test_a_yearly_price_leads_with_the_year_of_rent(advisor, text, year) -> None:
    final = ask_checked(advisor, text, consistent=True)
    assert year in first_sentences(final.answer), final.answer


def test_hours_a_day_stated_are_not_priced_as_a_year_kept_up(advisor) -> None:
    final = ask_checked(advisor, "I run it 4 hours a day, what does it cost per year to rent an A100?")
    assert "a year kept up 24/7" not in final.answer, final.answer


@pytest.mark.parametrize(
    ("text", "hours", "money"),
    [
        ("what does it cost to fine-tune Llama-3.1-8B?", "hours", "$"),
        ("How much would fine-tuning Qwen2.5-14B with LoRA cost?", "hours", "$"),
        ("微调 Qwen2.5-14B 大概要花多少钱", "小时", "¥"),
        ("How do I estimate the number of GPUs and the cost for fine-tuning a 7B model?", "hours", "$"),
    ],
)
def test_a_fine_tunes_price_with_no_card_named_is_the_runs_hours_and_cost(advisor, text, hours, money) -> None:
    final = ask_checked(advisor, text, consistent=True)
    lead = first_sentences(final.answer)
    assert hours in lead and money in lead, final.answer
    assert "Rent it by the hour" not in lead and "按小时租" not in lead, final.answer


def test_where_to_rent_for_a_fine_tune_keeps_the_listing(advisor) -> None:
    final = ask_checked(advisor, "where can I rent a GPU to fine-tune Llama-3.1-8B?")
    assert "per 10 million training tokens" not in first_sentences(final.answer), final.answer


@pytest.mark.parametrize(
    ("text", "first"),
    [
        ("Add support for open source LLM models like LLama2/Mistral to reduce COST for chatgpt api", "LLama2"),
        ("Qwen2.5/Llama3 哪个部署便宜", "Qwen2.5"),
        ("Llama3/Qwen2.5 for a chatbot on a 4090?", "Llama3"),
    ],
)
def test_two_families_offered_with_a_slash_are_not_one_repository_id(text, first) -> None:
    assert parse(text).unknown_model == first


@pytest.mark.parametrize(
    ("text", "model"),
    [
        ("Qwen/QwQ-32B 需要多少显存", "qwq-32b"),
        ("deepseek-ai/DeepSeek-R1-Distill-Qwen-7B 显存", "deepseek-r1-distill-qwen-7b"),
        ("Qwen/Qwen2.5-7B-Instruct 4090 能跑吗", "qwen2.5-7b"),
        ("mistralai/Mistral-7B-Instruct-v0.2 on a T4", "mistral-7b-v0.2"),
    ],
)
def test_a_hugging_face_id_keeps_its_organisation(text, model) -> None:
    assert parse(text).model == model
