"""Round 15 (issue 20, item 2 "why is it slow"): a measured speed, a speed per minute, a step time or a factor between
two cards, set against what the hardware allows, verdict first:

- one card said slower than another by a factor with no speeds ("5x slower than my A100", "比 A100 慢5倍", "只有 2060
  的一半") is set against the factor the hardware predicts (memory bandwidth for decode, tensor math for training),
  with the arithmetic in the assumptions (understanding/speed_ratio.py, tools/diagnose/ratio.py,
  capabilities/diagnose_ratio.py);
- two run times on two cards ("A100 要10小时一个epoch，3090 不到1小时") are such a factor;
- a speed per minute ("每分钟只有 300 个 token", "120 tokens a minute") and a generation step time ("一个step就需要10s")
  are measured speeds;
- the GPU idle while the CPU is busy ("显卡核心频率经常在210", "CPU usage at 90%") is a run on the CPU;
- two speeds on the same card in two runs (engines, apps): the faster run shows what the card does, or ran a lighter
  build when it is past what the format allows;
- a speed with no model named under what any model filling the card reaches says so first;
- "5500显卡" is a card's model number, not 5,500 cards.
"""

import pytest
from asking import ask_checked, lead_of

from assistant.understanding import parse


def _diagnose_args(final) -> dict:
    calls = [c.args for c in final.tool_calls if c.name == "diagnose"]
    assert calls, [c.name for c in final.tool_calls]
    return calls[0]


# ---- a factor between two cards, stated with no speeds ------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "ratio", "slower", "faster"),
    [
        (
            "Our RTX 3060 runs Llama-3-8B in llama.cpp 4x slower than my friend's 4090, why?",
            4,
            "rtx-3060-12gb",
            "rtx-4090",
        ),
        ("用 vLLM 跑 Qwen2.5-14B-AWQ，A10 比 L40S 慢了3倍，正常吗", 3, "a10", "l40s"),
        ("T4 上跑 Qwen2-7B 比 A10 慢一倍，是不是正常", 2, "t4", "a10"),
        ("the RTX A6000 runs Mistral 7B at half the speed of my 3090, is something wrong?", 2, "rtx-a6000", "rtx-3090"),
        ("3060 跑 chatglm3-6b 的速度只有 2060 的一半，为什么", 2, "rtx-3060-12gb", "rtx-2060"),
        ("On the same Qwen2.5-7B, the 4090 is 3 times faster than my 3060, expected?", 3, "rtx-3060-12gb", "rtx-4090"),
    ],
)
def test_a_stated_factor_is_read_with_its_slower_card(text, ratio, slower, faster) -> None:
    q = parse(text)
    assert q.slower_ratio == ratio, q
    assert (q.slower_gpu, q.faster_gpu) == (slower, faster)
    assert q.symptom is not None and "diagnose" in q.intents, q.intents


@pytest.mark.parametrize(
    ("text", "words", "ratio"),
    [
        # 2,039 / 900 GB/s = 2.27x: 5x is software (the V100 has no fast INT4 kernel)
        (
            "why is my V100 5x slower than my A100 on vLLM with AWQ Qwen2.5-7B?",
            ("5x is not the hardware", "2.3x"),
            2.27,
        ),
        ("我的V100跑Qwen2.5-7B AWQ 比A100慢5倍，为什么", ("5 倍不是硬件造成的", "2.3 倍"), 2.27),
        # 600 / 320 GB/s = 1.88x: twice as slow is the hardware
        ("T4 上跑 Qwen2-7B 比 A10 慢一倍，是不是正常", ("基本就是硬件的差距",), 1.88),
        # 1,008 / 360 GB/s = 2.8x: 4x is more than the hardware
        (
            "Our RTX 3060 runs Llama-3-8B in llama.cpp 4x slower than my friend's 4090, why?",
            ("4x is not the hardware",),
            2.8,
        ),
    ],
)
def test_a_stated_factor_leads_against_the_bandwidth_ratio(advisor, text, words, ratio) -> None:
    final = ask_checked(advisor, text, consistent=True)
    lead = lead_of(final.answer)
    assert all(w in lead for w in words), final.answer
    args = _diagnose_args(final)
    assert args["stated_ratio"] > 1 and args["other_gpu"], args
    assert "GB/s" in final.answer.split(lead)[-1] or "GB/s" in lead  # the arithmetic: both cards' bandwidth


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ("my A100 is 2x slower than my 3090 serving llama-2-13b with vLLM", ("not the hardware", "at least as fast")),
        ("单张A100训练一个epoch要10小时，我朋友的3090不到1小时，是什么原因", ("不是硬件的问题", "不慢于")),
        (
            "Fine-tuning takes 12 hours on the V100 but 3 hours on an RTX 3090 with the same script, why?",
            ("not the hardware",),
        ),
    ],
)
def test_the_stronger_card_said_slower_is_not_the_hardware(advisor, text, words) -> None:
    final = ask_checked(advisor, text, consistent=True)
    lead = lead_of(final.answer)
    assert all(w in lead for w in words), final.answer


@pytest.mark.parametrize(
    ("text", "ratio", "slower"),
    [
        ("单张A100训练一个epoch要10小时，我朋友的3090不到1小时，是什么原因", 10, "a100-80gb-sxm"),
        ("LoRA 微调 Qwen2.5-7B，4090 上一个 epoch 要 6 小时，A100 上只要 2 小时，差这么多？", 3, "rtx-4090"),
        (
            "Fine-tuning takes 12 hours on the V100 but 3 hours on an RTX 3090 with the same script, why?",
            4,
            "v100-sxm2-32gb",
        ),
    ],
)
def test_two_run_times_on_two_cards_are_a_factor(text, ratio, slower) -> None:
    q = parse(text)
    assert q.slower_ratio == ratio and q.slower_gpu == slower, q


def test_a_training_factor_is_weighed_by_tensor_math_with_the_arithmetic(advisor) -> None:
    final = ask_checked(advisor, "LoRA 微调 Qwen2.5-7B，4090 上一个 epoch 要 6 小时，A100 上只要 2 小时，差这么多？")
    args = _diagnose_args(final)
    assert args["mode"] == "training" and args["stated_ratio"] == 3, args
    assert "TFLOPS" in lead_of(final.answer), final.answer
    assert "张量算力" in final.answer and "÷" in final.answer, final.answer  # the division, in the assumptions


def test_cards_with_no_factor_are_not_read_as_one() -> None:
    for text in (
        "4090 和 A100 跑 Qwen2.5-7B 哪个快？",
        "Is the 4090 2x the price of a 3090?",
        "A100 80G 和 H100 差多少",
        "Is the 4090 2x faster than the 3090 for Llama 3 8B?",
        "4090 跑 Qwen2.5-7B 比 3090 快一倍吗？",
    ):
        assert parse(text).slower_ratio is None, text


# ---- speeds in other units ----------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "speed"),
    [
        ("Ollama 跑 qwen2.5:14b 在 4060Ti 16G 上每分钟只有 300 个 token，正常吗", 5.0),
        ("Llama 3 8B on my 3090 in ollama only gets 120 tokens a minute, is that normal?", 2.0),
        ("用 transformers 推理 Qwen-7B，3090 上每个step要2秒，太慢了", 0.5),
        ("推理速度这么慢，8*V100 32G，一个step就需要10s+", 0.1),
    ],
)
def test_a_speed_per_minute_or_per_generation_step_is_a_measured_speed(text, speed) -> None:
    q = parse(text)
    assert q.measured_tokens_per_s == pytest.approx(speed, rel=0.01), q.measured_speeds
    assert q.symptom is not None


def test_a_training_step_time_is_no_token_speed() -> None:
    q = parse("LoRA 微调 Qwen2.5-7B，3090 上每个step要20秒，太慢了")
    assert q.measured_tokens_per_s is None


def test_no_model_and_a_speed_under_any_model_on_the_card_says_far_below(advisor) -> None:
    final = ask_checked(advisor, "推理速度这么慢，8*V100 32G，一个step就需要10s+")
    lead = lead_of(final.answer)
    assert "远低于" in lead and "不是显卡" in lead, final.answer
    assert "hf_device_map" in final.answer, final.answer  # first check: are the weights on the GPU at all


# ---- the GPU idle, the CPU busy -----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "text",
    [
        "ollama 跑 gguf 模型很慢，4060ti 16g 的显卡核心频率经常在210，CPU占用率50％",
        "Ollama is slow on my RTX 3060, GPU clock stays at 300 MHz and CPU usage is at 90%",
        "llama.cpp 生成很慢，3090 的 GPU 频率一直在 400 左右",
    ],
)
def test_the_gpu_idle_and_the_cpu_busy_is_a_run_on_the_cpu(text) -> None:
    assert parse(text).symptom == "cpu_fallback"


def test_a_run_on_the_cpu_names_the_users_card(advisor) -> None:
    final = ask_checked(advisor, "ollama 跑 gguf 模型很慢，4060ti 16g 的显卡核心频率经常在210，CPU占用率50％")
    assert "CPU" in lead_of(final.answer, 2) and "4060 Ti" in lead_of(final.answer, 2), final.answer


# ---- two runs on the same card ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "words"),
    [
        (
            "llamafile only achieves 26 tokens/s, llama.cpp gets 51 tokens/s, same RTX 2080, Qwen2-7B q3_k_m",
            ("26 tokens/s is not the card", "51"),
        ),
        (
            "LM Studio 跑 qwen2.5 7b q4_k_m 有 45 tokens/s，ollama 只有 15 tokens/s，显卡 4060 Ti 16G",
            ("不是显卡", "45"),
        ),
        (
            "vLLM gives me only 12 tok/s on my 3090 with Qwen2.5-7B AWQ but llama.cpp does 40 tok/s, why?",
            ("12 tokens/s is not the card",),
        ),
    ],
)
def test_the_faster_run_on_the_same_card_shows_the_card_is_fine(advisor, text, words) -> None:
    final = ask_checked(advisor, text, consistent=True)
    lead = lead_of(final.answer)
    assert all(w in lead for w in words), final.answer


@pytest.mark.parametrize(
    ("text", "word"),
    [
        ("Qwen3-8B in Transformers on my 3090: 44 tok/s. LM Studio does 83 tokens/sec", "lighter build"),
        ("4090 上用 transformers 跑 Qwen2.5-7B 只有 40 tokens/s，LM Studio 能到 130 tokens/s", "更轻的版本"),
    ],
)
def test_a_run_past_the_formats_bound_ran_a_lighter_build(advisor, text, word) -> None:
    final = ask_checked(advisor, text, consistent=True)
    assert word in final.answer, final.answer


# ---- a card's model number is no count ----------------------------------------------------------------------------


def test_a_model_number_before_xianka_is_no_count() -> None:
    assert parse("另一台机子5500显卡，运行速度比这个6600还快一些").num_gpus != 5500
    assert parse("公司有128张显卡，想跑 Qwen2.5-72B").num_gpus == 128
    assert parse("8张显卡跑 Qwen2.5-72B 够吗").num_gpus == 8


# ---- a training step's time in words, on a Pascal card ------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "seconds"),
    [
        ("P40 上用 LoRA 微调 Qwen2.5-7B 非常慢，一个 step 要 20 秒，为什么", 20),
        ("Fine-tuning Llama-3-8B with LoRA on a Tesla P100, each step takes 30 seconds, is that normal?", 30),
        ("QLoRA on my 1080 Ti, 45 seconds per step, why so slow?", 45),
    ],
)
def test_a_training_step_time_in_words_is_read(text, seconds) -> None:
    q = parse(text)
    assert q.measured_seconds_per_step == seconds and q.measured_tokens_per_s is None, q


def test_pascal_training_at_its_fp32_ceiling_says_so_and_names_the_card(advisor) -> None:
    final = ask_checked(advisor, "P40 上用 LoRA 微调 Qwen2.5-7B 非常慢，一个 step 要 20 秒，为什么")
    lead = lead_of(final.answer, 2)
    assert "上限" in lead and "Pascal" in lead, final.answer
    assert _diagnose_args(final)["measured_seconds_per_step"] == 20


@pytest.mark.parametrize(
    ("text", "ratio", "slower"),
    [
        ("我们的 H100 跑 Qwen2.5-72B-AWQ 只比 A100 快 20%，为什么", 1.2, "a100-80gb-sxm"),
        ("L40S 跑 llama3-70b AWQ 比 A100 慢了30%，正常吗", 1.3, "l40s"),
        (
            "Our H100 SXM is only 20% faster than the A100 40GB on Llama-3.1-70B AWQ with vLLM, why?",
            1.2,
            "a100-40gb-sxm",
        ),
    ],
)
def test_a_percentage_between_two_cards_is_a_factor(text, ratio, slower) -> None:
    q = parse(text)
    assert q.slower_ratio == ratio and q.slower_gpu == slower, q


def test_a_gap_smaller_than_the_hardware_allows_points_at_the_faster_card(advisor) -> None:
    final = ask_checked(
        advisor, "Our H100 SXM is only 20% faster than the A100 40GB on Llama-3.1-70B AWQ with vLLM, why?"
    )
    lead = lead_of(final.answer)
    assert "Only 1.2x apart" in lead and "runs under what it allows" in lead, final.answer
