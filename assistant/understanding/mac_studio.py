"""How a Mac is read: a bare "Mac Studio" asked about a model only its larger configuration holds, and a Mac's own
memory size, which is no floor on the cards asked about.

"Mac Studio" alone reads as the catalog's default Mac Studio (the M4 Max, 128 GB: what people mean for big models at
home). When the model named does not fit it but a current Mac Studio configuration holds it ("Mac Studio 能跑满血
DeepSeek R1 吗": only the M3 Ultra with 512 GB does), an expert answers about that configuration and names it; so the
question is sized on the smallest current Mac Studio that holds the model, and the answer says which one it is.
"""

from __future__ import annotations

import re

from assistant.understanding.text import _State

# the machine named without its chip or memory ("Mac Studio", "apple mac studio")
_BARE = re.compile(r"^(?:apple\s*)?mac\s*studio$", re.I)
_STUDIO = "Mac Studio "


def _configurations(default_id: str) -> list[str]:
    """The current Mac Studio configurations, smallest memory first: every chip sold in a Mac Studio since the default
    one was launched (a base row with a 'Mac Studio <chip>' alias) at each memory size the catalog lists."""
    from tools.catalog import catalog

    rows = catalog()
    default = rows[default_id]
    chips = {
        a[len(_STUDIO) :]
        for g in rows.values()
        if g.vendor == "apple" and g.launch_year and default.launch_year and g.launch_year >= default.launch_year
        for a in g.aliases
        if a.startswith(_STUDIO)
    }
    mine = [
        g
        for g in rows.values()
        if g.vendor == "apple"
        and (g.memory_config_of in chips or any(a[len(_STUDIO) :] in chips for a in g.aliases if a.startswith(_STUDIO)))
    ]
    return [g.id for g in sorted(mine, key=lambda g: g.vram_gib)]


# of a Mac's unified memory, what the GPU may wire once `iogpu.wired_limit_mb` is raised (macOS keeps the rest)
_WIRED_MAX = 0.9


def _holds(model: str, precision: str, gpu: str) -> bool:
    """The model fits the GPU's default share of the Mac's memory, or the share people raise it to."""
    from tools.catalog import catalog
    from tools.vram import VramRequest, estimate_vram

    est = estimate_vram(VramRequest(model=model, precision=precision, gpu=gpu, engine="llama.cpp"))
    return bool(est.fit and est.fit.fits) or est.per_gpu_gib <= _WIRED_MAX * catalog()[gpu].vram_gib


def _mac_studio_config(st: _State) -> None:
    """A bare "Mac Studio" with a model it holds only in a larger configuration: sized on that configuration."""
    from tools.notes import note

    q = st.q
    span = next((s for s in st.gpus if s.value and _BARE.match(s.text.strip())), None)
    if span is None or not span.value or not q.model or q.params_b:
        return
    precision = q.precision or "q4_k_m"  # what llama.cpp / MLX users load on a Mac
    try:
        if _holds(q.model, precision, span.value):
            return
        bigger = [g for g in _configurations(span.value) if g != span.value]
        pick = next((g for g in bigger if _holds(q.model, precision, g)), None)
    except Exception:  # an unknown model id or precision: the default row stays
        return
    if pick is None:
        return  # no Mac Studio holds it: the default's "does not fit" is the answer
    old = span.value
    span.value = pick
    q.gpu_mentions = [pick if g == old else g for g in q.gpu_mentions]
    q.gpu_counts = {(pick if k == old else k): v for k, v in q.gpu_counts.items()}
    q.gpu = pick if q.gpu == old else q.gpu
    from tools.catalog import catalog

    q.notes.append(note("mac_studio_config", gpu=catalog()[pick].name, default=catalog()[old].name))


def _mac_memory_no_floor(st: _State) -> None:
    """ "the M2 Max has a 38-core GPU w/ up to 96GB unified memory": a size said right after a Mac whose memory it is
    describes that Mac (its catalog row already has it), not a floor for a listing of cards with that much."""
    from tools.catalog import catalog

    q = st.q
    if q.min_vram_gib is None:
        return
    rows = catalog()
    size = re.compile(rf"(?<![0-9.]){q.min_vram_gib:g}\s*(?:gb|gib|g)(?![a-z])", re.I)
    for span in st.gpus:
        row = rows.get(span.value or "")
        if row is None or row.vendor != "apple" or abs(row.vram_gib - q.min_vram_gib) >= 0.5:
            continue
        if size.search(st.t.text[span.end : span.end + _MAC_MEMORY_NEAR]):
            q.min_vram_gib = None
            return


# how far after a Mac's name its memory may be described ("M2 Max has a 38-core GPU w/ up to 96GB unified memory")
_MAC_MEMORY_NEAR = 60
