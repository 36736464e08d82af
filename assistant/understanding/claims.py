"""What the message says about GPUs: quoted TFLOPS and GB/s, topics named, questions asked (asks), things
asserted (claims), concepts, and the greeting and advice cues."""

from __future__ import annotations

import itertools

from assistant.understanding.hardware import _resolve_gpu_span
from assistant.understanding.lexicon import _lex
from assistant.understanding.numbers import _number
from assistant.understanding.query import Claim
from assistant.understanding.text import _MAX_SPANS, _Clause, _clauses, _GpuSpan, _State
from tools.catalog import catalog

_CLAIM_GAP = 24  # at most this many characters between a GPU and a feature for a statement about that GPU


def _quoted_numbers(st: _State) -> None:
    """TFLOPS and GB/s figures the user quotes ("312 TFLOPS", "989T", "1008 GB/s"), to check against the catalog."""
    st.q.quoted_tflops = _quoted(st, "quoted_tflops", float(_lex().raw["quoted_numbers"]["tflops_min"]))
    st.q.quoted_gbs = _quoted(st, "quoted_gbs", 0.0)


def _quoted(st: _State, pattern: str, floor: float) -> list[float]:
    values: list[float] = []
    for m in itertools.islice(_lex().rx[pattern].finditer(st.t.view), _MAX_SPANS):
        value = _number(m.group("v"))
        if value is not None and value >= floor:  # below the floor "8T" is a size, not a throughput
            values.append(value)
            st.t.take(m.start(), m.end())
    return values


def _topics(st: _State) -> None:
    """What the user asks about a GPU (asks), asserts about it (claims), and which topics the message names."""
    lex = _lex()
    claims: list[Claim] = list(st.q.claims)
    asks: list[str] = []
    mentioned: dict[str, int] = {}
    for clause in _clauses(st):
        for topic, topic_rx in lex.topics.items():
            for tm in topic_rx.finditer(clause.text):
                mentioned.setdefault(topic, clause.start + tm.start())
                _topic_mention(st, clause, topic, (clause.start + tm.start(), clause.start + tm.end()), claims, asks)
    claims += _stated_vram_claims(st)
    unique: dict[tuple[str, str | None], Claim] = {}
    for c in claims:
        unique.setdefault((c.topic, c.gpu), c)
    st.q.claims = list(unique.values())
    st.q.asks = list(dict.fromkeys(asks))
    st.q.topics_mentioned = sorted(mentioned, key=lambda t: mentioned[t])


def _topic_mention(
    st: _State, clause: _Clause, topic: str, span: tuple[int, int], claims: list[Claim], asks: list[str]
) -> None:
    """One topic word: a claim about the GPU named just before it, or a question about the GPUs named."""
    rx, text = _lex().rx, st.names_masked
    gpu = next((g for g in reversed(clause.gpus) if g.end <= span[0]), None)
    if gpu is not None:
        gap = rx["not_negation"].sub(" ", text[gpu.end : span[0]])
        handled, claim = _claim(st, clause, topic, gpu, gap, span[1]) if len(gap) <= _CLAIM_GAP else (False, None)
        if claim is not None:
            claims.append(claim)
            asks += [topic] if isinstance(claim.asserted, bool) else []
        if handled:
            return
    if _asks_about(st, clause, topic):
        asks.append(topic)


def _claim(st: _State, clause: _Clause, topic: str, gpu: _GpuSpan, gap: str, end: int) -> tuple[bool, Claim | None]:
    """A claim about gpu ("4090 不支持 BF16", "A100 有 120 TFLOPS"), and whether the mention is settled by it."""
    lex = _lex()
    rx, text = lex.rx, st.names_masked
    rest = text[end : clause.end]
    if topic in lex.raw["claim_topics"]:
        if rx["negation"].search(gap) or rx["negated_after"].match(rest):
            return True, Claim(topic=topic, gpu=gpu.value, asserted=False)
        if rx["assert"].search(gap) and (not clause.is_question or clause.presumptive):
            return True, Claim(topic=topic, gpu=gpu.value, asserted=True)
    if topic in ("vram", "tflops"):
        nm = rx[f"{topic}_in_gap"].fullmatch(gap) or rx[f"{topic}_after_word"].match(rest)
        if nm:
            value = float(nm.group("v").replace(",", ""))
            differs = topic == "tflops" or _differs_from_catalog(gpu.text, value, gpu.value, gpu.count or st.q.num_gpus)
            return True, Claim(topic=topic, gpu=gpu.value, asserted=value) if differs else None
    return False, None


def _asks_about(st: _State, clause: _Clause, topic: str) -> bool:
    lex, q = _lex(), st.q
    if topic in lex.raw["format_topics"] and not lex.rx["support"].search(clause.text):
        return False  # "405B FP8 需要几台 H100": FP8 is the precision, not a question about the GPU
    if topic == "vram" and (q.model or q.params_b or q.unknown_model):
        return False  # "70B 要多少显存" sizes the job
    return (clause.is_question or clause.presumptive) and bool(clause.gpus or q.gpu)


def _stated_vram_claims(st: _State) -> list[Claim]:
    """Memory sizes stated right after a GPU with no memory word ("the 4090 has 32GB", "4090 有 48G")."""
    rx, text = _lex().rx, st.names_masked
    claims = []
    for g in st.gpus:
        m = rx["vram_after_gpu"].match(text[g.end : g.end + 24]) if g.value else None
        if m and _differs_from_catalog(g.text, float(m.group("v").replace(",", "")), g.value, g.count or st.q.num_gpus):
            claims.append(Claim(topic="vram", gpu=g.value, asserted=float(m.group("v").replace(",", ""))))
    return claims


def _differs_from_catalog(gpu_text: str, vram_gib: float, value: str | None = None, count: int | None = None) -> bool:
    """Whether the size differs from the card read ("M2 Ultra with 64G" already read as the 64GB M2 Ultra). With
    several cards the size may be their total ("Combined VRAM of 2 5090 is 64 GB", "两张 4090 共 48G"): not a claim."""
    read = catalog().get(value or "")
    gib = read.vram_gib if read else _resolve_gpu_span(gpu_text).vram_gib
    if gib is not None and count and count > 1 and abs(vram_gib - count * gib) <= 0.5 * count:
        return False
    return gib is None or abs(vram_gib - gib) > 0.5


def _concepts(st: _State) -> None:
    found = sorted((m.start(), name) for name, rx in _lex().concepts.items() if (m := rx.search(st.t.text)))
    st.q.concept_terms = [name for _, name in found]


def _cues(st: _State) -> None:
    """Greetings and advice questions: the planner answers these from the guides, not a calculator."""
    rx = _lex().rx
    st.q.greeting = bool(rx["greeting"].search(st.t.text))
    st.q.advice = bool(rx["advice"].search(st.t.text))
