"""Round 12 (compare): a ranking the user saw on their runs ("the A800 is not as fast as the RTX 3090", "A100 的生成
速率慢于 4090", "H20 比 A100 慢") is answered by what the hardware predicts for that order: a clearly stronger card seen
behind is a fault (the diagnosis, on the stronger card: "by the hardware it is the faster card"); a weaker card seen
behind is expected (the comparison, led by the bottleneck that explains it). A model's memory need stated with no
model named, on several cards ("my model needs 20GB, 2x 3090: split it or keep it on one?"), is answered "one card"
(or two when the need is the whole card), not by asking for the model."""

import pytest
from asking import lead_of, planned_turn

from assistant.understanding import parse


@pytest.mark.parametrize(
    ("question", "gpu"),
    [
        ("the A800 is not as fast as RTX3090 with llama-3.1-8b in vLLM, is this normal?", "a800"),
        ("A100的计算能力比4090和3090强，为何 llama-2-70b 的token生成速率慢于4090和3090？", "a100"),
        ("Our H100 box is no faster than a 4090 for mistral-7b inference in ollama. What's wrong?", "h100"),
        ("H20 跑 qwen2.5-32b 的生成速度不如 4090，这正常吗", "h20"),
    ],
)
def test_stronger_card_seen_behind_is_diagnosed_on_that_card(question: str, gpu: str) -> None:
    q = parse(question)
    assert q.symptom == "slow"
    assert "diagnose" in q.intents and "compare" not in q.intents
    plan, _answer = planned_turn(question)
    calls = [c for c in plan.calls if c.name == "diagnose"]
    assert calls and calls[0].args["gpu"].startswith(gpu)


@pytest.mark.parametrize(
    ("question", "lead"),
    [
        ("Our A6000 is not as fast as the RTX 3090 on llama-3-8b in ollama. Expected?", "That is expected"),
        ("Why is my 3060 slower than my friend's 4090 on mistral 7b?", "That is expected"),
        ("训练 qwen2.5-7b lora 的时候 H20 比 A100 慢很多，正常吗", "这是正常的"),
        ("L40S 跑 Qwen2.5-14B 反而比 3090 慢，正常吗？", "这是正常的"),
    ],
)
def test_weaker_card_seen_behind_is_expected(question: str, lead: str) -> None:
    _plan, answer = planned_turn(question)
    assert lead in lead_of(answer), answer


def test_expected_training_order_names_compute_not_bandwidth() -> None:
    _plan, answer = planned_turn("训练 qwen2.5-7b lora 的时候 H20 比 A100 慢很多，正常吗")
    assert "312" in lead_of(answer) and "148" in lead_of(answer)


@pytest.mark.parametrize(
    "question",
    ["A100 和 4090 跑 llama-3-8b 哪个快？", "Is the 3090 slower than the 4090 for Qwen2.5-14B?"],
)
def test_plain_comparisons_are_not_symptoms(question: str) -> None:
    assert parse(question).symptom is None


@pytest.mark.parametrize(
    ("question", "lead"),
    [
        ("My model needs about 20GB. I have 2x RTX 3090. Split it over both or keep it on one?", "One card"),
        ("我有两张 3090，模型要 10G 显存，用两张卡会更快吗", "用一张卡"),
        ("假设我有4个gpu，每个24g。我的模型运行起来也需要24g，单卡快还是多卡快？", "用两张卡"),
    ],
)
def test_stated_need_on_several_cards_answers_one_card_or_two(question: str, lead: str) -> None:
    _plan, answer = planned_turn(question)
    assert lead in lead_of(answer), answer


def test_each_card_size_after_the_count() -> None:
    q = parse("假设我有4个gpu，每个24g。我的模型运行起来也需要24g")
    assert (q.num_gpus, q.stated_capacity_gib, q.min_vram_gib) == (4, 24.0, 24.0)
