"""A training run's data and algorithm: how many samples, how long each is, how many epochs, a token count, whether
the question asks how long it takes, and a reinforcement-learning algorithm (GRPO / PPO / DPO) named.

Hours to train come from tokens, not samples ("1 million samples ... 5-6 hundred tokens each"): the planner hands
these to estimate_speed, which multiplies them out and says what it assumed."""

from __future__ import annotations

import re
from functools import cache

from assistant.understanding.lexicon import _lex
from assistant.understanding.numbers import _number
from assistant.understanding.patterns import _NUM, _c, _rx
from assistant.understanding.text import _State

_MAX_SAMPLES = 10_000_000_000
_MIN_DATASET_TOKENS = 1e6  # "10万 tokens" alone is more likely a context length than a dataset
_CONTEXT_WORDS = "上下文|context|ctx|窗口|序列|长度|window|prompt|输入"  # after the count: "10万 tokens 上下文"
_MAX_SAMPLE_TOKENS = 1_000_000
# "每天大概 200 万 tokens", "daily about 2M tokens": a usage rate (usage.py), with or without an approximation word
_RATE_BEFORE = re.compile(
    r"(?:每月|每天|每日|每周|每小时|per\s+(?:day|month|week|hour)|monthly|daily)\W{0,3}"
    r"(?:大概|大约|约|差不多|将近|about|around|roughly|approximately|~)?\W{0,6}$",
    re.I,
)
_MAX_TOKENS = 1e16
_CHAT_ROUNDS_BEFORE = re.compile(r"(?:每天|每日|每小时|每周|每月|一天|对话|聊天|问答|提问)\S{0,4}\s*$")


@cache
def _patterns() -> dict[str, re.Pattern[str]]:
    lex = _lex()
    d = lex.raw["dataset"]
    num = f"(?:{_NUM}|{lex.cn_amount})"
    scale = f"(?P<u>{d['scale']})"
    tok = f"(?:{d['token_words']})"
    per = r"(?:is|of|=|:|：|约|大概|大约|about|around|roughly|probably|approximately|~|≈)?\s*"
    sample_count = rf"(?P<v>{num})\s*{scale}?\s*\+?\s*(?:{d['sample_words']}|{d['item_words']})"
    return {
        "samples": _c(sample_count),
        # "数据100B tokens": a token count with its own unit is no sample count ("数据 100" then "B tokens")
        "samples_lead": _c(
            rf"(?:{d['sample_lead']})(?P<v>{num})\s*{scale}?(?![\d.])"
            rf"(?!\s*(?:(?:k|m|b|t|million|billion|trillion|万|亿)\s*(?:个|的)?\s*)?(?:{tok}|GB|G\b|MB|TB|%))"
        ),
        "per_sample": _c(
            rf"(?:{d['per_sample_before']})\s*{per}(?P<a>{_NUM})\s*(?:-|–|~|to|到)?\s*(?P<b>{_NUM})?\s*"
            rf"(?P<u>hundred|thousand|k|百|千)?\s*{tok}"
        ),
        "per_sample_after": _c(
            rf"(?P<a>{_NUM})\s*(?:-|–|~|to|到)?\s*(?P<b>{_NUM})?\s*(?P<u>k|千)?(?:{d['per_sample_after']})"
        ),
        "tokens": _c(
            # "10B tokens", "10B个token", "10B是指token的数量吗": the count, its unit, then the token word
            rf"(?P<v>{_NUM})\s*(?P<u>k|m|b|t|million|billion|trillion|万亿|万|亿)\s*(?:个|的|是指|指的是)?\s*(?:{tok})(?![a-z])(?!\s*(?:/|每|per\b|an?\s+(?:day|month|week|hour)))"
            rf"(?!\s*(?:的\s*)?(?:{_CONTEXT_WORDS}))"
        ),
        "epochs": _c(d["epochs"]),
        "epochs_arg": _c(d["epochs_arg"]),
        "quoted_memory": _c(d["quoted_memory"]),
        "quoted_memory_for": _c(d["quoted_memory_for"]),
        "asks_time": _rx(d["asks_time"]),
        **{f"rl_{name}": _rx(words) for name, words in d["rl"].items()},
    }


def _scaled(value: float | None, unit: str | None) -> float | None:
    if value is None:
        return None
    scales = _lex().raw["dataset"]["scales"]
    return value * float(scales.get((unit or "").lower(), scales.get(unit or "", 1)))


def _sample_tokens(m: re.Match[str]) -> int | None:
    """Tokens per sample; a range ("5-6 hundred", "500~600") is its middle."""
    a, b = _number(m.group("a")), _number(m.group("b"))
    if a is None:
        return None
    unit = (m.group("u") or "").lower()
    mid = (a + b) / 2 if b is not None and b > a else a
    value = _scaled(mid, unit) if unit else mid
    return int(value) if value and 8 <= value <= _MAX_SAMPLE_TOKENS else None


@cache
def _context_before() -> re.Pattern[str]:
    ctx = _lex().raw["context"]
    return _c(f"(?:{ctx['words']})\\s*(?:(?:{ctx['glue']})\\s*)?$")


def _dataset(st: _State) -> None:
    """Samples, tokens per sample, a dataset token count, epochs, 'how long', an RL algorithm; spans masked."""
    rx, q = _patterns(), st.q
    for name in ("per_sample", "per_sample_after"):
        m = rx[name].search(st.t.view)
        if m and q.sample_tokens is None:
            q.sample_tokens = _sample_tokens(m)
            if q.sample_tokens:
                # only the length: "10k samples of 1k tokens each" keeps its sample count for the reader below
                st.t.take(m.start("a") if name == "per_sample" else m.start(), m.end())
    for name in ("samples", "samples_lead"):
        m = rx[name].search(st.t.view)
        if m and q.dataset_samples is None:
            value = _scaled(_number(m.group("v")), m.group("u"))
            if value and 1 <= value <= _MAX_SAMPLES:
                q.dataset_samples = int(value)
                st.t.take(m.start(), m.end())
    m = rx["tokens"].search(st.t.view)
    before = st.t.view[max(0, m.start() - 24) : m.start()] if m else ""
    if m and (_context_before().search(before) or _RATE_BEFORE.search(before)):
        m = None  # "a context window of 128k tokens", "每月 1 亿 tokens": a context length or a usage rate
    if m:
        value = _scaled(_number(m.group("v")), m.group("u"))
        if value and _MIN_DATASET_TOKENS <= value <= _MAX_TOKENS:
            q.dataset_tokens = value
            st.t.take(m.start(), m.end())
    _epochs(st)
    _quoted_memory(st)
    q.asks_time = bool(rx["asks_time"].search(st.t.text))
    q.rl = next((name for name in ("grpo", "ppo", "dpo", "rl") if rx[f"rl_{name}"].search(st.t.text)), None)


def _epochs(st: _State) -> None:
    """'3 epochs', '训练 2 轮' — but not '每天对话 50 轮', rounds of chat a day (a service's requests, usage.py)."""
    m = _patterns()["epochs"].search(st.t.view) or _patterns()["epochs_arg"].search(st.t.view)
    if m and m.group(0).endswith("轮") and _CHAT_ROUNDS_BEFORE.search(st.t.view[max(0, m.start() - 12) : m.start()]):
        return
    if m:
        words = {"a single": 1.0, "one": 1.0, "two": 2.0, "three": 3.0, "four": 4.0, "five": 5.0, "ten": 10.0}
        value = words.get(m.group("v").lower()) or _number(m.group("v"))
        if value and 0 < value <= 1000:
            st.q.epochs = value
            st.t.take(m.start(), m.end())


def _quoted_memory(st: _State) -> None:
    """Memory figures quoted for a training job ("requires 300 GB", "around 500 GB or more", "只需要43GB"), in GiB
    as written (a GPU's "GB" is the binary unit): the answer confirms or corrects each."""
    lex = _lex()
    training = any(lex.rx[f"mode_{m}"].search(st.t.text) for m in ("fine_tune", "full", "lora", "qlora", "pretrain"))
    if not training:
        return
    found = [*_patterns()["quoted_memory"].finditer(st.t.view), *_patterns()["quoted_memory_for"].finditer(st.t.view)]
    for m in sorted(found, key=lambda m: m.start()):
        if not st.t.is_free(m.start("v"), m.end("u")):
            continue  # read by the first pattern already
        value = _number(m.group("v"))
        job = st.t.text[m.end() : m.end() + 16]
        if value is None or (lex.rx["mode_inference"].search(job) and not lex.rx["mode_fine_tune"].search(job)):
            continue  # "26 GB for inference and 52 GB for fine-tuning": the first is no training figure
        gib = value * (1024 if m.group("u").upper().startswith("T") else 1)
        if 1 <= gib <= 100_000:
            st.q.quoted_memory_gib.append(gib)
            st.t.take(m.start("v"), m.end())
