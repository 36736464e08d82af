"""The biggest model on several counts of one card asked in one question ("单卡、双卡、四卡 4090 分别最多能跑多大的
模型"): every count is sized and answered, smallest first, each with its speed (issue 19, wild set round 7)."""

from __future__ import annotations

import pytest
from asking import ask_checked


@pytest.mark.parametrize(
    ("question", "gpu", "counts"),
    [
        ("单卡、双卡、四卡 4090 分别最多能跑多大的模型", "rtx-4090", [1, 2, 4]),
        ("what's the largest model I can run on 1x, 2x and 4x 3090?", "rtx-3090", [1, 2, 4]),
        ("biggest model on one, two or four 4090s?", "rtx-4090", [1, 2, 4]),
        ("1/2/4张3090分别能跑多大模型", "rtx-3090", [1, 2, 4]),
    ],
)
def test_each_count_of_one_card_is_sized(advisor, question, gpu, counts):
    final = ask_checked(advisor, question)
    sized = [c for c in final.tool_calls if c.name == "largest_model"]
    assert [(c.args["gpu"], c.args["num_gpus"]) for c in sized] == [(gpu, n) for n in counts]
    speeds = [c for c in final.tool_calls if c.name == "estimate_speed"]
    assert sorted(c.args["num_gpus"] for c in speeds) == counts
    tops = [f"{w.max_params_b:g}B" for c in sized for w in c.result.ways[:1]]
    answer = final.answer
    assert all(top in answer for top in tops)
    assert answer.index(tops[0]) < answer.index(tops[-1])  # one card first


@pytest.mark.parametrize(
    ("question", "typed", "sized"),
    [
        ("Qwen4 32B 需要多少显存", "Qwen4 32B", "qwen3-32b"),
        ("can I run Llama 5 70B on two 3090s?", "Llama 5 70B", "llama-3.3-70b"),
        ("Gemma 4 27B 一张4090能跑吗", "Gemma 4 27B", "gemma-3-27b"),
        ("how much VRAM to fine-tune Qwen 4 14B with LoRA?", "Qwen 4 14B", "qwen3-14b"),
    ],
)
def test_a_version_newer_than_the_registry_with_a_size_is_said_after_the_lead(advisor, question, typed, sized):
    final = ask_checked(advisor, question)
    models = {c.args.get("model") for c in final.tool_calls if c.args.get("model")}
    assert models == {sized}  # a published shape, never a guessed one
    paragraphs = final.answer.split("\n\n")
    assert any(typed in p for p in paragraphs[1:3])  # said right after the lead, not at the end


@pytest.mark.parametrize(
    ("typed", "sized"),
    [
        ("Qwen4 32B", "qwen3-32b"),
        ("Llama 5 8B", "llama-3.1-8b"),
        ("Gemma 4 27B", "gemma-3-27b"),
        ("Llama 4 8B", None),  # a version the registry holds: scaled from it, as before
        ("Qwen9-7B", None),  # far past the next version: a typo, not a release
        ("qwen3 32b", None),
    ],
)
def test_newer_version_at_size(typed, sized):
    from tools.model_match import newer_version_at_size

    assert newer_version_at_size(typed) == sized


@pytest.mark.parametrize(
    ("question", "unit"),
    [
        ("How many GPU hours to fully fine-tune Llama 3 8B on 1B tokens with 8 H100s?", "GPU-hours"),
        ("用4张A100全参微调qwen2.5 7b，10万条数据，要多少卡时", "卡时"),
    ],
)
def test_a_training_time_on_several_cards_states_its_gpu_hours(advisor, question, unit):
    final = ask_checked(advisor, question)
    speed = next(c for c in final.tool_calls if c.name == "estimate_speed" and c.result.time_to_train_hours)
    n, hours = speed.result.num_gpus, speed.result.time_to_train_hours
    lead = final.answer.split("\n\n")[0]
    assert unit in lead and f"{n}" in lead
    assert f"{round(n * hours):,}" in lead or f"{round(n * hours, 1):g}" in lead
