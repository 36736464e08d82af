"""One card named with two of its memory sizes ("4060 Ti 8G 和 16G 差多少", "V100 16G/32G", "A100 40G 还是 80G",
"the MI50 16GB or 32GB"): both catalog versions are the cards asked about, not only the one the name resolved to.
Only sizes the card is sold in are read (its catalog siblings: same id but the size); memory-modified cards keep to
their own aliases (understanding/risk.py). A memory in use stated right after such a card ("4060TI占用14.3G显存",
"the 3060 uses 11.5 GB") more than its smaller version holds names the version that holds it."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from tools.catalog import catalog

if TYPE_CHECKING:
    from assistant.understanding.text import _State

_SIZE = r"(?P<{}>\d{{1,3}})\s*(?:g(?:b|ib)?)?"
_JOIN = r"\s*(?:和|与|跟|还是|或者|或|对比|比|vs\.?|versus|or|and|/|、)\s*(?:the\s+)?"
_PAIR = re.compile(_SIZE.format("a") + _JOIN + _SIZE.format("b") + r"\s*g(?:b|ib)?(?![a-z0-9])", re.I)
_STEM = re.compile(r"-\d+gb(?=-|$)")
_SIZE_SAID = re.compile(r"\d{1,3}\s*g(?:b|ib)?(?![a-z])", re.I)
# the memory a run of that card uses, said right after its name
_IN_USE = re.compile(
    r"^[^。；;，,.\n]{0,12}?(?:占用了?|用了|使用了?|吃了|uses?|using|used)\s*(?:about|约|大约)?\s*(?P<v>\d{1,3}(?:\.\d)?)\s*g",
    re.I,
)


def _siblings(gpu_id: str) -> dict[int, str]:
    """The catalog versions of one card by memory size (GiB -> id): empty for a card sold in one size."""
    stem = _STEM.sub("", gpu_id)
    versions = {round(g.vram_gib): g.id for g in catalog().values() if not g.unofficial and _STEM.sub("", g.id) == stem}
    return versions if len(versions) > 1 else {}


def _memory_pair(st: _State) -> None:
    for m in _PAIR.finditer(st.t.text):
        sizes = {int(m.group("a")), int(m.group("b"))}
        for gpu_id in list(st.q.gpu_mentions):
            versions = _siblings(gpu_id)
            if len(sizes) == 2 and sizes <= set(versions):
                for size in sorted(sizes):
                    if versions[size] not in st.q.gpu_mentions:
                        st.q.gpu_mentions.append(versions[size])
                # "did you use 40G or 80G?" of the A100s: the card's versions, not a memory the job is said to need
                st.q.quoted_memory_gib = [v for v in st.q.quoted_memory_gib if round(v) not in sizes]
                if st.q.min_vram_gib is not None and round(st.q.min_vram_gib) in sizes:
                    st.q.min_vram_gib = None
                return


def _version_in_use(st: _State) -> None:
    """A card whose stated memory in use is more than its version holds: the sibling version that holds it."""
    for span in st.gpus:
        versions = _siblings(span.value or "")
        m = _IN_USE.search(st.t.text[span.end : span.end + 40]) if versions else None
        if m is None:
            continue
        named = st.t.text[span.start : span.end] + m.group(0)[: m.start("v")]
        if _SIZE_SAID.search(named):
            continue  # "RTX 3060 8GB is using 10.5 GB": the user's own version, whatever the count shows
        used = float(m.group("v"))
        current = catalog()[span.value].vram_gib if span.value in catalog() else None
        bigger = [versions[k] for k in sorted(versions) if k >= used]
        if current is None or used <= current or not bigger or bigger[0] == span.value:
            continue
        st.q.gpu_mentions = [bigger[0] if g == span.value else g for g in st.q.gpu_mentions]
        if st.q.gpu == span.value:
            st.q.gpu = bigger[0]
