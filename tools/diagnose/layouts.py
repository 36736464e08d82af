"""Memory diagnosis: the same job laid out otherwise (on one GPU, in 16-bit, at full context, on a card given by its
size), whether it fits, and what would make it fit."""

from __future__ import annotations

from tools.diagnose.schema import DEFAULT_CONTEXT, GGUF_ENGINES, TP_ENGINES, table
from tools.diagnose.state import Run, engine_gpus, fit_engine, gpu_cc, offload_request, vram_of
from tools.models import registry
from tools.notes import Note, note
from tools.offload import estimate_offload
from tools.precision import resolve_precision
from tools.sizing import engine_for, headroom_for, usable_of
from tools.vram import VramRequest, VramResult, estimate_vram


def weights_at(run: Run) -> None:
    """Weights in fp32 and in 16-bit (what a missing dtype costs), and what the reference example reserves."""
    for key, precision in (("fp32_gib", "fp32"), ("half_gib", "bf16")):
        run.values[key] = vram_of(run, precision, 1, False, context_tokens=16, batch=1).breakdown_gib["weights"]
    if run.flags & {"reference_example", "max_batch_size"}:
        ex = table()["reference_example"]
        batch = run.req.batch if run.req.batch > 1 else ex["max_batch_size"]
        seq = run.req.context_tokens or ex["max_seq_len"]
        est = vram_of(run, "fp16", 1, False, context_tokens=seq, batch=batch, tp=1, pp=1)
        run.values.update(
            example_batch=batch,
            example_seq=seq,
            example_kv=est.breakdown_gib["kv_cache"],
            weights_16=run.values["half_gib"],
        )


def other_layouts(run: Run) -> None:
    """The same job laid out otherwise, for the causes that name it: on one of the GPUs (a loader that puts it all
    on GPU 0, an engine not told to split it), in 16-bit (an fp32 load), and at the model's full context (an engine
    that takes all of it)."""
    req, arch = run.req, run.arch
    if run.vram is None or arch is None or (req.gpu is None and req.card_gib is None) or req.mode != "inference":
        return
    if req.num_gpus > 1:
        one = vram_of(run, run.precision or "bf16", 1, gpu=req.gpu)
        one_fits = _fits(run, one)
        if one_fits is not None:
            run.facts.add("fits_one" if one_fits else "not_fits_one")
            run.values["need_one"] = one.per_gpu_gib
            run.values["need_one_fits"] = one.per_gpu_gib if one_fits else None  # "run it on one card"
        for n in (2, 4, 8):  # the fewest of the GPUs it fits on, when that is fewer than all of them
            if n >= req.num_gpus or one_fits is not False:
                break
            working = min(run.context, DEFAULT_CONTEXT)  # the weights plus a working context, not the longest one
            if _fits(run, vram_of(run, run.precision or "bf16", n, gpu=req.gpu, context_tokens=working)):
                run.values["fewest"] = n
                break
    if run.precision == "fp32":
        half = vram_of(run, "bf16", req.num_gpus, gpu=req.gpu)
        if _fits(run, half):
            run.facts.add("fits_in_16bit")
            run.values["half_need"] = half.per_gpu_gib
    most = arch.max_context
    if most and most > run.context and req.context_tokens is None:
        full = vram_of(run, run.precision or "bf16", engine_gpus(run), gpu=req.gpu, context_tokens=most)
        run.values.update(max_context=most, kv_max=full.breakdown_gib["kv_cache"], layers=arch.num_layers)
        if _fits(run, full) is False:
            run.facts.add("full_context_not_fits")


def _fits(run: Run, est: VramResult) -> bool | None:
    """Whether an estimate fits the GPUs named, or the card's stated size when none is named."""
    if est.fit is not None:
        return est.fit.fits
    usable = run.values.get("usable")
    return None if usable is None else est.per_gpu_gib <= usable


def card_fit(run: Run) -> None:
    """No GPU named, its memory stated: the job as loaded against that much per GPU, with the engine's headroom."""
    req = run.req
    if run.gpu is not None or req.card_gib is None or run.vram is None or run.precision is None:
        return
    engine = engine_for(fit_engine(run), "inference" if req.mode == "inference" else "training")
    usable = usable_of(req.card_gib, headroom_for(engine))
    run.values.update(usable=usable, card=req.card_gib, card_fits=run.vram.per_gpu_gib <= usable)


def fits_of(run: Run) -> bool | None:
    if run.offload is not None:
        return False
    if run.vram is None or run.vram.fit is None:
        return run.values.get("card_fits")
    return run.vram.fit.fits


def usable_gib(run: Run) -> float | None:
    if run.vram is not None and run.vram.fit is not None:
        return round(run.vram.fit.usable_gib_per_gpu, 1)
    return round(run.values["usable"], 1) if run.values.get("usable") else None


def fit_options(run: Run) -> list[Note]:
    """Ways to make a job that does not fit fit: a smaller format, more GPUs, a shorter context. With no GPU named,
    against the card's stated size ("GPU 0; 23.65 GiB total capacity" on two cards: 4-bit at 18 GiB each)."""
    fits = run.vram.fit.fits if run.vram is not None and run.vram.fit is not None else run.values.get("card_fits")
    if run.vram is None or fits is not False or run.precision is None:
        return []
    out: list[Note] = []
    bits = resolve_precision(run.precision).bits
    kind = "gguf" if resolve_precision(run.precision).kind == "gguf" or run.engine in GGUF_ENGINES else "other"
    kind = "served" if run.engine in TP_ENGINES else kind
    formats = [*run.req.other_precisions, *table()["smaller_formats"][kind]]  # the user's own build first
    cc = gpu_cc(run.gpu) if run.gpu is not None and run.gpu.vendor == "nvidia" else None
    for name in formats if run.req.mode == "inference" else []:  # training: QLoRA, not another weight format
        if resolve_precision(name).bits >= bits or (name == "fp8" and (cc is None or cc < 8.0)):
            continue  # FP8 weights run in vLLM from Ampere on (Marlin W8A16; native on Ada and Hopper)
        est = vram_of(run, name, run.req.num_gpus, gpu=run.req.gpu)
        if _fits(run, est) and run.req.num_gpus > 1:  # "the other GPU is not used": the layout that uses both
            out.append(note("diag_opt_format_split", precision=name, n=run.req.num_gpus, need=est.per_gpu_gib))
            break
        if _fits(run, est):
            out.append(note("diag_opt_format", precision=name, need=est.per_gpu_gib))
            break
    else:
        out += _offload_format(run, [f for f in formats if resolve_precision(f).bits < bits])
    needed, need = (run.vram.fit.gpus_needed, run.vram.fit.per_gpu_gib_needed) if run.vram.fit else (None, None)
    if needed and needed > run.req.num_gpus and need is not None and needed <= 16:
        out.append(note("diag_opt_gpus", n=needed, need=need))
    if run.context > DEFAULT_CONTEXT:
        out.append(note("diag_opt_context", context=DEFAULT_CONTEXT))
    smaller = _smaller_sibling(run) if run.req.mode == "inference" else None
    if smaller is not None:
        out.append(smaller)
    if run.req.mode == "inference" and run.offload is None:
        out.append(note("diag_opt_offload"))
    return out


def _offload_format(run: Run, smaller: list[str]) -> list[Note]:
    """Part of the model in RAM, no smaller format fits the GPUs whole: the next smaller one puts more layers on the
    GPU and less in RAM ("Q4_K_M: 37 of 80 layers on the GPU, ~3.3 tokens/s")."""
    if run.offload is None or run.offload.strategy != "layers" or not smaller or run.req.gpu is None:
        return []
    est = estimate_offload(offload_request(run, gpu=True).model_copy(update={"precision": smaller[0]}))
    layers = dict(fit_layers=est.layers_on_gpu, layers=est.layers_total, speed=est.decode_tokens_per_s)
    return [note("diag_opt_offload_format", precision=smaller[0], **layers)]


def _smaller_sibling(run: Run) -> Note | None:
    """The largest smaller model of the same series that fits the GPUs in the same format ("llama2:7b fits")."""
    arch, req = run.arch, run.req
    if arch is None or not arch.series or req.gpu is None or run.precision is None:
        return None
    same = [a for a in registry().values() if a.series == arch.series and not a.moe and a.params < arch.params]
    for sibling in sorted(same, key=lambda a: a.params, reverse=True)[:3]:
        args = dict(model=sibling.id, precision=run.precision, context_tokens=run.context, num_gpus=req.num_gpus)
        est = estimate_vram(VramRequest(**args, gpu=req.gpu, engine=fit_engine(run)))
        if est.fit is not None and est.fit.fits:
            return note("diag_opt_smaller_model", model=sibling.name, need=est.per_gpu_gib)
    return None


def fp16_fits(run: Run) -> list[Note]:
    """For a quantized model that is slow in Transformers: plain fp16, when it fits the GPUs."""
    if run.precision is None or resolve_precision(run.precision).kind != "int" or run.req.gpu is None:
        return []
    if run.arch is None or run.req.mode != "inference":  # no model named: nothing to size in fp16
        return []  # a QLoRA base is 4-bit by design
    est = vram_of(run, "fp16", run.req.num_gpus, gpu=run.req.gpu)
    if est.fit is None or not est.fit.fits:
        return []
    return [note("diag_opt_fp16_fits", need=est.per_gpu_gib, usable=est.fit.usable_gib_per_gpu)]
