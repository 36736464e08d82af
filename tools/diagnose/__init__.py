"""diagnose: why a measured speed or an out-of-memory on named hardware is what it is.

An expert first compares the measured number with the computed ceiling (tools/speed.py on the GPUs, or
tools/offload.py when the model does not fit them; memory from tools/vram.py): within `at_ceiling_gap` the
hardware is the limit, from `software_gap` on it is software (kernel, precision fallback, offload, settings),
not the card. Then the causes of knowledge/data/diagnosis.yaml whose conditions hold, in the file's order, each
with what to change and where maintainers explain it. Every sentence is a note code (knowledge/data/notes.yaml).

The package, one job a module: schema (request, result, the data table), state (one diagnosis being computed and the
calculator requests it builds), ceilings (the format as loaded, memory and speed ceiling, the measured number against
it), layouts (memory diagnosis: the job on one GPU, in 16-bit, at full context; what would make it fit), facts (what
the causes' conditions test, the numbers their sentences quote), causes (the conditions and the sentences), ratio (a
factor stated between two cards against the one the hardware predicts).
"""

from __future__ import annotations

from tools.catalog import resolve_gpu_noted
from tools.diagnose.causes import causes_of
from tools.diagnose.ceilings import (
    bound_of,
    estimate_ceiling,
    estimate_memory,
    gpu_floor,
    lighter_build,
    measured_ratio,
    other_card,
    precision_as_loaded,
    verdict_of,
)
from tools.diagnose.facts import compute_facts, fill_values
from tools.diagnose.layouts import card_fit, fits_of, other_layouts, usable_gib, weights_at
from tools.diagnose.ratio import hardware_ratio
from tools.diagnose.schema import (
    SPEED_SYMPTOMS,
    Calculation,
    DiagnoseCause,
    DiagnoseRequest,
    DiagnoseResult,
    DiagnoseSource,
    Symptom,
    Verdict,
    engine_id,
    table,
)
from tools.diagnose.state import Run, rounded
from tools.notes import note
from tools.precision import resolve_precision
from tools.workload import ModelRef


def _peak_share(run: Run) -> int | None:
    peak = run.values.get("peak")
    return round(100 * run.measured / peak) if peak and run.measured and run.offload is None else None


def diagnose(req: DiagnoseRequest) -> DiagnoseResult:
    """Compute the ceiling, compare the measured number with it, and list the causes that apply."""
    run = Run(req=req, engine=engine_id(req.engine), flags=set(req.flags))
    if run.engine is None and run.flags & {"enforce_eager", "kv_cache_error"}:
        run.engine = "vllm"  # --enforce-eager is vLLM's setting, the KV-cache error vLLM's message
    if run.engine is None and req.precision and resolve_precision(req.precision).kind == "gguf":
        run.engine = "llama_cpp"  # a GGUF file runs in llama.cpp or one of its front ends (Ollama, LM Studio)
        run.assumptions.append(note("diag_assumed_llamacpp", precision=resolve_precision(req.precision).name))
    if req.measured_tokens_per_min and req.measured_tokens_per_s:  # "600 tokens a minute": the unit converted
        run.assumptions.append(
            note("diag_per_minute", per_min=req.measured_tokens_per_min, per_s=rounded(req.measured_tokens_per_s))
        )
    if req.gpu:
        run.gpu, read_as = resolve_gpu_noted(req.gpu)
        run.assumptions += [read_as] if read_as else []
    if req.model or req.params_b:
        run.arch, notes = ModelRef(**run.ref).resolve()
        run.assumptions += notes[:2]
    if run.arch is not None:
        run.precision = precision_as_loaded(run)
        estimate_memory(run)
        estimate_ceiling(run)
        if lighter_build(run):  # "43 tokens/s for llama-13b on an A10": a 4-bit build, not 16-bit
            estimate_memory(run)
            estimate_ceiling(run)
        weights_at(run)
        card_fit(run)
        other_layouts(run)
    elif req.precision:
        run.precision = resolve_precision(req.precision).name
    # no GPU asked about, or the CPU's own ceiling computed (no GPU named, the RAM stated)
    no_gpu_asked = "cpu_only" in run.flags or (run.gpu is None and run.offload is not None)
    if (run.arch is None or (run.gpu is None and not no_gpu_asked)) and req.symptom in SPEED_SYMPTOMS:
        run.warnings.append(note("diag_no_ceiling"))
    other = other_card(run)
    verdict, gap = verdict_of(run)
    if run.arch is None:
        gpu_floor(run)
    fill_values(run, gap)
    compute_facts(run, verdict)
    ratio, basis = hardware_ratio(run)  # a factor stated between two cards, against the hardware's
    target = req.target_tokens_per_s
    return DiagnoseResult(
        symptom=req.symptom,
        model=run.arch.name if run.arch else None,
        gpu=run.gpu.name if run.gpu else None,
        num_gpus=req.num_gpus,
        precision=run.precision,
        engine=run.engine,
        mode=req.mode,
        method=req.method if req.mode == "training" else None,
        verdict=verdict,
        ceiling_tokens_per_s=rounded(run.ceiling),
        ceiling_source="offload" if run.offload and run.ceiling else ("gpu" if run.ceiling else "none"),
        bound=bound_of(run),
        peak_tokens_per_s=rounded(run.values.get("peak")) if run.offload is None else None,
        peak_share_pct=_peak_share(run),
        measured_tokens_per_s=rounded(run.measured),
        gap=round(gap, 2) if gap else None,
        target_tokens_per_s=target,
        target_reachable=None if target is None or run.ceiling is None else target <= run.ceiling * 1.1,
        single_gpu_tokens_per_s=rounded(run.values.get("single")),
        scaling=round(run.ceiling / run.values["single"], 2) if run.ceiling and run.values.get("single") else None,
        other_gpu=other.gpu if other else run.values.get("other_gpu"),  # no model: named, with no ceiling
        other_num_gpus=run.values.get("other_n") if other else None,
        other_ceiling_tokens_per_s=rounded(run.values.get("other_ceiling")),
        other_measured_tokens_per_s=req.other_measured_tokens_per_s,
        bandwidth_ratio=run.values.get("bw_ratio"),
        measured_ratio=measured_ratio(req),
        stated_ratio=req.stated_ratio,
        hardware_ratio=ratio,
        hardware_basis=basis,  # type: ignore[arg-type]
        hardware_values=run.values.get("hw_values"),
        other_run_tokens_per_s=req.other_run_tokens_per_s,
        fits=fits_of(run),
        **_run_time(run),
        memory_per_gpu_gib=run.vram.per_gpu_gib if run.vram else None,
        memory_16bit_per_gpu_gib=run.values.get("half_need"),
        memory_one_gpu_gib=run.values.get("need_one"),
        usable_gib_per_gpu=usable_gib(run),
        measured_memory_gib=req.measured_memory_gib,
        gpu_bandwidth_gbs=run.gpu.bandwidth_gbs if run.gpu else None,
        other_bandwidth_gbs=run.values.get("other_bandwidth"),
        gpu_tensor_tflops=run.values.get("tflops"),
        other_tensor_tflops=run.values.get("other_tflops"),
        offload_strategy=run.offload.strategy if run.offload else None,
        ram_memory=run.offload.ram.memory.upper() if run.offload else None,
        ram_channels=run.offload.ram.channels if run.offload else None,
        in_ram_gib=run.offload.in_ram_gib if run.offload else None,
        ram_effective_gbs=round(run.offload.ram.effective_gbs, 1) if run.offload else None,
        causes=causes_of(run),
        calculations=run.calculations,
        assumptions=run.assumptions,
        warnings=run.warnings,
    )


def _run_time(run: Run) -> dict[str, float | None]:
    """A training run's stated hours against the hours its data takes at the ceiling; with no data size known, the
    tokens those hours cover at the ceiling (the user checks them against their dataset)."""
    req, speed = run.req, run.speed
    if req.mode != "training" or not req.measured_hours or not run.ceiling:
        return {}
    total = speed.tokens_to_train if speed is not None else None
    implied = None if total else round(run.ceiling * req.measured_hours * 3600)
    epochs = req.epochs if req.epochs and req.epochs > 1 else None
    return dict(
        measured_hours=req.measured_hours,
        epochs=req.epochs,
        hours_at_ceiling=speed.time_to_train_hours if speed is not None and total else None,
        tokens_to_train=total,
        implied_tokens=implied,
        hours_per_epoch=round(req.measured_hours / epochs, 2) if epochs else None,
        implied_tokens_per_epoch=round(implied / epochs) if implied and epochs else None,
    )


__all__ = [
    "Calculation",
    "DiagnoseCause",
    "DiagnoseRequest",
    "DiagnoseResult",
    "DiagnoseSource",
    "Symptom",
    "Verdict",
    "diagnose",
    "engine_id",
    "table",
]
