"""Fine-tuning questions of round 4 of the wild set (issue 19), each checked on variations written for its kind:
an OOM report with no method (each method's verdict leads), the settings that set a fine-tune's peak memory, a
card size just above the need (tight), a full fine-tune just short of the cards (8-bit AdamW), a card count asked
on an old card (the count leads, the card's traps follow), tensor / pipeline parallel named for training."""

from __future__ import annotations

import re
import uuid

import pytest
from asking import lead_of

from assistant.events import FinalEvent


def _ask(advisor, *turns: str) -> str:
    sid = f"t-{uuid.uuid4().hex[:8]}"
    final = None
    for text in turns:
        final = advisor.ask(sid, text)
    assert isinstance(final, FinalEvent)
    return final.answer


def _lead(answer: str) -> str:
    return lead_of(answer, 2)


@pytest.mark.parametrize(
    ("question", "words"),
    [
        (
            "I'm trying to finetune llama-2-13b on my 3090 but keep getting OOM. Is it even possible on one card?",
            ["full", "QLoRA"],
        ),
        (
            "fine-tuning mistral 7b on a 4060 Ti 16GB gives CUDA out of memory, can this card do it at all?",
            ["full", "QLoRA"],
        ),
        ("单卡 24G 微调 chatglm-6b 爆显存了，是不是单卡训不了", ["全参", "LoRA"]),
    ],
)
def test_an_oom_with_no_method_named_leads_with_each_methods_verdict(advisor, question, words):
    lead = _lead(_ask(advisor, question))
    assert all(w in lead for w in words), lead


@pytest.mark.parametrize(
    ("question", "words"),
    [
        ("lora微调 qwen2.5-7b，24G显存，训练到一半报out of memeory", ["max_length", "截断", "梯度检查点"]),
        (
            "LoRA training llama-3-8b on a 24GB card ran out of memory after 3000 steps, why?",
            ["max_length", "micro-batch"],
        ),
        ("QLoRA finetune of qwen2.5-32b on two 3090s OOMs", ["cutoff_len", "checkpointing", "8-bit"]),
    ],
)
def test_a_fine_tune_that_ooms_names_the_settings_that_set_its_peak(advisor, question, words):
    answer = _ask(advisor, question)
    assert all(w in answer for w in words), answer[:1500]


@pytest.mark.parametrize(
    ("turns", "word"),
    [
        (["lora 微调 llama-3-8b，20G显存够吗"], "很紧"),
        (["LoRA fine-tune of llama-3-8b in fp16, would 20GB be enough?"], "Tight"),
        (["微调 llama-3-8b 需要多少显存", "fp16 下 20G 也能够吗"], "很紧"),
    ],
)
def test_a_card_size_just_above_the_need_is_tight_with_the_way_to_room(advisor, turns, word):
    answer = _ask(advisor, *turns)
    assert word in _lead(answer) and "QLoRA" in answer, answer[:800]


@pytest.mark.parametrize(
    "question",
    [
        "8张A100 80G能全参微调qwen2.5-72b吗",
        "full fine-tune llama 3.1 70b on 8x H100, possible?",
        "全参微调 qwen2.5-32b，4张A100 80G够吗",
    ],
)
def test_a_full_fine_tune_just_short_of_the_cards_fits_with_an_8_bit_optimizer(advisor, question):
    answer = _ask(advisor, question)
    assert "8-bit" in _lead(answer) and "AdamW8bit" in answer, answer[:800]


def test_a_full_fine_tune_far_beyond_the_cards_is_not_offered_the_8_bit_optimizer(advisor):
    answer = _ask(advisor, "全参微调 llama-3.1-8b，两张4090够不够")  # 65.6 GiB per GPU against 21.6: LoRA
    assert "AdamW8bit" not in answer and "LoRA" in answer


@pytest.mark.parametrize(
    ("question", "count"),
    [
        ("how many V100 32GB do I need to full fine-tune llama2-7b", r"\b4 × NVIDIA Tesla V100"),
        ("全参微调qwen2.5-7b需要几张T4", r"\d+ 张 NVIDIA T4"),
        ("用P40做LoRA微调qwen2.5-14b要几张卡", r"2 张 NVIDIA Tesla P40"),
    ],
)
def test_a_card_count_asked_on_an_old_card_leads_with_the_count(advisor, question, count):
    first = _ask(advisor, question).split("\n\n")[0]
    assert re.search(count, first), first


@pytest.mark.parametrize(
    "question",
    [
        "全参微调 llama-2-70b，TP/PP 怎么配，要几张 H100",
        "Training falcon-40b on 8x A100 80GB with tensor parallel 8 goes OOM, what parallelism should I use?",
    ],
)
def test_tensor_or_pipeline_parallel_named_for_training_is_related_to_the_sharded_count(advisor, question):
    answer = _ask(advisor, question)
    assert "TP" in answer and "PP" in answer and "ZeRO-3" in answer, answer[:800]


@pytest.mark.parametrize(
    ("question", "words"),
    [
        ("What hardware do I need to fine-tune Llama 3.1 70B?", ["**By method:** full fine-tuning", "H100"]),
        ("微调qwen2.5-72b需要什么硬件配置", ["**按微调方式看：**全参微调", "H100"]),
        ("如果要进行满血版DeepSeekR1的模型微调，大概需要什么硬件配置呢？", ["全参微调", "H100"]),
    ],
)
def test_what_to_buy_for_a_fine_tune_with_no_method_says_what_full_fine_tuning_takes(advisor, question, words):
    answer = _ask(advisor, question)
    assert all(w in answer for w in words), answer[:1500]
    assert not answer.startswith(words[0])  # the cards to buy lead; full fine-tuning's cost follows
