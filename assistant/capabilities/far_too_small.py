"""A training job far too big for the user's cards (a full fine-tune of Gemma-3-4B on Colab's T4s: 16 of them):
its hours are counted on one card that holds it, not on a stack of theirs nobody would assemble."""

from __future__ import annotations

from assistant.capabilities.base import Outcome
from assistant.capabilities.card_needed import reference_card
from tools.vram import VramRequest, VramResult, estimate_vram

MAX_SCALED = 8  # more of the user's cards than one server holds: the hours go on a card that holds the job


def holding_card(main: VramResult, outcomes: list[Outcome]) -> tuple[str | None, int]:
    """The common card that holds the whole job on one GPU (None when no single card does)."""
    call = next((o.call for o in outcomes if o.result is main), None)
    if call is None:
        return None, 0
    args = {k: v for k, v in call.args.items() if k not in ("gpu", "num_gpus")}
    try:
        one = estimate_vram(VramRequest.model_validate(args))
    except ValueError:
        return None, 0
    card = reference_card(one)
    try:
        fit = estimate_vram(VramRequest.model_validate({**args, "gpu": card})).fit
    except ValueError:
        return None, 0
    return (card, 1) if fit is not None and fit.fits else (None, 0)
