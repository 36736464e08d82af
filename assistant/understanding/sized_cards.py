"""Cards named only by their memory, in the two shapes hardware.py's readers miss: a count times a size ("8*24G",
"4x16GB", "2×24G": N cards of that size) and a size the user says is all a card has ("单卡只有16GB显存", "with
8gb Vram", "only 12GB VRAM"). Either is the card the answer is sized on; no card name is guessed from it."""

from __future__ import annotations

import re
from functools import cache

from assistant.understanding.lexicon import _lex
from assistant.understanding.numbers import _in_range, _number
from assistant.understanding.patterns import _c
from assistant.understanding.text import _State

_MAX_COUNT = 64  # "8*24G" is a machine's cards; a count above a cluster's row is something else


@cache
def _patterns() -> tuple[re.Pattern[str], re.Pattern[str]]:
    """(a count times a card size, a card size after a word saying it is the card's)."""
    # "8*24G", "4x16GB", "2 × 24 GB": never RAM sticks ("2x16GB DDR5", "4*32G 内存") or a size per something else
    times = (
        r"(?<![0-9.])(?P<n>\d{1,2})\s*[*x×]\s*(?P<v>\d{1,3})\s*(?:gb|gib|g)(?![a-z0-9])"
        r"(?!\s*(?:的\s*)?(?:ddr|内存|ram|memory\b|系统内存|sticks?|条|硬盘|ssd|nvme|hdd))"
    )
    # "单卡只有16GB显存", "每张卡 24G 显存", "with 8gb Vram", "only 12GB VRAM", "have a 16 GB GPU memory": the size the
    # card has, unlike a size a job needs ("仅需22GB显存", "needs 40GB of VRAM")
    own = (
        r"(?:单卡|单张卡?|每张卡?|每卡|只有|仅有|才|\bwith\b|\bonly\b|\bhave\b|\bhas\b|\bgot\b|我这边|我这里|我这儿)\s*(?:一张|一块|a|an|one|just)?\s*"
        r"(?P<v>\d{1,3})\s*(?:gb|gib|g)\s*(?:of\s*)?(?:显存|vram|gpu memory|gpu ram|的显卡|的卡)(?![a-z])"
        # "12GB VRAM here", "8GB of VRAM on my laptop": the size said of the user's own machine
        r"|(?<![0-9.])(?P<h>\d{1,3})\s*(?:gb|gib|g)\s*(?:of\s*)?(?:vram|gpu memory)\s+(?:here|on my (?:end|card|gpu|pc|"
        r"machine|laptop|rig|system|box))(?![a-z])"
    )
    return _c(times), _c(own)


def _sized_cards(st: _State) -> None:
    """A card count and size, or a size alone, when no card is named and no size was read yet."""
    q = st.q
    if st.gpus or q.stated_capacity_gib is not None:
        return
    times, own = _patterns()
    m = times.search(st.t.view)
    if m:
        n, v = _number(m.group("n")), _in_range(_number(m.group("v")), 4, 512)
        if n and v and 1 <= n <= _MAX_COUNT:
            q.stated_capacity_gib = v
            q.num_gpus = int(n)  # "8*24G" is the count too, whatever "单卡" said before it
            st.t.take(m.start(), m.end())
            return
    m = own.search(st.t.view)
    if (
        m
        and m.group("h")
        and _lex().rx["stated_capacity_need_before"].search(st.t.view[max(0, m.start() - 14) : m.start()])
    ):
        m = None  # "it needs 24GB VRAM here": the job's need, not the user's card
    if m:
        q.stated_capacity_gib = _in_range(_number(m.group("v") or m.group("h")), 0, 100_000)
        return
    m = _EACH.search(st.t.view)
    if m:  # "我有4个gpu，每个24g", "4 GPUs, each 24GB": the count said, then each card's size
        n, v = _number(m.group("n")), _in_range(_number(m.group("v")), 4, 512)
        if n and v and 1 < n <= _MAX_COUNT:
            q.stated_capacity_gib, q.num_gpus = v, int(n)
            st.t.take(m.start(), m.end())


_EACH = _c(
    r"(?<![0-9.])(?P<n>\d{1,2})\s*(?:个|张|块)?\s*(?:gpus?|显卡|卡|cards?)\s*[,，、]?\s*(?:每个|每张|每块|每卡|\beach\b)"
    r"\s*(?:gpu|卡|显卡|card|has|with|is|有|是|都是)?\s*(?P<v>\d{1,3})\s*(?:gb|gib|g)(?![a-z0-9])"
)


@cache
def _several() -> re.Pattern[str]:
    # "可以调用多张显卡实现吗", "能不能多卡训练", "use multiple GPUs": more cards of the size, no count said
    return _c(
        r"多张(?:显)?卡|多块(?:显)?卡|多个\s*gpu|多\s*gpu|多卡|多显卡|几张(?:显)?卡|multiple\s+gpus?|several\s+gpus?|"
        r"more\s+gpus?|multi[- ]?gpu|more than one\s+(?:gpu|card)"
    )


def _several_of_size(st: _State) -> None:
    """ "单卡只有16GB显存 ... 可以调用多张显卡实现吗": the size is each card's and the count is the question (the
    "单卡" read as one card described the card, not the machine)."""
    q = st.q
    if st.gpus or q.stated_capacity_gib is None or (q.num_gpus or 1) > 1 or not _several().search(st.t.text):
        return
    q.num_gpus = None
    q.asks_gpu_count = True
