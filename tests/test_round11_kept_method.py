"""Round 11 (issue 19): a fine-tune's method the conversation sized stays across a new size, and a comparison whose
every named setup falls short says so before its pick."""

from __future__ import annotations

import pytest

from assistant.planner.plan import merge
from assistant.scenario import Scenario
from assistant.understanding import parse
from tools.compare import CompareRequest, compare_gpus


@pytest.mark.parametrize(
    "text",
    [
        "I can finetune 30b on my 4090. So I still can't finetune 65b even with two cards?",
        "What about finetuning 34b on the pair?",
        "我单卡能微调14b，那微调32b呢",
        "Could two 4090s fine-tune a 70b model?",
    ],
)
def test_a_new_size_keeps_the_qlora_the_conversation_sized(text):
    before = Scenario(params_b=65.0, mode="qlora", num_gpus=2)
    scenario, _ = merge(parse(text), before)
    assert scenario.mode == "qlora"


def test_a_named_method_or_a_plain_start_is_not_overridden():
    scenario, _ = merge(parse("LoRA fine-tune 13b on a 4090?"), Scenario(params_b=65.0, mode="qlora"))
    assert scenario.mode == "lora"
    scenario, _ = merge(parse("fine-tune 13b on a 4090?"), Scenario())
    assert scenario.mode == "lora"  # no conversation: the LoRA default


def test_every_named_setup_short_is_said_before_the_pick():
    req = CompareRequest(
        gpus=["rtx-4090", "rtx-3090"],
        counts={"rtx-4090": 2, "rtx-3090": 2},
        workload={"params_b": 65.0, "mode": "qlora", "batch": 1, "grad_checkpointing": True},
    )
    reasons = compare_gpus(req).verdict.reasons
    assert reasons[0].code == "cmp_none_as_named"
    assert reasons[0].params["asked"] == 2
