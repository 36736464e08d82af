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


def _unique_size(st: _State) -> None:
    q = st.q
    if q.model or q.params_b is None or q.unknown_model or st.family_hint or len(q.sizes_mentioned) > 1:
        return
    ids = _models_by_size().get(float(q.params_b), ())
    if len(ids) != 1 or q.params_b < _NAMED_ABOVE:
        return  # a bare "7B", "32B", "130B" is a class of models (a 130B server), not one of them
    q.model, q.model_how, q.params_b = ids[0], "registry", None
    q.models_mentioned = [ids[0]]
