"""Inference split over several cards, when the user asks whether the cards' memory adds up ("两张 4090 显存能合起来
用吗", "插两块卡把显存合并", "can two 3090s pool their VRAM for a 13B?"): it does, once the engine splits the model
over them, so the answer says how (tensor parallel in vLLM / SGLang, layers by device_map or llama.cpp). Training
is pooled.py's and per_card.py's (data parallel keeps a copy per card); this is the inference side of the same
question, written after the verdict on the user's cards."""

from __future__ import annotations

from assistant.capabilities.base import Turn
from assistant.strings import Writer
from tools.vram import VramResult


def split_how(w: Writer, turn: Turn) -> None:
    """How the model is split over the cards it fits on (the format as asked, or the one that fits), when pooling
    the memory was asked; once per answer."""
    if not turn.parsed.asks_per_card:
        return
    for _, r in turn.results(VramResult):
        f = r.fit
        if r.mode != "inference" or f is None or not f.fits or f.num_gpus < 2:
            continue
        if f.mixed_gpus:
            return  # different cards: memory.py's mixed verdict already says to split by layers
        line = w.t("inference_split_how", n=f.num_gpus)
        if line not in w.lines:
            w.add(line)
        return
