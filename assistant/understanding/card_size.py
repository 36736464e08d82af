"""A model far too big for the one card named beside it ("how many A800s for DeepSeek-V3? ... used is fine"): no
single card of that kind runs it, so buying that card is no answer (intents.py, capabilities/specs.py)."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from assistant.understanding.query import ParsedQuery

# the model's 4-bit weights alone (0.5 bytes per parameter) are more than this many of the card: "several times"
_TIMES_THE_CARD = 2.0


def far_too_big_for_card(q: ParsedQuery) -> bool:
    """The model's 4-bit weights alone take several times the memory of the first card named (DeepSeek-V3 on one
    A800): no one card of that kind runs it."""
    from tools.catalog import resolve_gpu
    from tools.errors import AdvisorError
    from tools.model_match import match_model

    if not q.gpu_mentions:
        return False
    params_b = q.params_b
    if params_b is None and q.model:
        try:
            arch = match_model(q.model).arch
        except AdvisorError:
            return False
        params_b = arch.official_params_b or arch.params / 1e9
    if not params_b:
        return False
    try:
        gpu, _ = resolve_gpu(q.gpu_mentions[0])
    except AdvisorError:
        return False
    four_bit_gib = params_b * 1e9 * 0.5 / 2**30
    return four_bit_gib > _TIMES_THE_CARD * gpu.usable_memory_gib
