"""The GPUs of one dual-GPU board counted as GPUs, not as boards.

A Tesla K80 or M60 is two GPUs on one board (an M10 four); CUDA lists each. "我有块 Tesla M60，怎么把两个GPU都用上"
asks how to use the board's own two GPUs, so the count of GPUs equal to the board's is no count of boards (the sizing
tools expand one board into its GPUs themselves, tools/boards.py). A count of cards or boards ("两块 M60", "two
M60s") is read with the card's name and stays.
"""

from __future__ import annotations

import re

from assistant.understanding.card_counts import first_general_count
from assistant.understanding.hardware import _general_count
from assistant.understanding.lexicon import _lex
from assistant.understanding.text import _State
from tools.catalog import catalog

# a count of GPUs (chips), not of cards or boards: "两个GPU", "both GPUs", "2 GPUs"
_GPU_WORD = re.compile(r"gpu|核心|芯片|chips?|dies?", re.I)
_CARD_WORD = re.compile(r"张|块|卡|cards?|boards?", re.I)


def _board_gpus(st: _State) -> int:
    """The GPUs on the one board named, or 1 (no card, several cards, or a single-GPU card)."""
    named = set(st.q.gpu_mentions)
    spec = catalog().get(next(iter(named))) if len(named) == 1 else None
    return spec.gpus_per_board if spec else 1


def _general_count_of_board(st: _State) -> None:
    """A card count with no GPU name (hardware._general_count), unless it counts the named board's own GPUs."""
    q = st.q
    free = not (q.num_gpus or q.gpus_together)
    m = first_general_count(_lex().rx["count_general"], st.t.view, st.t.text) if free else None
    _general_count(st)
    said = m.group(0) if m else ""
    if (
        m
        and q.num_gpus
        and q.num_gpus == _board_gpus(st) > 1
        and _GPU_WORD.search(said)
        and not _CARD_WORD.search(said)
    ):
        q.num_gpus = None
