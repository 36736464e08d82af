"""MethodsLead: a fine-tune asked with no method is answered for every method in the first sentence.

"Can one 4090 train a 7B?", "四卡 H800 够 SFT 吗", "6GB 够不够微调": "train" and "fine-tune" name no method, and
the answer differs by method, so an expert's first sentence gives each verdict (advice.md §5, §9 "every part"):
full fine-tuning does not fit (108 GiB), LoRA does (17 GiB), QLoRA with room (9 GiB). The method the figures
below assume (LoRA) is then detailed by memory/fit. The same lead judges a card size the user names instead of a
card ("6GB 够不够": each method against 6 GB), asked method first when one was named.

When full fine-tuning does not fit the user's cards, ZeRO-Offload (the optimizer states in CPU RAM, DeepSpeed
offload_optimizer) is sized on the same cards: it is how people full fine-tune a 7B on one or two 24 GB cards,
at several times the step time and with RAM the size of the optimizer states; the lead says so when it fits.
"""

from __future__ import annotations

from assistant.capabilities.base import Capability, PlanContext, Turn
from assistant.capabilities.memory import stated_hardware
from assistant.capabilities.workload import vram_args
from assistant.strings import Writer
from assistant.toolset import ToolName
from tools.boards import sized_on
from tools.precision import resolve_precision
from tools.sizing import engine_for, fits_capacity, headroom_for
from tools.speed import SpeedResult
from tools.vram import VramResult

_TRAINING = ("full", "lora", "qlora")
_SIZING = ("memory", "fit", "speed")
_ROW_OWNERS = (*_SIZING, "training", "card_needed")
_UNSLOTH_SEQUENCE = 1024  # the shortest sequence cheaper.py tries too
_NOT_HERE = {"compare", "recommend", "diagnose"}  # they weigh the methods themselves, or explain a failure


def plan_full_offload(ctx: PlanContext, methods: list[str]) -> None:
    """Full fine-tuning on the user's cards, with the optimizer offloaded to CPU RAM: the way full fine-tuning fits
    when it does not fit as is (shown only then)."""
    s = ctx.scenario
    if not s.gpu or s.cpu_offload or "full" not in (s.mode, *methods) or _NOT_HERE & set(ctx.intents):
        return
    if _unified_memory(s.gpu):
        return  # a Mac, DGX Spark or Strix Halo: system RAM is the same memory, there is nowhere to offload to
    job = s.model_copy(update={"mode": "full", "precision": None, "cpu_offload": "optimizer"})
    ctx.add(MethodsLead.intent, ToolName.ESTIMATE_VRAM, **vram_args(job))


def plan_unsloth_qlora(ctx: PlanContext, methods: list[str]) -> None:
    """QLoRA the Unsloth way (fused cross-entropy, 8-bit AdamW) on the user's cards or card size: when no method
    fits as configured by default, this is the one that often just does ("12G 够吗" for a 9B), and the lead says so."""
    s = ctx.scenario
    sized_on = s.gpu or (ctx.parsed.stated_capacity_gib and not s.gpu)
    if not sized_on or s.fused_loss or "qlora" not in (s.mode, *methods) or _NOT_HERE & set(ctx.intents):
        return
    job = s.model_copy(update={"mode": "qlora", "precision": None, "fused_loss": True, "optimizer": "adamw8bit"})
    ctx.add(MethodsLead.intent, ToolName.ESTIMATE_VRAM, **vram_args(job))
    if s.context_tokens is None:  # a sequence the user stated is theirs; the default one may be shortened too
        short = job.model_copy(update={"context_tokens": _UNSLOTH_SEQUENCE})
        ctx.add(MethodsLead.intent, ToolName.ESTIMATE_VRAM, **vram_args(short))


def _unified_memory(gpu: str) -> bool:
    from tools.catalog import catalog

    spec = catalog().get(gpu)
    return spec is not None and spec.gpu_memory_share is not None  # the GPU's share of one shared memory


def _main(turn: Turn) -> VramResult | None:
    return next(
        (
            o.result
            for o in turn.outcomes
            if o.call.owner in _SIZING and isinstance(o.result, VramResult) and o.result.mode in _TRAINING
        ),
        None,
    )


def _rows(turn: Turn, in_parts: bool = False) -> list[tuple[int, VramResult]]:
    """Each method's estimate once, in the order the lead names them, on the user's cards (or one card when they
    named a card size, or the card each needs when they named neither); empty when the lead does not apply.
    `in_parts`: for the fine-tune part of a several-part lead ("推理和微调各要多少卡"), where inference is asked too."""
    q, s = turn.parsed, turn.plan.scenario
    # an OOM report is answered method by method ("单卡训不了?": full does not fit, LoRA does), unless the user set
    # a ZeRO stage: then the same method sharded differently leads (cheaper.py)
    oom_by_method = q.symptom == "oom" and s.zero_stage is None
    if _NOT_HERE & set(turn.plan.intents) or (q.symptom and not oom_by_method):
        return []
    unspecified = q.fine_tune_unspecified and not q.mode
    capacity = q.stated_capacity_gib if not s.gpu else None
    main = _main(turn)
    # "能跑 13b 的微调吗？能跑 72b 的微调吗？": several models sized, each one's verdict leads (parts_summary)
    models = {r.model for i, r in turn.results(VramResult) if turn.outcomes[i].call.owner in _SIZING}
    if main is None or not (unspecified or capacity) or ("inference" in q.jobs and not in_parts) or len(models) > 1:
        return []  # "推理和微调各要多少": every job's verdict leads (card_needed.parts_summary), not the methods
    found: dict[str, tuple[int, VramResult]] = {}
    for i, r in turn.results(VramResult):
        if r.mode not in _TRAINING or r.mode in found or r.model != main.model or r.cpu_offload_gib:
            continue
        if turn.outcomes[i].call.owner not in _ROW_OWNERS:
            continue
        if s.gpu:
            ok = r.fit is not None and sized_on(r.fit.gpu_id, r.num_gpus, s.gpu, s.num_gpus or 1)
        else:
            ok = r.num_gpus == 1 and (bool(capacity) or r.fit is not None)
        if ok:
            found[r.mode] = (i, r)
    if len(found) < len(_TRAINING):
        return []
    order = list(_TRAINING) if unspecified else [main.mode, *(m for m in _TRAINING if m != main.mode)]
    return [found[m] for m in order]


def methods_in_parts(w: Writer, turn: Turn, model: str) -> str | None:
    """ "推理和微调大概需要多少卡，以 A100 80G 为例": the fine-tune part of a several-part lead gives every method's
    count, as the methods lead does for a fine-tune asked alone: no method was named, so the assumed LoRA alone
    would drop the full fine-tune (20-odd cards) and QLoRA (one) an expert states. None when it does not apply."""
    rows = _rows(turn, in_parts=True) if "inference" in turn.parsed.jobs else []
    if not rows or rows[0][1].model != model:
        return None
    for i, _ in rows:
        if turn.outcomes[i].call.owner == "training":
            turn.shown.add(i)
    s, capacity = turn.plan.scenario, turn.parsed.stated_capacity_gib
    if s.gpu and not stated_hardware(turn):
        items = [_count(w, r) for _, r in rows]
    elif s.gpu:
        items = [_on_cards(w, turn, r) for _, r in rows]
    elif capacity:
        items = [_on_capacity(w, r, fits_capacity(r.per_gpu_gib, capacity, _headroom(r))) for _, r in rows]
    else:
        items = [_card_each(w, r) for _, r in rows]
    return ("，" if w.lang == "zh" else ", ").join(items)


def _offload(turn: Turn) -> VramResult | None:
    """The full fine-tune with ZeRO-Offload on the user's cards, when it fits them."""
    own = turn.own(MethodsLead.intent, VramResult)
    return next((r for r in own if r.cpu_offload_gib and r.fit is not None and r.fit.fits), None)


def _unsloth(turn: Turn, capacity: float | None) -> VramResult | None:
    """QLoRA with a fused loss and 8-bit AdamW, when it fits the user's cards (or the card size they named): at the
    sequence asked if it fits there, else at the shorter one."""
    for r in turn.own(MethodsLead.intent, VramResult):
        if r.mode != "qlora" or r.cpu_offload_gib:
            continue
        if (r.fit is not None and r.fit.fits) or (capacity and fits_capacity(r.per_gpu_gib, capacity, _headroom(r))):
            return r
    return None


class MethodsLead(Capability):
    intent = "methods_lead"
    cites_guides = False
    render_phase = -1  # the verdict per method leads; the assumed method's figures follow

    def active(self, turn: Turn) -> bool:
        # "预计要训练多久" after the card was sized: the hours lead (speed.py), not every method's verdict again
        timed = turn.parsed.asks_time and any(r.time_to_train_hours for _, r in turn.results(SpeedResult))
        return not timed and bool(_rows(turn))

    def render(self, w: Writer, turn: Turn) -> None:
        rows = _rows(turn)
        if not rows:
            return
        for i, _ in rows:
            if turn.outcomes[i].call.owner == "training":
                turn.shown.add(i)  # said here: not again in the methods line below
        sep = "；" if w.lang == "zh" else "; "
        s = turn.plan.scenario
        if s.gpu and not stated_hardware(turn):  # "需要用多少张 H800": the count each method needs
            fit = rows[0][1].fit
            assert fit is not None  # _rows keeps fitted rows on the card named
            items = [_count(w, r) for _, r in rows]
            w.say("methods_lead_counts", gpu=fit.gpu, usable=fit.usable_gib_per_gpu, items=sep.join(items))
        elif s.gpu:
            items = [_on_cards(w, turn, r) for _, r in rows]
            fit = rows[0][1].fit
            assert fit is not None
            n = fit.num_gpus
            hw = w.t("methods_lead_one", gpu=fit.gpu) if n == 1 else w.t("methods_lead_n", n=n, gpu=fit.gpu)
            fits = [r.mode for _, r in rows if r.fit is not None and r.fit.fits]
            w.say(
                "methods_lead_cards",
                verdict=_verdict(w, fits, None if fits else _unsloth(turn, None)),
                hw=hw,
                usable=fit.usable_gib_per_gpu,
                items=sep.join(items),
            )
        elif turn.parsed.stated_capacity_gib:
            capacity = turn.parsed.stated_capacity_gib
            headroom = headroom_for(engine_for(None, "full"))
            ok = [fits_capacity(r.per_gpu_gib, capacity, _headroom(r)) for _, r in rows]
            items = [_on_capacity(w, r, fits) for (_, r), fits in zip(rows, ok, strict=True)]
            fitting = [r.mode for (_, r), fits in zip(rows, ok, strict=True) if fits]
            w.say(
                "methods_lead_capacity",
                verdict=_verdict(w, fitting, None if fitting else _unsloth(turn, capacity)),
                vram=capacity,
                headroom=headroom,  # a percentage, not a GiB figure no tool computed
                items=sep.join(items),
            )
        else:
            items = [_card_each(w, r) for _, r in rows]
            w.say("methods_lead_cards_needed", items=sep.join(items))

    def records(self, tool: ToolName) -> bool:
        return False  # the other methods and the offloaded run are examples, not the scenario


def _on_cards(w: Writer, turn: Turn, r: VramResult) -> str:
    assert r.fit is not None
    method = w.label("method", r.mode)
    setup = w.t("methods_lead_sharded") if r.zero_stage == 3 and r.num_gpus > 1 else ""
    if r.fit.fits:
        return w.t("methods_lead_fits", method=method, need=r.per_gpu_gib, setup=setup)
    text = w.t("methods_lead_not", method=method, need=r.per_gpu_gib, setup=setup)
    needed = r.fit.gpus_needed
    if needed and r.fit.num_gpus < needed <= 2 * r.fit.num_gpus:  # a few more of the same cards: worth saying
        text += w.t("method_needs_part", needed=needed)
    off = _offload(turn) if r.mode == "full" else None
    if off is not None:
        text += w.t("methods_lead_offload", need=off.per_gpu_gib, ram=off.cpu_offload_gib)
    return text


def _verdict(w: Writer, fitting: list[str], unsloth: VramResult | None = None) -> str:
    """Yes with the methods that fit (lightest last, as the lead lists them), only just (QLoRA the Unsloth way), or
    no."""
    if not fitting:
        if unsloth is not None:
            return w.t("methods_lead_tight", need=unsloth.per_gpu_gib, context=unsloth.context_tokens)
        return w.t("methods_lead_no")
    names = [w.label("method_short", m) for m in fitting]
    return w.t("methods_lead_yes", methods=w.t("methods_lead_or").join(names))


def _count(w: Writer, r: VramResult) -> str:
    """How many of the named card one method needs."""
    assert r.fit is not None
    method = w.label("method", r.mode)
    if r.fit.fits:
        return w.t("count_item_one", method=method, need=r.per_gpu_gib)
    if r.fit.gpus_needed and r.fit.per_gpu_gib_needed:
        return w.t("count_item_n", method=method, k=r.fit.gpus_needed, each=r.fit.per_gpu_gib_needed)
    return w.t("methods_lead_not", method=method, need=r.per_gpu_gib, setup="")


def _headroom(r: VramResult) -> float:
    return headroom_for(engine_for(None, r.mode, resolve_precision(r.precision).kind))


def _on_capacity(w: Writer, r: VramResult, fits: bool) -> str:
    key = "methods_lead_enough" if fits else "methods_lead_short"
    return w.t(key, method=w.label("method", r.mode), need=r.per_gpu_gib)


def _card_each(w: Writer, r: VramResult) -> str:
    """No card named: the card (or count of 80 GB cards) each method needs."""
    fit = r.fit
    method = w.label("method", r.mode)
    if fit is None:
        return w.t("method_memory", method=method, need=r.per_gpu_gib)
    if fit.fits:
        return w.t("method_fits_one", method=method, need=r.per_gpu_gib, gpu=fit.gpu)
    if fit.gpus_needed and fit.per_gpu_gib_needed:
        return w.t(
            "method_needs_n",
            method=method,
            need=r.per_gpu_gib,
            n=fit.gpus_needed,
            gpu=fit.gpu,
            each=fit.per_gpu_gib_needed,
        )
    return w.t("method_memory", method=method, need=r.per_gpu_gib)
