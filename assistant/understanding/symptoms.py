"""A problem reported on the user's own run: the measured speed or memory, the symptom, the settings named.

"只有 4 tokens/s", "3-5 tokens/s", "51.82s/it", "1 token/min", "71 tokens/second > 66", "用了 27G 内存", "还是 OOM",
"双卡比单卡慢一倍", "--enforce-eager --tensor-parallel-size 4", "from_pretrained(device_map=auto)". Wording lives in
knowledge/data/lexicon.yaml (`diagnosis`); engine names come from the support table (understanding/software.py
`support_subjects`), only the few it lacks from here. `diagnose_intent` decides when such a message asks "why".
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cache

from assistant.understanding.lexicon import _lex, lexicon_pattern, lexicon_raw
from assistant.understanding.patterns import _c, _langs
from assistant.understanding.ranked import stated_expected, stated_inversion
from assistant.understanding.run_log import log_noise
from assistant.understanding.text import _mask, _State

_SYMPTOM_ORDER = (
    "killed",
    "multi_gpu_slower",
    "oom",
    "crash",
    "one_gpu_used",
    "cpu_fallback",
    "low_util",
    "memory_high",
    "slow_load",
    "slow",
)
# Question types a diagnosis answers in their place: it computes the ceiling, the memory and the fit itself
_REPLACED = (
    "speed",
    "fit",
    "memory",
    "compare",
    "concept",
    "support",
    "gpu_info",
    "offload",
    "catalog",
    "capacity",
    "build",  # "my 4x 4090 rig OOMs": the rig is the setting, not a machine to plan
)
_MAX_SPEED = 1e6
# A measured speed stated flatly beside a model and a card, with no question of another kind, reports a problem
_SIZING = {"fit", "speed", "memory", "offload", "gpu_info"}
_ASKS = re.compile(r"[?？吗呢]|(?<![a-z])(?:can|could|will|would|should|which|what|how|whether|if)(?![a-z])", re.I)


@dataclass(frozen=True)
class _Rx:
    speeds: tuple[tuple[re.Pattern[str], str], ...]
    steps: tuple[tuple[re.Pattern[str], str], ...]
    target: re.Pattern[str]
    target_floor: re.Pattern[str]
    memory: tuple[re.Pattern[str], ...]
    log_capacity: re.Pattern[str]
    tp_size: tuple[re.Pattern[str], ...]
    flags: tuple[tuple[str, re.Pattern[str]], ...]
    from_pretrained: re.Pattern[str]
    dtype_set: re.Pattern[str]
    dtype_missing: re.Pattern[str]
    engines: tuple[tuple[str, re.Pattern[str]], ...]
    hypothetical: re.Pattern[str]
    symptoms: tuple[tuple[str, re.Pattern[str]], ...]
    complaint: re.Pattern[str]
    run_time: re.Pattern[str]
    run_time_doubt: re.Pattern[str]


@cache
def _rx() -> _Rx:
    d = lexicon_raw()["diagnosis"]

    def full(pattern: str) -> re.Pattern[str]:
        text = pattern.replace("{unit}", d["unit"]).replace("{duration}", d["duration"])
        return _c(text.replace("{number}", d["number"]))

    return _Rx(
        speeds=tuple((full(s["pattern"]), s["kind"]) for s in d["speeds"]),
        steps=tuple((full(s["pattern"]), s["kind"]) for s in d["steps"]),
        target=full(d["target"]),
        target_floor=full(d["target_floor"]),
        memory=tuple(full(p) for p in d["memory"]),
        log_capacity=_c(d["log_capacity"]),
        tp_size=tuple(full(p) for p in d["tensor_parallel_size"]),
        flags=tuple((name, lexicon_pattern(words)) for name, words in d["flags"].items()),
        from_pretrained=lexicon_pattern(d["from_pretrained"]),
        dtype_set=lexicon_pattern(d["dtype_set"]),
        dtype_missing=lexicon_pattern(d["dtype_missing"]),
        engines=tuple((name, lexicon_pattern(words)) for name, words in d["engines"].items()),
        hypothetical=lexicon_pattern(d["hypothetical"]),
        symptoms=tuple((name, lexicon_pattern(_langs(d["symptoms"][name]))) for name in _SYMPTOM_ORDER),
        complaint=lexicon_pattern(d["complaint"]),
        run_time=_c(d["run_time"]),
        run_time_doubt=lexicon_pattern(d["run_time_doubt"]),
    )


def _number(text: str | None) -> float | None:
    try:
        value = float(text or "")
    except ValueError:
        return None
    return value if 0 < value <= _MAX_SPEED else None


_SECONDS = {"h": 3600, "小": 3600, "钟": 3600, "m": 60, "分": 60, "s": 1, "秒": 1}
_TOKENS_PER_WORD = 1.3  # an English word is ~1.3 tokens; a Chinese character about one


def _tokens_in_time(m: re.Match[str]) -> list[float]:
    """'took 2 hr to generate 6 words' -> tokens per second."""
    t, n = _number(m.group("t")), _number(m.group("n"))
    if t is None or n is None:
        return []
    per_token = _TOKENS_PER_WORD if m.group("w").lower().startswith("word") else 1.0
    return [n * per_token / (t * _SECONDS[m.group("u")[0].lower()])]


def _speed_values(m: re.Match[str], kind: str) -> list[float]:
    """The speeds (tokens/s) one match states, in the order written."""
    if kind == "tokens_in_time":
        return _tokens_in_time(m)
    v = _number(m.group("v"))
    if v is None:
        return []
    if kind == "pair":
        a = _number(m.group("a"))
        return [a, v] if a is not None else [v]
    per = {"per_minute": v / 60, "seconds_per_token": 1 / v, "ms_per_token": 1000 / v}
    return [per.get(kind, v)]


def _measured(st: _State) -> None:
    """Speeds, a training step time, a target speed, memory in use and a tensor-parallel size (spans, masked)."""
    rx, q, view = _rx(), st.q, st.t.view
    floors = [m for m in rx.target_floor.finditer(view) if _number(m.group("v") or m.group("w"))]
    for m in floors[:1]:  # "5 tokens/s or more": what the user wants, not what they measured
        q.target_tokens_per_s = _number(m.group("v") or m.group("w"))
        st.t.take(m.start(), m.end())
    view = st.t.view
    targets = [m for m in rx.target.finditer(view) if _number(m.group("v"))]
    speeds: list[tuple[int, list[float]]] = []
    for pattern, kind in rx.speeds:
        for m in pattern.finditer(st.t.view):
            inside_target = any(t.start() <= m.start() < t.end() for t in targets)
            if inside_target or not st.t.is_free(m.start(), m.end()) or not (values := _speed_values(m, kind)):
                continue
            speeds.append((m.start(), values))
            st.t.take(m.start(), m.end())
    speeds += _bare_speeds(st, speeds)
    speeds = [(at, _shared(st, at, values)) for at, values in speeds]  # "4090和L40均达到50以上": one speed each
    logged = q.measured_speeds  # a pasted log's generation speed (understanding/run_log.py) comes first
    q.measured_speeds = [*logged, *(round(v, 4) for _, values in sorted(speeds) for v in values)]
    gpus = [g for at, values in sorted(speeds) for g in _gpus_of(st, at, len(values))]
    q.measured_speed_gpus = [None] * len(logged) + gpus
    q.measured_speed_models = [None] * len(logged) + [_model_before(st, at) for at, vs in sorted(speeds) for _ in vs]
    q.measured_tokens_per_s = q.measured_speeds[0] if q.measured_speeds else None
    _steps(st)
    _run_time(st)
    if (speeds or logged) and targets:  # a target is read beside a measured speed, typed or logged
        q.target_tokens_per_s = _number(targets[0].group("v"))
        st.t.take(targets[0].start(), targets[0].end())
    _memory_in_use(st)
    for pattern in rx.tp_size:
        if (m := pattern.search(st.t.view)) and (n := int(m.group("n"))) >= 1:
            st.t.take(m.start(), m.end())
            q.num_gpus = q.num_gpus or n
            break
    _flags(st)


# a number right after another card, once a speed with its unit is read ("H100 38 tokens/s, a 4090 gives 55",
# "A800 上 35 tokens/s，3090 上 48"): that card's speed in the same unit; never a size, count, price or percentage
_BARE_SPEED = re.compile(
    r"\s*(?:上面?|上是|上有|上跑|是|有|能|能到|跑|:|：|=|gives?|gets?|does|do|did|runs?|ran|at|is|was|hits?|reaches)?\s*"
    r"(?:about|around|roughly|only|约|大约|大概|只有)?\s*(?P<v>\d{1,4}(?:\.\d+)?)(?!\.?\d)"
    r"(?!\s*(?:%|gb|g\b|gib|tb|mb|w\b|b\b|k\b|x|×|\*|张|块|卡|台|元|块钱|美元|刀|万|个|核|层|位|bit|-?bit|°|度))",
    re.I,
)
_BARE_RANGE = 3.0  # within 3x of a speed stated with its unit: the same measurement on another card


def _bare_speeds(st: _State, speeds: list[tuple[int, list[float]]]) -> list[tuple[int, list[float]]]:
    """Speeds written without a unit right after a card, beside one written with it."""
    stated = [v for _, values in speeds for v in values]
    if not stated:
        return []
    with_speed = {_gpu_before(st, at) for at, _ in speeds}
    out: list[tuple[int, list[float]]] = []
    for g in sorted((g for g in st.gpus if g.value and g.value not in with_speed), key=lambda g: g.end):
        m = _BARE_SPEED.match(st.t.text, g.end)
        v = _number(m.group("v")) if m else None
        if m is None or v is None or not st.t.is_free(m.start("v"), m.end("v")):
            continue
        if max(stated) / _BARE_RANGE <= v <= min(stated) * _BARE_RANGE:
            out.append((m.start("v"), [v]))
            with_speed.add(g.value)
            st.t.take(m.start("v"), m.end("v"))
    return out


# cards joined right before one speed ("在4090和L40上 ... 均达到50以上", "on the 4090 and the L40 both about 50")
_JOINED = re.compile(r"\s*(?:和|与|跟|及|、|,|，|/|&|and(?: the| a| an)?|or(?: the)?)\s*", re.I)


def _joined_before(st: _State, at: int) -> list[str]:
    """The card named last before a speed and the cards joined to it by 和 / and / 、 (not one machine's cards:
    "my 3090 and 3060 get 20 tokens/s" is one split run): each measured that speed."""
    before = sorted((g for g in st.gpus if g.end <= at and g.value), key=lambda g: g.end)
    if len(before) < 2 or st.q.gpus_together:
        return []
    out = [before[-1]]
    for g in reversed(before[:-1]):
        if not _JOINED.fullmatch(st.t.text[g.end : out[0].start]):
            break
        out.insert(0, g)
    return [g.value for g in out if g.value] if len(out) > 1 else []


def _shared(st: _State, at: int, values: list[float]) -> list[float]:
    """One speed stated for several joined cards: the value once per card."""
    cards = _joined_before(st, at)
    return values * len(cards) if len(values) == 1 and cards else values


def _gpus_of(st: _State, at: int, n: int) -> list[str | None]:
    """Whose speeds the `n` values at `at` are: the joined cards in order, else the card named last before."""
    cards = _joined_before(st, at)
    return list(cards) if len(cards) == n else [_gpu_before(st, at)] * n


def _gpu_before(st: _State, at: int) -> str | None:
    """The GPU named last before a speed ("on the 3090 about 15 tokens/s, on the P40 0.5"): whose speed it is."""
    before = [g for g in st.gpus if g.end <= at and g.value]
    return max(before, key=lambda g: g.end).value if before else None


# a model named on the speed's own line, this close before it ("qwen-7b-chat是60+tokens/s"), is the one measured
_SAME_CLAUSE = re.compile(r"[^\n。；;]{0,30}")


def _model_before(st: _State, at: int) -> str | None:
    """The model named last before a speed, in the same clause ("同一张卡上，qwen-7b-chat是60+tokens/s")."""
    before = [(end, m) for end, m in st.model_ends if end <= at and _SAME_CLAUSE.fullmatch(st.t.text[end:at])]
    return max(before)[1] if before else None


def _steps(st: _State) -> None:
    for pattern, kind in _rx().steps:
        m = pattern.search(st.t.view)
        if m and (v := _number(m.group("v"))):
            st.q.measured_seconds_per_step = round(v if kind == "seconds" else 1 / v, 4)
            st.t.take(m.start(), m.end())
            return


_CN_DIGITS = {"一": 1, "二": 2, "两": 2, "三": 3, "四": 4, "五": 5, "六": 6, "七": 7, "八": 8, "九": 9, "十": 10}
_RUN_HOURS = {"h": 1, "小": 1, "钟": 1, "d": 24, "天": 24, "w": 168, "周": 168, "星": 168}


def _run_time(st: _State) -> None:
    """A training run's whole time ("88 hours", "预估要60小时", "跑了 3 天"), in a message about a training job: the
    diagnosis sets it against the hours the hardware needs for the data (not masked: other readers keep theirs)."""
    lex = _lex()
    if not any(lex.rx[f"mode_{m}"].search(st.t.text) for m in ("fine_tune", "full", "lora", "qlora", "pretrain")):
        return
    m = _rx().run_time.search(st.t.view)
    if m is None:
        return
    value = _CN_DIGITS.get(m.group("v")) or _number(m.group("v"))
    hours = value * _RUN_HOURS[m.group("u")[0].lower()] if value else None
    if hours and 0.1 <= hours <= 10_000:
        st.q.measured_hours = hours


def _memory_in_use(st: _State) -> None:
    m = _rx().log_capacity.search(st.t.view)
    if m and (v := _number(m.group("v"))) and st.q.stated_capacity_gib is None:
        st.q.stated_capacity_gib = v  # an OOM log's card: what the job is measured against when no GPU is named
        st.t.take(m.start(), m.end())
    for pattern in _rx().memory:
        m = pattern.search(st.t.view)
        if m and (v := _number(m.group("v"))):
            st.q.measured_memory_gib = v
            st.t.take(m.start(), m.end())
            return


def _flags(st: _State) -> None:
    """Settings and libraries named, read from the whole message (engine names are masked in the view)."""
    rx, text = _rx(), st.t.text
    flags = [name for name, pattern in rx.flags if pattern.search(text)]
    sizes = {int(m.group("n")) for pattern in rx.tp_size for m in pattern.finditer(text)}
    if sizes == {1}:  # "--tensor-parallel-size 1": told to run on one GPU, no split (vLLM's default)
        flags = [f for f in flags if f != "tensor_parallel"]
    if rx.dtype_missing.search(text) or (rx.from_pretrained.search(text) and not rx.dtype_set.search(text)):
        flags.append("no_torch_dtype")
    st.q.diagnose_flags = list(dict.fromkeys(flags))
    st.q.diagnose_engines = [name for name, pattern in rx.engines if pattern.search(text)]


def _symptoms(st: _State) -> None:
    """The symptom reported, most specific first; a hypothetical OOM ("会不会爆显存") is none."""
    rx, q = _rx(), st.q
    text, _ = _mask(st.t.text, rx.hypothetical)
    text, _ = _mask(text, log_noise())  # a pasted log's "load time = 14164 ms" is no complaint about loading
    found = next((name for name, pattern in rx.symptoms if pattern.search(text)), None)
    measured = q.measured_tokens_per_s is not None or q.measured_seconds_per_step is not None
    if found is None and "power_off" in q.diagnose_flags:
        found = "crash"  # "power goes off on my pc": the machine going down under load (its first cause, the PSU)
    if found is None and q.measured_memory_gib is not None:
        found = "memory_high"
    if found is None and measured and rx.complaint.search(text):
        found = "slow"
    if found is None and q.measured_hours is not None and rx.run_time_doubt.search(text):
        found = "slow"  # "One RTX 3090, 88 hours, is this normal?": the run's time, doubted
    two_cards = len({g for g in q.measured_speed_gpus if g}) >= 2
    if found is None and two_cards and rx.run_time_doubt.search(text):
        found = "slow"  # "my A6000 gets 18 tokens/s, my friend's 3090 40, why?": one card's speed, doubted
    if found is None and two_cards and _inverted(q.measured_speeds, q.measured_speed_gpus):
        found = "slow"  # "A100 gets 30 tok/s, my 4090 over 45": the card with more bandwidth measured slower
    if found is None and q.slower_ratio:
        found = "slow"  # "比 A100 慢5倍": one card said slower than another by a factor
    if found is None and (stated_inversion(st) or stated_expected(st)):
        found = "slow"  # "the A800 is not as fast as the 3090", "A100 慢于 4090": one card seen behind another
    if q.run_log.layers_on_gpu == 0 and found in (None, "slow", "low_util"):
        found = "cpu_fallback"  # the load log says "offloaded 0/N layers to GPU": it all runs on the CPU
    q.symptom = found  # type: ignore[assignment]  # one of the lexicon's symptom names


def _inverted(speeds: list[float], gpus: list[str | None]) -> bool:
    """Two cards measured where the one with clearly more memory bandwidth is the slower: a speed reported wrong."""
    from tools.catalog import catalog

    cards = [(s, catalog().get(g)) for s, g in zip(speeds, gpus, strict=False) if g]
    cards = [(s, spec.bandwidth_gbs) for s, spec in cards if spec is not None]
    return any(sa < sb and ga > gb * 1.3 for sa, ga in cards for sb, gb in cards)


_SUPPORT_ASKED = re.compile(r"support|compatib|支持|兼容|适配", re.I)


# the model runs on the CPU for now, with no card yet ("现在是cpu在跑。太慢了", "currently running it on CPU, too slow")
_CPU_NOW = re.compile(
    r"(?:现在|目前|暂时|当前|一直)\s*(?:是|都是|只能|只有)?\s*(?:用|靠|在)?\s*cpu\s*(?:在)?\s*(?:跑|运行|推理|生成)"
    r"|(?:currently|right now|for now|at the moment|at present)\W{0,2}(?:i\W?m |i am |it\W?s |it is )?"
    r"(?:running|using|on)\s+(?:[\w.-]+\s+){0,3}?(?:on |with )?(?:the |my |a )?cpu\b"
    r"|\b(?:i\W?m|i am) (?:running|using) (?:it )?(?:on )?(?:the )?cpu(?: only)? (?:now|for now|right now|currently)",
    re.I,
)


def diagnose_intent(st: _State, pos: dict[str, int], out: dict[str, int], has_gpu: bool, has_model: bool) -> None:
    """diagnose: a problem reported on named hardware, a model or an engine ("T4 上 GPTQ 只有 4 tokens/s，正常吗",
    "8*3090 加载 72B 还是 OOM", "Why is my 3090 only doing 3 tok/s?"), or a measured number with "is this normal". It
    takes the place of the sizing and spec questions the same words would ask; a plain "will it fit" keeps them."""
    q = st.q
    named = has_gpu or has_model or bool(q.support_subjects or q.diagnose_flags or q.diagnose_engines)
    measured = q.measured_tokens_per_s is not None or q.measured_seconds_per_step is not None
    asked = "diagnose" in pos
    # "并发越高显存占用越多吗" asks how memory grows, which is sizing, though it says memory is used up
    grows = "memory_per_user" in q.diagnose_flags
    memory_only = q.symptom == "memory_high" and (grows or not dict(_rx().symptoms)["memory_high"].search(st.t.text))
    if memory_only and not asked and any(k in out for k in ("fit", "capacity", "recommend", "compare")):
        q.symptom = None  # "8B uses 16GB on my 4090, can I run 13B?": a sizing question that quotes a number
    if measured and has_gpu and has_model and not q.symptom and set(out) <= _SIZING and not _ASKS.search(st.t.text):
        q.symptom = "slow"  # "Gemma 2 27B on a 4090 with ollama is 2 tok/s, 64GB DDR4": a speed reported, no question
    if q.symptom in ("slow", "cpu_fallback") and q.buy_or_rent == "buy" and not measured and _CPU_NOW.search(st.t.text):
        q.symptom = None  # "现在是cpu在跑，太慢了，准备买3060": the slowness is why a card is bought, not a run to fix
    if named and (q.symptom or (asked and (measured or q.measured_memory_gib is not None))):
        out["diagnose"] = -2  # the verdict leads
        if "api" in out and not (measured or has_model):  # "API 越来越便宜，本地部署划算吗？并发就龟速": cost leads
            out["diagnose"] = out["api"] + 1
        # "Does ollama support the R7 360? It doesn't use the GPU": whether the engine supports the card is the cause
        # the user asks about, so that verdict leads and the diagnosis follows
        asks = _SUPPORT_ASKED.search(st.t.text)  # "does it support", not "running on": a support word proper
        # likewise a crash under an engine named for the card ("vLLM on a 5090: no kernel image", "P40 + vLLM:
        # segfault"): whether that engine runs on that card leads, the crash's causes follow
        support = (
            has_gpu
            and "support" in out
            and "power_off" not in q.diagnose_flags  # the machine powering off is the PSU, whatever the engine
            and (q.symptom == "crash" or (q.symptom == "cpu_fallback" and bool(asks)))
        )
        for intent in _REPLACED:
            if not (support and intent == "support"):
                out.pop(intent, None)
        if support:
            out["support"] = -3
    else:
        out.pop("diagnose", None)
