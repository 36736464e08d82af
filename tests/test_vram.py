"""estimate_vram: hand-computed expectations per formula, parallelism and warnings."""

import pytest
from pydantic import ValidationError

from tools.errors import AdvisorError, UnknownNameError
from tools.models import registry
from tools.sizing import usable_of
from tools.vram import GIB, VramRequest, estimate_vram

# LLaMA-1 65B (huggyllama/llama-65b config.json): not in the registry, so given inline
LLAMA_65B = dict(
    num_layers=80,
    hidden_size=8192,
    num_attention_heads=64,
    num_key_value_heads=64,
    head_dim=128,
    intermediate_size=22016,
    vocab_size=32000,
    tie_word_embeddings=False,
)


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
    assert any("MLA" in w.text for w in r.warnings)  # the latent is replicated on every TP rank


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
    r = vram(model="llama-3.1-8b", num_gpus=16, context_tokens=4096)  # 32 heads divide by 16; only 8 KV heads
    assert r.tp == 16
    assert any("exceeds" in w.text and "KV heads" in w.text for w in r.warnings)
    r8 = vram(model="llama-3.1-8b", num_gpus=8, context_tokens=4096)
    assert r.per_gpu_breakdown_gib["kv_cache"] == pytest.approx(r8.per_gpu_breakdown_gib["kv_cache"])


def test_heads_that_do_not_divide_pipeline_the_rest():
    # Qwen2.5-7B has 28 attention heads: vLLM cannot tensor-parallel it over 8 GPUs, so TP 4 x PP 2
    r = vram(model="qwen2.5-7b", num_gpus=8, context_tokens=4096)
    assert (r.tp, r.pp) == (4, 2)
    assert any(a.code == "vram_layout_heads" for a in r.assumptions)
    ten = vram(model="llama-3.1-70b", num_gpus=10, precision="awq", context_tokens=4096)  # 64 heads, 10 cards
    assert (ten.tp, ten.pp) == (2, 5)


def test_context_beyond_max_warns():
    r = vram(model="llama-2-7b", context_tokens=8192)
    assert any("longer than" in w.text and "4,096" in w.text for w in r.warnings)


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


def test_training_activations_by_hand():
    """Eager bf16 layers keep 16h + 8I + 4*attn + 2*kv bytes per token; the unfused loss 10 bytes per logit."""
    r = vram(model="llama-3.1-8b", mode="full", context_tokens=2048, batch=2, overhead_gib=0)
    h, inter, attn, kv, vocab, layers, tokens = 4096, 14336, 32 * 128, 2 * 8 * 128, 128256, 32, 4096
    per_layer = 16 * h + 8 * inter + 4 * attn + 2 * kv
    expected = tokens * layers * per_layer + tokens * vocab * 10
    assert r.breakdown_gib["activations"] == pytest.approx(expected / GIB, rel=1e-6)


def test_checkpointed_layers_and_the_loss_do_not_peak_together():
    r = vram(model="llama-3.1-8b", mode="lora", context_tokens=2048, batch=2, grad_checkpointing=True)
    tokens, h = 4096, 4096
    checkpoints = tokens * 32 * h * 2
    logits = tokens * 128256 * 10  # unfused: larger than one recomputed layer here
    assert r.breakdown_gib["activations"] == pytest.approx((checkpoints + logits) / GIB, rel=1e-6)


def test_loss_implementation_is_stated_with_both_sizes():
    args = dict(model="llama-3.1-8b", mode="qlora", context_tokens=4096, grad_checkpointing=True)
    unfused, fused = vram(**args), vram(chunked_cross_entropy=True, **args)
    logits = 4096 * 128256
    line = next(a.text for a in unfused.assumptions if a.code == "vram_loss")
    assert "unfused cross-entropy" in line and "HF Trainer" in line
    assert f"{logits * 10 / GIB:.2f} GiB" in line and f"{logits * 2.25 / GIB:.2f} GiB" in line
    fused_line = next(a.text for a in fused.assumptions if a.code == "vram_loss")
    assert fused_line.startswith("loss: fused/chunked cross-entropy (Liger, Unsloth, torchtune)")
    assert unfused.total_gib - fused.total_gib == pytest.approx(logits * (10 - 2.25) / GIB, abs=0.02)
    # plain HF Trainer / TRL / LLaMA-Factory (no Liger) is the default
    assert VramRequest.model_fields["chunked_cross_entropy"].default is False


def test_plain_mlp_keeps_two_intermediates():
    plain = dict(LLAMA_65B, num_layers=2, mlp="plain")
    gated = dict(plain, mlp="gated")
    tokens = 1000
    a, b = (
        vram(arch=arch, mode="full", context_tokens=tokens, overhead_gib=0).breakdown_gib["activations"]
        for arch in (plain, gated)
    )
    assert (b - a) * GIB == pytest.approx(2 * tokens * 2 * 22016 * 2, rel=1e-6)  # 2 more I-wide bf16 tensors


def test_zero3_full_finetune_holds_the_gathered_tensors_gradient():
    args = dict(model="llama-3.1-8b", mode="full", num_gpus=8, zero_stage=3, context_tokens=1, overhead_gib=0)
    full = vram(**args).per_gpu_breakdown_gib["gradients"]
    sharded = 8.03e9 * 2 / 8 / GIB
    assert full - sharded == pytest.approx(128256 * 4096 * 2 / GIB, rel=0.01)  # the embedding's bf16 gradient


def test_qlora_paper_65b_fits_one_48gb_gpu_with_headroom():
    """QLoRA (arXiv 2305.14314): "finetune a 65B parameter model on a single 48GB GPU" - NF4 + double quant,
    LoRA r=64 on all linear layers, paged AdamW (states page out to host RAM), gradient checkpointing, batch 1."""
    setup = dict(
        arch=LLAMA_65B,
        mode="qlora",
        precision="nf4_dq",
        lora_rank=64,
        lora_targets="all",
        grad_checkpointing=True,
        context_tokens=512,
        batch=1,
    )
    r = vram(cpu_offload="optimizer", gpu="RTX A6000", **setup)
    assert r.params_b == pytest.approx(65.29, abs=0.01)
    assert r.per_gpu_gib <= usable_of(48)  # 48 GiB less the product's 10% headroom
    assert r.fit is not None and r.fit.fits
    assert r.per_gpu_breakdown_gib["optimizer"] == 0  # paged: the 32-bit Adam states live in host RAM
    assert r.cpu_offload_gib == pytest.approx(r.trainable_params_b * 1e9 * 8 / GIB, abs=0.01)
    # the paging is what keeps the headroom: with the 32-bit Adam states on the GPU the estimate exceeds it
    assert vram(**setup).per_gpu_gib > usable_of(48)


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
    assert any("generic 70B" in a.text for a in r.assumptions)
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
        vram(model="gpt-5-open")  # no size, no family the registry knows: nothing to compute
    with pytest.raises(AdvisorError, match="20,000B"):
        vram(model="gpt-5-open-90000b")  # a size no model has
    assert vram(model="gpt-5-open-900b").params_b == pytest.approx(900, rel=0.01)  # a generic 900B decoder


def test_a_recommendation_estimates_each_distinct_request_once():
    from tools.vram import shared_estimates

    req = VramRequest(model="qwen2.5-7b", mode="lora", gpu="rtx-4090")
    assert estimate_vram(req) is not estimate_vram(req)  # outside a block every call computes afresh
    with shared_estimates():
        first = estimate_vram(req)
        assert estimate_vram(req.model_copy()) is first and first.fit is not None
        assert estimate_vram(req.model_copy(update={"num_gpus": 2})) is not first
        with shared_estimates():  # a nested block (a recommendation's own suggestions) shares the same
            assert estimate_vram(req) is first
    assert estimate_vram(req) is not first
