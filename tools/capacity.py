"""largest_model: the biggest model given GPUs run (or fine-tune), for each way of running it.

"我只有一张 3060 12G，能跑多大的模型？", "4x T4: what's the biggest model I can serve?": for each way that matters
(inference in 16-bit, 8-bit and 4-bit; full, LoRA and QLoRA fine-tuning) the largest parameter count that fits
is solved on the generic Llama-3-style architecture (tools/models.py `generic_arch`) under the one fit rule
(tools/sizing.py: the engine decides the headroom). Then the largest current registry models that fit are each
checked with `estimate_vram` and named as examples (knowledge/data/advice.yaml `capacity_examples`). With
system RAM stated, one bigger model is timed with CPU offload (tools/offload.py).
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from functools import cache, lru_cache
from typing import Literal

from pydantic import BaseModel, Field, model_validator

from tools.advice import default_context, policy
from tools.catalog import GpuSpec, resolve_gpu_noted
from tools.errors import AdvisorError
from tools.models import ModelArch, registry
from tools.notes import Note, note
from tools.offload import OffloadRequest, OffloadResult, estimate_offload, runtime_ram_gib
from tools.precision import resolve_precision
from tools.sizing import engine_for, headroom_for, mixed_usable, usable_of
from tools.vram import GIB, VramRequest, VramResult, estimate_vram

CapacityMode = Literal["inference", "finetune", "full", "lora", "qlora"]
TrainMode = Literal["full", "lora", "qlora"]
Way = Literal["16bit", "8bit", "4bit", "other", "full", "lora", "qlora"]
_TRAIN_MODES = ("full", "lora", "qlora")
_MIN_B, _MAX_B = 0.05, 20_000.0  # the sizes searched: 50M parameters up to VramRequest's bound
_MAX_CHECKS = 14  # registry models estimated exactly per way, biggest first, before giving up on more examples


class CapacityRequest(BaseModel):
    """GPUs the user has (or a card named by its memory): how big a model runs or fine-tunes on them?"""

    gpu: str | None = Field(default=None, description="GPU name, fuzzy ('3060 12G', 'T4', 'A100 80G'); or vram_gib")
    vram_gib: float | None = Field(
        default=None, gt=0, le=4096, description="A card named only by its memory ('an 8 GB card'), instead of gpu"
    )
    cpu_ram_gib: float | None = Field(
        default=None,
        gt=0,
        le=65536,
        description="No GPU: the machine's RAM, models run on the CPU (llama.cpp), instead of gpu or vram_gib",
    )
    num_gpus: int = Field(default=1, ge=1, le=512, description="How many of them")
    mode: CapacityMode = Field(
        default="inference",
        description="inference: 16-bit, 8-bit and 4-bit (plus the largest QLoRA fine-tune); finetune: full, LoRA "
        "and QLoRA with none preferred; full, lora or qlora: all three, the named one first",
    )
    precision: str | None = Field(
        default=None,
        description="Size only this weight format (inference), or this base for the method named (training)",
    )
    context_tokens: int | None = Field(
        default=None,
        ge=1,
        le=10_000_000,
        description="Inference: context per sequence (default 8,192 for one person's local use, 4,096 when "
        "serving, advice.yaml). Training: sequence length (default 2,048)",
    )
    family: str | None = Field(
        default=None, max_length=40, description="Name examples from this family only: 'llama', 'qwen', 'gemma'"
    )
    engine: str | None = Field(
        default=None,
        description="vllm, sglang, llama.cpp / ollama ... (default: llama.cpp with GGUF files on consumer and "
        "workstation cards, Apple and cards older than compute capability 7.0; vLLM on data-center cards)",
    )
    ram_gib: float | None = Field(
        default=None, gt=0, le=65536, description="System RAM: one bigger model is then timed with CPU offload"
    )
    ram_type: str | None = Field(default=None, description="RAM type for the offload example: ddr4, ddr5-6000 ...")
    with_finetune: bool = Field(default=True, description="Inference: also the largest model QLoRA fine-tunes")
    gpu_mix: list[str] | None = Field(
        default=None,
        max_length=64,
        description="Different GPUs in one machine, one name per card (with gpu, their smallest): a layer split in "
        "proportion to each card's memory, so each card counts as their average memory; num_gpus is their number",
    )

    @model_validator(mode="after")
    def _one_card(self) -> CapacityRequest:
        if sum(x is not None for x in (self.gpu, self.vram_gib, self.cpu_ram_gib)) != 1:
            raise ValueError(
                "give exactly one of gpu (a GPU name), vram_gib (a card's memory in GB) or cpu_ram_gib (no GPU)"
            )
        return self


class CapacityExample(BaseModel):
    """A registry model that fits this way, checked with estimate_vram."""

    model: str = Field(description="Registry name")
    model_id: str
    params_b: float = Field(description="Total parameters, all experts included")
    active_params_b: float | None = Field(default=None, description="Per token, for a mixture of experts")
    per_gpu_gib: float


class CapacityWay(BaseModel):
    """One way of running a model: the largest size that fits, and real models of about that size."""

    way: Way
    mode: Literal["inference", "full", "lora", "qlora"]
    precision: str
    bits: int = Field(description="Nominal bits per weight (16, 8, 4 ...), for the label")
    engine: str = Field(description="The engine whose headroom the fit assumes")
    usable_gib_per_gpu: float
    asked: bool = Field(default=False, description="The way the user named")
    max_params_b: float | None = Field(description="Largest size that fits, rounded down (None: not even 50M)")
    max_params_b_exact: float | None = Field(default=None, description="The solved size before rounding")
    per_gpu_gib_at_max: float | None = None
    examples: list[CapacityExample] = Field(default_factory=list, description="Largest registry models that fit")


class CapacityResult(BaseModel):
    """The largest models given GPUs hold, per way, with examples and (RAM stated) one offloaded model."""

    gpu: str | None = Field(description="GPU name; None for a card named by its memory")
    gpu_id: str | None = None
    cpu_ram_gib: float | None = Field(default=None, description="No GPU: the RAM the CPU runs the models from")
    capacity_gib: float = Field(description="Memory of one card")
    num_gpus: int
    total_gib: float | None = Field(default=None, description="Memory of all the cards together (num_gpus x one)")
    mixed_gpus: list[str] = Field(default=[], description="Different cards (gpu_mix) by name; capacity_gib: average")
    mode: CapacityMode
    context_tokens: int = Field(description="Inference context (training ways: sequence_tokens)")
    sequence_tokens: int = Field(description="Training sequence length")
    family: str | None = None
    ways: list[CapacityWay] = Field(description="The way asked first, then largest first")
    offload: OffloadResult | None = Field(default=None, description="A bigger model with CPU offload (RAM stated)")
    family_bigger: CapacityExample | None = Field(
        default=None,
        description="A family asked for: its next bigger model, which does not fit even in the fewest bits sized "
        "(`family_bigger_way`): the step up a reader weighs (Qwen3-Coder-480B beside the 30B that fits)",
    )
    family_bigger_way: CapacityWay | None = None
    offload_low_bit: OffloadResult | None = Field(
        default=None,
        description="A model too big for the cards plus RAM at 4-bit that fits them at 2-bit (GGUF Q2_K), timed "
        "with offload: the frontier MoE models people run from RAM in 1.58-2-bit dynamic quants (Unsloth's "
        "DeepSeek-R1 671B: IQ1_S 131 GB, Q2_K_XL 212 GB; unsloth.ai/blog/deepseekr1-dynamic)",
    )
    offload_dense: OffloadResult | None = Field(
        default=None,
        description="When `offload` is a mixture of experts: the largest dense model that runs from the same RAM "
        "(every weight read per token: much slower), as people ask about 70B dense models",
    )
    assumptions: list[Note]
    warnings: list[Note]


@dataclass(frozen=True)
class _Hardware:
    gpu: GpuSpec | None
    capacity_gib: float
    num_gpus: int
    gguf: bool  # llama.cpp with GGUF files (else vLLM-style formats)
    bf16: bool
    fp8: bool


@dataclass(frozen=True)
class _WaySpec:
    way: Way
    mode: Literal["inference", "full", "lora", "qlora"]
    precision: str


# ---- the tool -------------------------------------------------------------------------------------------


def largest_model(req: CapacityRequest) -> CapacityResult:
    """The largest model per way of running it on the GPUs asked about, with real examples that fit."""
    return _cached(req.model_dump_json()).model_copy(deep=True)


@lru_cache(maxsize=256)
def _cached(request_json: str) -> CapacityResult:
    """One computation per distinct request: the planner, the eval runner and a replayed session ask again."""
    return _largest_model(CapacityRequest.model_validate_json(request_json))


def _largest_model(req: CapacityRequest) -> CapacityResult:
    hw, assumptions, warnings = _hardware(req)
    inference_ctx = req.context_tokens or default_context("inference", personal=hw.gguf)
    training_ctx = req.context_tokens or default_context("full", personal=False)
    pool, family_notes = _pool(req.family)
    ways = [
        _solve_way(req, hw, spec, inference_ctx if spec.mode == "inference" else training_ctx, pool)
        for spec in _way_specs(req, hw)
    ]
    ways = _ordered(ways, req.mode)
    assumptions += _basis_notes(hw, ways, inference_ctx, training_ctx) + family_notes
    moe = [e.model for w in ways for e in w.examples if e.active_params_b is not None]
    if moe:
        assumptions.append(note("capacity_moe_resident", models=", ".join(dict.fromkeys(moe))))
    offload = _offload_example(req, hw, ways, pool, inference_ctx)
    bigger, bigger_way = _family_bigger(req, hw, ways, pool, inference_ctx) if req.family else (None, None)
    moe_offload = offload is not None and any(a.name == offload.model and a.moe for a in pool)
    dense = [a for a in pool if not a.moe]
    offload_dense = _offload_example(req, hw, ways, tuple(dense), inference_ctx, dense=True) if moe_offload else None
    low_bit = _offload_low_bit(req, hw, pool, inference_ctx)
    return CapacityResult(
        gpu=hw.gpu.name if hw.gpu else None,
        gpu_id=hw.gpu.id if hw.gpu else None,
        cpu_ram_gib=req.cpu_ram_gib,
        capacity_gib=round(hw.capacity_gib, 2),
        num_gpus=hw.num_gpus,
        total_gib=round(hw.capacity_gib * hw.num_gpus, 2),
        mixed_gpus=[g.name for g in _mix(req)],
        mode=req.mode,
        context_tokens=inference_ctx,
        sequence_tokens=training_ctx,
        family=req.family,
        ways=ways,
        offload=offload,
        offload_dense=offload_dense,
        offload_low_bit=low_bit,
        family_bigger=bigger,
        family_bigger_way=bigger_way,
        assumptions=assumptions,
        warnings=warnings + _way_warnings(req, hw),
    )


def _family_bigger(
    req: CapacityRequest, hw: _Hardware, ways: list[CapacityWay], pool: tuple[ModelArch, ...], context: int
) -> tuple[CapacityExample | None, CapacityWay | None]:
    """The asked family's smallest model bigger than every example that fits, sized in the fewest-bit inference
    way (it does not fit there, or it would be an example)."""
    low = min((w for w in ways if w.mode == "inference" and w.examples), key=lambda w: w.bits, default=None)
    if low is None:
        return None, None
    shown = {e.model_id for w in ways for e in w.examples}
    top = max(registry()[m].params for m in shown)
    bigger = sorted((a for a in pool if a.params > 1.1 * top and a.id not in shown), key=lambda a: a.params)
    if not bigger:
        return None, None
    arch = bigger[0]
    at = min(context, arch.max_context) if arch.max_context else context
    try:
        r = _estimate(hw.num_gpus, _WaySpec(low.way, "inference", low.precision), at, model=arch.id)
    except (AdvisorError, ValueError):
        return None, None
    if r.per_gpu_gib <= low.usable_gib_per_gpu:
        return None, None
    return _example(arch, r), low


def _hardware(req: CapacityRequest) -> tuple[_Hardware, list[Note], list[Note]]:
    """The cards, what they support, and which formats an expert would run on them."""
    assumptions: list[Note] = []
    warnings: list[Note] = []
    named = _engine_gguf(req.engine)
    if req.cpu_ram_gib is not None:  # no GPU: llama.cpp on the CPU holds the GGUF file in RAM, next to the OS
        usable = max(0.5, req.cpu_ram_gib - runtime_ram_gib())
        assumptions.append(note("capacity_cpu_ram", ram=req.cpu_ram_gib, usable=usable))
        return _Hardware(None, usable, 1, True, True, False), assumptions, warnings
    if req.gpu is None:
        assert req.vram_gib is not None
        assumptions.append(note("capacity_card_size", gib=req.vram_gib))
        gguf = True if named is None else named
        return _Hardware(None, req.vram_gib, req.num_gpus, gguf, True, False), assumptions, warnings
    gpu, read_as = resolve_gpu_noted(req.gpu)
    assumptions += [read_as] if read_as else []
    if gpu.unofficial:
        warnings.append(note("unofficial_card_named", gpu=gpu.name))
    if gpu.gpu_memory_share:
        assumptions.append(note("fit_unified_memory", gpu=gpu.name, share=gpu.gpu_memory_share))
    old = _compute_capability(gpu) < 7.0
    gguf = named if named is not None else (gpu.segment in ("consumer", "workstation", "apple") or old)
    fp8 = bool(gpu.fp8_tflops or gpu.fp8_fp32acc_tflops)
    bf16 = gpu.has_bf16
    capacity = gpu.usable_memory_gib
    if mix := _mix(req):  # different cards: each carries a share in proportion to its memory
        capacity = mixed_usable(mix)[0]
    return _Hardware(gpu, capacity, req.num_gpus, gguf, bf16, fp8), assumptions, warnings


def _mix(req: CapacityRequest) -> list[GpuSpec]:
    """The different cards of one machine, one per card; [] when they are not that (one model, or a wrong count)."""
    mix = [resolve_gpu_noted(g)[0] for g in req.gpu_mix or []]
    return mix if len(mix) == req.num_gpus and len({g.id for g in mix}) > 1 else []


def _engine_gguf(engine: str | None) -> bool | None:
    """Whether the engine the user named runs GGUF files (None: no engine named)."""
    if not engine:
        return None
    return engine_for(engine) == "llama.cpp"


def _compute_capability(gpu: GpuSpec) -> float:
    try:
        return float(gpu.compute_capability or "99")
    except ValueError:  # AMD gfx names
        return 99.0


def _way_specs(req: CapacityRequest, hw: _Hardware) -> list[_WaySpec]:
    """The ways to size: the asked precision alone, or the usual ladder for the job."""
    sixteen = "bf16" if hw.bf16 else "fp16"
    if req.mode == "inference":
        if req.precision:
            return [_WaySpec(_way_of(req.precision), "inference", req.precision)]
        eight = "q8_0" if hw.gguf else ("fp8" if hw.fp8 else "int8_wo")
        # vLLM's AWQ kernel needs compute capability 7.5: a V100 serves 4-bit as GPTQ (same size)
        volta = hw.gpu is not None and _compute_capability(hw.gpu) < 7.5
        four = "q4_k_m" if hw.gguf else ("gptq" if volta else "awq")
        specs = [_WaySpec("4bit", "inference", four), _WaySpec("8bit", "inference", eight)]
        specs.append(_WaySpec("16bit", "inference", sixteen))
        apple = hw.gpu is not None and hw.gpu.vendor == "apple"  # no bitsandbytes QLoRA on Apple silicon
        qlora = req.with_finetune and not apple and _qlora_runs(hw.gpu)
        return [*specs, _WaySpec("qlora", "qlora", "nf4_dq")] if qlora else specs
    bases = {"full": sixteen, "lora": sixteen, "qlora": "nf4_dq"}
    if req.precision and req.mode in _TRAIN_MODES:
        _check_base(req.mode, req.precision)  # type: ignore[arg-type]  # a training mode, checked above
        bases[req.mode] = req.precision
    return [_WaySpec(m, m, bases[m]) for m in _TRAIN_MODES]


def _qlora_runs(gpu: GpuSpec | None) -> bool:
    """QLoRA trains through bitsandbytes on PyTorch: not offered on a card either refuses (knowledge/data/support.yaml:
    a Kepler/Maxwell card for bitsandbytes, an RX 580 that no ROCm release supports)."""
    if gpu is None:
        return True
    from tools.support import SupportRequest, check_support  # support resolves GPUs through this package's tables

    engines = ["bitsandbytes", "rocm"] if gpu.vendor == "amd" else ["bitsandbytes"]
    try:
        return all(check_support(SupportRequest(engine=e, gpu=gpu.id)).verdict != "no" for e in engines)
    except AdvisorError:
        return True  # a card the support table cannot place: sized as before


def _check_base(mode: TrainMode, precision: str) -> None:
    """LoRA and full fine-tuning train 16- or 32-bit weights; QLoRA a quantized integer base."""
    kind = resolve_precision(precision).kind
    if (mode == "qlora") != (kind == "int"):
        wanted = "nf4, nf4_dq, int8, gptq or awq" if mode == "qlora" else "bf16, fp16 or fp32"
        raise AdvisorError(f"{mode} fine-tuning needs a {wanted} base, not {precision}")


def _way_of(precision: str) -> Way:
    bits = _bits(precision)
    return {16: "16bit", 8: "8bit", 4: "4bit"}.get(bits, "other")  # type: ignore[return-value]


def _bits(precision: str) -> int:
    """Nominal bits of a format as people say them: 16 (bf16), 8 (q8_0, fp8), 4 (q4_k_m, awq, nf4) ..."""
    return max(2, min(32, int(resolve_precision(precision).bits)))


def _ordered(ways: list[CapacityWay], mode: CapacityMode) -> list[CapacityWay]:
    """Inference: 4-bit, 8-bit, 16-bit, then the fine-tuning headline; training: the method named, then the
    biggest first."""
    if mode == "inference":
        return ways
    for w in ways:
        w.asked = w.mode == mode
    return sorted(ways, key=lambda w: (not w.asked, -(w.max_params_b_exact or 0.0)))


# ---- solving one way ------------------------------------------------------------------------------------


def _solve_way(
    req: CapacityRequest, hw: _Hardware, spec: _WaySpec, context: int, pool: tuple[ModelArch, ...]
) -> CapacityWay:
    precision = resolve_precision(spec.precision)
    engine = engine_for(_engine_named(req, hw, spec), spec.mode, precision.kind)
    usable = usable_of(hw.capacity_gib, headroom_for(engine))

    def sized(**ref: object) -> VramResult | None:
        arch = registry().get(str(ref.get("model", "")))
        # a model never runs past its own window: Vicuna-7B (4k) is an example at 4k, not at the 8k default
        at = min(context, arch.max_context) if arch is not None and arch.max_context else context
        try:
            return _estimate(hw.num_gpus, spec, at, **ref)
        except (AdvisorError, ValueError):
            return None

    def fits(params_b: float) -> bool:
        r = sized(params_b=params_b)
        return r is not None and r.per_gpu_gib <= usable + 1e-9

    upper = min(_MAX_B, usable * hw.num_gpus * GIB / (precision.bits / 8) / 1e9 * 1.2 + 1)
    exact = _largest(fits, _MIN_B, upper)
    at_max = sized(params_b=exact) if exact else None
    examples = _examples(spec, hw, context, usable, exact, pool, sized) if exact else []
    nice = _nice(exact) if exact else None
    top = max(examples, key=lambda e: e.params_b, default=None)
    if exact and top is not None and top.params_b > exact:
        # a real model that fits is bigger than the generic shape solved (GQA, tied embeddings): the limit is at
        # least its size, else the answer says "max about 0.4B (e.g. Qwen2.5-0.5B)" and contradicts itself
        exact, nice = top.params_b, _nearest(top.params_b)
        at_max = None
    return CapacityWay(
        way=spec.way,
        mode=spec.mode,
        precision=precision.name,
        bits=_bits(spec.precision),
        engine=engine,
        usable_gib_per_gpu=round(usable, 2),
        asked=bool(req.precision) and spec.precision == req.precision,
        max_params_b=nice,
        max_params_b_exact=round(exact, 3) if exact else None,
        per_gpu_gib_at_max=at_max.per_gpu_gib if at_max else (top.per_gpu_gib if top and exact else None),
        examples=examples,
    )


def _engine_named(req: CapacityRequest, hw: _Hardware, spec: _WaySpec) -> str | None:
    """The engine a way runs under: a training loop for fine-tuning; for inference the one named, else llama.cpp
    for every format on cards that run GGUF files (its 16-bit too), else what the format implies."""
    if spec.mode != "inference":
        return None
    return req.engine or ("llama.cpp" if hw.gguf else None)


def _estimate(num_gpus: int, spec: _WaySpec, context: int, **ref: object) -> VramResult:
    training = spec.mode != "inference"
    return estimate_vram(
        VramRequest(
            **ref,  # type: ignore[arg-type]  # model= or params_b=
            mode=spec.mode,
            precision=spec.precision,
            context_tokens=context,
            batch=1,
            num_gpus=num_gpus,
            grad_checkpointing=training,  # what fine-tuning recipes turn on (advice.md §2)
        )
    )


def _largest(fits: Callable[[float], bool], lo: float, hi: float) -> float | None:
    """The largest size in [lo, hi] that fits (memory grows with size), to within 1%; None if lo does not."""
    if not fits(lo):
        return None
    while fits(hi):
        if hi >= _MAX_B:
            return hi
        lo, hi = hi, min(_MAX_B, hi * 4)
    while hi / lo > 1.01:
        mid = math.sqrt(lo * hi)
        lo, hi = (mid, hi) if fits(mid) else (lo, mid)
    return lo


def _nearest(params_b: float) -> float:
    """A real model's size as its name says it: 0.49 -> 0.5, 3.09 -> 3, 14.8 -> 15 (never below what fits)."""
    step = 10.0 if params_b >= 200 else 5.0 if params_b >= 100 else 1.0 if params_b >= 10 else 0.5
    step = step if params_b >= 1 else 0.1
    return round(round(params_b / step) * step, 1)


def _nice(params_b: float) -> float:
    """A size as people say it, rounded down: 14.9 -> 14, 4.6 -> 4.5, 0.87 -> 0.8, 104 -> 100."""
    step = 10.0 if params_b >= 200 else 5.0 if params_b >= 100 else 1.0 if params_b >= 10 else 0.5
    step = step if params_b >= 1 else 0.1
    return round(math.floor(params_b / step + 1e-9) * step, 1)


# ---- examples -------------------------------------------------------------------------------------------


@cache
def _examples_policy() -> dict:
    return dict(policy()["capacity_examples"])


@cache
def _pool(family: str | None) -> tuple[tuple[ModelArch, ...], list[Note]]:
    """Models to name as examples, biggest first (ties: the more popular series first)."""
    series = list(_examples_policy()["series"])
    curated = [a for a in registry().values() if a.series in series]
    notes: list[Note] = []
    if family:
        key = family.strip().lower()
        own = [a for a in registry().values() if _of_family(a, key)]
        picked = [a for a in curated if _of_family(a, key)] or own
        if picked:
            curated = picked
            shown = picked[0].series if key.startswith("series:") and picked[0].series else family
            notes.append(note("capacity_family", family=shown))
        else:
            notes.append(note("capacity_family_unknown", family=family))
    rank = {s: i for i, s in enumerate(series)}
    curated.sort(key=lambda a: (-round(a.params / 1e9, 1), rank.get(a.series or "", len(rank)), a.released or ""))
    return tuple(curated), notes


def _of_family(arch: ModelArch, key: str) -> bool:
    if key.startswith("series:"):  # one generation ("series:qwen3coder", from "qwen-code" or "Qwen coder")
        return re.sub(r"[^a-z0-9.]", "", (arch.series or "").lower()) == key.removeprefix("series:")
    return arch.family == key or (arch.series or "").startswith(key) or arch.id.startswith(key)


def _examples(
    spec: _WaySpec,
    hw: _Hardware,
    context: int,
    usable: float,
    max_b: float,
    pool: tuple[ModelArch, ...],
    sized: Callable[..., VramResult | None],
) -> list[CapacityExample]:
    """The largest models of the pool that fit this way: one per family (a family asked for: one per size)."""
    per_way = int(_examples_policy()["per_way"])
    one_family = len({a.family for a in pool}) == 1
    bits = resolve_precision(spec.precision).bits
    out: list[CapacityExample] = []
    checks = 0
    for arch in _candidates(pool, spec, bits, max_b):
        if len(out) >= per_way or checks >= _MAX_CHECKS:
            break
        # weights alone are a floor on the memory: skip what cannot fit without estimating it
        if arch.params * bits / 8 / hw.num_gpus / GIB > usable or _repeats(arch, out, one_family):
            continue
        checks += 1
        r = sized(model=arch.id)
        if r is not None and r.per_gpu_gib <= usable + 1e-9:
            out.append(_example(arch, r))
    return out


def _candidates(pool: Iterable[ModelArch], spec: _WaySpec, bits: float, max_b: float) -> Iterable[ModelArch]:
    """Pool models about the solved size or smaller, in a format their publisher's weights allow."""
    for arch in pool:
        if arch.params / 1e9 > max_b * 1.5:
            continue
        if arch.native_precision and (spec.mode != "inference" or resolve_precision(arch.native_precision).bits < bits):
            continue  # FP8 or 4-bit native weights (DeepSeek-V3, gpt-oss) are not run in more bits, nor trained
        yield arch


def _repeats(arch: ModelArch, chosen: list[CapacityExample], by_size: bool) -> bool:
    """Already represented: its family (general examples), or a model within 10% of its size (one family)."""
    reg = registry()
    if by_size:
        return any(abs(arch.params / 1e9 - c.params_b) <= 0.1 * c.params_b for c in chosen)
    return any(reg[c.model_id].family == arch.family for c in chosen)


def _example(arch: ModelArch, r: VramResult) -> CapacityExample:
    return CapacityExample(
        model=arch.name,
        model_id=arch.id,
        params_b=round(arch.params / 1e9, 2),
        active_params_b=round(arch.active_params / 1e9, 2) if arch.moe else None,
        per_gpu_gib=r.per_gpu_gib,
    )


# ---- notes ----------------------------------------------------------------------------------------------


def _basis_notes(hw: _Hardware, ways: list[CapacityWay], inference_ctx: int, training_ctx: int) -> list[Note]:
    """What the sizes assume: the shape, the context or sequence, the engines' headroom, ZeRO-3."""
    out = [note("capacity_generic")]
    if any(w.mode == "inference" for w in ways):
        out.append(note("capacity_inference_basis", context=inference_ctx))
    if any(w.mode != "inference" for w in ways):
        out.append(note("capacity_training_basis", context=training_ctx))
        if hw.num_gpus > 1:
            out.append(note("capacity_zero3", n=hw.num_gpus))
        if any(w.mode == "full" and w.max_params_b for w in ways):
            # "which model can I fully use a 4090 for while training?": an expert adds how full training stretches
            out.append(note("capacity_full_offload"))
    for engine in dict.fromkeys(w.engine for w in ways):
        out.append(note("fit_rule", headroom=headroom_for(engine), engine=engine))
    return out


def _way_warnings(req: CapacityRequest, hw: _Hardware) -> list[Note]:
    out: list[Note] = []
    gpu = hw.gpu
    if gpu is not None and not hw.bf16:
        out.append(note("capacity_no_bf16", gpu=gpu.name))
    if gpu is not None and gpu.vendor == "apple" and req.mode != "inference":
        out.append(note("capacity_apple_training", gpu=gpu.name))
    return out


# ---- a bigger model with CPU offload --------------------------------------------------------------------


def _offload_example(
    req: CapacityRequest,
    hw: _Hardware,
    ways: list[CapacityWay],
    pool: tuple[ModelArch, ...],
    context: int,
    dense: bool = False,
) -> OffloadResult | None:
    """With RAM stated: the largest pool model beyond what the cards hold that still decodes at a usable speed
    with llama.cpp offload (else the fastest that fits in RAM); `dense`: the largest that reaches the dense
    floor, or none."""
    floor = float(_examples_policy()["offload_dense_min_tokens_per_s" if dense else "offload_min_tokens_per_s"])
    if req.ram_gib is None or hw.gpu is None:
        return None
    four = next((w for w in ways if w.mode == "inference" and w.bits <= 4), None)
    beyond = (four.max_params_b_exact or 0.0) if four else 0.0
    room_gib = usable_of(hw.capacity_gib, headroom_for("llama.cpp")) * hw.num_gpus + req.ram_gib
    tried: list[OffloadResult] = []
    for arch in pool:
        if arch.params / 1e9 <= beyond * 1.05 or arch.params * 4.5 / 8 / GIB > room_gib:
            continue
        r = _offload_on(req, hw, arch, context)
        if r is None:
            continue
        if r.fits_in_ram and r.strategy != "gpu_only":
            if r.decode_tokens_per_s >= floor:
                return r
            tried.append(r)
        if len(tried) >= 6:
            break
    return None if dense else max(tried, key=lambda r: r.decode_tokens_per_s, default=None)


def _offload_on(
    req: CapacityRequest, hw: _Hardware, arch: ModelArch, context: int, precision: str | None = None
) -> OffloadResult | None:
    """One pool model run partly from the stated RAM on the cards (llama.cpp's default format unless given)."""
    assert hw.gpu is not None
    extra = {"precision": precision} if precision else {}
    try:
        return estimate_offload(
            OffloadRequest(
                model=arch.id,
                gpu=hw.gpu.id,
                num_gpus=hw.num_gpus,
                ram_gib=req.ram_gib,
                memory=req.ram_type,
                context_tokens=context,
                **extra,
            )
        )
    except (AdvisorError, ValueError):
        return None


def _offload_low_bit(
    req: CapacityRequest, hw: _Hardware, pool: tuple[ModelArch, ...], context: int
) -> OffloadResult | None:
    """With RAM stated: the largest pool model whose 4-bit file outgrows the cards plus RAM but whose 2-bit GGUF
    (Q2_K, about 2.9 bits a weight) fits, at a usable speed. An expert sizing 4x24 GB + 256 GB names the full
    DeepSeek-R1 at a 1.58-2-bit dynamic quant, not only what fits at Q4."""
    if req.ram_gib is None or hw.gpu is None:
        return None
    floor = float(_examples_policy()["offload_min_tokens_per_s"])
    room_gib = usable_of(hw.capacity_gib, headroom_for("llama.cpp")) * hw.num_gpus + req.ram_gib
    bits_low = resolve_precision(_LOW_BIT).bits
    smallest = float(_examples_policy()["offload_low_bit_min_params_b"]) * 1e9
    tried: set[int] = set()  # one check per size: Kimi-K2's four releases share one shape
    for arch in pool:
        if arch.params * 4.5 / 8 / GIB <= room_gib or arch.params * bits_low / 8 / GIB > room_gib:
            continue  # fits at 4-bit already (the main example), or not even at 2-bit
        if arch.params < smallest or (arch.native_precision and resolve_precision(arch.native_precision).bits <= 4):
            continue  # a smaller model at 2-bit loses too much; gpt-oss's MXFP4 experts stay 4-bit in any GGUF
        if round(arch.params / 1e9) in tried:
            continue
        tried.add(round(arch.params / 1e9))
        r = _offload_on(req, hw, arch, context, precision=_LOW_BIT)
        if r is None:
            continue
        if r.fits_in_ram and r.strategy != "gpu_only" and r.decode_tokens_per_s >= floor:
            return r
        if len(tried) >= 4:
            break
    return None


_LOW_BIT = "q2_k"  # the 2-bit GGUF file type; Unsloth's dynamic IQ1_S/Q2_K_XL files are within ~40% below/at it
