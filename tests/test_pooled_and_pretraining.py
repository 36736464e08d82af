"""Several cards named by their memory for a training job (capabilities/pooled.py: does their memory add up), and
pretraining (from scratch is full training; its hours on the compute-optimal tokens; a job too big for one 80 GB
card timed on the count it needs). Questions as people write them in fine-tuning threads, both languages."""

from __future__ import annotations

import uuid

from tools.speed import SpeedRequest, estimate_speed


def _ask(advisor, *questions: str):
    session = f"t-{uuid.uuid4().hex[:8]}"
    return [advisor.ask(session, q) for q in questions]


def _lead(answer: str) -> str:
    return answer.split("\n")[0]


def test_two_cards_of_a_size_that_one_already_holds_say_data_parallel_adds_no_memory(advisor):
    (zh,) = _ask(advisor, "两张24G的卡能lora微调chatglm3吗？双卡显存能叠加吗")
    lead = _lead(zh.answer)
    assert lead.startswith("**可以，一张 24G 的卡就放得下**") and "显存不叠加" in lead
    assert not zh.grounding.untraceable and not zh.consistency.contradictions


def test_cards_of_a_size_that_hold_the_job_only_sharded_say_so(advisor):
    (en,) = _ask(advisor, "What gpus can finetune qwen2 72B by using qlora? Is 8*24G possible?")
    lead = _lead(en.answer)
    assert lead.startswith("**Yes, on 8 × 24 GB cards, but only sharded (FSDP + QLoRA")
    assert "47.7 GiB" in lead and "DDP" in lead
    (en2,) = _ask(advisor, "I have 2x 16GB GPUs. Can I LoRA fine-tune Llama-3.1-8B on them?")
    assert _lead(en2.answer).startswith("**Yes, on 2 × 16 GB cards, but only sharded")


def test_several_cards_with_no_count_get_the_fewest_that_hold_it(advisor):
    (zh,) = _ask(advisor, "单卡只有16GB显存，LoRA微调GLM-4-9B可以调用多张显卡实现吗")
    lead = _lead(zh.answer)
    assert lead.startswith("**可以，4 张 16G 的卡放得下，但必须分片（DeepSpeed ZeRO-3 或 FSDP）**")
    assert "QLoRA" in zh.answer.split("\n\n")[1]  # one card with QLoRA follows
    (en,) = _ask(advisor, "My GPUs only have 12GB VRAM each. Can I full fine-tune Llama-3.1-8B with multiple GPUs?")
    assert _lead(en.answer).startswith("**Not on 8 × 12 GB cards as it is**")


def test_a_qlora_part_beside_an_unquantized_lora_keeps_its_4bit_base(advisor):
    (zh,) = _ask(advisor, "chatglm3不量化的lora微调显存不够，qlora可以，24G显存，双卡也不够")
    assert "计算失败" not in zh.answer and "not bf16" not in zh.answer


def test_training_from_scratch_is_full_training_with_no_adapter_way(advisor):
    (en,) = _ask(advisor, "can I train a 7B model from scratch on one 24GB GPU")
    assert _lead(en.answer).startswith("That does **not** fit on a 24 GiB card")
    assert "LoRA" not in en.answer.split("\n")[0]
    assert "140B tokens" in en.answer  # the compute-optimal tokens, said, and their hours
    assert not en.grounding.untraceable


def test_pretraining_tokens_with_no_card_are_timed_on_the_count_of_80gb_cards_it_needs(advisor):
    (zh,) = _ask(
        advisor, "请问10B是指token的数量吗？如果要continue pretraining 13B这个规模的模型，大概需要多少卡，训练多久？"
    )
    lead = _lead(zh.answer)
    assert lead.startswith("**训练约需") and "4 张 NVIDIA H100 SXM5 80GB" in lead
    assert "10B tokens" in lead and "天" in lead  # a billion or more written as people write it (round 12)
    assert not zh.grounding.untraceable


def test_gpt2_is_known_and_its_pretraining_is_timed(advisor):
    (en,) = _ask(advisor, "I have an RTX 4090. How long would it take to pre-train gpt2?")
    lead = _lead(en.answer)
    assert lead.startswith("**About") and "GPT-2 (124M)" in lead and "RTX 4090" in lead
    assert not en.grounding.untraceable


def test_a_long_run_states_its_days_from_the_tool():
    r = estimate_speed(SpeedRequest(gpu="rtx-4090", params_b=7, mode="training", training_tokens=1.4e11))
    assert r.time_to_train_hours and r.time_to_train_days == round(r.time_to_train_hours / 24, 1)
