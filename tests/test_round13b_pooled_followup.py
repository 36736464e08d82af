"""Round 13b, several cards and several models, read as a user:

- a verdict on several cards states what they hold together beside what the model needs in all ("two A770 16GB
  run DeepSeek-R1-Distill-32B at 4-bit: 32 GiB together, 23.4 GiB needed"), in both languages;
- a follow-up naming only a card after an answer that sized several models checks each of those models on it,
  not only the last one sized.
"""

import uuid

import pytest
from asking import ask_checked, lead_of


@pytest.mark.parametrize(
    ("text", "pooled"),
    [
        ("can two 3090s run Llama-3.1-70B at 4-bit?", "48 GiB together"),
        ("两张 4090 能跑 Qwen2.5-72B 的 4-bit 吗", "合计 48 GiB"),
        ("will 4x A100 40GB run Llama-3.1-70B in fp16?", "160 GiB together"),
        ("A770 * 2 can be used? i want to use deepseek 32B", "32 GiB together"),
        ("两张 3060 12G 能跑 Qwen2.5-72B 吗", "合计才 24 GiB"),  # a no: the pool is under what it needs in all
        ("can 2 RTX 4060 Ti 16GB run Llama-3.1-70B at fp16?", "32 GiB together"),
    ],
)
def test_a_verdict_on_several_cards_states_their_pooled_memory(advisor, text, pooled) -> None:
    final = ask_checked(advisor, text, consistent=True)
    assert pooled in lead_of(final.answer), final.answer


@pytest.mark.parametrize(
    "text",
    ["can one 3090 run Llama-3.1-8B at 4-bit?", "一张 4090 能跑 Qwen2.5-14B 吗"],
)
def test_a_verdict_on_one_card_states_no_pool(advisor, text) -> None:
    final = ask_checked(advisor, text, consistent=True)
    lead = lead_of(final.answer)
    assert "together" not in lead and "合计" not in lead, final.answer


def _sized(final, gpu: str) -> set[str]:
    """The models sized on `gpu` by this turn's memory estimates."""
    return {c.args.get("model") for c in final.tool_calls if c.name == "estimate_vram" and c.args.get("gpu") == gpu}


@pytest.mark.parametrize(
    ("first", "then", "gpu", "models"),
    [
        ("Qwen2.5-7B 和 14B 微调要多少显存", "那我的 3060 能跑吗", "rtx-3060-12gb", ("Qwen2.5-7B", "Qwen2.5-14B")),
        (
            "how much VRAM for Llama-3.1-8B and Llama-3.1-70B?",
            "and on one 4090?",
            "rtx-4090",
            ("Llama-3.1-8B", "Llama-3.1-70B"),
        ),
        ("部署 Qwen2.5-32B 和 Qwen2.5-72B 需要多少显存", "两张 3090 够吗", "rtx-3090", ("Qwen2.5-32B", "Qwen2.5-72B")),
        (
            "VRAM needed to fine-tune Llama-3.1-8B and Mistral-7B with QLoRA?",
            "would a 12GB 3060 do?",
            "rtx-3060-12gb",
            ("Llama-3.1-8B", "Mistral-7B"),
        ),
    ],
)
def test_a_card_only_follow_up_checks_every_model_the_answer_sized(advisor, first, then, gpu, models) -> None:
    session = "r13b-" + uuid.uuid4().hex[:6]
    advisor.ask(session, first)
    final = advisor.ask(session, then)
    lead = lead_of(final.answer)
    assert all(m in lead for m in models), final.answer  # each model's verdict on the card, up front
    assert not final.grounding.untraceable, final.answer


def test_the_models_carry_over_a_second_card_only_follow_up(advisor) -> None:
    session = "r13b-" + uuid.uuid4().hex[:6]
    advisor.ask(session, "how much VRAM for Llama-3.1-8B and Llama-3.1-70B?")
    advisor.ask(session, "and on one 4090?")
    final = advisor.ask(session, "what about a 5090?")
    lead = lead_of(final.answer)
    assert "Llama-3.1-8B" in lead and "Llama-3.1-70B" in lead, final.answer
    assert {"llama-3.1-8b", "llama-3.1-70b"} <= _sized(final, "rtx-5090"), final.answer


@pytest.mark.parametrize(
    ("first", "then", "gpu", "model", "other"),
    [
        # a model named in the follow-up replaces the list
        (
            "how much VRAM for Llama-3.1-8B and Llama-3.1-70B?",
            "what about Qwen2.5-14B on a 4090?",
            "rtx-4090",
            "qwen2.5-14b",
            "llama-3.1-8b",
        ),
        # one model sized before: only that one on the card (its smaller sibling only as a QLoRA alternative)
        ("Qwen2.5-14B LoRA 微调要多少显存", "那我的 3060 能跑吗", "rtx-3060-12gb", "qwen2.5-14b", "qwen2.5-7b"),
    ],
)
def test_a_follow_up_sizes_only_the_model_in_play(advisor, first, then, gpu, model, other) -> None:
    session = "r13b-" + uuid.uuid4().hex[:6]
    advisor.ask(session, first)
    final = advisor.ask(session, then)
    lora = {
        c.args.get("model")
        for c in final.tool_calls
        if c.name == "estimate_vram" and c.args.get("gpu") == gpu and c.args.get("mode") in ("inference", "lora")
    }
    assert model in lora and other not in lora, (lora, final.answer)


@pytest.mark.parametrize(
    ("text", "per"),
    [
        ("Got 4x Tesla T4 from an old server, what's the biggest model I can serve with them?", "GiB per GPU"),
        ("两张 3090 最大能跑多大的模型？", "每卡 "),
    ],
)
def test_what_several_cards_hold_gives_each_models_memory_per_card(advisor, text, per):
    # 10.5 GiB is each T4's share of Llama-3.3-70B at 4-bit, not the model: on several cards the figure says so
    answer = ask_checked(advisor, text).answer
    assert per in lead_of(answer), answer


def test_what_one_card_holds_needs_no_per_card_word(advisor):
    answer = ask_checked(advisor, "我有一张 4090，最大能跑多大的模型？").answer
    assert "每卡" not in lead_of(answer), answer
