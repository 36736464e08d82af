"""A measured speed against the bandwidth bound (peak bandwidth / bytes per token) and the typical ceiling under it:
a speed between the two is a well-tuned run, never a problem; only one past the bound is read as something else."""

from __future__ import annotations

import pytest
from asking import lead_of, planned_turn

from tools.diagnose import DiagnoseRequest, diagnose


def test_a_speed_over_the_typical_ceiling_but_under_the_bound_is_at_the_ceiling() -> None:
    r = diagnose(
        DiagnoseRequest(
            symptom="slow", model="llama-3.1-8b", gpu="rtx-4090", precision="bf16", measured_tokens_per_s=55
        )
    )
    assert r.verdict == "at_ceiling"
    assert r.peak_tokens_per_s and r.ceiling_tokens_per_s
    assert r.ceiling_tokens_per_s < 55 < r.peak_tokens_per_s  # 1008 GB/s over ~15.5 GB a token ~ 65


def test_a_speed_past_the_bound_is_read_as_another_setup() -> None:
    r = diagnose(
        DiagnoseRequest(
            symptom="slow", model="llama-3.1-8b", gpu="rtx-3090", precision="bf16", measured_tokens_per_s=120
        )
    )
    assert r.verdict == "above"


@pytest.mark.parametrize(
    ("question", "words"),
    [
        ("I run Llama 3.1 8B in bf16 on my RTX 4090 and get 55 tokens/s, is that normal?", ["good result", "64.8"]),
        ("我的4090跑Qwen2.5-7B fp16，实测58 tok/s，正常吗？", ["好成绩", "70.1"]),
        ("3090 跑 llama3 8b bf16 每秒 50 token，速度正常吗", ["好成绩", "60.2"]),
    ],
)
def test_the_lead_says_a_speed_above_the_typical_value_is_good(question: str, words: list[str]) -> None:
    _, answer = planned_turn(question)
    lead = lead_of(answer)
    assert all(w in lead for w in words), lead


@pytest.mark.parametrize(
    ("question", "gpu"),
    [
        (
            "A100 gets 30 tok/s on Llama 3 8B fp16 but both my 3090 and 4090 get over 45, why is the A100 slower?",
            "A100",
        ),
        ("Rented an H100 for Mistral 7B and only see 40 t/s, my 4090 and 3090 both do 60+ on the same model", "H100"),
    ],
)
def test_the_card_the_speed_was_measured_on_is_diagnosed(question: str, gpu: str) -> None:
    """Cards measured each on their own are separate runs; the slow one is the run the question is about."""
    _, answer = planned_turn(question)
    lead = lead_of(answer)
    assert gpu in lead and ("below" in lead or "under" in lead), lead
    assert "split" not in lead, lead


@pytest.mark.parametrize(
    ("question", "words"),
    [
        ("My H100 runs a 1B TTS model slower than my 4080, why?", ["Not the card", "CPU"]),
        ("为什么我的 A100 跑 0.5B 的小模型比我家里的 4090 还慢？", ["不是显卡的问题", "CPU"]),
        ("Qwen2.5-1.5B inference is slower on our H100 than on my RTX 3090, how is that possible?", ["Not the card"]),
    ],
)
def test_a_faster_card_slower_on_a_small_model_leads_with_the_host(question: str, words: list[str]) -> None:
    """No speeds given: the same lead as when they are measured, the per-token costs outside the GPU."""
    _, answer = planned_turn(question)
    lead = lead_of(answer)
    assert all(w in lead for w in words), lead


def test_a_7b_on_a_named_faster_card_stays_a_software_path_question() -> None:
    _, answer = planned_turn("Someone's 2080 Ti runs Llama 2 7B faster than my 3090, why?")
    assert "faster card" in lead_of(answer, 2), answer


@pytest.mark.parametrize(
    "question",
    [
        "Hi, I tried to run the 13B model on two L4 GPUs but I am getting GPU OOM errors. Are there some "
        "parallelization or lower precision techniques to fit it? I'm calculating it will naively need 26 GB for "
        "inference and 52 GB for fine-tuning.",
        "我有两张 L4，跑 13B 模型一直 OOM，我算了推理要 26G，微调要 52G，怎么才能放得下？",
    ],
)
def test_an_oom_running_the_model_leads_not_the_fine_tune_figure(question: str) -> None:
    """The OOM hit running it is the question: the run is sized first, a figure quoted for a fine-tune follows."""
    plan, answer = planned_turn(question)
    lead = lead_of(answer)
    assert "52 GB" not in lead and "52G" not in lead, lead
    assert any(c.args.get("mode") == "inference" for c in plan.calls[:1]), plan.calls
