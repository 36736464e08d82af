"""A bare parameter count that only one model in the registry has ("how much VRAM to run 405B?", "480B 要几张卡"):
an expert reads it as that model (Llama-3.1-405B), not a generic decoder of that size. Common sizes (7B, 70B,
72B) name many models and stay generic."""

from __future__ import annotations

import re
from functools import cache

from assistant.understanding.text import _State

# from here up a bare size is how people name the one open model of that size (405B, 480B); the registry decides
_NAMED_ABOVE = 300
_SIZE_IN_NAME = re.compile(r"(?<![\d.])(\d+(?:\.\d+)?)b(?![a-z0-9])", re.I)


@cache
def _models_by_size() -> dict[float, tuple[str, ...]]:
    from tools.models import registry

    out: dict[float, list[str]] = {}
    for arch in registry().values():
        m = _SIZE_IN_NAME.search(arch.name)
        if m:
            out.setdefault(float(m.group(1)), []).append(arch.id)
    return {size: tuple(ids) for size, ids in out.items()}


# "For Vision 11B multi-modal inference", "11B 视觉模型": a size said with a vision word names the vision model of that
# size when the registry has exactly one (Llama-3.2-11B-Vision), as a bare 405B names Llama-3.1-405B
_VISION_WORD = re.compile(r"vision|(?<![a-z])vl(?![a-z])|multi-?modal|视觉|多模态|图文", re.I)
_VISION_ID = re.compile(r"vision|(?<![a-z])vl(?![a-z])")
_VISION_NEAR = 24  # characters either side of the size


@cache
def _vision_models_by_size() -> dict[float, tuple[str, ...]]:
    from tools.models import registry

    by_size = _models_by_size()
    return {s: tuple(i for i in ids if _VISION_ID.search(registry()[i].id)) for s, ids in by_size.items()}


def _near_vision_word(st: _State, size: float) -> bool:
    text = st.t.text
    return any(
        float(m.group(1)) == size
        and _VISION_WORD.search(text[max(0, m.start() - _VISION_NEAR) : m.end() + _VISION_NEAR])
        for m in _SIZE_IN_NAME.finditer(text)
    )


def _unique_size(st: _State) -> None:
    q = st.q
    if q.model or q.params_b is None or q.unknown_model or st.family_hint or len(q.sizes_mentioned) > 1:
        return
    ids = _models_by_size().get(float(q.params_b), ())
    vision = _vision_models_by_size().get(float(q.params_b), ())
    if len(vision) == 1 and _near_vision_word(st, float(q.params_b)):
        ids = vision
    elif len(ids) != 1 or q.params_b < _NAMED_ABOVE:
        return  # a bare "7B", "32B", "130B" is a class of models (a 130B server), not one of them
    q.model, q.model_how, q.params_b = ids[0], "registry", None
    q.models_mentioned = [ids[0]]
