"""Memory figures quoted for two or more models of one message, each judged against its own model ("Training the 7B
takes about 18GB ... the 13B ran out of VRAM on my 24GB card, will need at least 32GB?", "7B 占 18G，13B 要 32G？").

People state the figures in the order they name the models, so the n-th figure belongs to the n-th model sized. When
the last one is a size the user thinks they need, more than their card, and the model fits that card with a 4-bit
base, the expert's first sentence is that they do not need it: the out-of-memory is bf16 LoRA on that card, and
QLoRA (or an 8-bit base) with a micro-batch of 1 fits it."""

from __future__ import annotations

from assistant.capabilities.base import PlanContext, Turn
from assistant.capabilities.workload import vram_args
from assistant.strings import Writer
from assistant.toolset import ToolName
from tools.catalog import resolve_gpu
from tools.errors import AdvisorError
from tools.sizing import usable_of
from tools.vram import VramResult

OWNER = "training_lead"
_SIZING = ("memory", "fit", "speed")
_TRAINING = ("full", "lora", "qlora")


def plan_claim_parts(ctx: PlanContext) -> None:
    """Two figures or more, a LoRA or full fine-tune: each other model with a 4-bit base too (QLoRA, on one card)."""
    s, p = ctx.scenario, ctx.parsed
    # the other models the message names, as planner/plan.py other_parts sizes them (a named model, else a bare size)
    if p.models_mentioned:
        parts = [s.model_copy(update={"model": m, "params_b": None}) for m in p.models_mentioned[1:] if m != s.model]
    else:
        parts = [s.model_copy(update={"model": None, "params_b": b}) for b in p.sizes_mentioned[1:] if b != s.params_b]
    figures = len(set(p.quoted_memory_gib))
    if figures < 2 or figures != 1 + len(parts) or s.mode not in ("full", "lora"):
        return  # the figures pair with the models only one to one
    for part in parts:
        lighter = part.model_copy(update={"mode": "qlora", "precision": None})  # QLoRA's own 4-bit base
        ctx.add(OWNER, ToolName.ESTIMATE_VRAM, **vram_args(lighter, 1, sized=False))


def _pairs(turn: Turn) -> list[tuple[float, VramResult]] | None:
    claims = list(dict.fromkeys(turn.parsed.quoted_memory_gib))
    jobs: dict[str, VramResult] = {}
    for o in turn.outcomes:
        r = o.result
        if isinstance(r, VramResult) and o.call.owner in _SIZING and r.mode in _TRAINING and r.num_gpus == 1:
            jobs.setdefault(r.model, r)
    if len(claims) < 2 or len(claims) != len(jobs):
        return None
    return list(zip(claims, jobs.values(), strict=True))


def _card_gib(turn: Turn) -> float | None:
    s = turn.plan.scenario
    if s.gpu:
        try:
            return resolve_gpu(s.gpu)[0].vram_gib
        except AdvisorError:
            return None
    return turn.parsed.stated_capacity_gib


def paired_claims(w: Writer, turn: Turn) -> bool:
    """Say each figure against its own model (and the card verdict first when it decides); False when the figures
    do not pair with the models sized."""
    pairs = _pairs(turn)
    if pairs is None:
        return False
    card = _card_gib(turn)
    usable = usable_of(card, 0.1) if card else None
    claim, last = pairs[-1]
    lighter = next(
        (r for r in turn.own(OWNER, VramResult) if r.model == last.model and r.mode == "qlora" and r.num_gpus == 1),
        None,
    )
    decides = (
        card is not None
        and usable is not None
        and claim > card
        and last.per_gpu_gib > usable
        and lighter is not None
        and lighter.per_gpu_gib <= usable
    )
    if decides:
        assert lighter is not None and card is not None
        w.say(
            "claims_card_lighter",
            claim=claim,
            model=last.model,
            method=w.label("method", last.mode),
            need=last.per_gpu_gib,
            card=card,
            q=lighter.per_gpu_gib,
        )
        pairs = pairs[:-1]
    items = []
    for c, r in pairs:
        need = r.per_gpu_gib
        key = "claim_low" if c < need * 0.85 else "claim_high" if c > need * 1.15 else "claim_right"
        items.append(w.t("claim_for", said=w.t(key, claim=c), model=r.model, need=need))
    if items:
        sep = "；" if w.lang == "zh" else "; "
        w.say("claims_pairs_line", items=sep.join(items), method=w.label("method", pairs[0][1].mode))
    return True
