"""Purchase questions of round 8 of the wild set (issue 19), each kind checked on variations written for it: the
hardware for a model series named with no size ("本地部署 qwen3vl 要什么配置"), a machine asked for a model far
bigger than the one card named beside it ("how many A800s for DeepSeek-V3? ... recommend a home server, used is
fine"), and "is my card useless for AI, or can I use it?" with no engine named."""

from __future__ import annotations

import uuid

import pytest
from asking import lead_of

from assistant.events import FinalEvent


def _ask(advisor, text: str) -> FinalEvent:
    final = advisor.ask(f"t-{uuid.uuid4().hex[:8]}", text)
    assert isinstance(final, FinalEvent)
    return final


def _tools(final: FinalEvent) -> list[str]:
    return [c.name for c in final.tool_calls]


@pytest.mark.parametrize(
    "text",
    [
        "本地部署qwen3vl 要什么配置啊 有没有大佬来指点指点",
        "部署 Qwen3-VL 要什么配置",
        "what hardware should I buy to run Qwen3-VL?",
    ],
)
def test_a_series_with_no_size_is_sized_for_a_purchase_smallest_to_flagship(advisor, text):
    final = _ask(advisor, text)
    assert "recommend_gpus" in _tools(final)  # never "which GPU do you have?"
    assert "Qwen3-VL-8B" in final.answer
    assert "Qwen3-VL-235B-A22B" in final.answer  # the flagship a team may mean, with what it takes


def test_a_family_word_spanning_generations_adds_no_flagship(advisor):
    final = _ask(advisor, "本地部署qwen3 要什么配置")
    assert "recommend_gpus" in _tools(final)
    assert "235B" not in lead_of(final.answer, 2)


@pytest.mark.parametrize(
    "text",
    [
        "[deepseek-ai/DeepSeek-V3] Hello, how many GPU (A800 80G) to deploy DeepSeek-V3 model with vllm? — could you"
        " recommend a home server to use this model (can also be a used one)?",
        "想买二手 A100 80G 跑满血 DeepSeek-R1，推荐一台家用服务器",
    ],
)
def test_a_machine_for_a_model_far_bigger_than_the_card_named_is_a_purchase_not_that_used_card(advisor, text):
    final = _ask(advisor, text)
    lead = lead_of(final.answer, 2)
    assert "recommend_gpus" in _tools(final)
    assert "Worth buying" not in lead and "能买，前提是验卡过关" not in lead
    assert "GiB" in lead


def test_a_used_card_for_a_model_it_cannot_hold_is_not_called_worth_buying(advisor):
    final = _ask(advisor, "Is a used 3090 good for running Llama 3.1 405B at home?")
    assert "Worth buying" not in lead_of(final.answer, 2)


def test_a_used_card_for_a_model_it_holds_still_leads_with_the_used_card(advisor):
    final = _ask(advisor, "想买二手 V100 跑 Qwen2.5-14B，靠谱吗")
    assert lead_of(final.answer, 2).startswith("**能买，前提是验卡过关**")


@pytest.mark.parametrize(
    ("text", "lead_word"),
    [
        ("RX 580 8GBs are useless for AI or can i use it somehow ?", "Usable, with limits"),
        ("Can I do anything with LLMs on my Radeon RX 580 8GB, or is it useless?", "9.5B"),
        ("我的 RX 580 8G 跑AI是不是废了", "9.5B"),
    ],
)
def test_is_my_card_useless_leads_with_one_verdict_and_says_what_it_holds(advisor, text, lead_word):
    final = _ask(advisor, text)
    assert lead_word in lead_of(final.answer, 2)
    assert "largest_model" in _tools(final)  # the sizes it holds, where it runs
    assert "8B" in final.answer
