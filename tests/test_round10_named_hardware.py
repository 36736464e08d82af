"""Issue 19, round 10: a purchase or fit question computed on the hardware the user named. A follow-up that asks
for advice ("有什么建议", "any suggestions?") after a job was sized on the user's card, and adds a longer sequence,
is the same job on that card at the new length, not a card to buy; a single-card training figure says it assumes
gradient checkpointing."""

from __future__ import annotations

import uuid

import pytest

from assistant.events import FinalEvent


def _turns(advisor, *texts: str) -> list[FinalEvent]:
    sid = f"t-{uuid.uuid4().hex[:8]}"
    out = [advisor.ask(sid, t) for t in texts]
    assert all(isinstance(f, FinalEvent) for f in out)
    return out  # type: ignore[return-value]


@pytest.mark.parametrize(
    ("first", "second", "gpu", "context"),
    [
        ("我有一张 4090，能 LoRA 微调 Qwen2.5-7B 吗？", "有些样本长度到 4000，有什么建议？", "rtx-4090", 4000),
        (
            "Can I LoRA fine-tune Llama-3.1-8B on my RTX 3090?",
            "Some of my samples are around 4000 tokens long, any suggestions?",
            "rtx-3090",
            4000,
        ),
        ("3090 24G 能微调 chatglm2-6b 吗", "数据长度可能有3000，有啥建议", "rtx-3090", 3000),
        (
            "因为预算有限，最多只能搞到3090TI这样的显卡，微调 ChatGLM3-6B 能满足训练需求吗？",
            "感谢回复，但是个别数据长度会达到2000左右，有什么好的建议吗？",
            "rtx-3090-ti",
            2000,
        ),
    ],
)
def test_advice_after_a_sized_job_keeps_the_card_at_the_new_length(advisor, first, second, gpu, context):
    _, follow = _turns(advisor, first, second)
    names = [c.name for c in follow.tool_calls]
    assert "recommend_gpus" not in names, follow.answer
    sized = [c.args for c in follow.tool_calls if c.name == "estimate_vram"]
    assert sized and sized[0]["gpu"] == gpu and sized[0]["context_tokens"] == context


def test_a_buy_word_after_a_sized_job_still_recommends(advisor):
    _, follow = _turns(advisor, "我有一张 3060 12G，能 LoRA 微调 Qwen2.5-7B 吗？", "样本长度 4000 的话买什么卡好？")
    assert any(c.name == "recommend_gpus" for c in follow.tool_calls), follow.answer


def test_one_card_training_figure_says_checkpointing(advisor):
    (final,) = _turns(advisor, "一张 3090 Ti 能 LoRA 微调 ChatGLM3-6B 吗")
    assert "梯度检查点" in final.answer.split("\n\n")[1], final.answer


@pytest.mark.parametrize(
    ("question", "rent"),
    [
        ("Planning to buy 2x RTX 3090. Can it fine-tune a 13B? And a 70B?", "rent 80GB cards"),
        ("打算买2张3090，能微调 Qwen2.5-7B 和 Qwen2.5-72B 吗", "租 80G 的卡"),
        ("两张4090 24G，能微调 7b 吗？能微调 70b 吗？", "租 80G 的卡"),
        ("I have one 4090 — can I LoRA Llama-3.1-8B and Llama-3.1-70B?", "rent 80GB cards"),
    ],
)
def test_a_training_part_far_beyond_the_cards_rents_80gb_cards(advisor, question, rent):
    (final,) = _turns(advisor, question)
    lead = " ".join(final.answer.split("\n\n")[:2])
    assert rent in lead and "A100" in lead, final.answer


@pytest.mark.parametrize(
    "question",
    [
        "两张4090，能微调 7b 吗？能微调 14b 吗？",
        "打算买4张3090，能微调 Qwen2.5-7B 和 Qwen2.5-72B 吗",  # QLoRA of the 72B may hold on four
        "I was wondering if it was possible to split vram requirements between 2 RTX3090s to finetune and later "
        "run the LLaMA 65B model in a way that doesn't OOM?",  # QLoRA holds it: that is the answer
    ],
)
def test_a_part_qlora_may_hold_says_no_rent(advisor, question):
    (final,) = _turns(advisor, question)
    assert "租 80G" not in final.answer and "rent 80GB" not in final.answer, final.answer


@pytest.mark.parametrize(
    ("first", "second", "algo"),
    [
        ("I have LLM 11B and a 1B reward model. Can 8x A6000 run PPO?", "8*24G 4090 sorry!", "ppo"),
        ("GRPO 训练 Qwen2.5-7B，4 张 A100 80G 够吗", "那 8 张 4090 呢", "grpo"),
        ("Can I run PPO on Llama-3.1-8B with 4x A100 80GB?", "what about 8x RTX 4090?", "ppo"),
    ],
)
def test_a_follow_up_on_other_cards_keeps_the_rl_algorithm(advisor, first, second, algo):
    _, follow = _turns(advisor, first, second)
    rl = [c.args for c in follow.tool_calls if c.name == "estimate_rl"]
    assert rl and all(a["algorithm"] == algo for a in rl), [c.name for c in follow.tool_calls]


@pytest.mark.parametrize(
    ("question", "gpu", "counts"),
    [
        ("Qwen2.5-72B 微调 4 卡 A100 够吗？另外单卡 3090 最多能推理什么模型，2卡、4卡呢", "rtx-3090", {1, 2, 4}),
        ("DeepSeek-V3 推理 8 卡 H20 够吗，另外 1 张 4090 最多能跑多大的模型，2 张、4 张呢", "rtx-4090", {1, 2, 4}),
        (
            "qwen3.5 397b的模型，微调8卡a800（80G）够吗，推理至少需要什么显卡呢，8卡4090够吗，"
            "另外1卡4090最多可以推理什么样的qwen模型呢，2卡，4卡呢",
            "rtx-4090",
            {1, 2, 4},
        ),
    ],
)
def test_a_biggest_model_part_beside_a_named_model_is_answered(advisor, question, gpu, counts):
    (final,) = _turns(advisor, question)
    sized = [c.args for c in final.tool_calls if c.name == "largest_model"]
    assert {a["num_gpus"] for a in sized if a["gpu"] == gpu} >= counts, [c.name for c in final.tool_calls]
