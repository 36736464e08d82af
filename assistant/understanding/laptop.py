"""A laptop GPU named by its desktop card's name ("6GB VRAM RTX 3060 laptop", "笔记本 4090 16G"): the desktop row
has other memory (12 and 24 GB there, 6 and 16 GB here), so the card is read as a card of the laptop's memory."""

from __future__ import annotations

import re
from functools import cache

from assistant.understanding.lexicon import _lex
from assistant.understanding.text import _State

_NEAR = 40  # characters either side of the card name where "laptop" / its memory size belongs to it
# a size before or after the name that is GPU memory, not system RAM ("6GB VRAM", "16G", not "32GB RAM")
_SIZE = re.compile(r"(?<![0-9.])(\d{1,2})\s*(?:gb|gib|g)(?![a-z0-9])(?!\s*(?:of\s+)?(?:ddr|内存|ram|system|sys))", re.I)


@cache
def _word() -> re.Pattern[str]:
    return re.compile(_lex().raw["laptop_gpus"]["word"], re.IGNORECASE)


def _laptop_memory(gpu_id: str) -> float | None:
    table: dict[str, float] = _lex().raw["laptop_gpus"]["memory"]
    key = max((k for k in table if gpu_id == k or gpu_id.startswith(k + "-")), key=len, default=None)
    if key is None or (key == "rtx-3070" and gpu_id.startswith("rtx-3070-ti")):
        return None
    return float(table[key])


def _laptop_card(st: _State) -> None:
    from tools.catalog import catalog

    q, text = st.q, st.t.text
    span = next((s for s in st.gpus if s.value and s.value == q.gpu), None)
    if span is None or q.num_gpus not in (None, 1):
        return
    near = text[max(0, span.start - _NEAR) : span.end + _NEAR]
    laptop = _laptop_memory(span.value or "")
    if laptop is None or not _word().search(near):
        return
    # the size may be written beside a later mention of the same card ("the 3060M ... the 3060M 12GB")
    sizes = [
        float(m.group(1))
        for s in st.gpus
        if s.value == span.value
        for m in _SIZE.finditer(text[max(0, s.start - _NEAR) : s.end + _NEAR])
    ]
    memory = sizes[0] if sizes else laptop
    desktop = catalog().get(span.value or "")
    if desktop is None or abs(desktop.vram_gib - memory) < 0.5:
        return  # a laptop part with the desktop card's memory (the 4060's 8 GB): the catalog row holds
    q.gpu = None
    st.gpus = [s for s in st.gpus if s is not span]  # sized as a card of that memory from here on
    q.gpu_mentions = [g for g in q.gpu_mentions if g != span.value]
    q.stated_capacity_gib = memory
    q.claims = [c for c in q.claims if not (c.topic == "vram" and c.gpu == span.value)]
    from tools.notes import note

    name = re.sub(r"^NVIDIA\s+(?:GeForce\s+)?", "", desktop.name)
    name = re.sub(r"\s+\(?\d+\s*GB\)?$", "", name)  # "RTX 3060 12GB", "RTX 3080 (10GB)" -> "RTX 3060"
    q.notes.append(
        note("laptop_gpu_memory", gpu=name, vram=memory, desktop=desktop.name, desktop_vram=desktop.vram_gib)
    )
