"""A speed asked beside a fit ("does it fit, and how fast?", "我有张 3090，跑 14B 有多快"): the tokens/s of the way
the verdict names comes right after that verdict, in the answer's first two sentences, as an expert says it; the
memory breakdown follows. One home: the fit, memory and speed answers all call `lead_speed` after their verdict, and
skip the sentence it already said (`said`)."""

from __future__ import annotations

from assistant.capabilities.base import Turn
from assistant.strings import Writer
from tools.speed import SpeedResult
from tools.vram import VramResult


def asked(turn: Turn) -> bool:
    """The message asked how fast (the speed intent), not only whether it fits."""
    return "speed" in turn.plan.intents


def lead_speed(w: Writer, turn: Turn, r: VramResult) -> bool:
    """After the verdict on `r` (the way that fits the user's cards): the decode speed of that same way, once."""
    from assistant.capabilities.blocked import job_blocked
    from assistant.capabilities.speed import runs, speed_lines

    if not asked(turn) or r.fit is None or not r.fit.fits or r.mode != "inference" or job_blocked(turn):
        return False
    for i, s in turn.results(SpeedResult):
        same = (s.model, s.precision, s.gpu, s.num_gpus) == (r.model, r.precision, r.fit.gpu, r.num_gpus)
        if i in turn.shown or not same or s.decode_tokens_per_s is None or not runs(turn, s):
            continue
        turn.shown.add(i)
        speed_lines(w, s, notes=False)
        return True
    return False


def said(turn: Turn, r: SpeedResult) -> bool:
    """This speed's sentence already followed a verdict (its notes still come with the other speeds)."""
    return any(i in turn.shown and s is r for i, s in turn.results(SpeedResult))
