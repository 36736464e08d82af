"""Round 10 fine-tuning kinds, as people ask them in fine-tuning threads (both languages):

- "is the limit each card's memory or the total?" on several cards: each card's (capabilities/per_card.py);
- a memory figure quoted for a training job, no model named, against the user's cards (capabilities/quoted_need.py);
- figures quoted for two models, each against its own, and "do I need 32 GB?" answered on the user's card
  (capabilities/claim_pairs.py);
- a card someone else used ("论文中您用的是80G的H100") is not the user's (understanding/card_joins.py);
- a GPU alias with a comma in it stays one alias (knowledge/data/gpus.yaml);
- "how many cards?" for a full fine-tune whose config offloads: the count without offload (offload_count.py)."""

from __future__ import annotations

import uuid

import pytest

from assistant.understanding import parse


def _ask(advisor, question: str):
    return advisor.ask(f"t-{uuid.uuid4().hex[:8]}", question)


def _lead(answer: str) -> str:
    return " ".join(answer.split("\n\n")[:2])


@pytest.mark.parametrize(
    ("question", "starts"),
    [
        ("我用四卡3090做LoRA微调仍然OOM，是单卡显存的限制还是总显存的限制", "**限制在单卡显存，不是总显存**"),
        (
            "I get OOM fine-tuning Llama-2-13B with LoRA on 4x RTX 3090. Is the limit the memory of each card or the "
            "total?",
            "**Each card's memory is the limit, not the total**",
        ),
        ("8张V100 32G 全参微调 qwen2.5-7b OOM，是每张卡显存不够还是总显存不够？", "**限制在单卡显存，不是总显存**"),
    ],
)
def test_per_card_or_total_is_answered_first(advisor, question, starts):
    answer = _ask(advisor, question)
    assert answer.answer.startswith(starts)
    assert "DDP" in _lead(answer.answer) and "ZeRO-3" in _lead(answer.answer)


def test_per_card_is_not_read_from_a_purchase_or_a_price():
    assert not parse("买单卡还是多卡好？").asks_per_card
    assert not parse("Is the price per GPU or total?").asks_per_card
    assert parse("两张 3090 显存能叠加吗，想微调 qwen 14b").asks_per_card


def test_cards_named_by_size_keep_the_pooled_lead(advisor):
    answer = _ask(advisor, "两张 24G 的卡微调 qwen2.5 14b，显存能叠加吗？")
    assert answer.answer.startswith("**可以，2 张 24G 的卡放得下，但必须分片")


@pytest.mark.parametrize(
    ("question", "starts"),
    [
        (
            "我有两张 24G 的 3090ti，作者说训练要 43GB 显存，能跑吗",
            "**可以，2 张 NVIDIA GeForce RTX 3090 Ti 能跑，但要把模型切到 2 张卡上**",
        ),
        (
            "The README says fine-tuning needs about 40GB of VRAM. I have a single RTX 4090. Is that enough?",
            "**Not on one NVIDIA GeForce RTX 4090 as quoted**",
        ),
        ("README 里说 LoRA 训练大概要 16G 显存，我有一张 3090，够吗", "**够，一张 NVIDIA GeForce RTX 3090 放得下**"),
        ("The repo says training needs 160GB of VRAM, I have 4x 3090. Can I run it?", "**Not as quoted on 4 ×"),
    ],
)
def test_a_quoted_need_with_no_model_is_set_against_the_cards(advisor, question, starts):
    answer = _ask(advisor, question)
    assert answer.answer.startswith(starts)
    assert not answer.grounding.untraceable and not answer.consistency.contradictions


def test_a_memory_figure_in_a_slow_training_report_is_no_stated_need(advisor):
    answer = _ask(advisor, "3090双卡训练比单卡慢出一倍以上 3090单卡是51.82s/it 3090双卡是124.55s/it 显存占用27G")
    assert "能跑，但要把模型切到" not in answer.answer


@pytest.mark.parametrize(
    ("question", "starts", "also"),
    [
        (
            "Training the 7B model takes about 18GB of VRAM. The 13B model ran out of memory on my 24GB card. "
            "Do I need 32GB?",
            "**32 GB is not needed**",
            "18 GB is about right for Generic-7B",
        ),
        (
            "LoRA on Llama-2-7B uses 16GB, but Llama-2-13B OOMs on my 3090. Will I need 40GB?",
            "**40 GB is not needed**",
            "16 GB is about right for Llama-2-7B",
        ),
        (
            "7B 微调占了 18G，13B 在我的 24G 卡上爆显存了，是不是至少要 32G？",
            "**不需要 32G**",
            "Generic-7B 18 GB 基本没错",
        ),
    ],
)
def test_figures_for_two_models_are_each_judged_and_the_card_decides(advisor, question, starts, also):
    answer = _ask(advisor, question).answer
    assert answer.startswith(starts) and "QLoRA" in _lead(answer) and also in _lead(answer)


def test_a_card_someone_else_used_is_not_the_users():
    q = parse("论文中您用的是80G的H100, 我只有两块24G的4090， 可以微调么？")
    assert (q.gpu, q.owned_gpu, q.num_gpus) == ("rtx-4090", "rtx-4090", 2)
    q = parse("The author used an A100 80GB; I only have a single 3090. Can I reproduce the LoRA fine-tune?")
    assert q.gpu == "rtx-3090"


def test_a_gpu_alias_with_a_comma_is_one_alias():
    from tools.catalog import catalog

    for gpu in catalog().values():
        for alias in gpu.aliases:
            assert alias.count("(") == alias.count(")"), (gpu.id, alias)


@pytest.mark.parametrize(
    ("question", "starts"),
    [
        (
            "用 deepspeed zero3 offload 在 2 张 V100 32G 上全参微调 llama2-7b 会 OOM，需要几张 V100？",
            "**不卸载到 CPU 的话要 4 张 NVIDIA Tesla V100 SXM2 32GB**",
        ),
        (
            "Full fine-tuning Qwen2.5-7B with ZeRO-3 CPU offload on 2x RTX 3090 OOMs. How many 3090s do I need?",
            "**Without CPU offload it takes 8 × NVIDIA GeForce RTX 3090**",
        ),
        (
            "4 张 A100 40G 用 zero3 offload 全参训练 llama2-13b 还是 OOM，要几张 A100 40G？",
            "**不卸载到 CPU 的话要 8 张 NVIDIA A100 40GB SXM4**",
        ),
    ],
)
def test_how_many_cards_with_an_offloading_config_is_the_count_without_offload(advisor, question, starts):
    answer = _ask(advisor, question)
    assert answer.answer.startswith(starts)
    assert not answer.grounding.untraceable and not answer.consistency.contradictions
