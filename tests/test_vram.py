"""estimate_vram: hand-computed expectations per formula, parallelism and warnings."""

import pytest
from pydantic import ValidationError

from tools.errors import AdvisorError, UnknownNameError
from tools.models import registry
from tools.vram import GIB, VramRequest, estimate_vram


def vram(**kw):
    return estimate_vram(VramRequest(**kw))


def test_llama2_7b_fp16_inference_by_hand():
    r = vram(model="llama-2-7b", precision="fp16", context_tokens=4096, overhead_gib=0)
    assert r.breakdown_gib["weights"] == pytest.approx(6_738_415_616 * 2 / GIB, rel=1e-6)
    assert r.breakdown_gib["kv_cache"] == pytest.approx(2.0)  # NVIDIA blog: 2 GiB
    # one 4096-token prefill chunk: (2h + 3I) bf16 values per token, plus fp32 logits of one sequence
    acts = 4096 * (2 * 4096 + 3 * 11008) * 2 + 32000 * 4
    assert r.breakdown_gib["activations"] == pytest.approx(acts / GIB, rel=1e-4)
    assert r.total_gib == pytest.approx(sum(r.breakdown_gib.values()), abs=0.01)


def test_kv_scales_with_batch_context_and_dtype():
    base = vram(model="llama-3.1-8b", context_tokens=8192, batch=4).breakdown_gib["kv_cache"]
    assert base == pytest.approx(128 * 1024 * 8192 * 4 / GIB)
    fp8 = vram(model="llama-3.1-8b", context_tokens=8192, batch=4, kv_dtype="fp8").breakdown_gib["kv_cache"]
    assert fp8 == pytest.approx(base / 2)


def test_mla_kv_is_compressed():
    r = vram(model="deepseek-v3", precision="fp8", num_gpus=8, context_tokens=4096, kv_dtype="bf16")
    assert r.per_gpu_breakdown_gib["kv_cache"] == pytest.approx(70_272 * 4096 / GIB, rel=1e-5)
    assert any("MLA" in w for w in r.warnings)  # the latent is replicated on every TP rank


def test_moe_keeps_all_experts_resident():
    r = vram(model="mixtral-8x7b", precision="bf16", overhead_gib=0)
    assert r.breakdown_gib["weights"] == pytest.approx(registry()["mixtral-8x7b"].params * 2 / GIB, rel=1e-6)
    assert r.active_params_b == pytest.approx(12.88, rel=0.01)


def test_tensor_parallel_splits_weights_and_kv():
    one = vram(model="llama-3.1-70b", context_tokens=8192, batch=8)
    four = vram(model="llama-3.1-70b", context_tokens=8192, batch=8, num_gpus=4)
    assert four.tp == 4
    assert four.per_gpu_breakdown_gib["weights"] == pytest.approx(one.per_gpu_breakdown_gib["weights"] / 4)
    assert four.per_gpu_breakdown_gib["kv_cache"] == pytest.approx(one.per_gpu_breakdown_gib["kv_cache"] / 4)


def test_tp_beyond_kv_heads_replicates_and_warns():
    r = vram(model="qwen2.5-7b", num_gpus=8, context_tokens=4096)  # 4 KV heads
    assert any("exceeds" in w and "KV heads" in w for w in r.warnings)
    r4 = vram(model="qwen2.5-7b", num_gpus=4, context_tokens=4096)
    assert r.per_gpu_breakdown_gib["kv_cache"] == pytest.approx(r4.per_gpu_breakdown_gib["kv_cache"])


def test_context_beyond_max_warns():
    r = vram(model="llama-2-7b", context_tokens=8192)
    assert any("exceeds" in w and "4,096" in w for w in r.warnings)


def test_full_finetune_16_bytes_per_param_mixed_precision_adam():
    r = vram(params_b=7.5, mode="full", context_tokens=1, overhead_gib=0)
    states = r.breakdown_gib["weights"] + r.breakdown_gib["gradients"] + r.breakdown_gib["optimizer"]
    assert states * GIB / 1e9 == pytest.approx(120, rel=1e-3)  # ZeRO paper: 16 x 7.5B


@pytest.mark.parametrize(
    ("optimizer", "bytes_per_param"),
    [("adamw", 16), ("adamw_no_master", 12), ("adamw_bf16", 8), ("adamw8bit", 6), ("sgd", 12)],
)
def test_optimizer_regimes(optimizer, bytes_per_param):
    r = vram(params_b=1, mode="full", optimizer=optimizer, context_tokens=1, overhead_gib=0)
    states = r.breakdown_gib["weights"] + r.breakdown_gib["gradients"] + r.breakdown_gib["optimizer"]
    assert states * GIB == pytest.approx(1e9 * bytes_per_param, rel=1e-6)


@pytest.mark.parametrize(("stage", "expected_gb"), [(0, 120), (1, 31.4), (2, 16.6), (3, 1.875)])
def test_zero_stages_follow_the_paper(stage, expected_gb):
    r = vram(params_b=7.5, mode="full", num_gpus=64, zero_stage=stage, context_tokens=1, overhead_gib=0)
    per_gpu = r.per_gpu_breakdown_gib
    states = (per_gpu["weights"] + per_gpu["gradients"] + per_gpu["optimizer"]) * GIB / 1e9
    if stage == 3:  # plus the all-gather working set of ZeRO-3
        assert states > expected_gb
        assert states < expected_gb + 3
    else:
        assert states == pytest.approx(expected_gb, rel=0.01)


def test_lora_trainable_params_by_hand():
    r = vram(model="llama-2-7b", mode="lora", lora_rank=8, lora_targets="attention")
    assert r.trainable_params_b * 1e9 == pytest.approx(32 * 4 * 8 * (4096 + 4096), rel=1e-3)
    # adapters in fp32: weights 4 B + grads 4 B + Adam 8 B per trainable parameter
    assert r.breakdown_gib["optimizer"] == pytest.approx(2 * r.breakdown_gib["adapters"], rel=1e-3)


def test_qlora_is_smaller_than_lora_and_full():
    args = dict(model="qwen2.5-7b", context_tokens=2048, grad_checkpointing=True)
    q, lo, full = (vram(mode=m, **args).total_gib for m in ("qlora", "lora", "full"))
    assert q < lo < full
    assert q < 16  # 7B QLoRA fits a 16 GiB card


def test_grad_checkpointing_cuts_activations():
    args = dict(model="llama-3.1-8b", mode="full", context_tokens=4096, batch=4, chunked_cross_entropy=True)
    assert (
        vram(grad_checkpointing=True, **args).breakdown_gib["activations"]
        < vram(**args).breakdown_gib["activations"] / 4
    )


def test_cpu_offload_moves_states_to_host():
    r = vram(model="llama-3.1-8b", mode="full", num_gpus=8, zero_stage=3, cpu_offload="optimizer_and_params")
    assert r.per_gpu_breakdown_gib["optimizer"] == 0
    assert r.cpu_offload_gib > 100


def test_generic_params_are_stated():
    r = vram(params_b=70, precision="bf16")
    assert any("generic 70B" in a for a in r.assumptions)
    assert r.params_b == pytest.approx(70)


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        (dict(model="llama-2-7b", mode="full", precision="q4_k_m"), "16- or 32-bit"),
        (dict(model="llama-2-7b", mode="qlora", precision="bf16"), "quantized base"),
    ],
)
def test_mode_precision_mismatch(kwargs, message):
    with pytest.raises(AdvisorError, match=message):
        vram(**kwargs)


@pytest.mark.parametrize(
    "kwargs",
    [
        dict(model="llama-2-7b", params_b=7),
        dict(),
        dict(params_b=-1),
        dict(params_b=7, context_tokens=0),
        dict(params_b=7, batch=0),
        dict(params_b=7, num_gpus=3, tp=2),
        dict(params_b=7, mode="pretrain"),
        dict(params_b=7, cpu_offload="optimizer_and_params", mode="full", zero_stage=2),
    ],
)
def test_invalid_requests_raise_validation_errors(kwargs):
    with pytest.raises(ValidationError):
        VramRequest(**kwargs)


def test_unknown_model_in_request():
    with pytest.raises(UnknownNameError):
        vram(model="gpt-5-open-9000b")
