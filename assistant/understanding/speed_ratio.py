"""One card said to run slower than another by a stated factor, with no speeds ("my V100 is 5x slower than my A100",
"V100 跑 Qwen 比 A100 慢5倍", "3060 的速度只有 2060 的一半", "H100 only 10-30% faster than the A100", "910B 训练耗时是
A100 的 2 至 3 倍"), or two run times on two cards ("单张A100 要10小时一个epoch，朋友的3090 不到1小时"): the
diagnosis sets that factor against the one the hardware predicts (memory bandwidth for decode, tensor TFLOPS for
training).

Also a time per step read as a time per token when the run is generation, not training ("推理……一个step就需要10s+",
"generation: each step takes 2 s"): a decoding step makes one token.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from pydantic import BaseModel, Field

if TYPE_CHECKING:
    from assistant.understanding.text import _State

_CN = {"一": 1, "两": 2, "二": 2, "三": 3, "四": 4, "五": 5, "六": 6, "七": 7, "八": 8, "九": 9, "十": 10}
_NUM = r"\d+(?:\.\d+)?|[一两二三四五六七八九十]"
# factor, direction: "5x slower", "3 times faster", "慢5倍", "快了一倍", "慢了将近两倍"
_TIMES = re.compile(
    rf"(?P<n>\d+(?:\.\d+)?)\s*(?:x|×|times)\s+(?P<dir>slower|faster|longer|quicker)"
    rf"|(?P<zdir>慢|快)(?:了)?\s*(?:将近|接近|大约|约|差不多|大概)?\s*(?P<zn>{_NUM})\s*(?:多)?\s*倍",
    re.I,
)
# a share of the other's speed: "half the speed of", "只有 2060 的一半", "是 A100 的 1/3"
_SHARE = re.compile(
    r"(?P<w>half|a third|one third|a quarter|one quarter)\s+(?:the|of the)\s+(?:speed|throughput|performance)"
    r"|(?:只有|仅有|仅为|才|不到|是)[^。，,；;]{0,16}?的\s*(?P<zw>一半|三分之一|四分之一|1/(?P<d>\d+))",
    re.I,
)
# a percentage: "10-30% faster", "only 20% slower"
_PCT = re.compile(
    r"(?:(?P<lo>\d+)\s*%?\s*(?:-|~|to|到|至)\s*)?(?P<n>\d+)\s*%\s*(?P<dir>slower|faster)"
    r"|(?P<pdir>快|慢)(?:了)?\s*(?:约|大约|大概|将近|不到)?\s*(?:(?P<plo>\d+)\s*[%％]?\s*(?:-|~|到|至)\s*)?(?P<pn>\d+)\s*[%％]",
    re.I,
)
# a run time as a multiple of the other's: "耗时是 A100 的 2 至 3 倍", "takes 3x as long"
_TIME_MULT = re.compile(
    rf"(?:耗时|时间|用时)[^。，,；;]{{0,12}}?是[^。，,；;]{{0,16}}?的\s*(?P<n>{_NUM})\s*"
    rf"(?:(?:-|~|到|至)\s*(?P<hi>{_NUM})\s*)?倍"
    r"|(?P<en>\d+(?:\.\d+)?)\s*(?:x|×|times)\s+as\s+long",
    re.I,
)
_SHARES = {"half": 2, "a third": 3, "one third": 3, "a quarter": 4, "one quarter": 4}
_ZH_SHARES = {"一半": 2, "三分之一": 3, "四分之一": 4}
# a run's time: "10小时", "不到1小时", "3 hours", "45 min"
_DURATION = re.compile(
    r"(?P<v>\d+(?:\.\d+)?)\s*(?:个)?\s*(?:多)?\s*(?P<u>小时|钟头|分钟|天|hours?|hrs?|h\b|minutes?|mins?|days?)", re.I
)
_UNIT_H = {"小": 1, "钟": 1, "h": 1, "分": 1 / 60, "m": 1 / 60, "天": 24, "d": 24}
_TIME_WORDS = re.compile(r"epoch|训练|微调|跑完|走完|耗时|用时|train|fine-?tun|takes?|took|finish", re.I)
_SENTENCE = re.compile(r"[。！？!?\n]|\.\s")
_THAN = re.compile(r"\s*(?:than|as|of)\b", re.I)
# generation, not training: a step of decoding makes one token
_GENERATION = re.compile(r"推理|生成|inference|generat|decod|max_new_tokens?|tokens?/s", re.I)
_TRAINING = re.compile(r"训练|微调|train|fine-?tun|epoch|loss|lora|sft", re.I)
_STEP = re.compile(
    r"(?:一个|每个|每一?)\s*step\s*(?:就|都)?\s*(?:需要|要|耗时|花了?|用了?)?\s*(?:约|大约|将近)?\s*(?P<v>\d+(?:\.\d+)?)\s*"
    r"(?:s|秒|sec|seconds?)(?![a-z])"
    r"|(?:each|every|one|a)\s+(?:decoding\s+)?step\s+(?:takes|took|is|needs)\s+(?:about\s+|around\s+|over\s+)?"
    r"(?P<e>\d+(?:\.\d+)?)\s*(?:s|sec|secs|seconds?)(?![a-z])",
    re.I,
)
_MAX_RATIO = 1000.0
# a run reported and doubted, not a factor asked about ("Is the 4090 2x faster than the 3090?", "快一倍吗"): why,
# normal, expected, a problem, slowness
_REPORTED = re.compile(
    r"为什么|为啥|原因|怎么回事|怎么办|正常|合理|不对|差距|差这么多|求助|慢"
    r"|\bwhy\b|how come|expected|normal|wrong|issue|problem|reason|\bbug\b|slow|help",
    re.I,
)


class StatedRatio(BaseModel):
    """The slots of a card said to run slower than another by a factor (a base of ParsedQuery: query.py is at its
    size limit)."""

    slower_ratio: float | None = Field(
        default=None,
        description="How many times slower the run on one card is than on another, as stated with no speeds ('5x "
        "slower' -> 5, '慢一倍' -> 2, '只有一半' -> 2, '10-30% faster' -> 1.2) or from two run times "
        "(10 h vs 1 h -> 10)",
    )
    slower_gpu: str | None = Field(default=None, description="The card that ran slower (a catalog id)")
    faster_gpu: str | None = Field(default=None, description="The card it ran slower than")


def _value(text: str | None) -> float | None:
    if not text:
        return None
    if text in _CN:
        return float(_CN[text])
    try:
        return float(text)
    except ValueError:
        return None


def _factor(m: re.Match[str]) -> tuple[float, bool] | None:
    """(factor, whether the subject is the slower one) of one _TIMES / _SHARE / _PCT / _TIME_MULT match."""
    g = m.groupdict()
    if g.get("dir"):
        n, direction = _value(g.get("n")), g["dir"].lower()
        if n is None:
            return None
        if m.re is _PCT:
            lo = _value(g.get("lo"))
            n = 1 + ((lo + n) / 2 if lo is not None else n) / 100
        return n, direction in ("slower", "longer")
    if g.get("pdir"):  # "只比 A100 快 20%", "慢了30%"
        n, lo = _value(g.get("pn")), _value(g.get("plo"))
        if n is None:
            return None
        return 1 + ((lo + n) / 2 if lo is not None else n) / 100, g["pdir"] == "慢"
    if g.get("zdir"):
        n = _value(g.get("zn"))
        if n is None:
            return None
        return (2.0 if n == 1 else n), g["zdir"] == "慢"  # "慢一倍": half the speed
    if g.get("w") or g.get("zw"):
        word = (g.get("w") or "").lower()
        share = _SHARES.get(word) or _ZH_SHARES.get(g.get("zw") or "") or _value(g.get("d"))
        return (float(share), True) if share else None
    n, hi = _value(g.get("n") or g.get("en")), _value(g.get("hi"))
    if n is None:
        return None
    return ((n + hi) / 2 if hi else n), True


def _sentence_of(text: str, at: int) -> tuple[int, int]:
    starts = [m.end() for m in _SENTENCE.finditer(text, 0, at)]
    end = _SENTENCE.search(text, at)
    return (starts[-1] if starts else 0), (end.start() if end else len(text))


def _pair(st: _State, m: re.Match[str]) -> tuple[str, str] | None:
    """(subject, other): the card the factor is said of and the one it is set against, by the words around it:
    "A 比 B 慢", "A is 5x slower than B", "A 只有 B 的一半", else the card named last before the factor."""
    text = st.t.text
    lo, hi = _sentence_of(text, m.start())
    cards = sorted((g for g in st.gpus if g.value and lo <= g.start < hi), key=lambda g: g.start)
    before = [g for g in cards if g.end <= m.start()]
    after = [g for g in cards if g.start >= m.start()]
    bi = text.rfind("比", lo, m.start())
    if bi >= 0:
        subject = [g for g in before if g.end <= bi]
        other = [g for g in cards if bi <= g.start < m.start()]
        if subject and other:
            return subject[-1].value, other[0].value  # type: ignore[return-value]
    if before and after and (_THAN.match(text, m.end()) or after[0].start < m.end()):
        return before[-1].value, after[0].value  # type: ignore[return-value]
    named = list(dict.fromkeys(st.q.gpu_mentions))
    if len(named) != 2:
        return None
    subject = before[-1].value if before else named[0]
    return subject, next(g for g in named if g != subject)  # type: ignore[return-value]


def _two_times(st: _State) -> tuple[float, str, str] | None:
    """Two run times, each after its own card ("A100 要10小时 … 3090 不到1小时"): (factor, slower, faster)."""
    text = st.t.text
    if not _TIME_WORDS.search(text):
        return None
    timed: dict[str, float] = {}
    for m in _DURATION.finditer(text):
        value = _value(m.group("v"))
        card = _card_of(st, m)
        if card is None or value is None:
            continue
        hours = value * _UNIT_H.get(m.group("u")[0].lower(), 1)
        if card and card not in timed:
            timed[card] = hours
    if len(timed) != 2 or min(timed.values()) <= 0:
        return None
    (slow, t_slow), (fast, t_fast) = sorted(timed.items(), key=lambda kv: -kv[1])
    return t_slow / t_fast, slow, fast


# "12 hours on the V100": the card named right after a time is the one it was measured on
_ON_CARD = re.compile(r"\s*(?:on|with|using|in)\s+(?:the\s+|a\s+|an\s+|my\s+|our\s+|one\s+|a\s+single\s+)?", re.I)


def _card_of(st: _State, m: re.Match[str]) -> str | None:
    """The card a run time belongs to: named right after it ("12 hours on the V100"), else the last one before it."""
    after = [g for g in st.gpus if g.value and g.start >= m.end()]
    if after:
        first = min(after, key=lambda g: g.start)
        if _ON_CARD.fullmatch(st.t.text[m.end() : first.start]):
            return first.value
    before = [g for g in st.gpus if g.value and g.end <= m.start()]
    return max(before, key=lambda g: g.end).value if before else None


def _stated_ratio(st: _State) -> None:
    """The factor one card is said to run slower than another, and a step time of generation as a token time."""
    q = st.q
    _step_as_token(st)
    if len({g.value for g in st.gpus if g.value}) != 2 or len(set(q.measured_speeds)) > 1:
        return  # two cards, and not both measured (two speeds already set them against each other)
    if not _REPORTED.search(st.t.text):
        return  # a factor asked about, not a run reported
    found = None
    for rx in (_TIMES, _SHARE, _PCT, _TIME_MULT):
        found = next(((m, f) for m in rx.finditer(st.t.text) if (f := _factor(m)) is not None), None)
        if found:
            break
    if found is not None:
        m, (factor, subject_slower) = found
        pair = _pair(st, m)
        if pair is None or pair[0] == pair[1]:
            return
        slow, fast = pair if subject_slower else pair[::-1]
    elif (times := _two_times(st)) is not None:
        factor, slow, fast = times
    else:
        return
    if not 1 < factor <= _MAX_RATIO:
        return
    q.slower_ratio, q.slower_gpu, q.faster_gpu = round(factor, 2), slow, fast


def _step_as_token(st: _State) -> None:
    """ "推理……一个step就需要10s+": in generation a step is one token, so 10 s a step is 0.1 tokens/s."""
    q = st.q
    if q.measured_speeds or q.measured_tokens_per_s is not None:
        return
    text = st.t.text
    if not _GENERATION.search(text) or _TRAINING.search(text):
        return
    m = _STEP.search(text)
    seconds = _value(m.group("v") or m.group("e")) if m else None
    if not seconds:
        return
    q.measured_tokens_per_s = round(1 / seconds, 4)
    q.measured_speeds = [q.measured_tokens_per_s]
    q.measured_speed_gpus = [None]
    q.measured_speed_models = [None]
    q.measured_seconds_per_step = None
