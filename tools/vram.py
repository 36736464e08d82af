"""estimate_vram: GPU memory for inference, full fine-tuning, LoRA and QLoRA."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from functools import cache
from typing import Literal

from pydantic import BaseModel, Field, model_validator

from tools._data import load_yaml
from tools.errors import AdvisorError
from tools.models import ModelArch
from tools.notes import Note, note
from tools.precision import (
    Precision,
    effective_bits,
    kv_bytes,
    normalize_kv_dtype,
    resolve_precision,
    weight_bits_by_group,
    weight_bytes,
)
from tools.sizing import GpuFit, counts_for, engine_for, headroom_for, mixed_usable, smallest_count, usable_gib
from tools.workload import ModelRef

GIB = 2**30
Mode = Literal["inference", "full", "lora", "qlora"]
Optimizer = Literal["adamw", "adamw_no_master", "adamw_bf16", "adamw8bit", "sgd"]
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
        le=16_777_216,  # 16M: above the longest context a registry model takes (Llama 4 Scout, 10,485,760)
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
    zero_stage: Literal[0, 1, 2, 3] | None = Field(
        default=None,
        description="DeepSpeed ZeRO stage / FSDP sharding (training); default 3 once training spans several "
        "data-parallel GPUs, else 0",
    )
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
        default="none",
        description="ZeRO-Offload of optimizer states (and parameters with ZeRO-3); a bitsandbytes paged optimizer "
        "(paged_adamw_32bit, PagedAdamW8bit) counts as optimizer offload: its states page out to host RAM",
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
    gpu: str | None = Field(
        default=None,
        description="A GPU to size the workload for (fuzzy name): the result then says whether it fits on "
        "num_gpus of them and how many it needs",
    )
    gpu_mix: list[str] | None = Field(
        default=None,
        max_length=64,
        description="Different GPUs in one machine, one name per card (['rtx 3080 10gb', '2080 ti 22gb']): sized as "
        "a layer split that gives each card a share proportional to its memory (llama.cpp --tensor-split); "
        "num_gpus is then the number of cards",
    )
    headroom: float | None = Field(
        default=None,
        ge=0,
        lt=0.9,
        description="Share of GPU memory kept free when judging fit (default: what `engine` keeps free)",
    )
    engine: str | None = Field(
        default=None,
        description="Engine the job runs under, for the fit verdict's headroom: vllm, sglang, llama.cpp / ollama, "
        "transformers, tensorrt-llm, lmdeploy (default: llama.cpp for GGUF, training for training, else vllm)",
    )
    chunked_cross_entropy: bool = Field(
        default=False,
        description="Training loss implementation. false (default): unfused cross-entropy as plain HF Trainer, TRL "
        "and LLaMA-Factory run it, bf16 logits + fp32 copy + fp32 log-softmax = 10 bytes per token x vocab; true: "
        "a fused/chunked loss (Liger, Unsloth, torchtune) that keeps only the bf16 logits, about 2.25 bytes",
    )
    compute_dtype: Literal["bf16", "fp16", "fp32"] | None = Field(
        default=None,
        description="Training compute dtype. Default: what `gpu` runs (bf16; fp16 mixed precision on V100, T4, "
        "RTX 20xx, P100, the same bytes; fp32 on P40 and GTX 10xx, whose layer activations take twice the bytes)",
    )

    @model_validator(mode="after")
    def _parallel_fits(self) -> VramRequest:
        tp = self.tp or 1
        if self.num_gpus % (tp * self.pp):
            raise ValueError(
                f"num_gpus ({self.num_gpus}) must be a multiple of tp x pp ({tp} x {self.pp} = {tp * self.pp})"
            )
        if self.cpu_offload == "optimizer_and_params" and self.zero_stage not in (3, None):
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
    zero_stage: int = Field(default=0, description="ZeRO stage used (training)")
    cpu_offload_gib: float = 0.0
    fit: GpuFit | None = Field(default=None, description="Against the requested GPU: fits, GPUs needed")
    assumptions: list[Note]
    warnings: list[Note]


_SHARED: ContextVar[dict[str, VramResult] | None] = ContextVar("vram_shared_estimates", default=None)


@contextmanager
def shared_estimates() -> Iterator[None]:
    """Within the block the same request is estimated once. A recommendation asks for one workload's memory
    on many cards and counts (76 calls, 8 distinct requests for a 7B LoRA); its callers only read results."""
    token = _SHARED.set({}) if _SHARED.get() is None else None
    try:
        yield
    finally:
        if token is not None:
            _SHARED.reset(token)


def estimate_vram(req: VramRequest) -> VramResult:
    """Estimate GPU memory for a workload; with `gpu` set, also whether it fits and how many GPUs it needs."""
    shared = _SHARED.get()
    key = req.model_dump_json() if shared is not None else ""
    if shared is not None and key in shared:
        return shared[key]
    req = _trained_in(req)
    req, strategy = _training_strategy(req)
    result = _estimate(req)
    states = [i for i, a in enumerate(result.assumptions) if a.code in ("vram_full_states", "vram_adapter_states")]
    at = states[0] + 1 if states else len(result.assumptions)
    result.assumptions[at:at] = strategy  # where a ZeRO stage would be said
    if result.mode == "qlora" and result.zero_stage == 3 and result.dp > 1 and result.precision in ("gptq", "awq"):
        result.warnings.append(note("vram_qlora_prequantized_sharding", precision=result.precision))
    if req.gpu:
        result.fit = _fit_on(req, result)
        _no_bf16(req.gpu, result)
    if shared is not None:
        shared[key] = result
    return result


def _no_bf16(gpu_name: str, result: VramResult) -> None:
    """BF16 on a card without it (V100, T4, 2080 Ti): the same bytes run as FP16, which the answer says; a training
    run says the dtype it trains in (FP16 mixed precision, or FP32 on P40 and GTX 10xx) as an assumption."""
    from tools.catalog import resolve_gpu

    gpu, _ = resolve_gpu(gpu_name)
    if gpu.has_bf16 or gpu.vendor != "nvidia":
        return
    if result.mode != "inference":
        dtype = "fp32" if gpu.compute_dtype("bf16") == "fp32-vector" else "fp16"
        codes = [a.code for a in result.assumptions]
        at = next((i + 1 for i, c in enumerate(codes) if c.startswith("vram_activations")), len(codes))
        result.assumptions.insert(at, note(f"vram_train_dtype_{dtype}", gpu=gpu.name))  # beside the activations
    elif result.precision == "bf16":
        result.warnings.append(note("speed_no_bf16", gpu=gpu.name))


def _trained_in(req: VramRequest) -> VramRequest:
    """A training run on a named card without BF16 computes in what the card has (GpuSpec.compute_dtype)."""
    if req.mode == "inference" or not req.gpu or req.compute_dtype:
        return req
    from tools.catalog import resolve_gpu

    gpu, _ = resolve_gpu(req.gpu)
    if gpu.has_bf16 or gpu.vendor != "nvidia":
        return req
    dtype = gpu.compute_dtype("bf16")
    return req.model_copy(update={"compute_dtype": "fp32" if dtype == "fp32-vector" else dtype})


def _training_strategy(req: VramRequest) -> tuple[VramRequest, list[Note]]:
    """Training on several named GPUs with no ZeRO stage asked: plain data parallel (DDP, a full copy of the job
    on each GPU) when one card holds it, as torchrun, HF Trainer, TRL and LLaMA-Factory do unless configured
    otherwise, and the fastest layout; ZeRO-3 / FSDP sharding only when one card does not hold it."""
    plain = req.zero_stage is None and req.cpu_offload == "none" and (req.tp or 1) == 1 and req.pp == 1
    if req.mode == "inference" or not req.gpu or req.num_gpus == 1 or not plain:
        return req, []
    ddp = req.model_copy(update={"zero_stage": 0})
    replica = _estimate(ddp)
    if not _fit_on(ddp, replica).fits:
        key = "vram_sharded_only_qlora" if req.mode == "qlora" else "vram_sharded_only"
        return req, [note(key, n=req.num_gpus, one=replica.per_gpu_gib)]
    sharded = _estimate(req).per_gpu_gib
    return ddp, [note("vram_ddp_fits_one", n=req.num_gpus, need=replica.per_gpu_gib, sharded=sharded)]


def zero_stage_of(req: VramRequest, dp: int) -> int:
    """The ZeRO stage: as asked, else ZeRO-3 (FSDP full sharding) once training spans several ranks."""
    if req.zero_stage is not None:
        return req.zero_stage
    if req.mode != "inference" and req.cpu_offload == "optimizer_and_params":
        return 3  # parameter offload exists only with ZeRO-3 (ZeRO-Infinity / FSDP CPU offload)
    if req.mode in ("full", "lora") and req.cpu_offload == "optimizer" and dp == 1:
        # ZeRO-Offload on one GPU is DeepSpeed's stage 2 with offload_optimizer: the gradients stream to the CPU
        # Adam as they are produced (ZeRO-Offload paper: a 10B model trains on one 32 GB V100). QLoRA's offload is
        # bitsandbytes' paged optimizer: only the Adam states page out, the gradients stay on the GPU.
        return 2
    return 3 if req.mode != "inference" and dp > 1 else 0


def _fit_on(req: VramRequest, result: VramResult) -> GpuFit:
    """Size `req` for its GPU with the one fit rule (tools/sizing.py)."""
    from tools.catalog import resolve_gpu

    gpu, _ = resolve_gpu(req.gpu or "")
    engine = engine_for(req.engine, req.mode, resolve_precision(result.precision).kind, gpu)
    headroom = req.headroom if req.headroom is not None else headroom_for(engine)
    usable = usable_gib(gpu, headroom)
    capacity = gpu.usable_memory_gib
    mix = [resolve_gpu(g)[0] for g in req.gpu_mix or []]
    mixed = len(mix) == req.num_gpus and len({g.id for g in mix}) > 1
    if mixed:  # one machine's different cards: each carries a share in proportion to its memory
        capacity, usable = mixed_usable(mix, headroom)

    def per_gpu_at(n: int) -> float | None:
        if n == req.num_gpus:
            return result.per_gpu_gib
        try:
            other = VramRequest.model_validate(req.model_dump() | {"num_gpus": n, "gpu": None, "tp": None})
            return _estimate(other).per_gpu_gib
        except (AdvisorError, ValueError):
            return None

    needed = smallest_count(per_gpu_at, usable, counts=(1,) if gpu.whole_machine else counts_for(engine))
    return GpuFit(
        gpu=gpu.name,
        gpu_id=gpu.id,
        capacity_gib=round(capacity, 2),
        usable_gib_per_gpu=round(usable, 2),
        headroom=headroom,
        engine=engine,
        num_gpus=req.num_gpus,
        per_gpu_gib=result.per_gpu_gib,
        fits=result.per_gpu_gib <= usable + 1e-9,
        gpus_needed=needed[0] if needed else None,
        per_gpu_gib_needed=needed[1] if needed else None,
        mixed_gpus=[g.name for g in mix] if mixed else [],
        usable_gib_total=round(usable * req.num_gpus, 2) if mixed else None,
        unified_memory_gib=gpu.vram_gib if gpu.vendor == "apple" and not mixed else None,
        capacity_gib_total=round(capacity * req.num_gpus, 2),
    )


@dataclass
class _States:
    """Model-state bytes of a training run: totals before sharding, or one GPU's share after it."""

    weights: float
    gradients: float
    optimizer: float
    adapters: float


def _estimate(req: VramRequest) -> VramResult:
    """Estimate GPU memory for `req`, without judging it against a GPU."""
    arch, assumptions = req.resolve()
    warnings: list[Note] = []
    training = req.mode != "inference"
    named_format, format_notes = (None, []) if req.precision else req.weight_format(req.mode)
    assumptions += format_notes
    precision = resolve_precision(req.precision or named_format or ("nf4_dq" if req.mode == "qlora" else "bf16"))
    _check_mode_precision(req.mode, precision)
    tp, pp = _layout(req, arch, precision, training, assumptions)
    if pp != req.pp:
        req = req.model_copy(update={"pp": pp})  # the layout's pipeline stages, for every count below
    dp = req.num_gpus // (tp * pp)
    zero = zero_stage_of(req, dp)
    kv_dtype = normalize_kv_dtype(req.kv_dtype) if req.kv_dtype else ("bf16" if precision.compute == "bf16" else "fp16")
    if arch.attention_free:
        kv_dtype = "fp32"  # a recurrent state is no KV cache: RWKV runtimes keep it in fp32, whatever the weights
    bits = effective_bits(arch, precision)
    weights = dict(precision=precision.name, bits=bits)
    about = precision.note
    assumptions.append(note("vram_weights_about", **weights, about=about) if about else note("vram_weights", **weights))
    kv_per_token = arch.kv_values_per_token(req.context_tokens) * kv_bytes(kv_dtype)
    if arch.max_context and req.context_tokens > arch.max_context:
        warnings.append(note("cmp_context_too_long", context=req.context_tokens, model=arch.name, max=arch.max_context))

    offload_bytes = 0.0
    if training:
        per_gpu, offload_bytes = _training_bytes(req, arch, precision, tp, dp, zero, assumptions, warnings)
    else:
        per_gpu = _inference_bytes(req, arch, precision, kv_dtype, kv_per_token, tp, assumptions, warnings)
    per_gpu = _per_gpu_gib(per_gpu, req, assumptions)
    per_gpu_total = sum(per_gpu.values())
    assumptions.append(note("vram_units"))
    if arch.generic and req.params_b is not None:  # a named model's reading is stated by its own note
        warnings.append(note("cmp_generic_model", params_b=req.params_b or round(arch.params / 1e9, 1)))
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
        breakdown_gib={k: round(v * req.num_gpus, 6) for k, v in per_gpu.items()},
        per_gpu_breakdown_gib={k: round(v, 6) for k, v in per_gpu.items()},
        weight_bits_per_param=round(bits, 3),
        kv_cache_bytes_per_token=round(kv_per_token, 1),
        trainable_params_b=round(_trainable_params(arch, req) / 1e9, 6),
        zero_stage=zero,
        cpu_offload_gib=round(offload_bytes / GIB, 2),
        assumptions=assumptions,
        warnings=warnings,
    )


def _trainable_params(arch: ModelArch, req: VramRequest) -> float:
    """Count the parameters the run updates: all for full fine-tuning, the adapters for (Q)LoRA, none to serve."""
    if req.mode == "full":
        return arch.params
    return arch.lora_params(req.lora_rank, req.lora_targets) if req.mode != "inference" else 0


def _per_gpu_gib(per_gpu: dict[str, float], req: VramRequest, assumptions: list[Note]) -> dict[str, float]:
    """Convert one GPU's component bytes to GiB and add the fixed per-GPU overhead (already in GiB)."""
    overhead = defaults()["memory"]["overhead_gib_per_gpu"] if req.overhead_gib is None else req.overhead_gib
    per_gpu["overhead"] = overhead
    assumptions.append(note("vram_overhead", gib=overhead))
    for key in COMPONENTS:
        if key != "overhead":
            per_gpu[key] /= GIB
    return per_gpu


def _inference_bytes(
    req: VramRequest,
    arch: ModelArch,
    precision: Precision,
    kv_dtype: str,
    kv_per_token: float,
    tp: int,
    assumptions: list[Note],
    warnings: list[Note],
) -> dict[str, float]:
    """Count the bytes one GPU holds to serve: its weight shard, KV cache and prefill buffers."""
    per_gpu: dict[str, float] = dict.fromkeys(COMPONENTS, 0.0)
    per_gpu["weights"] = weight_bytes(arch, precision) / (tp * req.pp)
    kv_total = kv_per_token * req.context_tokens * req.batch
    if precision.kind == "gguf":  # llama.cpp splits by layers: each card caches its own layers' KV, nothing replicated
        per_gpu["kv_cache"] = kv_total / (tp * req.pp)
    else:
        per_gpu["kv_cache"] = _kv_per_gpu(arch, kv_total, tp, req.pp, warnings)
    per_gpu["activations"] = _inference_activations(arch, req) / tp
    _explain_kv(arch, kv_dtype, kv_per_token, req, assumptions)
    if precision.kind == "gguf" and tp > 1:
        warnings.append(note("vram_gguf_layers"))
    return per_gpu


def _training_bytes(
    req: VramRequest,
    arch: ModelArch,
    precision: Precision,
    tp: int,
    dp: int,
    zero: int,
    assumptions: list[Note],
    warnings: list[Note],
) -> tuple[dict[str, float], float]:
    """Count the bytes one GPU holds to train, and the bytes offloaded to host RAM over all GPUs."""
    states_of = _full_states if req.mode == "full" else _adapter_states
    totals = states_of(req, arch, precision, assumptions)
    states = _shard_states(req, arch, precision, totals, tp, dp, zero, assumptions, warnings)
    largest = _largest_tensor(arch)
    if req.fused_optimizer_step and req.mode == "full":
        states.gradients = largest * (totals.gradients / arch.params)  # one parameter's gradient at a time
        assumptions.append(note("vram_fused_step"))
    offload_bytes = _offload(req, states, zero, largest, assumptions)
    if zero == 3 and req.mode == "full":
        # the gathered tensor's gradient exists whole until it is reduce-scattered to its owners (DeepSpeed's
        # memory.rst budgets 4 x largest-layer parameters: that layer's 16-bit weights and gradients)
        states.gradients += largest * (totals.gradients / arch.params)
    per_gpu: dict[str, float] = dict.fromkeys(COMPONENTS, 0.0)
    per_gpu.update(
        weights=states.weights,
        gradients=states.gradients,
        optimizer=states.optimizer,
        adapters=states.adapters,
    )
    per_gpu["activations"] = _training_activations(arch, req, tp, assumptions)
    return per_gpu, offload_bytes


def _full_states(req: VramRequest, arch: ModelArch, precision: Precision, assumptions: list[Note]) -> _States:
    """Count the weight, gradient and optimizer bytes of a full fine-tune, before any sharding."""
    opt = defaults()["optimizers"][req.optimizer]
    w_per_param = 4 if precision.name == "fp32" else opt["weights"]
    g_per_param = 4 if precision.name == "fp32" else opt["gradients"]
    # fp32 weights double as the master copy, so adamw and sgd need no separate one
    o_per_param = (
        opt["optimizer"]
        if precision.name != "fp32"
        else opt["optimizer"] - (4 if req.optimizer in ("adamw", "sgd") else 0)
    )
    per_param = w_per_param + g_per_param + o_per_param
    assumptions.append(note("vram_full_states", optimizer=req.optimizer, about=opt["why"], bytes=per_param))
    return _States(
        weights=arch.params * w_per_param,
        gradients=arch.params * g_per_param,
        optimizer=arch.params * o_per_param,
        adapters=0.0,
    )


def _adapter_states(req: VramRequest, arch: ModelArch, precision: Precision, assumptions: list[Note]) -> _States:
    """Count the bytes of a (Q)LoRA run: the frozen base plus fp32 adapters with their gradients and optimizer."""
    cfg = defaults()
    trainable = arch.lora_params(req.lora_rank, req.lora_targets)
    a_bytes = cfg["memory"]["lora_adapter_dtype_bytes"]
    assumptions.append(
        note(
            "vram_adapter_states",
            method="QLoRA" if req.mode == "qlora" else "LoRA",
            precision=precision.name,
            rank=req.lora_rank,
            targets=req.lora_targets,
            trainable_m=trainable / 1e6,
            optimizer=req.optimizer,
        )
    )
    return _States(
        weights=weight_bytes(arch, precision),
        gradients=trainable * a_bytes,
        optimizer=trainable * cfg["adapter_optimizer_bytes"][req.optimizer],
        adapters=trainable * a_bytes,
    )


def _shard_states(
    req: VramRequest,
    arch: ModelArch,
    precision: Precision,
    totals: _States,
    tp: int,
    dp: int,
    zero: int,
    assumptions: list[Note],
    warnings: list[Note],
) -> _States:
    """Return one GPU's share of the model states under tensor/pipeline parallel and ZeRO."""
    # tensor and pipeline parallel split every model state; ZeRO then shards across data-parallel ranks
    model_shards = tp * req.pp
    shard = _States(
        weights=totals.weights / model_shards,
        gradients=totals.gradients / model_shards,
        optimizer=totals.optimizer / model_shards,
        adapters=totals.adapters,
    )
    if zero >= 1:
        shard.optimizer /= dp
    if zero >= 2:
        shard.gradients /= dp
    if zero >= 3:
        shard.weights /= dp
    if zero and dp == 1 and req.cpu_offload == "none":  # with offload, ZeRO is what moves the states to the CPU
        warnings.append(note("vram_zero_one_rank"))
    if zero:
        assumptions.append(
            note("vram_zero_stage_default" if req.zero_stage is None else "vram_zero_stage", stage=zero, dp=dp)
        )
    if zero == 3:
        # all-gathered copies of the tensor being computed and the next one prefetched (DeepSpeed budgets
        # 4 x largest-layer bytes), in the format the weights are stored in
        stored = weight_bits_by_group(arch, precision) if req.mode != "full" else None
        shard.weights += _gather_buffer_bytes(arch, stored, totals.weights / arch.params)
        shard.adapters /= dp
    shard.adapters /= model_shards
    return shard


def _offload(req: VramRequest, states: _States, zero: int, largest: int, assumptions: list[Note]) -> float:
    """Move offloaded states off the GPU (in place); return the host RAM they take over all GPUs."""
    offload_bytes = 0.0
    if req.cpu_offload == "none":
        return offload_bytes
    offload_bytes += states.optimizer * req.num_gpus
    states.optimizer = 0.0
    if zero >= 2:  # ZeRO-Offload also moves the gradient partitions to the CPU optimizer
        offload_bytes += states.gradients * req.num_gpus
        states.gradients = 0.0
    if req.cpu_offload == "optimizer_and_params":
        offload_bytes += states.weights * req.num_gpus
        states.weights = 2 * largest * 2  # two layers' weights in flight (prefetch)
    assumptions.append(note("vram_offload", what=req.cpu_offload, gib=offload_bytes / GIB))
    return offload_bytes


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


def _layout(
    req: VramRequest, arch: ModelArch, precision: Precision, training: bool, assumptions: list[Note]
) -> tuple[int, int]:
    """(tensor, pipeline) parallel ranks: as asked, else inference splits heads over every GPU when they divide
    (vLLM needs the attention heads to divide by TP) and pipelines the rest ("10 cards, 64 heads": TP 2 x PP 5);
    llama.cpp splits GGUF layers over any number of cards."""
    if req.tp or training or req.num_gpus == 1:
        return req.tp or (req.num_gpus // req.pp if not training else 1), req.pp
    n = req.num_gpus // req.pp
    if precision.kind == "gguf" or arch.num_attention_heads % n == 0:
        return n, req.pp
    tp = max(d for d in range(1, n + 1) if n % d == 0 and arch.num_attention_heads % d == 0)
    pp = req.pp * (n // tp)
    assumptions.append(note("vram_layout_heads", n=req.num_gpus, tp=tp, pp=pp, heads=arch.num_attention_heads))
    return tp, pp


def _kv_per_gpu(arch: ModelArch, kv_total: float, tp: int, pp: int, warnings: list[Note]) -> float:
    """Split the KV cache over tensor-parallel ranks; heads that cannot be split are replicated."""
    if tp == 1:
        return kv_total / pp
    if arch.mla:
        warnings.append(note("vram_mla_tp"))
        return kv_total / pp
    kv_heads = arch.num_key_value_heads
    if tp > kv_heads:
        warnings.append(note("vram_tp_over_kv_heads", tp=tp, model=arch.name, kv_heads=kv_heads, copies=tp // kv_heads))
        return kv_total / kv_heads / pp
    if kv_heads % tp or arch.num_attention_heads % tp:
        warnings.append(note("vram_tp_split", tp=tp, heads=arch.num_attention_heads, kv_heads=kv_heads))
    return kv_total / tp / pp


def _explain_kv(arch: ModelArch, dtype: str, per_token: float, req: VramRequest, out: list[Note]) -> None:
    shared = dict(
        dtype=dtype, kib=per_token / 1024, layers=arch.num_layers, context=req.context_tokens, batch=req.batch
    )
    if arch.attention_free:
        state_mib = arch.state_values_per_sequence * kv_bytes(dtype) / 2**20
        out.append(note("vram_state", dtype=dtype, mib=state_mib, layers=arch.num_layers, batch=req.batch))
        return
    if arch.mla:
        out.append(note("vram_kv_mla", **shared, rank=arch.mla.kv_lora_rank, rope=arch.mla.qk_rope_head_dim))
        return
    heads = dict(kv_heads=arch.num_key_value_heads, head_dim=arch.head_dim)
    if arch.sliding_window and req.context_tokens > arch.sliding_window:
        window = dict(window=arch.sliding_window, share=arch.sliding_window_layers)
        out.append(note("vram_kv_sliding", **shared, **heads, **window))
    else:
        out.append(note("vram_kv", **shared, **heads))


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


def _layer_bytes_per_token(arch: ModelArch, tp: int, scale: float = 1.0) -> float:
    """Bytes one decoder layer saves for backward per token (bf16, eager PyTorch, FlashAttention/SDPA).

    Counted with saved-tensor hooks on transformers' LlamaForCausalLM (bf16, SDPA): each RMSNorm keeps its
    fp32 upcast input, the bf16 normalised tensor and its bf16 output (8h bytes; fused norms in Liger, Unsloth
    or torch.compile keep 4h); attention keeps q, k, v and its output (no seq^2 matrix); a gated MLP keeps gate,
    up, act(gate) and their product, a plain GELU MLP its two intermediates. Norms are not split by tensor
    parallel, the rest is (Korthikanti et al. 2022, arXiv 2205.05198, without sequence parallel).
    """
    h = arch.hidden_size
    attn_width = arch.num_attention_heads * (arch.mla.v_head_dim if arch.mla else arch.head_dim)
    kv_width = 2 * arch.num_key_value_heads * arch.head_dim if not arch.mla else 2 * attn_width
    mlp_width = (4 if arch.mlp == "gated" else 2) * _active_intermediate(arch)
    act_bytes = defaults()["memory"]["training_activation_bytes"] * scale
    norms = arch.norms_per_layer * 4 * h * act_bytes
    return norms + (2 * attn_width + kv_width + mlp_width) * act_bytes / tp


def _logits_bytes(arch: ModelArch, tokens: int, tp: int, chunked: bool) -> float:
    """Peak bytes of the logits and the cross-entropy over them, for the loss implementation asked for."""
    ce = defaults()["memory"]["cross_entropy"]
    per_logit = (
        ce["chunked_bytes_per_logit"] + ce["chunk_bytes_per_logit"] / ce["chunks"]
        if chunked
        else ce["unfused_bytes_per_logit"]
    )
    return tokens * arch.vocab_size * per_logit / tp  # Megatron's vocab-parallel loss splits the vocabulary


def _training_activations(arch: ModelArch, req: VramRequest, tp: int, out: list[Note]) -> float:
    """Peak activation bytes of one micro-batch: saved layer activations plus the loss's logits (bf16)."""
    tokens = req.context_tokens * req.batch
    scale = 2.0 if req.compute_dtype == "fp32" else 1.0  # FP32 training saves 4-byte tensors, twice bf16's
    one_layer = tokens * _layer_bytes_per_token(arch, tp, scale)
    # QLoRA dequantizes one base weight to bf16 at a time, in forward and again in backward, then frees it
    dequant = 2 * max(lin.d_in * lin.d_out for lin in arch.linears()) if req.mode == "qlora" else 0
    logits = _logits_bytes(arch, tokens, tp, req.chunked_cross_entropy)
    # The loss runs after the last layer and frees its buffers before the first layer's backward, so the loss
    # peak and a layer's working set (its recomputation, a dequantized weight) never coincide.
    if req.grad_checkpointing:
        checkpoints = tokens * arch.num_layers * arch.hidden_size * defaults()["memory"]["training_activation_bytes"]
        checkpoints *= scale
        peak = checkpoints + max(one_layer + dequant, logits)
        how = "vram_activations_checkpointed"
    else:
        peak = arch.num_layers * one_layer + max(logits, dequant)  # every layer's activations wait for backward
        how = "vram_activations_all"
    other = _logits_bytes(arch, tokens, tp, not req.chunked_cross_entropy)
    chosen, alternative = ("chunked", "unfused") if req.chunked_cross_entropy else ("unfused", "chunked")
    out.append(note(how, batch=req.batch, context=req.context_tokens, dtype=req.compute_dtype or "bf16"))
    out.append(
        note(
            "vram_loss",
            chosen=chosen,
            gib=logits / GIB,
            other=alternative,
            other_gib=other / GIB,
            flag="false" if req.chunked_cross_entropy else "true",
        )
    )
    return peak
