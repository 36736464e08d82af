"""estimate_speed: roofline arithmetic by hand, MoE, interconnects, training time."""

import pytest

from tools.catalog import resolve_gpu
from tools.errors import AdvisorError, UnknownNameError
from tools.models import registry
from tools.speed import SpeedRequest, estimate_speed


def speed(**kw):
    return estimate_speed(SpeedRequest(**kw))


def test_decode_is_bandwidth_over_bytes_plus_launch_time():
    r = speed(model="llama-2-7b", gpu="RTX 4090", precision="fp16", context_tokens=1, memory_efficiency=1.0)
    arch = registry()["llama-2-7b"]
    weights_read = (arch.params - 32000 * 4096) * 2  # the input embedding is looked up, not streamed
    step = weights_read / 1008e9 + 32 * 0.05e-3  # + per-layer kernel launches (optimized engine profile)
    assert r.decode_tokens_per_s == pytest.approx(1 / step, rel=0.01)
    assert r.bound == "memory-bandwidth"


def test_prefill_is_compute_bound_at_dense_bf16():
    r = speed(model="llama-3.1-8b", gpu="H100 SXM", context_tokens=8192)
    arch = registry()["llama-3.1-8b"]
    flops = 2 * arch.params * 8192 + 2 * 32 * 8192**2 * 32 * 128
    assert r.ttft_s == pytest.approx(flops / (989.5e12 * 0.5), rel=0.01)


def test_geforce_fp16_with_fp32_accumulate_is_half_rate():
    gpu, _ = resolve_gpu("RTX 4090")
    assert gpu.tensor_tflops("fp16") == gpu.fp16_fp32acc_tflops == gpu.bf16_tflops == pytest.approx(165.2)
    assert gpu.fp16_tflops == pytest.approx(330.3)


def test_more_bandwidth_is_faster():
    slow = speed(model="qwen2.5-7b", gpu="L4").decode_tokens_per_s
    fast = speed(model="qwen2.5-7b", gpu="H100 SXM").decode_tokens_per_s
    assert fast > 5 * slow


def test_moe_reads_only_active_experts_at_batch_1():
    moe = speed(model="mixtral-8x7b", gpu="H100 SXM", num_gpus=2, context_tokens=256)
    dense = speed(model="llama-2-70b", gpu="H100 SXM", num_gpus=2, context_tokens=256)
    assert moe.decode_tokens_per_s > 2.5 * dense.decode_tokens_per_s  # 12.9B active vs 69B
    big_batch = speed(model="mixtral-8x7b", gpu="H100 SXM", num_gpus=2, context_tokens=256, batch=64)
    assert any("8.0 of 8 experts" in a.text for a in big_batch.assumptions)


def test_tensor_parallel_over_pcie_is_slower_than_nvlink():
    nv = speed(model="llama-2-13b", gpu="A100 80GB SXM", num_gpus=4).decode_tokens_per_s
    pcie = speed(model="llama-2-13b", gpu="L40S", num_gpus=4)
    assert any("without NVLink" in w.text for w in pcie.warnings)
    assert nv > pcie.decode_tokens_per_s


def test_batch_raises_aggregate_throughput():
    one = speed(model="llama-3.1-8b", gpu="A100 80GB SXM", batch=1)
    many = speed(model="llama-3.1-8b", gpu="A100 80GB SXM", batch=64)
    assert many.decode_tokens_per_s_total > 20 * one.decode_tokens_per_s_total
    assert many.decode_tokens_per_s < one.decode_tokens_per_s


def test_training_time_is_tokens_over_rate():
    r = speed(
        model="llama-3.1-8b",
        gpu="H100 SXM",
        num_gpus=8,
        mode="training",
        context_tokens=4096,
        batch=2,
        training_tokens=1e9,
        training_mfu=0.4,
    )
    arch = registry()["llama-3.1-8b"]
    per_token = 6 * arch.params + 6 * 32 * 4096 * 32 * 128
    expected_rate = 8 * 989.5e12 * 0.4 / per_token
    assert r.training_tokens_per_s == pytest.approx(expected_rate, rel=0.02)
    assert r.time_to_train_hours == pytest.approx(1e9 / r.training_tokens_per_s / 3600, rel=0.01)


def test_lora_training_costs_less_compute_than_full():
    full = speed(model="qwen2.5-7b", gpu="A100 80GB SXM", mode="training", method="full")
    lora = speed(model="qwen2.5-7b", gpu="A100 80GB SXM", mode="training", method="lora")
    assert lora.training_tokens_per_s > full.training_tokens_per_s * 1.3


def test_gpu_without_bf16_falls_back_with_warning():
    r = speed(model="llama-2-7b", gpu="T4", context_tokens=512)
    assert any("no BF16" in w.text for w in r.warnings)
    assert r.prefill_tokens_per_s > 0


def test_fp8_on_ampere_is_weight_only():
    r = speed(model="llama-3.1-8b", gpu="A100 80GB SXM", precision="fp8")
    assert any("no FP8 tensor cores" in w.text for w in r.warnings)


def test_does_not_fit_is_flagged():
    r = speed(model="llama-3.1-70b", gpu="RTX 4090")
    assert not r.fits_in_memory
    assert any("does not fit" in w.text for w in r.warnings)


def test_engine_profiles():
    hf = speed(model="qwen2.5-7b", gpu="A100 80GB SXM", engine="transformers").decode_tokens_per_s
    vllm = speed(model="qwen2.5-7b", gpu="A100 80GB SXM", engine="vLLM 0.6").decode_tokens_per_s
    assert vllm > 2 * hf
    with pytest.raises(AdvisorError, match="unknown engine"):
        speed(model="qwen2.5-7b", gpu="A100 80GB SXM", engine="warp-drive")


def test_unknown_gpu_suggests():
    with pytest.raises(UnknownNameError, match="did you mean"):
        speed(model="llama-2-7b", gpu="H1000")
