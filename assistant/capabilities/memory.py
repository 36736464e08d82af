"""Memory: how much GPU memory a workload needs, and whether it fits on the GPU the user names."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from typing import Any, ClassVar

from pydantic import BaseModel

from assistant.capabilities.base import Capability, Outcome, Plan, PlanContext, ToolCall, Turn
from assistant.capabilities.workload import specs_args, speed_args, vram_args
from assistant.strings import Writer
from assistant.toolset import ToolName
from tools.notes import Note, render_all
from tools.precision import resolve_precision
from tools.sizing import GpuFit, engine_for, fits_capacity, headroom_for
from tools.vram import VramResult

TOPICS = {  # retrieval words for a workload, by method (the fit capability shares them)
    "inference": "KV cache memory inference",
    "full": "training memory optimizer states",
    "lora": "LoRA training memory",
    "qlora": "QLoRA 4-bit training memory",
}


def memory_lines(
    w: Writer, r: VramResult, detail: bool = True, capacity_gib: float | None = None, lead: bool = True
) -> None:
    """The memory figure, its breakdown and the fit verdict (the one fit rule: `VramResult.fit`); `lead`
    False when the caller has already said the verdict."""
    n = r.num_gpus
    if lead:
        verdict(w, r, capacity_gib)  # the yes/no comes first; the figures that carry it follow
    total_part = w.t("memory_total_part", total=r.total_gib, n=n) if n > 1 else ""
    if r.mode != "inference" and n > 1 and r.zero_stage:
        total_part += w.t("memory_zero_part", stage=r.zero_stage)
    elif r.mode != "inference" and r.dp > 1:
        total_part += w.t("memory_ddp_part")
    elif r.mode != "inference" and any(a.code == "vram_activations_checkpointed" for a in r.assumptions):
        # one card: the figure holds only with checkpointing on, the first thing to check when a long sample OOMs
        total_part += w.t("memory_checkpointing_part")
    w.say(
        "memory_head",
        model=r.model,
        mode_label=w.label("method", r.mode),
        precision=r.precision,
        context=r.context_tokens,
        batch=r.batch,
        per_gpu=r.per_gpu_gib,
        total_part=total_part,
    )
    items = [f"{w.label('component', k)} {v:.2f} GiB" for k, v in r.per_gpu_breakdown_gib.items() if v >= 0.005]
    w.say("breakdown", items=", ".join(items))
    if detail:
        w.bullets("assumptions_head", render_all(r.assumptions[:5], w.lang), limit=5)
        w.bullets("warnings_head", render_all(r.warnings, w.lang))


def verdict(
    w: Writer,
    r: VramResult,
    capacity_gib: float | None = None,
    stated: bool = False,
    owned: bool = False,
    whole: bool = False,
) -> None:
    """Fits / does not fit on the named GPU (and how many it needs), or on a card size the user named. `stated`:
    the user named how many cards (or owns them): a job that does not fit is answered on those cards, never
    with "it needs N" — the ways that make it fit follow (cheaper.py). `owned`: the cards are the user's own ("我只有
    一张 3090"): not even a training job's ZeRO-3 count, which would be a rig to buy, unless they asked how many.
    `whole`: the lead already ran it with part in RAM, so "no" is about the whole model on the GPU, not the question."""
    fit = r.fit
    if fit is not None:
        shared: dict[str, Any] = dict(
            gpu=fit.gpu, vram=fit.capacity_gib, usable=fit.usable_gib_per_gpu, engine=w.label("engine", fit.engine)
        )
        if fit.mixed_gpus and fit.usable_gib_total and r.mode == "inference":
            _mixed_verdict(w, r, fit)
        elif fit.fits:
            at = w.t("fits_at", format=w.label("format", r.precision)) if r.mode == "inference" else ""
            if r.mode != "inference" and fit.num_gpus > 1 and r.dp > 1 and r.zero_stage == 0:
                # data parallel: one card holds the job, every card keeps a copy (tools/vram.py _training_strategy)
                w.say("fits_ddp", n=fit.num_gpus, need=r.per_gpu_gib, **shared)
                return
            one = sharded_only(r)
            if one is not None:  # sharding is what makes it fit: say so, and what one card alone needs
                how = w.t("sharding_qlora" if r.mode == "qlora" else "sharding_plain")
                w.say("fits_sharded", n=fit.num_gpus, need=r.per_gpu_gib, one=one, how=how, **shared)
            else:
                pool = _pool(w, r)
                key = "fits" if fit.num_gpus == 1 else "fits_n"
                w.say(key, n=fit.num_gpus, headroom=fit.headroom, at=at, pool=pool, **shared)
            _fewer(w, fit, training=r.mode != "inference")
        elif stated:
            w.say(
                "not_fits_here_whole" if whole else "not_fits_here",
                n=fit.num_gpus,
                need=r.per_gpu_gib,
                pool=_pool(w, r),
                **_job(w, r),
                **shared,
            )
            _count_line(w, r, fit, owned)
            sharded = r.zero_stage not in (1, 2)  # under ZeRO-1/2 the user named, the count is not ZeRO-3's
            if r.mode != "inference" and sharded and not owned and fit.gpus_needed and fit.gpus_needed > fit.num_gpus:
                # "需要怎样的配置才能全量微调": how many of these cards the job as asked takes (ZeRO-3 over them)
                machines = w.t("needs_machines") if fit.gpus_needed > 8 else ""  # more than one server holds
                w.say(
                    "not_fits_here_needs",
                    needed=fit.gpus_needed,
                    gpu=fit.gpu,
                    each=fit.per_gpu_gib_needed or 0,
                    machines=machines,
                )
        elif fit.gpus_needed:
            w.say("not_fits_needs", n=fit.num_gpus, needed=fit.gpus_needed, **shared)
        else:
            w.say("not_fits", n=fit.num_gpus, **shared)
        _mac_wired_share(w, fit)
    elif capacity_gib:
        engine = engine_for(None, r.mode, resolve_precision(r.precision).kind)
        headroom = headroom_for(engine)
        fits = fits_capacity(r.per_gpu_gib, capacity_gib, headroom)
        # an inference "does not fit" names its format ("量化后能跑吗": the BF16 line under a quantized yes); a
        # training run's verdict is about the method, said in the lines around it
        key = "fits_capacity" if fits else ("not_fits_capacity_at" if r.mode == "inference" else "not_fits_capacity")
        if not fits and r.mode != "inference" and r.per_gpu_gib <= capacity_gib:
            # "20G 够吗" for 19.3 GiB: inside the card, not inside the margin a run needs; tight, and how to get room
            key = "tight_capacity_training"
        fmt = w.label("format", r.precision)
        w.say(
            key, vram=capacity_gib, headroom=headroom, engine=w.label("engine", engine), need=r.per_gpu_gib, format=fmt
        )
    _pretrain_ways(w, r, capacity_gib)


def _mac_wired_share(w: Writer, fit: GpuFit) -> None:
    """A Mac's verdict counts the share of unified memory macOS lets the GPU wire by default (2/3, 3/4 from 36 GB):
    say so once, and how `iogpu.wired_limit_mb` raises it."""
    total = fit.unified_memory_gib
    if total and fit.capacity_gib < total and "iogpu.wired_limit_mb" not in w.text():
        w.say("mac_wired_share", capacity=fit.capacity_gib, total=total)


def _pool(w: Writer, r: VramResult) -> str:
    """Several cards of one kind: what they hold together beside what the model needs over all of them ("two A770
    16GB: 32 GiB together for the 23.4 GiB it needs in all"); a no only when the pool itself is short (a job over
    each card's margin but within the pool is said per card)."""
    fit = r.fit
    if fit is None or fit.num_gpus < 2 or not fit.capacity_gib_total:
        return ""
    if fit.fits:
        return w.t("fit_pool_yes", total=fit.capacity_gib_total, need=r.total_gib)
    if r.total_gib > fit.capacity_gib_total:
        return w.t("fit_pool_no", total=fit.capacity_gib_total, need=r.total_gib)
    return ""


# mixed-precision AdamW from scratch: 16 bytes per parameter of weights, gradients and states, plus ~2 of activations
_PRETRAIN_BYTES_PER_PARAM = 18


def _pretrain_ways(w: Writer, r: VramResult, capacity_gib: float | None) -> None:
    """A run from scratch that does not fit one card: what shrinks it is the optimizer, not adapters (LoRA trains no
    new model): GaLore (its paper pretrains a 7B on one 24 GB card), an 8-bit optimizer, offload, or a smaller
    model of the size the card holds as is."""
    if not w.pretrain or r.mode != "full":
        return
    if r.fit is not None:
        if r.fit.fits or r.fit.num_gpus != 1:
            _pretrain_batch(w, r, r.fit.fits)
            return
        usable_gib = r.fit.usable_gib_per_gpu
    elif capacity_gib:
        headroom = headroom_for(engine_for(None, r.mode, resolve_precision(r.precision).kind))
        if fits_capacity(r.per_gpu_gib, capacity_gib, headroom):
            _pretrain_batch(w, r, True)
            return
        usable_gib = capacity_gib * (1 - headroom)
    else:
        return
    opt, grads = (r.per_gpu_breakdown_gib.get(k, 0.0) for k in ("optimizer", "gradients"))
    small = max(0.1, int(usable_gib * 2**30 / _PRETRAIN_BYTES_PER_PARAM / 1e8) / 10)
    w.say("pretrain_ways", opt=opt, grads=grads, need=r.per_gpu_gib, small=small)


def _vision_tower(w: Writer, turn: Turn) -> None:
    """A language model trained in a LLaVA-style framework: the figures are its part only
    (understanding/vlm_train.py)."""
    if not any(r.mode != "inference" for r in turn.own("memory", VramResult)):
        return
    for n in turn.parsed.notes:
        if isinstance(n, Note) and n.code == "vlm_vision_tower":
            w.add(n.render(w.lang))


def _pretrain_batch(w: Writer, r: VramResult, fits: bool) -> None:
    """A run from scratch that fits is sized at micro-batch 1: the batch a training script sets (nanoGPT's batch_size,
    MiniMind's) is what grows its activations, and gradient accumulation keeps the effective batch when it must
    shrink."""
    if fits and r.batch == 1:
        w.say("pretrain_batch")


def sharded_only(r: VramResult) -> float | None:
    """What one card alone would need, when ZeRO-3 / FSDP sharding is what makes a training job fit the cards
    (tools/vram.py _training_strategy); None otherwise."""
    for a in r.assumptions:
        if a.code in ("vram_sharded_only", "vram_sharded_only_qlora"):
            one = a.params.get("one")
            return float(one) if isinstance(one, int | float) else None
    return None


def _fewer(w: Writer, fit: GpuFit, training: bool = False) -> None:
    """ "16 × A10 for a 70B": when fewer of the cards already hold it, say how many, and that copies of the model
    serve more users than one copy over every card (advice.md §5: replicas before tensor parallel)."""
    needed, n = fit.gpus_needed, fit.num_gpus
    if not needed or needed >= n or fit.per_gpu_gib_needed is None:
        return
    copies = n // needed
    part = w.t("fits_fewer_copies", copies=copies, needed=needed, n=n) if copies >= 2 else ""
    if training:  # a training run has no users to serve: the other cards are more data-parallel speed
        part = w.t("fits_fewer_training")
    w.say("fits_fewer", needed=needed, n=n, need=fit.per_gpu_gib_needed, copies_part=part)


def _capacity_way(ctx: PlanContext) -> None:
    """ "Mixtral, quantized, on a single 24 GB GPU": the model as published does not fit a card of that size; the
    best format that does is sized too (an example: it never changes the scenario), and leads the answer."""
    from assistant.capabilities.cheaper import capacity_way

    capacity = ctx.parsed.stated_capacity_gib
    way = capacity_way(ctx.scenario, capacity) if capacity else None
    if way is not None:
        ctx.add("cheaper_way", ToolName.ESTIMATE_VRAM, **vram_args(way))
    s = ctx.scenario
    below_4bit = way is None or resolve_precision(way.precision or "bf16").bits < 4
    two_bit = way is not None and resolve_precision(way.precision or "bf16").bits < 3
    asked = ctx.parsed.precision  # "deepseek-r1:32b" names Q4_K_M: a 2-bit file is still no answer to lead with
    four_or_more = not asked or resolve_precision(asked).bits >= 4
    if capacity and below_4bit and (s.mode or "inference") == "inference" and four_or_more:
        # "a 32B on a 16 GB laptop": only a 2- or 3-bit file squeezes on, or none does; what the card holds at 4
        # bits (a 14B) is what an expert offers first (capacity_lead)
        _four_bit_holds(ctx, capacity, way is not None)
    if capacity and (s.ram_gib or (two_bit and four_or_more)) and (s.mode or "inference") == "inference" and below_4bit:
        # "12G显存 64G内存能跑 32B 吗": the 4-bit file split between that card and the RAM they stated (llama.cpp)
        # before a 3- or 2-bit file that squeezes onto the card alone; with only a 2-bit file squeezing on, the split
        # leads even with no RAM stated (a desktop's, said as assumed), the 2-bit file last (capacity_lead)
        from assistant.capabilities.workload import offload_args

        ctx.add("cheaper_way", ToolName.ESTIMATE_OFFLOAD, **offload_args(s), vram_gib=capacity)


def _offload_lead(w: Writer, turn: Turn) -> bool:
    """A card named by its size plus RAM, and the model too big for the card at 4 bits: the split between them
    (llama.cpp) leads, with its speed, or says the RAM is short too."""
    from assistant.capabilities.offload import offload_lines, offload_tail
    from tools.offload import OffloadResult

    for i, o in turn.own_indexed("cheaper_way", OffloadResult):
        if i not in turn.shown and o.strategy != "gpu_only":
            turn.shown.add(i)
            offload_lines(w, o, tail=False)
            _after_offload(w, turn, turn.parsed.stated_capacity_gib or 0.0)
            offload_tail(w, o, said_short=o.fits_in_ram is False)
            return True
    return False


def capacity_lead(w: Writer, turn: Turn) -> None:
    """The format that fits the card size the user named, first ("yes, at 3-bit: 22.8 GiB of a 24 GB card")."""
    from assistant.capabilities.cheaper import capacity_fits

    capacity = turn.parsed.stated_capacity_gib
    if capacity and _offload_lead(w, turn):  # then the smaller model whole on the card, the 2/3-bit file last
        return
    for i, r in turn.own_indexed("cheaper_way", VramResult):
        if capacity and r.fit is None and i not in turn.shown and capacity_fits(r, capacity):
            turn.shown.add(i)
            engine = engine_for(None, r.mode, resolve_precision(r.precision).kind)
            asked = turn.parsed.precision
            named = asked is not None and asked != r.precision  # "with Q6?": no at Q6 first, then the level that fits
            four_named = named and resolve_precision(asked or "bf16").bits >= 4  # "deepseek-r1:32b" is Q4_K_M
            if (not named or four_named) and _four_bit_instead(w, turn, r, capacity):
                return
            w.say(
                "capacity_way_fits_named" if named else "capacity_way_fits",
                asked=w.label("format", asked) if named else "",
                model=r.model,
                format=w.label("format", r.precision),
                need=r.per_gpu_gib,
                vram=capacity,
                headroom=headroom_for(engine),
                engine=w.label("engine", engine),
                context=r.context_tokens,
            )
            return
    if capacity and not _context_overflows(turn, capacity):
        _four_bit_instead(w, turn, None, capacity)  # nothing squeezes on: what the card holds at 4 bits leads


def _after_offload(w: Writer, turn: Turn, capacity: float) -> None:
    """After the 4-bit file split between the card and RAM leads: what the card holds whole at 4 bits (fast), then a
    file below 4 bits that squeezes onto the card alone, last and with its quality cost (advice.md §9: quality
    before squeezing; "deepseek-r1:32b on 16 GB": 32B from RAM at ~5 tokens/s, or the 14B distill, Q2_K last)."""
    from assistant.capabilities.cheaper import capacity_fits
    from tools.capacity import CapacityResult

    for i, c in turn.own_indexed("cheaper_way", CapacityResult):
        way = next((x for x in c.ways if x.mode == "inference" and x.max_params_b and x.examples), None)
        if way is not None and i not in turn.shown:
            turn.shown.add(i)
            top = way.examples[0]
            smaller = w.t(
                "capacity_smaller_whole", max_b=way.max_params_b, example=top.model, example_gib=top.per_gpu_gib
            )
            w.lines[-1] += (" " if w.lang == "en" else "") + smaller  # the lead's second sentence, same paragraph
            break
    for i, r in turn.own_indexed("cheaper_way", VramResult):
        bits = resolve_precision(r.precision).bits
        if r.fit is None and i not in turn.shown and bits < 4 and capacity_fits(r, capacity):
            turn.shown.add(i)
            cost = w.t("capacity_low_bits_cost_2" if bits < 3 else "capacity_low_bits_cost_3")
            w.say("capacity_low_bits_last", format=w.label("format", r.precision), need=r.per_gpu_gib, cost=cost)
            return


def _context_overflows(turn: Turn, capacity: float) -> bool:
    """ "glm4-9b-1m 开到 1M 上下文，40G 的卡跑不起来": the weights fit the card and the long context's KV cache is what
    does not, so a smaller model is no answer; the memory the context takes and the card that holds it are."""
    sized = turn.own("memory", VramResult)
    b = sized[0].breakdown_gib if sized else {}
    weights, kv = b.get("weights", 0.0), b.get("kv_cache", 0.0)
    return 0 < weights < capacity and kv > weights


def _four_bit_holds(ctx: PlanContext, capacity: float, squeezes: bool) -> None:
    """What a card of that size holds at 4 bits, when the asked model fits it only below 4 bits (`squeezes`) or not
    at all (the current models of any family: a family with no size near the card's ceiling would name a far
    smaller one, Llama-3.1-8B on a 24 GB card)."""
    from assistant.capabilities.cheaper import capacity_fits, first_estimate

    s = ctx.scenario
    if not squeezes:
        first = first_estimate(s)
        if first is None or capacity_fits(first, capacity, s.engine):
            return
    args = {"vram_gib": capacity, "num_gpus": 1, "mode": "inference", "precision": "q4_k_m", "with_finetune": False}
    ctx.add("cheaper_way", ToolName.LARGEST_MODEL, **args, **own_series(s, args))
    if resolve_precision(s.precision or "bf16").bits > 4.5:  # the asked model at 4 bits: the figure that falls short
        ctx.add("cheaper_way", ToolName.ESTIMATE_VRAM, **vram_args(s.model_copy(update={"precision": "q4_k_m"})))


def own_series(s: Any, args: dict) -> dict[str, str]:
    """ "deepseek-r1:32b on 16 GB": the asked model's own series names the example the card holds (the 14B distill)
    when its biggest that fits is near the card's ceiling (≥ 60% of it); else any current model does (a series with
    no size near it would name a far smaller one, Llama-3.1-8B on a 24 GB card)."""
    from tools.capacity import CapacityRequest, largest_model
    from tools.errors import AdvisorError
    from tools.model_match import match_model

    try:
        arch = match_model(s.model or "").arch
        if arch.generic or not arch.series:
            return {}
        ways = largest_model(CapacityRequest(**args, family=arch.series)).ways
    except (AdvisorError, ValueError):
        return {}
    way = next((x for x in ways if x.mode == "inference" and x.max_params_b and x.examples), None)
    top = way.examples[0] if way is not None else None
    near = top is not None and way is not None and top.params_b >= 0.6 * (way.max_params_b or 0)
    return {"family": arch.series} if near else {}


def _four_bit_instead(w: Writer, turn: Turn, r: VramResult | None, capacity: float) -> bool:
    """Only a 2-bit file fits the card (`r`), or none does (None): a 2-bit file costs noticeable quality (a 3-bit
    one, Q3_K_M for a Mixtral on 24 GB, is what people run and stays a yes), so the lead says so and names what
    the card holds at 4 bits ("a 32B only at Q2_K on 16 GB; at 4-bit up to about 21B, such as Qwen2.5-14B")."""
    from tools.capacity import CapacityResult

    if r is not None and resolve_precision(r.precision).bits >= 3:
        return False
    for i, c in turn.own_indexed("cheaper_way", CapacityResult):
        way = next((x for x in c.ways if x.mode == "inference" and x.max_params_b and x.examples), None)
        if way is None or i in turn.shown:
            continue
        turn.shown.add(i)
        top = way.examples[0]
        holds = dict(max_b=way.max_params_b, example=top.model, example_gib=top.per_gpu_gib, vram=capacity)
        holds["four"] = _four_bit_need(w, turn)
        if r is None:
            w.say("capacity_way_below_2bit", **holds)
            return True
        w.say(
            "capacity_way_low_bits",
            model=r.model,
            format=w.label("format", r.precision),
            need=r.per_gpu_gib,
            **holds,
        )
        return True
    return False


def _count_line(w: Writer, r: VramResult, fit: GpuFit, owned: bool) -> None:
    """ "单张3090能跑 GLM-130B 吗" at a 4-bit format already: how many of that card it takes (up to a server), for a
    card asked about, not one the user owns (their cards stay the hardware: the ways that fit them follow)."""
    needed = fit.gpus_needed or 0
    low = r.mode == "inference" and resolve_precision(r.precision).bits <= 4.5
    if low and not owned and fit.num_gpus < needed <= 8:
        w.say("not_fits_here_count", needed=needed, gpu=fit.gpu, each=fit.per_gpu_gib_needed or 0)


def _four_bit_need(w: Writer, turn: Turn) -> str:
    """ "34B on 12 GB": what the asked model takes at 4 bits (_four_bit_holds sized it), said beside the no."""
    for i, r in turn.own_indexed("cheaper_way", VramResult):
        if r.fit is None and r.precision == "q4_k_m" and i not in turn.shown:
            turn.shown.add(i)
            return w.t("capacity_way_four_bit_need", need=r.per_gpu_gib)
    return ""


def _mixed_verdict(w: Writer, r: VramResult, fit: GpuFit) -> None:
    """Different cards in one machine ("3080 10G + 2080Ti 22G"): their memory together against the whole job, as a
    layer split in proportion to each card's memory places it (tools/vram.py gpu_mix)."""
    counts = Counter(fit.mixed_gpus)
    cards = (" + " if w.lang == "en" else "、").join(f"{n} × {g}" if n > 1 else g for g, n in counts.items())
    at = w.t("fits_at", format=w.label("format", r.precision))
    key = "fits_mixed" if fit.fits else "not_fits_mixed"
    engine = w.label("engine", fit.engine)
    w.say(key, cards=cards, total=fit.usable_gib_total, need=r.total_gib, at=at, engine=engine, **_job(w, r))


def _job(w: Writer, r: VramResult) -> dict[str, Any]:
    return dict(model=r.model, method=w.label("method", r.mode), precision=r.precision, context=r.context_tokens)


def stated_hardware(turn: Turn) -> bool:
    """The user named the card count, owns the cards, or asks whether the job runs on a card they name ("2080Ti
    能跑吗" is one 2080 Ti): answers stay on exactly that hardware."""
    s = turn.plan.scenario
    return s.num_gpus is not None or turn.parsed.owns_hardware or "fit" in turn.plan.intents


def hardware_lines(
    w: Writer, turn: Turn, results: list[VramResult], detail: bool = True, after_lead: Callable[[], None] | None = None
) -> bool:
    """The verdict on the user's own GPUs when the job as asked does not fit them: the way that does fit leads
    ("yes, with QLoRA"), then why the asked way does not; False when this does not apply (it fits, or no count
    was stated) and the caller writes the usual lines."""
    first = results[0] if results else None
    if first is None or first.fit is None or first.fit.fits or not stated_hardware(turn):
        return False
    way = fitting_way(turn, first)
    # "can I FULL fine-tune it on my cards?": a method the user named that does not fit is answered no first,
    # then the method that does ("yes with QLoRA" leads only when the message named no method or the same one)
    insisted = way is not None and turn.parsed.mode == first.mode != way[1].mode
    # the same for a format named ("unquantized", "in bf16"): no in that format first, then the one that fits
    insisted = insisted or (way is not None and turn.parsed.precision == first.precision != way[1].precision)
    owned = turn.parsed.owns_hardware and not turn.parsed.asks_gpu_count
    if insisted:
        verdict(w, first, stated=True, owned=owned)
    if way is not None:
        i, r = way
        turn.shown.add(i)
        assert r.fit is not None
        shorter = r.mode == first.mode and r.precision == first.precision and r.context_tokens < first.context_tokens
        w.say(
            ("fits_up_to_context" if r.mode == "inference" else "fits_shorter_way")
            if shorter and not _fused(r)
            else "fits_another_way",
            way=way_label(w, first, r),
            what=w.t("what_sequence" if r.mode != "inference" else "what_context"),
            format=w.label("format", r.precision),
            context=r.context_tokens,
            model=r.model,
            need=r.per_gpu_gib,
            n=r.fit.num_gpus,
            gpu=r.fit.gpu,
            usable=r.fit.usable_gib_per_gpu,
            vram=r.fit.capacity_gib,
            pool=_pool(w, r),
        )
        from assistant.capabilities.speed_lead import lead_speed  # speed.py builds on this module

        lead_speed(w, turn, r)  # "and how fast?": the speed of the way that fits, second
    # "2 × 4090 + 512 GB DDR4": it runs from RAM at N tokens/s leads, the GPU-only verdict follows
    from_ram = way is None and _ram_lead(w, turn)
    led = way is not None or from_ram
    if led and after_lead is not None:
        after_lead()  # the caller's line on the lead ("the published bf16 weights do not fit")
    from assistant.capabilities.cheaper import ways_lines  # cheaper.py builds on this module

    for k, r in enumerate(results):
        if not (insisted and k == 0):
            verdict(w, r, stated=True, owned=owned, whole=from_ram)
            if k == 0 and way is None and r.fit is not None and r.fit.fits:
                from assistant.capabilities.speed_lead import lead_speed  # speed.py builds on this module

                lead_speed(w, turn, r)  # "how fast can I run it?": the speed of the way that fits, second
        if k == 0 and not led and after_lead is not None:
            after_lead()
        if k == 0 and way is None:
            ways_lines(w, turn)  # nothing fits as asked: what does work on these cards comes next
        memory_lines(w, r, detail=detail and k == len(results) - 1, lead=False)
    return True


def _ram_lead(w: Writer, turn: Turn) -> bool:
    """When the user described their RAM and the model runs from it (llama.cpp layers or MoE experts in RAM), that
    is the answer to "does it run / how fast on my machine": it leads, with its tokens/s."""
    from assistant.capabilities.offload import lower_line, offload_lines
    from assistant.capabilities.speed_lead import asked
    from tools.offload import OffloadResult

    s = turn.plan.scenario
    # ktransformers: RAM is the plan; "how fast on my 3090?" of a model no format fits: the speed from RAM answers it
    # (on the user's own card; a card they might buy answers with its memory verdict first)
    p = turn.parsed  # one card named and owned ("I have a 3090"), not "I have a 3050, might buy a 4090"
    own_speed = asked(turn) and p.owns_hardware and p.owned_gpu is None and len(set(p.gpu_mentions)) <= 1
    if not (s.ram_gib or turn.parsed.ram_plenty or s.offload_engine or own_speed):
        return False
    named = turn.parsed.precision  # "非量化版本能跑吗": a split in another format answers a different question
    for i, o in turn.results(OffloadResult):
        if named and resolve_precision(o.precision).name != resolve_precision(named).name:
            continue
        # a platform that cannot hold the RAM (a desktop for 364 GiB) is no way to run it: another row is
        if i not in turn.shown and o.strategy != "gpu_only" and o.fits_in_ram is not False and o.platform_holds_ram:
            turn.shown.add(i)
            short = _short_split(turn, o)  # "2 × L40 + 256 GB for R1": Q4_K_M needs more RAM; say so first
            if short is not None:
                offload_lines(w, short)
                lower_line(w, o)
                return True
            offload_lines(w, o)
            return True
    return False


def _short_split(turn: Turn, lower: Any) -> Any:
    """The same split at a higher format whose RAM need is over the RAM stated (the lower one is the level that fits
    it, cheaper.py offload_within_ram), once, or None."""
    from tools.offload import OffloadResult

    for i, o in turn.results(OffloadResult):
        same = o.model == lower.model and o.gpu == lower.gpu and o.num_gpus == lower.num_gpus
        if i not in turn.shown and same and o.fits_in_ram is False and o.precision != lower.precision:
            turn.shown.add(i)
            return o
    return None


def fitting_way(turn: Turn, first: VramResult) -> tuple[int, VramResult] | None:
    """The cheaper way (cheaper.py) that fits the same cards the job was asked on, if one does."""
    for i, r in turn.own_indexed("cheaper_way", VramResult):
        if r.fit is None or not r.fit.fits or first.fit is None:
            continue
        if r.fit.gpu_id == first.fit.gpu_id and r.num_gpus <= first.num_gpus and r.model == first.model:
            if turn.parsed.pretrain and first.mode == "full" and r.mode != "full":
                continue  # LoRA trains no model from scratch: no "yes, with LoRA" for a pretraining run
            return i, r
    return None


def way_label(w: Writer, asked: VramResult, way: VramResult) -> str:
    """What changed between the job as asked and the way that fits: the method, the format or the context, and a
    micro-batch cut to 1 (gradient accumulation keeps the effective batch)."""
    smaller_batch = asked.mode != "inference" and way.batch < asked.batch
    same_otherwise = (way.mode, way.zero_stage, way.precision, way.context_tokens, _fused(way)) == (
        asked.mode,
        asked.zero_stage,
        asked.precision,
        asked.context_tokens,
        _fused(asked),
    )
    if smaller_batch and same_otherwise:
        return w.t("way_micro_batch", steps=asked.batch)
    label = _way_change(w, asked, way)
    return label + w.t("way_also_micro_batch", steps=asked.batch) if smaller_batch else label


def _way_change(w: Writer, asked: VramResult, way: VramResult) -> str:
    if way.mode == asked.mode == "full" and _optimizer(way) == "adamw8bit" != _optimizer(asked):
        return w.t("way_8bit_optimizer")
    if way.mode == asked.mode == "full" and way.cpu_offload_gib and not asked.cpu_offload_gib and asked.zero_stage == 3:
        return w.t("way_offload", ram=way.cpu_offload_gib)
    if way.mode == asked.mode != "inference" and way.zero_stage == 3 and asked.zero_stage < 3 and asked.dp > 1:
        if way.cpu_offload_gib and not asked.cpu_offload_gib:
            return w.t("way_zero3_offload", stage=asked.zero_stage, precision=asked.precision, ram=way.cpu_offload_gib)
        return w.t("way_zero3", stage=asked.zero_stage, precision=asked.precision)
    fewer = way.trainable_params_b < 0.5 * asked.trainable_params_b  # from full fine-tuning every method has fewer
    if fewer and way.mode == "qlora" and asked.mode in ("lora", "qlora"):
        return w.t("way_attention_adapters")  # an MoE with adapters on attention only, not every expert
    if way.mode != asked.mode and not (way.mode == "qlora" and _fused(way)):
        return w.t("way_method", method=w.label("method", way.mode), precision=way.precision)
    if way.precision != asked.precision and not (way.mode == "qlora" and _fused(way)):  # fused QLoRA: said below
        if way.mode == "inference" and way.context_tokens < asked.context_tokens:
            fmt = w.label("format", way.precision)  # "4-bit (AWQ)": the bits a reader looks for, then the name
            return w.t("way_precision_context", precision=fmt, context=way.context_tokens)
        if way.mode == "inference" and way.precision in _official_builds(way.model):
            return w.t("way_precision_official", precision=w.label("format", way.precision))  # Meta's 405B FP8
        return w.t("way_precision", precision=w.label("format", way.precision))
    if way.mode != "inference" and (way.context_tokens != asked.context_tokens or _fused(way)):
        key = "way_sequence_fused" if _fused(way) else "way_sequence"
        if way.context_tokens == asked.context_tokens:
            key = "way_fused"
        eight_bit = any(
            a.code == "vram_adapter_states" and a.params.get("optimizer") == "adamw8bit" for a in way.assumptions
        )
        return w.t(key + ("_8bit" if _fused(way) and eight_bit else ""), context=way.context_tokens)
    return w.t("way_context", context=way.context_tokens)


def _official_builds(model: str) -> list[str]:
    """The formats a model's publisher ships beside bf16 (registry `official_builds`): Llama-3.1-405B's FP8."""
    from tools.errors import AdvisorError
    from tools.model_match import match_model

    try:
        return match_model(model).arch.official_builds
    except AdvisorError:
        return []


def _optimizer(r: VramResult) -> str | None:
    """The optimizer a full fine-tune was sized with (adamw, adamw8bit, ...)."""
    value = next((a.params.get("optimizer") for a in r.assumptions if a.code == "vram_full_states"), None)
    return str(value) if value else None


def _fused(r: VramResult) -> bool:
    """Sized with a fused / chunked loss (Unsloth, Liger)."""
    return any(a.code == "vram_loss" and a.params.get("chosen") == "chunked" for a in r.assumptions)


def sized_lines(w: Writer, results: list[VramResult], capacity_gib: float | None = None, detail: bool = True) -> None:
    """Estimates in reading order. When a first estimate on one GPU was sized up to the count the job needs,
    the count comes first ("needs 16 × H100") and only the estimate on that count is broken down."""
    first, last = (results[0], results[-1]) if results else (None, None)
    sized = first is not None and last is not None and first is not last and first.fit is not None
    if sized and first.fit is not None and not first.fit.fits and first.fit.gpus_needed == last.num_gpus:
        fit = first.fit
        setup = w.t("needs_setup_training") if last.mode != "inference" and last.zero_stage == 3 else ""
        w.say(
            "needs_gpus",
            needed=fit.gpus_needed,
            gpu=fit.gpu,
            setup=setup,
            one=first.per_gpu_gib,
            usable=fit.usable_gib_per_gpu,
        )
        memory_lines(w, last, detail=detail, capacity_gib=capacity_gib)
        return
    for i, r in enumerate(results):
        memory_lines(w, r, detail=detail and i == len(results) - 1, capacity_gib=capacity_gib)


def sizing_calls(plan: Plan, first: VramResult | None, owner: str, then_speed: bool) -> list[ToolCall]:
    """After a first estimate on one GPU: the estimate on the count it needs (and speed on that count)."""
    if first is None or first.fit is None or first.fit.gpus_needed is None:
        return []
    count = first.fit.gpus_needed
    s = plan.scenario.model_copy(update={"num_gpus": count})
    calls = [] if count == 1 else [ToolCall(name=ToolName.ESTIMATE_VRAM, args=vram_args(s, count), owner=owner)]
    if then_speed:
        calls.append(ToolCall(name=ToolName.ESTIMATE_SPEED, args=speed_args(s), owner=owner))
    return calls


def by_workload(results: list[VramResult]) -> list[list[VramResult]]:
    """Estimates grouped by the workload they size (model and job), in the order first sized."""
    groups: dict[tuple[str, str, str], list[VramResult]] = {}
    for r in results:
        groups.setdefault((r.model, r.mode, r.precision), []).append(r)
    return list(groups.values())


def first_vram(outcomes: list[Outcome]) -> VramResult | None:
    """The first round's estimate sized for the named GPU (shared when memory and speed both asked)."""
    return next((o.result for o in outcomes if isinstance(o.result, VramResult) and o.result.fit is not None), None)


class Memory(Capability):
    intent = "memory"
    owns = (ToolName.ESTIMATE_VRAM,)
    scenario_fields: ClassVar[dict[ToolName, dict[str, str]]] = {
        ToolName.ESTIMATE_VRAM: {
            "model": "model",
            "params_b": "params_b",
            "mode": "mode",
            "precision": "precision",
            "kv_dtype": "kv_dtype",
            "context_tokens": "context_tokens",
            "batch": "batch",
            "num_gpus": "num_gpus",
            "lora_rank": "lora_rank",
            "lora_targets": "lora_targets",
            "cpu_offload": "cpu_offload",
            "optimizer": "optimizer",
            "zero_stage": "zero_stage",
            "gpu": "gpu",
            "gpu_mix": "gpu_mix",
            "chunked_cross_entropy": "fused_loss",
            "engine": "engine",
        }
    }
    needs_model = True

    def topic(self, ctx: PlanContext) -> str | None:
        return TOPICS.get(ctx.scenario.mode or "inference")

    def plan(self, ctx: PlanContext) -> None:
        s = ctx.scenario
        ctx.add(self.intent, ToolName.ESTIMATE_VRAM, **vram_args(s))
        if s.gpu:
            ctx.add(self.intent, ToolName.GPU_SPECS, **specs_args(s, [s.gpu]))
            if s.num_gpus is None:  # "70B on H100s": size the count from the first estimate
                ctx.second_round.append(self.intent)
            ctx.second_round.append("cheaper_way")  # if it does not fit: the next cheaper way that might
            from assistant.capabilities.fewer_four_bit import plan_fewer

            plan_fewer(ctx)  # "g5.48xlarge is expensive": the 4-bit build on fewer of these cards
        elif not ctx.parsed.stated_capacity_gib:
            ctx.second_round.append("card_needed")  # "需要多大的 GPU": the smallest common card that holds it
            from assistant.capabilities.memory_formats import plan_formats

            plan_formats(ctx)  # "how much VRAM": as published, at 8-bit and at 4-bit, each with its card, first
        elif not s.precision or resolve_precision(s.precision).kind == "gguf":
            _capacity_way(ctx)  # "a 14B in a 12GB GPU with Q6?": a named GGUF level too gets the level that fits
        if ctx.parsed.asks_minimum and (s.mode or "inference") == "inference" and not s.precision:
            # "the minimum hardware": what the 4-bit build needs, next to the model as published
            ctx.add(self.intent, ToolName.ESTIMATE_VRAM, **vram_args(s.model_copy(update={"precision": "q4_k_m"})))
        elif ctx.parsed.precision_from_engine and not s.gpu and s.precision == ctx.parsed.precision:
            # "ollama 部署 deepseek-V3 要多少显存": the Ollama build sized, and the model as published next to it
            published = s.model_copy(update={"precision": None, "engine": None})  # served by vLLM / SGLang
            ctx.add(self.intent, ToolName.ESTIMATE_VRAM, **vram_args(published))

    def second_round(self, plan: Plan, outcomes: list[Outcome]) -> list[ToolCall]:
        return sizing_calls(plan, first_vram(outcomes), self.intent, then_speed=False)

    def render(self, w: Writer, turn: Turn) -> None:
        from assistant.capabilities.card_needed import card_lines, parts_summary
        from assistant.capabilities.fewer_four_bit import fewer_at_four_bit
        from assistant.capabilities.inference_split import split_how

        if turn.parsed.context_from_name:  # "glm-4-9b-chat-1m": the 1M variant's context is its own, not too long
            for r in turn.results(VramResult):
                r[1].warnings = [x for x in r[1].warnings if x.code != "cmp_context_too_long"]
        groups = by_workload(turn.own(self.intent, VramResult))  # each model and job the message named
        capacity_lead(w, turn)
        if len(groups) > 1:
            parts_summary(w, turn, groups)  # the lead: every part's answer in one paragraph
        for k, results in enumerate(groups):
            last = k == len(groups) - 1  # the assumptions once, after the last part
            if not hardware_lines(w, turn, results, detail=last):
                from assistant.capabilities.pooled import pooled_lead_said

                # several cards of a size: their verdict (pooled.py) replaces the one-card sentence
                capacity = None if pooled_lead_said(turn) else turn.parsed.stated_capacity_gib
                sized_lines(w, results, capacity, detail=last)
            fewer_at_four_bit(w, turn, results[0])
            card_lines(w, turn, results[0])
            split_how(w, turn)  # "两张卡显存能合起来用吗": how the engine splits it over them
        _vision_tower(w, turn)

    def summary(self, tool: ToolName, result: BaseModel, lang: str) -> str:
        if not isinstance(result, VramResult):
            return str(tool)
        return f"{result.per_gpu_gib} GiB per GPU ({result.model}, {result.mode})"
