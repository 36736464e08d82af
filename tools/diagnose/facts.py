"""The facts the causes' conditions test, and every number their sentences quote."""

from __future__ import annotations

from typing import Any

from tools.diagnose.causes import has_fields, pick_fields
from tools.diagnose.layouts import fit_options, fits_of, fp16_fits
from tools.diagnose.schema import GGUF_ENGINES, Verdict, table
from tools.diagnose.signals import signal_facts
from tools.diagnose.state import Run, gpu_cc, note_param
from tools.notes import note
from tools.precision import resolve_precision
from tools.speed import SpeedResult


def compute_facts(run: Run, verdict: Verdict) -> None:
    req, f = run.req, run.facts
    fits = fits_of(run)
    f.add("fit_unknown" if fits is None or run.vram is None else ("fits" if fits else "not_fits"))
    if run.offload is not None:
        f.add("moe_offload" if run.offload.strategy == "experts" else "layer_offload")
        f |= {"cpu_only"} if run.gpu is None else set()  # no GPU named, the RAM stated: it all runs on the CPU
    f.add(req.mode)
    f |= int_quant_facts(run)
    if run.engine is None:
        f.add("no_engine")
        if verdict in ("far_below", "below") and "int_quant" in f:
            run.assumptions.append(note("diag_assumed_transformers", precision=run.precision))
    if req.num_gpus > 1 or req.symptom == "multi_gpu_slower":
        f.add("multi_gpu")
    f |= {"oom_past_gpu0"} if req.oom_gpu else set()  # "out of memory (GPU 3; ...)": it already reached past GPU 0
    f |= _card_facts(run)
    f |= signal_facts(run)  # before the link: whether tensor parallel is in use
    f |= _link_facts(run, f)
    if run.vram is not None and run.vram.breakdown_gib["kv_cache"] >= table()["kv_large_share"] * run.vram.total_gib:
        f.add("kv_large")
    f |= _size_facts(run)
    f |= {"gguf_engine"} if run.engine in GGUF_ENGINES else set()
    f |= {"not_measured"} if run.measured is None else set()
    if verdict in ("at_ceiling", "above"):
        f.add("at_ceiling")
    if verdict == "below":
        f.add("below")  # between the card's limit and several times under it
    if verdict == "far_below":
        f.add("far_below")
        if gap_of(run) >= table()["huge_gap"]:
            f.add("huge_gap")
    if run.offload is not None:
        f |= {"ram_short"} if run.offload.fits_in_ram is False else set()
        f |= {"two_sockets"} if run.offload.ram.sockets > 1 else set()
    mem, fp32, half = req.measured_memory_gib, run.values.get("fp32_gib"), run.values.get("half_gib")
    if mem and fp32 and half and mem >= 0.85 * fp32 and mem >= 1.6 * half:
        f.add("memory_matches_fp32")
    f |= _fill_facts(run)


def _fill_facts(run: Run) -> set[str]:
    """How full the cards are: the fp32 weights alone over them (a load that forgot its dtype), or a GGUF job that
    fits only with the card all but full."""
    req, out = run.req, set()
    fp32, fit = run.values.get("fp32_gib"), (run.vram.fit if run.vram is not None else None)
    if fit is None:
        return out
    if fp32 and fp32 > fit.usable_gib_per_gpu * req.num_gpus and req.precision is None:
        # the 16-bit job fits, the fp32 weights alone do not: Transformers' default fp32 load runs out of memory
        out.add("fp32_over_cards")
    if run.engine in GGUF_ENGINES and fit.fits and fit.per_gpu_gib >= 0.9 * fit.capacity_gib:
        # llama.cpp / Ollama hold it only with the card all but full (the usual 10% margin would not): Ollama's own
        # estimate keeps a margin and leaves the last layers off the card ("19-20G used, the rest in shared memory")
        out.add("tight_fit")
    return out


def _size_facts(run: Run) -> set[str]:
    """A small model; and one whose weights the card reads in a few ms a token, where the per-token fixed costs
    outside the GPU decide (host_bound)."""
    if run.arch is None or run.arch.active_params / 1e9 > table()["small_model_b"]:
        return set()
    limit = table()["host_bound_ms"]
    return {"small_model", "host_bound"} if (run.values.get("mem_ms") or limit) < limit else {"small_model"}


def _link_facts(run: Run, f: set[str]) -> set[str]:
    """Whether the link between the cards matters, and another card named that the hardware ranks lower."""
    req, out = run.req, set()
    other_ceiling = run.values.get("other_ceiling")
    if other_ceiling and run.ceiling and req.other_measured_tokens_per_s is None and other_ceiling < run.ceiling:
        out.add("own_card_faster")  # "the other card is several times faster than mine": the hardware says otherwise
    comm, compute = run.values.get("comm_ms"), run.values.get("compute_ms") or run.values.get("step_ms")
    if comm is not None and compute and comm < table()["comm_light_share"] * (comm + compute):
        out.add("comm_light")  # the link's share of a step is too small to be what holds it back
    split_compute = req.mode == "training" or (run.engine not in GGUF_ENGINES and run.offload is None)
    if {"multi_gpu", "pcie_link"} <= f and "comm_light" not in out and split_compute:
        out.add("link_bound")  # the cards exchange every layer's (or step's) results over PCIe, and it shows
    return out


def _card_facts(run: Run) -> set[str]:
    """What the card's generation and link decide: PCIe only, below the fast kernels' sm_80, Pascal, Apple."""
    gpu, out = run.gpu, set()
    if gpu is not None and (not gpu.nvlink or gpu.segment == "consumer"):
        out.add("pcie_link")  # GeForce pairs talk over PCIe unless bridged (3090) or at all (40 series)
    cc = gpu_cc(gpu) if gpu is not None and gpu.vendor == "nvidia" else None
    if cc is not None and cc < table()["fast_kernel_cc"]:
        out.add("cc_below_fast")
    if cc is not None and cc >= 10.0:
        out.add("cc_new")  # Blackwell (sm_100, sm_120): kernels only in wheels built with CUDA 12.8 or newer
    if gpu is not None and gpu.architecture.startswith("Pascal"):
        out.add("pascal")
    if (gpu is not None and gpu.vendor == "apple") or run.flags & {"mac", "mps"}:
        out.add("apple")
    if gpu is not None and gpu.form_factor != "soc":
        out.add("discrete")  # its own memory: system RAM (GTT, shared memory) is no place to hold a model
    if gpu is not None and gpu.unofficial:
        out.add("modded_card")  # a memory mod: the memory the driver maps is the first thing to check on an OOM
    if gpu is not None and run.precision == "fp8" and not gpu.fp8_tflops:
        out.add("fp8_unsupported")  # no FP8 tensor cores (before Ada / Hopper): FP8 weights are converted or emulated
    return out


def gap_of(run: Run) -> float:
    return (run.ceiling or 0) / run.measured if run.measured else 0.0


def int_quant_facts(run: Run) -> set[str]:
    return {"int_quant"} if run.precision and resolve_precision(run.precision).kind == "int" else set()


def fill_values(run: Run, gap: float | None) -> None:
    """Every number a cause's sentence may quote; a sentence whose numbers are unknown falls back to its plain form."""
    req, v, gpu = run.req, run.values, run.gpu
    v.update(n=req.num_gpus, context=run.context, util=table()["vllm_gpu_memory_utilization"], batch=req.batch)
    v.update(measured=run.measured, ceiling=run.ceiling, gap=gap, measured_mem=req.measured_memory_gib)
    v["think_s"] = table()["thinking_tokens"] / run.ceiling if run.ceiling else None  # a reasoning model's thinking
    if run.arch is not None:
        v.update(model=run.arch.name, active_b=round(run.arch.active_params / 1e9, 1), precision=run.precision)
    if gpu is not None:
        v.update(gpu=gpu.name, cc=gpu.compute_capability, bandwidth=gpu.bandwidth_gbs, capacity=gpu.vram_gib)
        v["tflops"] = gpu.bf16_tflops or gpu.fp16_tflops  # dense 16-bit tensor math: what a training step waits on
        v["architecture"] = gpu.architecture
        v["sm"] = (gpu.compute_capability or "").replace(".", "")  # "12.0" -> sm_120, as build errors name it
        v["reserved"] = v["util"] * gpu.vram_gib
        if gpu.unofficial:
            from tools.card_risk import stock_of

            v.update(stated=gpu.vram_gib, stock=stock_of(gpu).vram_gib)
    if req.other_gpu and "other_gpu" not in v:  # no model: no ceiling on it, but its name and bandwidth still count
        from tools.catalog import resolve_gpu

        other, _ = resolve_gpu(req.other_gpu)
        v.update(other_gpu=other.name, other_bandwidth=other.bandwidth_gbs)
        v["other_tflops"] = other.bf16_tflops or other.fp16_tflops
        if gpu is not None:
            v["bw_ratio"] = round(other.bandwidth_gbs / gpu.bandwidth_gbs, 2)
    if run.vram is not None:
        v.update(need=run.vram.per_gpu_gib, need_total=run.vram.total_gib, kv_gib=run.vram.breakdown_gib["kv_cache"])
        v["weights_total"] = run.vram.breakdown_gib["weights"]
        _load_times(v, run.vram.breakdown_gib["weights"])
        v["weights"] = run.vram.per_gpu_breakdown_gib.get("weights")
        if run.vram.fit is not None:
            v.update(
                usable=run.vram.fit.usable_gib_per_gpu, total_usable=run.vram.fit.usable_gib_per_gpu * req.num_gpus
            )
    if run.offload is not None:
        o = run.offload
        v.update(in_ram=o.in_ram_gib, ram_gbs=o.ram.effective_gbs, memory=o.ram.memory.upper(), channels=o.ram.channels)
        v.update(gpu_only=o.gpu_only_tokens_per_s, ram_needed=o.ram_needed_gib, ram=o.ram_gib)
    if run.speed is not None:
        _speed_values(run, run.speed)
    v["detail"] = (
        [note("diag_detail_vllm", **pick_fields("diag_detail_vllm", v))] if has_fields("diag_detail_vllm", v) else []
    )
    v["options"] = fit_options(run) or None  # no way found: the plain fix names the usual ones
    v["fp16"] = fp16_fits(run)


def _load_times(v: dict[str, Any], weights_gib: float) -> None:
    """Seconds to read the weights once from each kind of disk (a model loads at least its file once)."""
    size_gb = weights_gib * 2**30 / 1e9
    for key, gbs in table()["disk_read_gbs"].items():
        v[f"load_{key}"] = size_gb / gbs


def _speed_values(run: Run, s: SpeedResult) -> None:
    v = run.values
    v["step_ms"] = s.time_per_output_token_ms
    v["comm_ms"] = note_param(s.warnings, "speed_tp_no_nvlink", "ms")
    v["link"] = note_param(s.assumptions, "speed_multi_gpu", "link") or note_param(
        s.assumptions, "speed_training_comm", "link"
    )
    if run.req.mode == "training" and not str(v["link"] or "").startswith("NVLink"):
        # a GeForce pair the catalog lists with an NVLink connector: the bridge is not assumed, so no figure
        v["comm_ms"] = note_param(s.assumptions, "speed_training_comm", "comm_ms")
        v["compute_ms"] = note_param(s.assumptions, "speed_training_comm", "compute_ms")
    elif run.req.mode == "training":
        v["comm_ms"] = None
    read = [note_param(s.assumptions, "speed_decode", k) for k in ("weights_gb", "kv_gb")]
    if all(x is not None for x in read) and run.gpu is not None:
        v["read_gb"] = sum(read)
        v["mem_ms"] = v["read_gb"] / run.gpu.bandwidth_gbs * 1000 / max(1, run.req.num_gpus)
