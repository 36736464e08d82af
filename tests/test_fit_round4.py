"""Fit questions of round 4 of the wild set (issue 19), each checked on variations written for its kind: a family
asked for on owned hardware, a model named as published ("unquantized"), several sizes in one list, a size-less
model with a bare size, a "will it run on <card>" with no model, concurrency levers."""

from __future__ import annotations

import uuid

import pytest
from asking import lead_of

from assistant.events import FinalEvent
from tools.capacity import CapacityRequest, largest_model


def _ask(advisor, text: str) -> FinalEvent:
    final = advisor.ask(f"t-{uuid.uuid4().hex[:8]}", text)
    assert isinstance(final, FinalEvent)
    return final


def _lead(answer: str) -> str:
    return lead_of(answer, 2)


def test_a_series_family_keeps_its_own_models_and_names_the_next_size_that_does_not_fit():
    r = largest_model(CapacityRequest(gpu="dgx-spark", mode="inference", family="series:qwen3coder"))
    examples = {e.model_id for w in r.ways for e in w.examples}
    assert examples == {"qwen3-coder-30b-a3b"}
    assert r.family_bigger is not None and r.family_bigger.model_id == "qwen3-coder-480b-a35b"
    assert r.family_bigger.per_gpu_gib > r.family_bigger_way.usable_gib_per_gpu


def test_an_example_is_sized_within_its_own_context_window():
    # Vicuna-7B (4k window, MHA) at 4-bit fits 8 GB at 4k; at the 8k default it would not be an example at all
    r = largest_model(CapacityRequest(gpu="rtx-4060", mode="inference", family="vicuna"))
    assert any(e.model_id == "vicuna-7b" for w in r.ways for e in w.examples)


@pytest.mark.parametrize(
    ("question", "words"),
    [
        (
            "[QwenLM/qwen-code] I have a DGX Spark (128GB memory). What is the best model for this kind of hardware?",
            ["480B"],
        ),
        ("我的 5090 最多能部署哪个 Qwen 模型？", ["72B", "放不下"]),
    ],
)
def test_a_family_on_owned_hardware_says_the_next_size_up_does_not_fit(advisor, question, words):
    answer = _ask(advisor, question).answer
    assert all(w in answer for w in words), answer[:1200]


@pytest.mark.parametrize(
    ("question", "no", "yes"),
    [
        ("can I run the unquantized Llama 3 70B on two 3090s?", "No, it does not fit", "4-bit (AWQ)"),
        ("不想量化，qwen2.5 7b 一张4060 8G 能跑吗", "放不下", "4-bit（AWQ）"),
        ("Llama 3 70B in bf16 on 2x 4090?", "No, it does not fit", "4-bit (AWQ)"),
    ],
)
def test_a_format_the_user_named_is_answered_first_then_the_one_that_fits(advisor, question, no, yes):
    answer = _ask(advisor, question).answer
    first, second = answer.split("\n\n")[:2]
    assert no in first and yes in second, answer[:600]


@pytest.mark.parametrize(
    ("question", "models"),
    [
        ("Please help me find suitable gpu vram for 7, 13, 70b models for llama 2 in vllm.", ["7B", "13B", "70B"]),
        ("qwen2.5 的 7B、14B、72B 各要多大显存", ["Qwen2.5-7B", "Qwen2.5-14B", "Qwen2.5-72B"]),
    ],
)
def test_each_size_of_a_list_is_answered_in_the_lead(advisor, question, models):
    lead = _lead(_ask(advisor, question).answer)
    assert all(m in lead for m in models), lead


@pytest.mark.parametrize(
    ("question", "card"),
    [
        ("Will it run on 3080 GTX 16GB VRAM?", "RTX 3080"),
        ("4090能跑吗", "RTX 4090"),
        ("can my two 3090s handle it?", "RTX 3090"),
    ],
)
def test_no_model_named_answers_what_the_card_holds(advisor, question, card):
    final = _ask(advisor, question)
    assert any(c.name == "largest_model" for c in final.tool_calls)
    assert card in final.answer.split("\n\n")[0] and "4-bit" in final.answer.split("\n\n")[0]


def test_a_follow_up_with_no_model_keeps_the_model_sized_before(advisor):
    sid = f"t-{uuid.uuid4().hex[:8]}"
    advisor.ask(sid, "How much VRAM does Llama 2 13B need?")
    final = advisor.ask(sid, "will it run on a 3080?")
    assert not any(c.name == "largest_model" for c in final.tool_calls)
    assert "Llama-2-13B" in final.answer


def test_a_size_named_apart_from_a_size_less_model_sizes_that_variant(advisor):
    final = _ask(advisor, "R1 的各个版本显存占用？我尝试部署 DeepSeek-R1 的 32B，显存爆了。我也是4090")
    assert "DeepSeek-R1-Distill-Qwen-32B" in final.answer.split("\n\n")[0]


@pytest.mark.parametrize(
    "question",
    ["How many concurrent users can one H100 serve with Llama 3 8B?", "两张 A100 80G 部署 qwen2.5-72B 并发大概多少"],
)
def test_a_concurrency_answer_names_what_raises_it(advisor, question):
    answer = _ask(advisor, question).answer
    assert "AWQ" in answer and ("more GPUs" in answer or "加卡" in answer), answer[:800]


def test_a_yes_on_one_card_says_yes_in_chinese(advisor):
    lead = _ask(advisor, "RTX 3060 12G 能跑 Baichuan-7B 吗？").answer.split("\n\n")[0]
    assert lead.startswith("**可以，"), lead


def test_an_unquantized_ask_is_answered_in_its_format_before_a_quantized_split(advisor):
    q = "我现在有内存640GB，显卡一张L40，显存48GB，能否把非量化版本的满血版671B deepseek-r1跑起来呢？"
    answer = _ask(advisor, q).answer
    assert "放不下" in answer.split("\n\n")[0] and "fp8" in answer.split("\n\n")[0], answer[:600]
    assert "Q4_K_M" in answer
