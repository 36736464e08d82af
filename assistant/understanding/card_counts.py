"""Several counts of one card asked side by side ("单卡、双卡、四卡 4090 分别最多能跑多大的模型", "the largest model
on 1x, 2x and 4x 3090", "1卡4090最多推理什么模型，2卡，4卡呢"): each count is a machine to size, not only the last
one read. Only reads; the card and its count are read as before by the GPU reader."""

from __future__ import annotations

import itertools
import re
from functools import cache

from assistant.understanding.lexicon import _lex
from assistant.understanding.numbers import _number
from assistant.understanding.patterns import _c
from assistant.understanding.text import _State

_MAX_COUNT = 16  # a machine holds at most 16 cards; "32卡" is a cluster, not a count asked side by side


@cache
def _patterns() -> tuple[re.Pattern[str], re.Pattern[str]]:
    """(a count with its own card word, a list of bare counts sharing one card word)."""
    num = _lex().raw["numerals"]
    zh = "".join(num["zh_digits"])
    words = "|".join(sorted(num["zh_count_words"], key=len, reverse=True))
    en = "|".join(re.escape(w) for w in sorted(num["en_words"], key=len, reverse=True))
    unit = r"(?:\s*(?:x|×)(?![a-z0-9])|\s*(?:张|块|个)?\s*(?:卡|显卡)|\s*张|\s+(?:gpus?|cards?)\b)"
    one = (
        rf"(?:(?<![0-9.a-z])(?P<n>\d{{1,2}})(?![0-9.]){unit}|(?P<c>[{zh}])\s*(?:张|块)?\s*(?:卡|显卡)|(?P<c2>[{zh}])张"
        rf"|(?P<w>{words})\s*(?:卡|显卡)|\b(?P<e>{en})[- ](?:gpus?|cards?)\b)"
    )
    join = r"\s*(?:,|，|、|/|和|或|或者|and|or|vs\.?)\s*"
    n = rf"(?:\d{{1,2}}|\b(?:{en})\b)"  # "1, 2 and 4x", "one, two or four 4090s"
    bare = rf"(?<![0-9.a-z]){n}(?:{join}(?:and\s+|or\s+)?{n})+(?:{unit}|\s+(?=[a-z]*\s*\d{{3,4}}))"
    return _c(one), _c(bare)


def _card_counts(st: _State) -> None:
    """The distinct counts of cards the message asks about, smallest first, when there are two or more."""
    one, bare = _patterns()
    text = st.t.text
    counts: list[int] = []
    for m in bare.finditer(text):
        tokens = re.findall(r"\d{1,2}|[a-z]+", m.group(0))  # the numbers and number words; joiners read as None
        counts += [int(v) for v in map(_number, tokens) if v is not None]
    for m in one.finditer(text):
        value = next((_number(m.group(k)) for k in ("n", "c", "c2", "e") if m.group(k)), None)
        if value is None and m.group("w"):
            value = float(_lex().raw["numerals"]["zh_count_words"][m.group("w")])
        if value is not None:
            counts.append(int(value))
    found = sorted({c for c in counts if 1 <= c <= _MAX_COUNT})
    if len(found) >= 2:
        st.q.capacity_counts = found


_SIZED = re.compile(r"\d\s*(?:gb|gib|g)(?![a-z])", re.I)
# "RAM : 32GB * 2 GPU: RTX A5000", "内存 16G x 2 显卡 4090": the count multiplies the memory sticks before it
_TIMES_A_SIZE = re.compile(r"\d\s*(?:gb|gib|g|tb)\s*[x×*]\s*$", re.I)


def first_general_count(rx: re.Pattern[str], view: str, text: str | None = None) -> re.Match[str] | None:
    """The card count of the user's machine among several general counts: the one said with the card's memory
    ("单卡部署需要9g显存，放到两张8g的卡上" -> 两张8g的卡: "单卡" names what one card would need), else the first."""
    found = list(itertools.islice(rx.finditer(view), 8))
    said = text or view  # the sizes before a count may already be read (masked) in the view
    found = [m for m in found if not _TIMES_A_SIZE.search(said[max(0, m.start() - 12) : m.start()])]
    return next((m for m in found if _SIZED.search(m.group(0))), found[0] if found else None)
