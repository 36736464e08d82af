"""Software named in a message, and the GPUs a "will X run on Y" question is about.

Engines, libraries, kernels, hardware features and GPU platforms ("vLLM", "llama.cpp", "FlashAttention-2", "bnb",
"BF16", "ROCm") become `support_subjects`: ids of knowledge/data/support.yaml, read through tools.support so every
id is one check_support accepts. Engine and library names are masked, so "llama.cpp" is never read as the model "llama";
feature names (BF16, FP8) stay readable as precisions. `support_targets` adds the GPUs the catalog lacks and the
ways people name a target instead of a card ("RX 6700 XT", "RTX 40 series", "gfx906", "sm_61", "M2 Pro") to the GPU
spans already read. The intent rule (`support_intent`) decides when such a message asks whether software runs.
"""

from __future__ import annotations

import re
from functools import cache

from assistant.understanding.card_joins import replaced
from assistant.understanding.lexicon import _lex
from assistant.understanding.patterns import _c, _langs, _rx
from assistant.understanding.query import ParsedQuery
from assistant.understanding.text import _State, link_spans, repository_span, without_pasted
from tools.catalog import catalog
from tools.support import subject_patterns, target_aliases, target_patterns

_GUARD_BEFORE, _GUARD_AFTER = r"(?<![a-z0-9])", r"(?![a-z0-9])"
_MAX_TARGETS = 8
_MAX_CHECKED = 4  # subjects and cards checked for a verdict short of yes (a pasted log names many)


@cache
def _subject_rx() -> list[tuple[str, str, re.Pattern[str]]]:
    return [(sid, kind, _c(f"{_GUARD_BEFORE}(?:{pattern}){_GUARD_AFTER}")) for sid, kind, pattern in subject_patterns()]


# an engine known only from its pasted log, as the support table's subject (llama.cpp runs on every card: none)
_LOG_SUBJECTS = {"vllm": "vllm"}


@cache
def _target_rx() -> list[tuple[str, re.Pattern[str]]]:
    """(kind, pattern): the support table's cards and families (longest names first), then targets named directly
    (gfx906, sm_61, compute capability 6.1) and Apple M-chips."""
    out = []
    for kind, family in (("card", False), ("family", True)):
        aliases = sorted({a for a, _, fam in target_aliases() if fam == family}, key=len, reverse=True)
        words = "|".join(re.escape(a).replace(r"\ ", r"\s*") for a in aliases)
        out.append((kind, _c(f"{_GUARD_BEFORE}(?:{words}){_GUARD_AFTER}")))
    pats = target_patterns()
    return [*out, *(("arch", _c(pats[k])) for k in ("gfx", "sm", "cc")), ("apple", _c(pats["apple"]))]


def _software(st: _State) -> None:
    """Engines, libraries, kernels, features and platforms named, first named first; engine names are masked."""
    view = st.t.view
    hits: list[tuple[int, int, str, str]] = []
    for sid, kind, rx in _subject_rx():
        hits += [(m.start(), m.end(), sid, kind) for m in rx.finditer(view)]
    hits.sort(key=lambda h: (h[0], -(h[1] - h[0])))
    taken: list[tuple[int, int, str, str]] = []
    for hit in hits:
        if not any(hit[0] < t[1] and t[0] < hit[1] for t in taken):
            taken.append(hit)
    for start, end, _, kind in taken:
        if kind != "feature":  # "FP8" stays a precision to run in; "llama.cpp" must not become a model
            st.t.take(start, end)
    # a link the user pastes ("github.com/vllm-project/vllm/issues/1374") is where they read, not what they ask
    links = link_spans(st.t.text)
    taken = [h for h in taken if not any(a <= h[0] and h[1] <= b for a, b in links)]
    st.q.support_subjects = list(dict.fromkeys(sid for _, _, sid, _ in taken))
    if not st.q.support_subjects and st.log_engine in _LOG_SUBJECTS:
        st.q.support_subjects = [_LOG_SUBJECTS[st.log_engine]]  # vLLM's own log pasted: the engine asked about
    repo = repository_span(st.t.text)
    if repo:
        inside = {sid for start, _, sid, _ in taken if start < repo[1]}
        st.repo_only_subjects = inside - {sid for start, _, sid, _ in taken if start >= repo[1]}


def _repository(st: _State) -> None:
    """The thread's repository ("[weicj/vLLM-2080Ti-Definitive] 双卡A4000有好的方案吗") names the project the
    question is asked in, not the user's hardware: once its model series is read, the GPU in its name is masked."""
    repo = repository_span(st.t.text)
    if repo:
        st.t.take(*repo)


def _target_spans(text: str) -> list[tuple[int, int, str, str]]:
    """(start, end, text, kind) of every target the support table names, first found first."""
    spans: list[tuple[int, int, str, str]] = []
    for kind, rx in _target_rx():
        for m in rx.finditer(text):
            if m.group(0).strip() and not any(m.start() < e and s < m.end() for s, e, _, _ in spans):
                spans.append((m.start(), m.end(), m.group(0).strip(), kind))
    return sorted(spans)


def _support_targets(st: _State) -> None:
    """The GPUs to check support on: the GPU spans read, with the support table's own names taking over a span
    they cover ("RX 6700 XT", "M2 Pro") or filling one the catalog could not read ("M60"). A family or a bare
    target ("Pascal", "gfx906") counts only when no card is named: "Pascal 的 P40" is about the P40."""
    items: list[tuple[int, int, str | None]] = [(g.start, g.end, g.value) for g in st.gpus]
    named_card = any(g.value for g in st.gpus)
    replaced: list[str] = []
    families: list[str] = []
    for start, end, text, kind in _target_spans(st.t.text):
        inside = [g for g in st.gpus if g.start < end and start < g.end]
        if kind in ("family", "arch") and named_card and not inside:
            continue
        if any(
            g.value in catalog() and start >= g.start and end <= g.end and end - start < g.end - g.start for g in inside
        ):
            continue  # "Ada" inside "RTX 6000 Ada" is the card's name, not the family
        covered = {(g.start, g.end) for g in inside}
        replaced += [g.text for g in inside if not g.value]
        families += [g.text for g in inside if not g.value and kind == "family"]
        items = [i for i in items if (i[0], i[1]) not in covered] + [(start, end, text)]
    st.q.support_targets = list(dict.fromkeys(v for _, _, v in sorted(items) if v))[:_MAX_TARGETS]
    # "M60" is a card the support table knows; "Will the RX7900 series be supported?" names a family, no unknown card
    if (st.q.support_subjects and st.q.unknown_gpu in replaced) or st.q.unknown_gpu in families:
        st.q.unknown_gpu, st.q.gpu_suggestions = None, []


def _support_subjects(st: _State) -> None:
    """A feature asked about a named card ("4090 支持 BF16 吗") is the card's fact, and formats weighed against each
    other ("FP8 vs BF16", "fp8 or awq") are a comparison: neither is a support question about the feature."""
    q = st.q
    asked = set(q.asks) | {c.topic for c in q.claims}
    weighed = len(st.precisions_found) >= 2
    features = {sid for sid, kind, _ in _subject_rx() if kind == "feature"}
    q.support_subjects = [e for e in q.support_subjects if e not in asked and not (weighed and e in features)]
    _llamacpp_flash_attention(q)


def _llamacpp_flash_attention(q: ParsedQuery) -> None:
    """FlashAttention asked with its llama.cpp flag ("-fa", "--flash-attn") or beside llama.cpp / Ollama ("does flash
    attention work on my P40 in ollama?") is llama.cpp's own kernels, which run on far older cards than the
    FlashAttention-2 library: answering FA2's Ampere floor would tell a P40 or V100 owner the wrong thing."""
    subjects = q.support_subjects
    own = "llamacpp_flash_attention"
    if "flash_attention_2" not in subjects and own not in subjects:
        return
    if own not in subjects and not {"llama_cpp", "ollama"} & set(subjects) and q.engine != "llama.cpp":
        return
    at = subjects.index("flash_attention_2") if "flash_attention_2" in subjects else subjects.index(own)
    rest = [s for s in subjects if s not in ("flash_attention_2", own)]
    q.support_subjects = [*rest[:at], own, *rest[at:]]


def _fit_asked_first(q: ParsedQuery, out: dict[str, int], strong: int | None, has_model: bool) -> bool:
    """ "Is it possible to run 7B on a MacBook Pro M1? ... tried to run on my machine": no software named and the
    model asked about first: whether it runs there leads, what runs on the card follows."""
    return has_model and not q.support_subjects and strong is not None and out.get("fit", strong) < strong


def _replacing(st: _State, out: dict[str, int]) -> bool:
    """ "my old 1080 is no longer supported, so I'm replacing it: 4070 Super or 3090?": why the old card goes, not a
    support question (the cards weighed are)."""
    return "compare" in out and replaced(st.t.view, st.gpus) is not None


def support_intent(st: _State, pos: dict[str, int], out: dict[str, int], has_gpu: bool, has_model: bool) -> None:
    """support: software or a feature named with a GPU ("vLLM 能在 P40 上跑吗", "FP8 on a 3090?"), or a support word
    with a target the support table names ("gfx906 not supported", "Does it support RTX 40 series?"). With a model
    named, or numbers quoted, only a support word makes it one ("Llama 70B in FP8 on 8x H100" sizes a job)."""
    q = st.q
    strong = pos.get("support_strong")
    replacing = _replacing(st, out)
    if replacing or not (q.support_targets or has_gpu):
        if q.support_subjects and not (has_model or replacing) and _failure_words().search(without_pasted(st.t.text)):
            # "cuda什么配置呀，驱动和 toolkit 都是12.8还是报错": the software fails on the conversation's card (the
            # planner takes it from the scenario), not a question about building a machine
            out.pop("build", None)
            out["support"] = -1
        return
    sized = strong is not None and has_model and has_gpu  # a support word, a model or a size and a card
    if not q.support_subjects and (strong is None or not _names_a_target(st) or sized):
        _no_software(st, out, sized, strong is not None and has_gpu and not has_model, strong)
        return
    # "[weicj/vLLM-2080Ti-Definitive] 双卡A4000有好的方案吗": the engine in use, not the question
    repo_only = strong is None and set(q.support_subjects) <= st.repo_only_subjects
    if repo_only or _engine_beside_capacity(st, strong, pos, out):
        return
    if strong is None and (has_model or q.quoted_tflops or q.quoted_gbs or q.claims):
        # "serve Llama-3.1-8B with vLLM on 2x 4090, how fast?": the engine is context, not the question, unless the
        # engine does not fully run on the card: then its verdict belongs in the answer, first when the user says it
        # fails ("impossible to run Qwen3-30B-AWQ on the V100 using vllm")
        if _short_of_support(q):
            failing = bool(_failure_words().search(st.t.text))
            out["support"] = -1 if failing else max(out.values(), default=0) + 1
            if failing and not (q.asks or q.claims):
                out.pop("gpu_info", None)
        return
    others = [k for k in out if k not in ("fit", "memory", "gpu_info", "capacity")]  # capacity: a fit naming no model
    asked_first = strong is not None and all(strong < out[k] for k in others)  # "Does it support X? ... buy?"
    # "the state of AMD support" beside a sizing question; "FA2不支持V100。……我的疑问是：①…？": the user's background
    background = bool(out) and has_model and _stated_not_asked(st.t.text, strong)
    background = background or _fit_asked_first(q, out, strong, has_model)
    if (others and (strong is None or not q.support_subjects) and not asked_first) or background:
        out["support"] = max(out.values(), default=0) + 1
        return
    out["support"] = -1  # the verdict leads
    if not has_model:
        for intent in ("fit", "memory"):  # "P40 能跑 vLLM 吗" asks about the engine, not a model's size
            out.pop(intent, None)
    if not (q.asks or q.claims):
        out.pop("gpu_info", None)


_ASKING = re.compile(r"[?？吗么呢]|能否|是否|能不能|可不可以|\b(?:can|does|do|will|is|are|whether)\b", re.I)
_SENTENCE_END = re.compile(r"[。！!？?\n]|\.\s")


def _stated_not_asked(text: str, at: int | None) -> bool:
    """The support word sits in a sentence that states a fact ("flashAttention2不支持V100。"), not a question, and
    the message asks its questions elsewhere (a "？" after it): the verdict is the user's background, not what leads."""
    if at is None:
        return False
    ends = [m.end() for m in _SENTENCE_END.finditer(text, 0, at)]
    start = ends[-1] if ends else 0
    end_m = _SENTENCE_END.search(text, at)
    end = end_m.end() if end_m else len(text)
    sentence = text[start:end]
    return not _ASKING.search(sentence) and bool(re.search(r"[?？]", text[end:]))


def _engine_beside_capacity(st: _State, strong: int | None, pos: dict[str, int], out: dict[str, int]) -> bool:
    """ "I use vLLM. What's the biggest model I can run on a 4090?": the engine shapes the sizes (its headroom, the
    formats it loads) and the biggest model is the question; the engine's verdict leads only when it is no or a
    caveat. A support word before the question ("Does vLLM support the 4090, and ...") asks both."""
    q = st.q
    if not q.capacity_asked or (strong is not None and strong < pos["capacity"]) or _names_a_target(st):
        return False
    if _short_of_support(q):
        out["support"] = -1
    return True


def _card_support_asked(q: ParsedQuery, bare: bool) -> None:
    """ "Are V100s supported?", "2080ti 还支持吗": a support word, a card and nothing else (no software, feature,
    model, job or spec asked): what still runs on the card (the risk intent) answers it."""
    if bare and not (q.asks or q.claims or q.mode):
        q.asks_card_support = True


@cache
def _failure_words() -> re.Pattern[str]:
    return _rx(_langs(_lex().raw["intents"]["support"]["failure"]))


def _short_of_support(q: ParsedQuery) -> bool:
    """Whether software the message names does not fully run on a card it names, in the format named (the support
    table's verdict is no or a caveat): "vLLM AWQ on a V100", "Unsloth on a GTX 1080"."""
    from tools.errors import AdvisorError
    from tools.support import SupportRequest, check_support

    # a card the catalog holds, or one the message names that only the fallback table knows ("RX 6600 XT"); never
    # a family ("RTX 40 series"), whose verdict is not one card's
    cards = list(
        dict.fromkeys(t for t in (*q.support_targets, *q.gpu_mentions) if t in catalog() or t in q.gpu_mentions)
    )
    cards = cards[:_MAX_CHECKED]
    platforms = {sid for sid, kind, _ in _subject_rx() if kind == "platform"}  # "CUDA" in a log is no engine choice
    subjects = [s for s in q.support_subjects if s not in platforms][:_MAX_CHECKED]
    for subject in subjects:
        for gpu in cards:
            try:
                r = check_support(SupportRequest(engine=subject, gpu=gpu, precision=q.precision))
            except (AdvisorError, ValueError):
                try:
                    r = check_support(SupportRequest(engine=subject, gpu=gpu))
                except (AdvisorError, ValueError):
                    continue
            if r.verdict != "yes":
                return True
    return False


def _feature_verdict_asked(q: ParsedQuery, out: dict[str, int], at: int) -> bool:
    """ "Llama3.1-70B-FP8 ... Does it mean that 3090 no longer supports FP8?": a support word asking whether the card
    has a feature the support table rules on (BF16, FP8, FP4), beside a model named. That verdict, and what to use
    instead, leads; the model is sized after it. Asked alone ("4090 支持 BF16 吗") it is the card's fact (gpu_info)."""
    features = {sid for sid, kind, _ in _subject_rx() if kind == "feature" and sid != "p2p"}
    if not set(q.asks) & features:
        return False
    # a question asked before it keeps its place ("fp8 和 bf16 速度差多少？4090 支持 fp8 吗": the speeds lead)
    before = [p for i, p in out.items() if i in ("speed", "compare") and p < at]
    out["support"] = at if before else min(out.values(), default=0) - 1
    return True


def _no_software(st: _State, out: dict[str, int], sized: bool, bare: bool, worded: int | None = None) -> None:
    """A support word (at `worded`) with no software named. A feature asked beside a model leads (see
    `_feature_verdict_asked`). With a model or a size on a card ("Will M2 Ultra be supported to use LLM of 100B
    paras?", "does the 3060 support a 13B model"), whether it runs there leads, and what runs on a card the support
    table names its own way follows; otherwise a bare card's support (`bare`)."""
    if worded is not None and sized and _feature_verdict_asked(st.q, out, worded):
        return
    if not sized:
        _card_support_asked(st.q, bare)
        return
    out["fit"] = min(out.values(), default=0) - 1
    if _names_a_target(st):
        out["support"] = max(out.values()) + 1


def _names_a_target(st: _State) -> bool:
    """A GPU named the support table's way ("RTX 40 series", "gfx906", "M60"), not only a catalog card."""
    return any(t not in catalog() for t in st.q.support_targets)
