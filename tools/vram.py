"""estimate_vram: GPU memory for inference, full fine-tuning, LoRA and QLoRA."""

from __future__ import annotations

from functools import cache
from typing import Literal

from pydantic import BaseModel, Field, model_validator

from tools._data import load_yaml
from tools.errors import AdvisorError
from tools.models import ModelArch
from tools.precision import (
    Precision,
    effective_bits,
    kv_bytes,
    normalize_kv_dtype,
    resolve_precision,
    weight_bits_by_group,
    weight_bytes,
)
from tools.workload import ModelRef

GIB = 2**30
Mode = Literal["inference", "full", "lora", "qlora"]
Optimizer = Literal["adamw", "adamw_no_master", "adamw_bf16", "adamw8bit", "sgd"]
CE_CHUNKS = 8  # torchtune CEWithChunkedOutputLoss default; Liger/Unsloth fused kernels are at least as frugal
COMPONENTS = ("weights", "kv_cache", "activations", "gradients", "optimizer", "adapters", "overhead")


@cache
def defaults() -> dict:
    return load_yaml("estimator_defaults.yaml")


class VramRequest(ModelRef):
    """A workload whose GPU memory to estimate."""

    mode: Mode = Field(default="inference", description="inference, full fine-tune, lora or qlora")
    precision: str | None = Field(
        default=None,
        description="Weight format: fp32 bf16 fp16 fp8 int8 nf4 nf4_dq int4 awq gptq q2_k q3_k_m q4_0 q4_k_m "
        "q5_k_m q6_k q8_0 (default bf16; nf4_dq for qlora)",
    )
    kv_dtype: str | None = Field(
        default=None, description="KV-cache dtype: fp16 bf16 fp8 int8 q8_0 q4_0 (default fp16)"
    )
    context_tokens: int = Field(
        default=4096,
        ge=1,
        le=10_000_000,
        description="Inference: tokens per sequence (prompt + output). Training: sequence length",
    )
    batch: int = Field(
        default=1, ge=1, le=100_000, description="Inference: concurrent sequences. Training: micro-batch per GPU"
    )
    num_gpus: int = Field(default=1, ge=1, le=100_000, description="GPUs in total")
    tp: int | None = Field(
        default=None,
        ge=1,
        le=1024,
        description="Tensor-parallel degree (inference default: all GPUs; training default 1)",
    )
    pp: int = Field(default=1, ge=1, le=1024, description="Pipeline-parallel stages")
    zero_stage: Literal[0, 1, 2, 3] = Field(default=0, description="DeepSpeed ZeRO stage / FSDP sharding (training)")
    optimizer: Optimizer = Field(
        default="adamw",
        description="adamw (fp32 master + fp32 states), adamw_no_master (fp32 states), adamw_bf16 (bf16 states), "
        "adamw8bit, sgd",
    )
    grad_checkpointing: bool = Field(default=False, description="Recompute activations in backward (training)")
    lora_rank: int = Field(default=16, ge=1, le=4096, description="LoRA rank r")
    lora_targets: Literal["all", "attention"] = Field(
        default="all", description="LoRA on all linear layers or attention only"
    )
    cpu_offload: Literal["none", "optimizer", "optimizer_and_params"] = Field(
        default="none", description="ZeRO-Offload of optimizer states (and parameters with ZeRO-3)"
    )
    overhead_gib: float | None = Field(
        default=None, ge=0, le=64, description="CUDA context + framework workspace per GPU (default 0.75 GiB)"
    )
    prefill_chunk_tokens: int | None = Field(
        default=None, ge=1, le=10_000_000, description="Inference prompt chunk size (default 8192)"
    )
    fused_optimizer_step: bool = Field(
        default=False,
        description="Training: apply the optimizer per parameter during "
        "backward (torchtune optimizer_in_bwd, LOMO), so no full gradient buffer exists",
    )
    chunked_cross_entropy: bool = Field(
        default=False,
        description="Training: fused/chunked cross-entropy (Liger, "
        "Unsloth, torchtune) instead of materialising fp32 logits for every token",
    )

    @model_validator(mode="after")
    def _parallel_fits(self) -> VramRequest:
        tp = self.tp or 1
        if self.num_gpus % (tp * self.pp):
            raise ValueError(
                f"num_gpus ({self.num_gpus}) must be a multiple of tp x pp ({tp} x {self.pp} = {tp * self.pp})"
            )
        if self.cpu_offload == "optimizer_and_params" and self.zero_stage != 3:
            raise ValueError("offloading parameters needs zero_stage=3 (ZeRO-Infinity / FSDP CPU offload)")
        return self


class VramResult(BaseModel):
    """Memory estimate with its breakdown, assumptions and warnings (GiB = 2^30 bytes)."""

    model: str
    params_b: float
    active_params_b: float
    mode: Mode
    precision: str
    kv_dtype: str | None
    context_tokens: int
    batch: int
    num_gpus: int
    tp: int
    pp: int
    dp: int
    total_gib: float = Field(description="Sum over all GPUs")
    per_gpu_gib: float = Field(description="On the busiest GPU")
    breakdown_gib: dict[str, float] = Field(description="Sum over all GPUs, by component")
    per_gpu_breakdown_gib: dict[str, float]
    weight_bits_per_param: float
    kv_cache_bytes_per_token: float
    trainable_params_b: float
    cpu_offload_gib: float = 0.0
    assumptions: list[str]
    warnings: list[str]


def estimate_vram(req: VramRequest) -> VramResult:
    """Estimate GPU memory for a workload."""
    arch, assumptions = req.resolve()
    warnings: list[str] = []
    training = req.mode != "inference"
    precision = resolve_precision(req.precision or ("nf4_dq" if req.mode == "qlora" else "bf16"))
    _check_mode_precision(req.mode, precision)
    tp = req.tp or (req.num_gpus // req.pp if not training else 1)
    dp = req.num_gpus // (tp * req.pp)
    kv_dtype = normalize_kv_dtype(req.kv_dtype) if req.kv_dtype else ("bf16" if precision.compute == "bf16" else "fp16")
    cfg = defaults()
    overhead = cfg["memory"]["overhead_gib_per_gpu"] if req.overhead_gib is None else req.overhead_gib

    per_gpu: dict[str, float] = dict.fromkeys(COMPONENTS, 0.0)
    offload_bytes = 0.0
    model_shards = tp * req.pp
    w_bytes = weight_bytes(arch, precision)
    bits = effective_bits(arch, precision)
    assumptions.append(
        f"weights in {precision.name}: {bits:.2f} bits per parameter on average"
        + (f" ({precision.note})" if precision.note else "")
    )
    kv_per_token = arch.kv_values_per_token(req.context_tokens) * kv_bytes(kv_dtype)

    if arch.max_context and req.context_tokens > arch.max_context:
        warnings.append(f"context {req.context_tokens:,} exceeds {arch.name}'s maximum of {arch.max_context:,} tokens")

    if not training:
        per_gpu["weights"] = w_bytes / model_shards
        kv_total = kv_per_token * req.context_tokens * req.batch
        per_gpu["kv_cache"] = _kv_per_gpu(arch, kv_total, tp, req.pp, warnings)
        per_gpu["activations"] = _inference_activations(arch, req) / tp
        _explain_kv(arch, kv_dtype, kv_per_token, req, assumptions)
        if precision.kind == "gguf" and tp > 1:
            warnings.append(
                "llama.cpp splits GGUF models across GPUs by layers (like pipeline parallel), "
                "not by tensor parallel; the memory split is similar, the speed gain is not"
            )
    else:
        opt = cfg["optimizers"][req.optimizer]
        trainable = arch.params if req.mode == "full" else arch.lora_params(req.lora_rank, req.lora_targets)
        if req.mode == "full":
            w_per_param = 4 if precision.name == "fp32" else opt["weights"]
            g_per_param = 4 if precision.name == "fp32" else opt["gradients"]
            o_per_param = (
                opt["optimizer"]
                if precision.name != "fp32"
                else opt["optimizer"] - (4 if req.optimizer in ("adamw", "sgd") else 0)
            )
            weights_total = arch.params * w_per_param
            grads_total = arch.params * g_per_param
            opt_total = arch.params * o_per_param
            adapters_total = 0.0
            assumptions.append(
                f"full fine-tune with {req.optimizer}: {opt['why']}; "
                f"{w_per_param + g_per_param + o_per_param} bytes per parameter before sharding"
            )
        else:
            weights_total = w_bytes
            a_bytes = cfg["memory"]["lora_adapter_dtype_bytes"]
            adapters_total = trainable * a_bytes
            grads_total = trainable * a_bytes
            opt_total = trainable * cfg["adapter_optimizer_bytes"][req.optimizer]
            assumptions.append(
                f"{req.mode.upper()}: frozen base in {precision.name}; rank-{req.lora_rank} adapters on "
                f"{'all linear layers' if req.lora_targets == 'all' else 'attention projections'} = "
                f"{trainable / 1e6:,.1f}M trainable parameters, kept in fp32 with {req.optimizer} states"
            )
        # tensor and pipeline parallel split every model state; ZeRO then shards across data-parallel ranks
        weights = weights_total / model_shards
        grads = grads_total / model_shards
        opt_states = opt_total / model_shards
        if req.zero_stage >= 1:
            opt_states /= dp
        if req.zero_stage >= 2:
            grads /= dp
        if req.zero_stage >= 3:
            weights /= dp
        if req.zero_stage and dp == 1:
            warnings.append("ZeRO shards states across data-parallel ranks; with one rank it saves nothing")
        if req.zero_stage:
            assumptions.append(f"ZeRO stage {req.zero_stage} over {dp} data-parallel ranks")
        largest = _largest_tensor(arch)
        if req.zero_stage == 3:
            # all-gathered copies of the tensor being computed and the next one prefetched (DeepSpeed budgets
            # 4 x largest-layer bytes), in the format the weights are stored in
            stored = weight_bits_by_group(arch, precision) if req.mode != "full" else None
            weights += _gather_buffer_bytes(arch, stored, weights_total / arch.params)
            adapters_total /= dp
        if req.fused_optimizer_step and req.mode == "full":
            grads = largest * (grads_total / arch.params)  # one parameter's gradient at a time
            assumptions.append("optimizer step fused into backward: gradients are freed per parameter")
        if req.cpu_offload != "none":
            offload_bytes += opt_states * req.num_gpus
            opt_states = 0.0
            if req.zero_stage >= 2:  # ZeRO-Offload also moves the gradient partitions to the CPU optimizer
                offload_bytes += grads * req.num_gpus
                grads = 0.0
            if req.cpu_offload == "optimizer_and_params":
                offload_bytes += weights * req.num_gpus
                weights = 2 * largest * 2  # two layers' weights in flight (prefetch)
            assumptions.append(
                f"CPU offload of {req.cpu_offload.replace('_', ' ')}: "
                f"{offload_bytes / GIB:,.1f} GiB of host RAM needed in total"
            )
        per_gpu.update(weights=weights, gradients=grads, optimizer=opt_states, adapters=adapters_total / model_shards)
        if req.mode == "qlora":
            biggest_linear = max(lin.d_in * lin.d_out for lin in arch.linears())
            per_gpu["activations"] += 2 * biggest_linear  # one dequantized bf16 weight in flight
        per_gpu["activations"] += _training_activations(arch, req, tp, assumptions)
    per_gpu["overhead"] = overhead
    assumptions.append(f"overhead {overhead:g} GiB per GPU: CUDA context and library workspaces")
    for key in COMPONENTS:
        if key != "overhead":
            per_gpu[key] /= GIB
    per_gpu_total = sum(per_gpu.values())
    breakdown = {k: round(v * req.num_gpus, 6) for k, v in per_gpu.items()}
    assumptions.append("memory in GiB (2^30 bytes); vendors' 'GB' of GPU memory are the same binary unit")
    if arch.generic:
        warnings.append("generic architecture: KV cache and activations are approximate; name the model for exact")
    return VramResult(
        model=arch.name,
        params_b=round(arch.params / 1e9, 3),
        active_params_b=round(arch.active_params / 1e9, 3),
        mode=req.mode,
        precision=precision.name,
        kv_dtype=kv_dtype if not training else None,
        context_tokens=req.context_tokens,
        batch=req.batch,
        num_gpus=req.num_gpus,
        tp=tp,
        pp=req.pp,
        dp=dp,
        total_gib=round(per_gpu_total * req.num_gpus, 2),
        per_gpu_gib=round(per_gpu_total, 2),
        breakdown_gib=breakdown,
        per_gpu_breakdown_gib={k: round(v, 6) for k, v in per_gpu.items()},
        weight_bits_per_param=round(bits, 3),
        kv_cache_bytes_per_token=round(kv_per_token, 1),
        trainable_params_b=round(
            (
                arch.params
                if req.mode == "full"
                else (arch.lora_params(req.lora_rank, req.lora_targets) if training else 0)
            )
            / 1e9,
            6,
        ),
        cpu_offload_gib=round(offload_bytes / GIB, 2),
        assumptions=assumptions,
        warnings=warnings,
    )


def _check_mode_precision(mode: Mode, precision: Precision) -> None:
    if mode in ("full", "lora") and precision.kind != "float":
        raise AdvisorError(
            f"{mode} training needs 16- or 32-bit weights (bf16, fp16, fp32), not {precision.name}; "
            "to train on a quantized base use mode qlora"
        )
    if mode == "qlora" and precision.kind not in ("int",):
        raise AdvisorError(
            f"qlora trains adapters on a quantized base (nf4, nf4_dq, int8, gptq, awq), not {precision.name}; "
            "for a 16-bit base use mode lora"
        )


def _kv_per_gpu(arch: ModelArch, kv_total: float, tp: int, pp: int, warnings: list[str]) -> float:
    """Split the KV cache over tensor-parallel ranks; heads that cannot be split are replicated."""
    if tp == 1:
        return kv_total / pp
    if arch.mla:
        warnings.append(
            "MLA caches one latent per token that tensor parallel cannot split: every rank holds "
            "the whole KV cache (data-parallel attention avoids this)"
        )
        return kv_total / pp
    kv_heads = arch.num_key_value_heads
    if tp > kv_heads:
        warnings.append(
            f"tensor-parallel degree {tp} exceeds {arch.name}'s {kv_heads} KV heads: each KV head is "
            f"replicated on {tp // kv_heads} GPUs, so the KV cache takes {tp // kv_heads}x its size"
        )
        return kv_total / kv_heads / pp
    if kv_heads % tp or arch.num_attention_heads % tp:
        warnings.append(
            f"tensor-parallel degree {tp} does not divide the {arch.num_attention_heads} attention / "
            f"{kv_heads} KV heads; vLLM and TensorRT-LLM will refuse this split"
        )
    return kv_total / tp / pp


def _explain_kv(arch: ModelArch, dtype: str, per_token: float, req: VramRequest, out: list[str]) -> None:
    if arch.mla:
        how = f"MLA latent ({arch.mla.kv_lora_rank} + {arch.mla.qk_rope_head_dim} rope) x {arch.num_layers} layers"
    else:
        how = f"2 x {arch.num_layers} layers x {arch.num_key_value_heads} KV heads x {arch.head_dim} dims" + (
            f", sliding window {arch.sliding_window:,} on {arch.sliding_window_layers:.0%} of layers"
            if arch.sliding_window and req.context_tokens > arch.sliding_window
            else ""
        )
    out.append(
        f"KV cache {dtype}: {per_token / 1024:,.1f} KiB per token ({how}) x {req.context_tokens:,} tokens "
        f"x {req.batch} sequence{'s' if req.batch > 1 else ''}"
    )


def _largest_tensor(arch: ModelArch) -> int:
    """Parameters of the largest single weight tensor (gathered whole under ZeRO-3)."""
    biggest_linear = max(lin.d_in * lin.d_out for lin in arch.linears())
    return max(biggest_linear, arch.vocab_size * arch.hidden_size)


def _gather_buffer_bytes(arch: ModelArch, bits: dict[str, float] | None, bytes_per_param: float) -> float:
    """ZeRO-3 working set: the largest tensor gathered whole plus the next linear layer prefetched."""
    biggest_linear = max(lin.d_in * lin.d_out for lin in arch.linears())
    embed = arch.vocab_size * arch.hidden_size
    if bits is None:
        return (max(biggest_linear, embed) + biggest_linear) * bytes_per_param
    linear_bytes = biggest_linear * bits["ffn_down"] / 8
    return max(linear_bytes, embed * bits["embed"] / 8) + linear_bytes


def _active_intermediate(arch: ModelArch) -> int:
    if not arch.moe:
        return arch.intermediate_size
    moe = arch.moe
    shared = moe.num_shared_experts * (moe.shared_intermediate_size or moe.expert_intermediate_size)
    return moe.experts_per_token * moe.expert_intermediate_size + shared


def _inference_activations(arch: ModelArch, req: VramRequest) -> float:
    """Peak transient buffers of one prefill chunk plus fp32 logits for each sequence."""
    chunk = req.prefill_chunk_tokens or defaults()["memory"]["prefill_chunk_tokens"]
    tokens = min(req.context_tokens * req.batch, chunk)
    per_token = (2 * arch.hidden_size + 3 * _active_intermediate(arch)) * 2
    logits = req.batch * arch.vocab_size * 4
    return tokens * per_token + logits


def _training_activations(arch: ModelArch, req: VramRequest, tp: int, out: list[str]) -> float:
    """Saved activations for one micro-batch (Korthikanti-style accounting, FlashAttention, bf16)."""
    tokens = req.context_tokens * req.batch
    h = arch.hidden_size
    attn_width = arch.num_attention_heads * (arch.mla.v_head_dim if arch.mla else arch.head_dim)
    kv_width = 2 * arch.num_key_value_heads * arch.head_dim if not arch.mla else 2 * attn_width
    per_layer = 2 * (4 * h + 2 * attn_width + kv_width + 4 * _active_intermediate(arch))
    tp_share = (10 + 24 / tp) / 34  # norms/residuals are not split by tensor parallel (Korthikanti et al.)
    if req.grad_checkpointing:
        layers_bytes = tokens * (arch.num_layers * 2 * h + per_layer) * tp_share
        how = "gradient checkpointing: layer inputs kept, one layer recomputed at a time"
    else:
        layers_bytes = tokens * arch.num_layers * per_layer * tp_share
        how = "no gradient checkpointing: every layer's activations kept for backward"
    logits = tokens * arch.vocab_size * (2 + 4 + 4) / tp
    loss = "unfused cross-entropy"
    if req.chunked_cross_entropy:
        logits /= CE_CHUNKS
        loss = f"cross-entropy in {CE_CHUNKS} chunks"
    out.append(
        f"activations for {req.batch} x {req.context_tokens:,} tokens, bf16, FlashAttention; {how}; "
        f"{loss}: logits {logits / GIB:.2f} GiB"
    )
    return layers_bytes + logits
