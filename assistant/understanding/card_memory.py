"""A card written with a memory size its catalog row does not have: "5090D v2 24G", "RTX 5090 D v2 (24GB VRAM)",
"a 24G 5090D".

The catalog's variants are read first (memory_suffix.py: "4060ti 16g" is the 16 GB row). When the size written
right beside the name matches no row of that card, the user is telling the memory of the card they have (a later
revision, a regional version, a board the catalog lacks): what fits is decided by that memory, so the card is sized
as a card of that memory, as a laptop part is (laptop.py), and the answer says so. A size asked about as a claim
("the 4090 has 48GB, right?") or a memory-modified card (risk.py weighs its stated memory) is left to those readers.
"""

from __future__ import annotations

import re

from assistant.understanding.text import _State

# right after the name: "5090D v2 24G", "RTX 5090 D v2 (24GB VRAM)", "5090D-24G"; not system RAM ("32GB RAM") and
# not after a comma ("RTX 3090, 32GB, Ryzen 5900X" lists the machine's RAM)
# ... or said of it: "2080Ti which has 22GB memory", "a 2080 Ti with 22GB of VRAM"
_AFTER = re.compile(
    r"^\s*(?:v\d\s*)?(?:,?\s*(?:which|that)\s+(?:has|have|comes with)\s+|with\s+)?[(（-]?\s*(?P<v>\d{1,3})\s*"
    r"(?:gb|gib|g)(?![a-z0-9])(?!\s*(?:of\s+)?(?:ddr|内存|ram|system|sys))",
    re.I,
)
# right before it: "24G 的 5090D", "24GB 5090 D"
_BEFORE = re.compile(r"(?<![0-9.])(?P<v>\d{1,3})\s*(?:gb|gib|g)\s*(?:显存\s*)?(?:的\s*)?$", re.I)


def _stated_card_memory(st: _State) -> None:
    from assistant.understanding.risk import _modded_words
    from tools.catalog import resolve_gpu
    from tools.errors import AdvisorError
    from tools.notes import note

    q, text = st.q, st.t.text
    span = next((s for s in st.gpus if s.value and s.value == q.gpu), None)
    if span is None or len(q.gpu_mentions) != 1 or q.num_gpus not in (None, 1) or _modded_words().search(text):
        return
    if any(c.topic == "vram" and c.gpu == span.value for c in q.claims):
        return  # "the 4090 has 48GB, right?": a claim to check, not the card's memory
    m = _AFTER.match(text[span.end : span.end + 28]) or _BEFORE.search(text[max(0, span.start - 12) : span.start])
    if m is None:
        return
    memory = float(m.group("v"))
    try:
        spec = resolve_gpu(span.value or "")[0]
    except (AdvisorError, ValueError):
        return
    if abs(spec.vram_gib - memory) < 0.5 or not 4 <= memory <= 192 or spec.vendor == "apple":
        return
    q.gpu = None
    st.gpus = [s for s in st.gpus if s is not span]  # sized as a card of that memory from here on
    q.gpu_mentions = []
    q.gpu_counts = {}
    q.stated_capacity_gib = memory
    q.notes.append(note("card_memory_stated", gpu=spec.name, vram=memory, catalog_vram=spec.vram_gib))


def _card_memory_intents(st: _State) -> None:
    """ "can used for 5090d v2 24G ?", "5090D v2 24G 能用吗": the card with the memory the user gives and nothing else
    asked: what that memory holds answers it (card_memory_stated says which card it is sized as)."""
    q = st.q
    stated = any(getattr(n, "code", None) == "card_memory_stated" for n in q.notes)
    if stated and not q.intents and not (q.model or q.params_b or q.unknown_model):
        q.intents = ["capacity"]
        q.enough_asked = True  # a yes/no question about the card: whether it does, then what it holds
