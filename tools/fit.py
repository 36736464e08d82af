"""fit_on_gpu: the reverse questions — best precision, longest context, most concurrent sequences."""

from __future__ import annotations

from collections.abc import Callable

from pydantic import BaseModel, Field

from tools import advice
from tools.catalog import GpuSpec, resolve_gpu_noted
from tools.notes import Note, note
from tools.precision import resolve_precision
from tools.sizing import engine_for, headroom_for, mixed_usable, usable_of
from tools.vram import VramRequest, VramResult, estimate_vram
from tools.workload import ModelRef

# Highest quality first; FP8 is skipped on GPUs without FP8 tensor cores (it would run weight-only).
PRECISION_LADDER = ["bf16", "fp8", "q8_0", "awq", "q4_k_m", "q3_k_m", "q2_k"]
MAX_SEARCH = 10_000_000


class FitRequest(ModelRef):
    """A model on a given GPU (or N of them): what is the most it can do?"""

    gpu: str = Field(description="GPU name, fuzzy")
    num_gpus: int = Field(default=1, ge=1, le=1024)
    precision: str | None = Field(default=None, description="Fix the weight format (else the best that fits)")
    kv_dtype: str | None = Field(default=None, description="KV-cache dtype (default fp16)")
    context_tokens: int = Field(default=4096, ge=1, le=MAX_SEARCH, description="Context for the concurrency answer")
    memory_utilization: float | None = Field(
        default=None,
        gt=0,
        le=1,
        description="Share of GPU memory the engine may use (vLLM gpu_memory_utilization; default: what `engine` "
        "leaves, tools/sizing.py)",
    )
    spare_room: bool = Field(
        default=True,
        description="Pick the highest format that leaves room to spare (advice.yaml brim_share); False: the top "
        'format whenever it holds one sequence at the context ("how many users at default settings": the count '
        "at the published BF16 leads, quantization is the lever)",
    )
    engine: str | None = Field(
        default=None,
        description="vllm, sglang, llama.cpp / ollama, transformers ... (default: llama.cpp when the format is a "
        "GGUF file, else vllm)",
    )
    gpu_mix: list[str] | None = Field(
        default=None,
        max_length=64,
        description="Different GPUs in one machine, one name per card: a layer split in proportion to each card's "
        "memory (llama.cpp --tensor-split), so the limits use the cards' average memory; num_gpus is their number",
    )


class FitResult(BaseModel):
    model: str
    gpu: str
    num_gpus: int
    usable_gib_per_gpu: float
    best_precision: str | None
    precisions_that_fit: list[str]
    max_context: int | None = Field(description="Longest context at batch 1 with best_precision")
    max_concurrent_sequences: int | None = Field(description="At context_tokens with best_precision")
    limiting_factor: str = Field(description="What runs out first, in English (the `limiting` note's text)")
    limiting: Note = Field(description="What runs out first, as a catalog note")
    memory_at_answer: VramResult | None = None
    engine: str = Field(default="vllm", description="The engine whose memory limit `usable_gib_per_gpu` assumes")
    top_precision: str | None = Field(default=None, description="The highest-quality format tried (bf16 unless fixed)")
    top_weights_gib: float | None = Field(default=None, description="Weights per GPU in top_precision")
    assumptions: list[Note]
    warnings: list[Note]


def _largest(fits: Callable[[int], bool], lo: int, hi: int) -> int | None:
    """Largest integer in [lo, hi] for which `fits` holds (monotone), or None."""
    if not fits(lo):
        return None
    if fits(hi):
        return hi
    while hi - lo > 1:
        mid = (lo + hi) // 2
        lo, hi = (mid, hi) if fits(mid) else (lo, mid)
    return lo


def _capacity(req: FitRequest, gpu: GpuSpec) -> float:
    """One card's memory, or for different cards in one machine their average: a layer split in proportion to each
    card's memory gives each the same share of its own."""
    mix = [resolve_gpu_noted(g)[0] for g in req.gpu_mix or []]
    if len(mix) == req.num_gpus and len({g.id for g in mix}) > 1:
        return mixed_usable(mix)[0]
    return gpu.usable_memory_gib


def fit_on_gpu(req: FitRequest) -> FitResult:
    """Solve exactly with the estimator for the precision, context and concurrency limits."""
    gpu, read_as = resolve_gpu_noted(req.gpu)
    ref = req.model_dump(include={"model", "params_b", "config_path", "arch"})
    assumptions = [read_as] if read_as else []
    named_format, format_notes = (None, []) if req.precision else req.weight_format("inference", native=False)
    assumptions += format_notes
    fixed = req.precision or named_format
    engine = engine_for(req.engine, "inference", resolve_precision(fixed).kind if fixed else None, gpu)
    utilization = 1 - headroom_for(engine) if req.memory_utilization is None else req.memory_utilization
    capacity = _capacity(req, gpu)
    usable = usable_of(capacity, 1 - utilization)
    warnings: list[Note] = []
    if gpu.unofficial:
        warnings.append(note("unofficial_card_named", gpu=gpu.name))
    if gpu.gpu_memory_share:
        assumptions.append(note("fit_unified_memory", gpu=gpu.name, share=gpu.gpu_memory_share))
    assumptions.append(note("fit_usable", usable=usable, capacity=capacity, utilization=utilization, engine=engine))

    def estimate(precision: str, context: int, batch: int) -> VramResult:
        return estimate_vram(
            VramRequest(
                **ref,
                precision=precision,
                kv_dtype=req.kv_dtype,
                context_tokens=context,
                batch=batch,
                num_gpus=req.num_gpus,
            )
        )

    def fits(precision: str, context: int, batch: int) -> bool:
        return estimate(precision, context, batch).per_gpu_gib <= usable + 1e-9

    ladder = (
        [fixed] if fixed else [p for p in PRECISION_LADDER if p != "fp8" or gpu.fp8_tflops or gpu.fp8_fp32acc_tflops]
    )
    for p in ladder:
        resolve_precision(p)  # validates a user-given name
    fitting = [p for p in ladder if fits(p, 1, 1)]
    base = estimate(ladder[0], 1, 1)
    arch_max = ModelRef(**ref).resolve()[0].max_context
    if not fitting:
        weights_only = base.per_gpu_breakdown_gib["weights"]
        limit = note(
            "fit_limit_weights",
            lowest=ladder[-1],
            per_gpu=base.per_gpu_gib,
            highest=ladder[0],
            weights=weights_only,
        )
        return FitResult(
            model=base.model,
            gpu=gpu.name,
            num_gpus=req.num_gpus,
            usable_gib_per_gpu=round(usable, 2),
            best_precision=None,
            precisions_that_fit=[],
            max_context=None,
            max_concurrent_sequences=None,
            limiting_factor=limit.text,
            limiting=limit,
            assumptions=assumptions,
            engine=engine,
            top_precision=ladder[0],
            top_weights_gib=round(base.per_gpu_breakdown_gib["weights"], 2),
            warnings=warnings,
        )
    # the best format is the highest that holds one sequence at the asked context, with room to spare when one
    # does (advice.yaml brim_share): a format that fills the card to the last percent is named, not picked
    at_context = [p for p in fitting if fits(p, req.context_tokens, 1)]
    brim = advice.brim_share() * usable
    roomy = [p for p in at_context if estimate(p, req.context_tokens, 1).per_gpu_gib <= brim]
    if not req.spare_room and at_context[:1] == ladder[:1]:
        roomy = at_context[:1]  # the published precision holds a sequence: its count leads, however few
    best = (roomy or at_context or fitting)[0]
    if at_context and best != at_context[0]:
        tight = estimate(at_context[0], req.context_tokens, 1).per_gpu_gib
        warnings.append(note("fit_brim", tight=at_context[0], best=best, need=tight, usable=usable))
    max_ctx = _largest(lambda c: fits(best, c, 1), 1, arch_max or MAX_SEARCH)
    max_seq = _largest(lambda b: fits(best, req.context_tokens, b), 1, 100_000)
    answer = estimate(best, req.context_tokens, max_seq or 1)
    if max_seq is None:
        limiting = note("fit_limit_one_sequence", context=req.context_tokens, precision=best)
    elif arch_max and max_ctx == arch_max:
        limiting = note("fit_limit_model", max_context=arch_max)
    else:
        limiting = note("fit_limit_kv")
    if best != ladder[0] and (not at_context or at_context[0] == best):
        warnings.append(note("fit_fallback", top=ladder[0], best=best))
    assumptions.append(note("fit_ladder", ladder=", ".join(ladder)))
    return FitResult(
        model=answer.model,
        gpu=gpu.name,
        num_gpus=req.num_gpus,
        usable_gib_per_gpu=round(usable, 2),
        best_precision=best,
        precisions_that_fit=fitting,
        max_context=max_ctx,
        max_concurrent_sequences=max_seq,
        limiting_factor=limiting.text,
        limiting=limiting,
        memory_at_answer=answer,
        assumptions=assumptions + answer.assumptions,
        engine=engine,
        top_precision=ladder[0],
        top_weights_gib=round(base.per_gpu_breakdown_gib["weights"], 2),
        warnings=warnings + answer.warnings,
    )
