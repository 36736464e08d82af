"""What the hardware allows: the format as loaded, the memory, the speed ceiling (on the GPUs or with the model
partly in RAM), another card measured on the same job, and the measured number against the ceiling."""

from __future__ import annotations

from dataclasses import dataclass

from tools._data import load_yaml
from tools.catalog import resolve_gpu_noted
from tools.diagnose.schema import GGUF_ENGINES, NO_OFFLOAD, SPEED_SYMPTOMS, DiagnoseRequest, Verdict, table
from tools.diagnose.state import Run, machine_class, offload_request, record_call, speed_args, vram_of, vram_request
from tools.notes import note
from tools.offload import OffloadRequest, estimate_offload, ram_spec
from tools.precision import resolve_precision
from tools.speed import SpeedRequest, estimate_speed
from tools.vram import estimate_vram
from tools.workload import ModelRef


def precision_as_loaded(run: Run) -> str:
    """The format named, the one the model's name carries, fp32 for a from_pretrained with no dtype, Q4_K_M for
    llama.cpp / Ollama, else bf16."""
    req = run.req
    if req.mode == "training":  # LoRA and full train a 16-bit base, QLoRA a 4-bit one
        given = resolve_precision(req.precision) if req.precision else None
        quantized = given is not None and given.bits < 16
        if req.method == "qlora":
            return given.name if quantized and given is not None else "nf4"
        return given.name if given is not None and not quantized else "bf16"
    if req.precision:
        return resolve_precision(req.precision).name
    named, notes = ModelRef(**run.ref).weight_format("inference")
    if named:
        run.assumptions += notes
        return named
    if "no_torch_dtype" in run.flags and run.engine not in GGUF_ENGINES:
        run.assumptions.append(note("diag_assumed_fp32"))
        return "fp32"
    if run.engine in GGUF_ENGINES or "cpu_only" in run.flags:
        return "q4_k_m"  # what llama.cpp / Ollama (and nearly every CPU run) load
    return _runs_so_it_fits(run) or "bf16"


def _runs_so_it_fits(run: Run) -> str | None:
    """A model that runs in an engine that cannot offload to RAM (vLLM, SGLang ...) fits its GPUs: when 16-bit
    would not, the build it runs is a smaller one (FP8 where the card has it, else 4-bit AWQ), and that is said."""
    req, gpu = run.req, run.gpu
    if run.engine not in NO_OFFLOAD or req.symptom not in SPEED_SYMPTOMS or gpu is None or req.mode != "inference":
        return None
    if vram_of(run, "bf16", req.num_gpus, gpu=req.gpu).fit.fits:  # type: ignore[union-attr]
        return None
    for precision in ("fp8", "awq") if gpu.fp8_tflops else ("awq",):
        if vram_of(run, precision, req.num_gpus, gpu=req.gpu).fit.fits:  # type: ignore[union-attr]
            run.assumptions.append(note("diag_assumed_runs_fits", n=req.num_gpus, gpu=gpu.name, precision=precision))
            return precision
    return None


def estimate_memory(run: Run) -> None:
    assert run.precision is not None
    request = vram_request(run, run.precision, run.req.num_gpus, gpu=run.req.gpu)
    run.vram = estimate_vram(request)
    record_call(run, "estimate_vram", request)


def estimate_ceiling(run: Run) -> None:
    """Decode (or training) tokens/s the hardware allows: on the GPUs, or with the model partly in RAM."""
    req = run.req
    if req.symptom == "slow_load":
        return  # loading is the disk's time, not a decode speed
    if run.gpu is None:
        cpu = "cpu_only" in run.flags or req.ram_gib or req.memory or req.machine or req.channels
        mac = bool(run.flags & {"mac", "mps"})  # a Mac runs on its own GPU from unified memory, not the CPU's RAM
        if req.mode == "inference" and cpu and not mac and req.symptom in SPEED_SYMPTOMS:
            request = offload_request(run, gpu=False)
            run.offload = estimate_offload(request)
            run.ceiling = run.offload.decode_tokens_per_s
            record_call(run, "estimate_offload", request)
        return
    fits = run.vram is not None and (run.vram.fit is None or run.vram.fit.fits)
    if not fits and _mac_wired(run):
        fits = True  # a Mac has no separate RAM to spill into: past the default GPU share it runs once the limit rises
    if not fits and req.mode == "inference" and req.symptom in SPEED_SYMPTOMS:
        request = offload_request(run, gpu=True)
        offload = estimate_offload(request)
        if offload.strategy != "gpu_only":
            run.offload, run.ceiling = offload, offload.decode_tokens_per_s
            record_call(run, "estimate_offload", request)
            run.assumptions += [a for a in offload.assumptions if a.code.startswith("offload_")][-2:]
            return
        fits = True  # it fits once the engine keeps less of the card back (llama.cpp 3%)
        _tight_fit(run)
    if not fits:
        return  # a job that does not fit has no speed on these GPUs to compare with
    assert req.gpu is not None
    speed_request = SpeedRequest(**speed_args(run, req.gpu, req.num_gpus))
    run.speed = estimate_speed(speed_request)
    record_call(run, "estimate_speed", speed_request)
    training = req.mode == "training"
    run.ceiling = run.speed.training_tokens_per_s if training else run.speed.decode_tokens_per_s
    if not training:
        run.values["peak"] = _bandwidth_bound(run)
    if req.num_gpus > 1 and vram_of(run, run.precision or "bf16", 1, gpu=req.gpu).fit.fits:  # type: ignore[union-attr]
        single = estimate_speed(SpeedRequest(**speed_args(run, req.gpu, 1)))
        run.values["single"] = single.training_tokens_per_s if training else single.decode_tokens_per_s


# a speed measured this far past the assumed 16-bit ceiling was a lighter build than the one assumed
_PAST = 1.2


def lighter_build(run: Run) -> bool:
    """A speed measured well past what the assumed 16-bit load allows, with no format named ("43 tokens/s for
    llama-13b on an A10"), was a lighter build: re-sized as the first of 8-bit and 4-bit whose ceiling reaches the
    number, else 4-bit (the lightest common one), and that is said. Returns whether the run was re-sized."""
    req, measured = run.req, run.req.measured_tokens_per_s
    if req.precision or req.mode != "inference" or not measured or run.gpu is None or req.gpu is None:
        return False
    if run.ceiling is None or measured <= run.ceiling * _PAST or run.precision != "bf16":
        return False
    pick = None
    for precision in ("int8", "awq"):
        if not vram_of(run, precision, req.num_gpus, gpu=req.gpu).fit.fits:  # type: ignore[union-attr]
            continue
        pick = precision
        args = speed_args(run, req.gpu, req.num_gpus) | {"precision": precision}
        if (estimate_speed(SpeedRequest(**args)).decode_tokens_per_s or 0) >= measured:
            break
    if pick is None:
        return False
    said = note("diag_assumed_measured_format", measured=measured, ceiling=round(run.ceiling, 1), precision=pick)
    run.assumptions = [a for a in run.assumptions if not a.code.startswith("offload_")] + [said]
    run.precision, run.offload, run.ceiling, run.speed = pick, None, None, None
    for key in ("peak", "single"):
        run.values.pop(key, None)
    resized = ("estimate_vram", "estimate_speed", "estimate_offload")
    run.calculations = [c for c in run.calculations if c.tool not in resized]
    return True


def _bandwidth_bound(run: Run) -> float | None:
    """Decode tokens/s at the card's full memory bandwidth: the bytes every token reads (weights and KV cache, as
    tools/speed.py counts them) against the peak bandwidth of the GPUs. The ceiling is the typical value under it
    (memory_efficiency, kernel launches); a speed between the two is a good run, only one past this bound is
    impossible as stated."""
    notes = run.speed.assumptions if run.speed is not None else []
    read = [n.params.get(k) for n in notes if n.code == "speed_decode" for k in ("weights_gb", "kv_gb")]
    if run.gpu is None or len(read) != 2 or None in read or not sum(read):
        return None
    return run.gpu.bandwidth_gbs * run.req.num_gpus / sum(read)


# of a Mac's unified memory, what the GPU may wire once `iogpu.wired_limit_mb` is raised (macOS and apps keep the rest)
_MAC_WIRED_MAX = 0.9


def _mac_wired(run: Run) -> bool:
    """A Mac (unified memory) whose job needs more than the GPU's default share but fits its memory: it runs from the
    same memory once the wired limit is raised ("M3 Ultra 512GB 跑 R1 Q4 有 20 t/s"), not partly from a CPU's RAM."""
    gpu, v = run.gpu, run.vram
    if gpu is None or gpu.form_factor != "soc" or v is None or run.req.num_gpus != 1:
        return False
    if v.per_gpu_gib > _MAC_WIRED_MAX * gpu.vram_gib:
        return False
    usable = gpu.vram_gib * (gpu.gpu_memory_share or 1.0)
    run.assumptions.append(
        note("diag_mac_wired_limit", gpu=gpu.name, need=v.per_gpu_gib, usable=usable, total=gpu.vram_gib)
    )
    # the memory shown is the job's, not a verdict against the default share (which the raised limit replaces)
    run.calculations = [c for c in run.calculations if c.tool != "estimate_vram"]
    record_call(run, "estimate_vram", vram_request(run, run.precision or "bf16", run.req.num_gpus))
    return True


def _tight_fit(run: Run) -> None:
    """A job that fits only with the card all but full (llama.cpp's 3% headroom, not the usual 10%): the memory the
    answer shows is that layout, and the fact says the card is full, where Windows' driver spills to system RAM."""
    request = vram_request(run, run.precision or "bf16", run.req.num_gpus, gpu=run.req.gpu, engine="llama.cpp")
    run.vram = estimate_vram(request)
    run.calculations = [c for c in run.calculations if c.tool != "estimate_vram"]
    record_call(run, "estimate_vram", request)
    run.facts.add("tight_fit")


def gpu_floor(run: Run) -> None:
    """No model named, a speed measured on a named GPU: even a model that fills the GPU's memory decodes at
    bandwidth / memory; a speed well under that means most of the weights are read from system RAM."""
    req, gpu = run.req, run.gpu
    if gpu is None or run.measured is None or req.mode != "inference" or run.flags & {"mac", "mps"}:
        return
    usable = gpu.vram_gib * (1 - table()["floor_headroom"])
    eff = load_yaml("estimator_defaults.yaml")["speed"]["memory_efficiency"]["quantized"]
    floor = gpu.bandwidth_gbs * eff / (usable * 2**30 / 1e9)
    if run.measured * table()["at_ceiling_gap"] > floor:
        return
    machine = machine_class(run)
    spec, _ = ram_spec(OffloadRequest.model_construct(machine=machine, memory=req.memory, channels=req.channels))
    run.facts.add("below_gpu_floor")
    run.values.update(floor=floor, floor_usable=usable, memory=spec.memory.upper(), channels=spec.channels)
    run.values.update(ram_gbs=spec.effective_gbs, ram_peak=spec.peak_gbs)


@dataclass
class OtherCard:
    gpu: str


def other_card(run: Run) -> OtherCard | None:
    """The same job on the other card the user measured: its ceiling and the bandwidth ratio."""
    req = run.req
    if not (req.other_gpu and run.arch is not None and run.gpu is not None and req.mode == "inference"):
        return None
    other, _ = resolve_gpu_noted(req.other_gpu)
    n_other = req.other_num_gpus or req.num_gpus
    speed = estimate_speed(SpeedRequest(**speed_args(run, req.other_gpu, n_other)))
    run.values.update(
        other_n=n_other,
        other_gpu=other.name,
        other_ceiling=speed.decode_tokens_per_s,
        other_bandwidth=other.bandwidth_gbs,
        bw_ratio=round(other.bandwidth_gbs / run.gpu.bandwidth_gbs, 2),
    )
    if req.other_measured_tokens_per_s:
        run.values["other_gap"] = (speed.decode_tokens_per_s or 0) / req.other_measured_tokens_per_s
    return OtherCard(gpu=other.name)


def measured_ratio(req: DiagnoseRequest) -> float | None:
    a, b = req.measured_tokens_per_s, req.other_measured_tokens_per_s
    return round(max(a, b) / min(a, b), 2) if a and b else None


def _measured(run: Run) -> float | None:
    """Tokens/s measured: decode as stated; training from seconds per step (batch x sequence x GPUs per step)."""
    req = run.req
    if req.mode == "training" and req.measured_seconds_per_step:
        tokens = req.batch * run.context * req.num_gpus
        run.assumptions.append(
            note(
                "diag_training_measured",
                s=req.measured_seconds_per_step,
                tokens=tokens,
                batch=req.batch,
                context=run.context,
                n=req.num_gpus,
            )
        )
        return tokens / req.measured_seconds_per_step
    total = run.speed.tokens_to_train if run.speed is not None else None
    if req.mode == "training" and req.measured_hours and total:
        # the run's time stated ("88 hours") over the tokens its data and epochs make: the tokens/s it trains at
        run.assumptions += [a for a in run.speed.assumptions if a.code.startswith("speed_dataset")][:1]  # type: ignore[union-attr]
        return total / (req.measured_hours * 3600)
    return req.measured_tokens_per_s


def verdict_of(run: Run) -> tuple[Verdict, float | None]:
    run.measured = _measured(run)
    if run.ceiling is None:
        return "no_ceiling", None
    if run.measured is None:
        return "not_measured", None
    gap = run.ceiling / run.measured
    t = table()
    peak = run.values.get("peak") if run.req.num_gpus == 1 and run.offload is None else None
    if peak and run.measured > run.ceiling:
        # over the typical value but within the bandwidth bound is a well-tuned run; only past the bound is the
        # number read as something else (a 4-bit build, several requests' total)
        return ("above" if run.measured > peak * t["over_bound"] else "at_ceiling"), gap
    if gap <= 0.8:
        return "above", gap
    at_ceiling = t["at_ceiling_gap"]
    if run.offload is not None and not run.req.memory:
        at_ceiling = t["offload_ram_unknown_gap"]  # the RAM's generation alone moves an offload ceiling ~1.75x
    if gap <= at_ceiling:
        return "at_ceiling", gap
    return ("far_below" if gap >= t["software_gap"] else "below"), gap


def bound_of(run: Run) -> str | None:
    if run.offload is not None and run.ceiling:
        return "ram-bandwidth"
    return run.speed.bound if run.speed else None
