"""Round 13b, training on cards without BF16, read as an expert would:

- Volta and Turing (V100, T4, RTX 20xx) train in FP16 mixed precision on their FP16 tensor rate, with loss scaling;
  the bytes are those of BF16 mixed precision;
- Pascal cards without fast FP16 (P40, GTX 10xx) train in FP32 on their FP32 rate, and FP32 activations take twice
  the memory; the P100 has fast FP16 (18.7 TFLOPS, no tensor cores);
- the speed's assumptions say which dtype the card trains in and at what rate, and the answer says it once.
"""

import pytest
from asking import ask_checked

from tools.speed import SpeedRequest, estimate_speed
from tools.vram import VramRequest, estimate_vram


def _train(gpu: str, method: str = "lora", model: str = "qwen2.5-1.5b"):
    return estimate_speed(SpeedRequest(model=model, gpu=gpu, mode="training", method=method, context_tokens=2048))


@pytest.mark.parametrize(
    ("gpu", "dtype", "tflops"),
    [
        ("t4", "fp16", 65),
        ("v100-sxm2-32gb", "fp16", 125),
        ("rtx-2080-ti", "fp16", 53.8),
        ("tesla-p100-pcie-16gb", "fp16", 18.7),
        ("tesla-p40", "fp32", 12),
        ("gtx-1080-ti", "fp32", 11.3),
    ],
)
def test_training_on_a_card_without_bf16_runs_in_the_dtype_it_has(gpu, dtype, tflops) -> None:
    r = _train(gpu)
    assert r.peak_tflops == pytest.approx(tflops, rel=0.02)
    codes = {a.code for a in r.assumptions}
    assert f"speed_train_dtype_{dtype}" in codes, [a.text for a in r.assumptions]
    assert "speed_no_bf16" not in {w.code for w in r.warnings}  # said once, as the run's assumption


def test_training_on_a_bf16_card_says_nothing_about_the_dtype() -> None:
    codes = {a.code for a in _train("rtx-3090").assumptions}
    assert not any(c.startswith("speed_train_dtype") for c in codes)


@pytest.mark.parametrize("gpu", ["tesla-p40", "gtx-1080-ti"])
def test_fp32_training_doubles_the_layer_activations(gpu) -> None:
    def act(card: str, **kw) -> float:
        req = VramRequest(model="qwen2.5-0.5b", mode="lora", context_tokens=2048, gpu=card, **kw)
        return estimate_vram(req).per_gpu_breakdown_gib["activations"]

    bf16, fp32 = act("rtx-3090"), act(gpu)
    assert fp32 > 1.4 * bf16  # the layers' saved tensors double; the logits buffers stay as they were
    r = estimate_vram(VramRequest(model="qwen2.5-0.5b", mode="lora", context_tokens=2048, gpu=gpu))
    assert any("FP32" in a.text for a in r.assumptions)


def test_fp16_mixed_precision_keeps_the_bf16_bytes() -> None:
    def act(card: str) -> float:
        r = estimate_vram(VramRequest(model="qwen2.5-0.5b", mode="lora", context_tokens=2048, gpu=card))
        return r.per_gpu_breakdown_gib["activations"]

    assert act("t4") == pytest.approx(act("rtx-3090"))


def test_the_speed_tool_sizes_fp32_training_with_fp32_activations() -> None:
    fp32 = _train("tesla-p40", model="qwen2.5-0.5b").memory_per_gpu_gib
    same_card_bf16 = estimate_vram(VramRequest(model="qwen2.5-0.5b", mode="lora", context_tokens=2048)).per_gpu_gib
    assert fp32 > same_card_bf16 + 1


@pytest.mark.parametrize(
    ("text", "says", "never"),
    [
        ("GTX 1080 Ti 全参训练 Qwen2.5-0.5B 需要多久，1000万 token", "FP32", "训练用 FP16 加损失缩放"),
        ("用 P40 做 Qwen2.5-1.5B 的 LoRA 微调要多久，训练 2000 万 token", "FP32", "训练用 FP16 加损失缩放"),
        (
            "Can I fine-tune Llama 3.2 1B with LoRA on a Tesla P40? How fast is it for 20M tokens?",
            "FP32",
            "train in FP16 with loss scaling",
        ),
        ("How long to LoRA fine-tune Qwen2.5-3B on a T4 with 10M tokens?", "FP16", "trained in FP32"),
        ("V100 32G 全参微调 Qwen2.5-1.5B 要多久，训练 1亿 token", "FP16", "按 FP32 训练"),
    ],
)
def test_the_answer_names_the_dtype_the_card_trains_in(advisor, text, says, never) -> None:
    final = ask_checked(advisor, text, consistent=True)
    assert says in final.answer, final.answer
    assert never not in final.answer, final.answer


@pytest.mark.parametrize(
    "text",
    [
        "用 2080 Ti 22G 做 Qwen2.5-3B 的 LoRA 微调，显存够吗，训练 5000 万 token 要多久",
        "How long to LoRA fine-tune Qwen2.5-7B on two T4 16GB with 10M tokens?",
    ],
)
def test_the_answer_says_the_fp16_fallback_once(advisor, text) -> None:
    final = ask_checked(advisor, text, consistent=True)
    for phrase in ("改用 FP16 运行", "run in FP16 (watch for overflow)"):
        assert final.answer.count(phrase) == 0, final.answer
