"""Answers say what is true of the user's case in their language: a calculator's failure in that language, a
pretraining run named as pretraining, a Mac counted as a machine, QLoRA only where bitsandbytes runs, reference
cards the buyer can buy."""

from __future__ import annotations

import pytest
from asking import planned_turn

from assistant.capabilities.base import Outcome, ToolCall
from assistant.planner.compose import compose
from assistant.planner.plan import make_plan
from assistant.scenario import Scenario
from assistant.toolset import ToolName
from assistant.understanding import parse

_ENGLISH_ERROR = "qlora trains adapters on a quantized base (nf4, nf4_dq, int8, gptq, awq), not bf16"


def _failed_answer(question: str) -> str:
    parsed = parse(question)
    plan = make_plan(parsed, Scenario())
    call = ToolCall(name=ToolName.ESTIMATE_VRAM, args={"model": "chatglm3-6b", "mode": "qlora"})
    return compose(plan, parsed, [Outcome(call=call, ok=False, error=_ENGLISH_ERROR)]).answer


@pytest.mark.parametrize(
    "question",
    ["chatglm3 的 lora 微调需要多大显存", "7B 模型 QLoRA 微调要多少显存？", "用两张3090微调Qwen2.5-14B行不行"],
)
def test_a_tool_error_is_never_quoted_in_english_to_a_chinese_reader(question: str) -> None:
    answer = _failed_answer(question)
    assert "qlora trains" not in answer and "estimate_vram" not in answer
    assert "显存估算" in answer


def test_an_english_reader_gets_the_tool_message() -> None:
    assert _ENGLISH_ERROR in _failed_answer("How much VRAM to QLoRA fine-tune a 7B model?")


@pytest.mark.parametrize(
    ("question", "said", "not_said"),
    [
        ("从零训练一个1B的模型要多少显存", "从零预训练", "全参微调"),
        ("预训练一个 3B 模型，8 张 A100 够吗", "从零预训练", "全参微调"),
        ("How much VRAM to pretrain a 7B model from scratch on H100s?", "pretraining from scratch", "full fine-tuning"),
        ("Training a 1B LLM from scratch on 4x 4090, how much memory?", "pretraining from scratch", "full fine-tuning"),
    ],
)
def test_a_pretraining_run_is_not_called_fine_tuning(question: str, said: str, not_said: str) -> None:
    assert parse(question).pretrain
    answer = _answer(question)
    assert said in answer and not_said not in answer, answer


def _answer(question: str) -> str:
    return planned_turn(question, traceable=False)[1]


def test_mac_is_counted_as_a_machine_in_chinese() -> None:
    from assistant.strings import measure_words

    assert measure_words("1 张 Apple Mac Studio M2 Ultra", "zh") == "1 台 Apple Mac Studio M2 Ultra"
    assert measure_words("一张 Apple M4 Max", "zh") == "一台 Apple M4 Max"
    assert measure_words("一张 NVIDIA GeForce RTX 4090", "zh") == "一张 NVIDIA GeForce RTX 4090"
    assert measure_words("1 张 Apple", "en") == "1 张 Apple"


@pytest.mark.parametrize(
    ("gpu", "qlora"),
    [("Radeon RX 580", False), ("tesla-k80", False), ("rtx-3060-12gb", True), ("rx-7900-xtx", True)],
)
def test_capacity_offers_qlora_only_where_bitsandbytes_runs(gpu: str, qlora: bool) -> None:
    from tools.capacity import CapacityRequest, largest_model

    r = largest_model(CapacityRequest(gpu=gpu, num_gpus=1, mode="inference"))
    assert any(way.mode == "qlora" for way in r.ways) == qlora


@pytest.mark.parametrize(
    "question", ["我有一张RX 580 8G，能跑多大的模型", "What's the biggest model an RX 580 can run?"]
)
def test_an_rx_580_owner_is_not_told_qlora(question: str) -> None:
    answer = _answer(question)
    assert "QLoRA" not in answer.split("\n\n")[0], answer


def test_a_cny_buyer_is_not_given_export_controlled_reference_cards() -> None:
    answer = _answer("预算2万元，想买显卡本地跑Qwen2.5-32B，买什么卡")
    needs = next(line for line in answer.split("\n\n") if line.startswith("单卡显存需求"))
    assert "RTX 4090 D" in needs and "A100" not in needs and "RTX 4090 放" not in needs
    en = _answer("Budget $3000, what GPU should I buy to run Qwen2.5-32B?")
    assert "RTX 4090)" in en
