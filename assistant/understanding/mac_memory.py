"""A Mac named by the machine and its memory, with no chip: "a constrained 16GB MacBook Pro", "my MacBook Air (16GB)",
"Mac mini 24G".

What a Mac holds is decided by its unified memory: macOS lets the GPU wire the same share of it whatever the chip
(knowledge/data/apple_silicon.yaml, gpu_memory_share), so the fit verdict is the same for every chip sold with that
size. The question is sized on the catalog's Apple row of that size with the lowest bandwidth (the slowest chip sold
with it: a speed that is a floor, not a promise) and the answer says so.
"""

from __future__ import annotations

import re

from assistant.understanding.text import _State

# the machine, not the chip ("MacBook Pro", "Mac mini", "iMac"); a chip named ("M2 Max") is read by the GPU reader
_MACHINE = r"(?:macbook(?:\s*(?:pro|air))?|mac\s*mini|mac\s*studio|imac|mac\s*pro|(?<![a-z])mac(?![a-z]))"
_SIZE = r"\d{1,3})\s*(?:gb|gib|g)(?![a-z0-9])"
# "16GB MacBook Pro", "16 GB of memory on my MacBook", "MacBook Air (16GB)", "Mac mini 24G", "Mac with 16GB of memory"
_NEAR = re.compile(
    rf"(?P<a>{_SIZE}[^,，;；。.?？!！\n\d]{{0,24}}?{_MACHINE}|{_MACHINE}[^,，;；。.?？!！\n\d]{{0,24}}?(?P<b>{_SIZE}",
    re.I,
)


# "a 2019 MacBook Pro", "2018款 Mac mini": a Mac from before Apple silicon (the M1 came in late 2020) has an Intel CPU
# and no unified-memory GPU to size
_INTEL_YEAR = re.compile(rf"(?<![0-9])20(?:0\d|1\d)\s*(?:款|年|年款)?\s*(?:的\s*)?{_MACHINE}", re.I)


# ">= 192 GB", "256G 内存以上", "at least 64GB": a memory floor for a Mac still to be found (a search), not one machine
_FLOOR = re.compile(r">=|≥|以上|至少|起步|at\s+least|or\s+more|\bminimum\b|\bmin\.?\s", re.I)


# "my 4090 can't handle them", "the 4090 can't run 65B", "3090 不够": the card named is why a Mac is weighed
_SHORT = re.compile(
    r"^\W{0,3}(?:\w+\W+){0,2}?(?:can\W?t|cannot|won\W?t|couldn\W?t|isn\W?t enough|is not enough|is too small)\s+"
    r"(?:handle|run|fit|load|hold)?|^\s*(?:跑不了|跑不动|不够|带不动|装不下)",
    re.I,
)


def falls_short(text: str, end: int) -> bool:
    """Whether the words right after a card (ending at `end`) say it cannot run the job."""
    return bool(_SHORT.search(text[end : end + 32]))


def _cards_fall_short(st: _State) -> bool:
    """Every card named is one the user says cannot run the job, and a Mac is what they would buy: the Mac is asked
    about ("Thinking of buying a 96 gig MacBook Pro for 65B since my 4090 can't handle them")."""
    named = [s for s in st.gpus if s.value]
    return (
        st.q.buy_or_rent == "buy" and bool(named) and all(_SHORT.search(st.t.text[s.end : s.end + 32]) for s in named)
    )


def _mac_without_chip(st: _State) -> None:
    """A Mac with its memory and no chip, and no other GPU named: sized as the slowest chip sold with that memory."""
    from tools.catalog import catalog
    from tools.notes import note

    q = st.q
    if q.vendor != "apple" or q.unknown_gpu or ((q.gpu or q.gpu_mentions) and not _cards_fall_short(st)):
        return
    m = _NEAR.search(st.t.text)
    if m is None or _INTEL_YEAR.search(st.t.text) or _FLOOR.search(st.t.text[max(0, m.start() - 12) : m.end() + 12]):
        return
    gib = float(m.group("a") or m.group("b"))
    rows = [g for g in catalog().values() if g.vendor == "apple" and abs(g.vram_gib - gib) < 0.5]
    if not rows:
        return
    pick = min(rows, key=lambda g: (g.bandwidth_gbs, g.launch_year or 0))
    if q.gpu and q.gpu != pick.id:  # the card said to fall short: named once, not sized
        q.ruled_out_gpu, q.ruled_out_by = q.gpu, "capacity"
    q.gpu, q.gpu_mentions, q.gpu_counts = pick.id, [pick.id], {pick.id: 1}
    q.num_gpus = None if q.num_gpus == 1 else q.num_gpus
    if q.stated_capacity_gib is not None and abs(q.stated_capacity_gib - gib) < 0.5:
        q.stated_capacity_gib = None  # "Mac mini 24G" is the Mac's memory, not a 24 GB card
    if q.min_vram_gib is not None and abs(q.min_vram_gib - gib) < 0.5:
        q.min_vram_gib = None
    q.notes.append(note("mac_no_chip", gpu=pick.name, gb=gib, usable=round(pick.usable_memory_gib, 1)))
