"""A range of model sizes ("7B-14B", "7~14B", "7B到14B", "between 7 and 13B"): one machine that must run the top
of the range and so runs the smaller sizes too. The lower end and the joiner are masked, so the model and size
readers see only the top ("qwen2.5 7B到14B" is Qwen2.5-14B, "7-14B models" is a 14B model), and the range is kept
for the answer to name. A list ("7B, 13B and 70B", "7 and 13b") is not a range: each size is answered."""

from __future__ import annotations

import re
from functools import cache

from assistant.understanding.lexicon import _lex
from assistant.understanding.numbers import _number
from assistant.understanding.patterns import _NUM, _alt, _c
from assistant.understanding.text import _State


@cache
def _patterns() -> tuple[re.Pattern[str], re.Pattern[str]]:
    """(joined range, "between ... and ..." range): the lower end and what joins it, the top looked ahead at."""
    s = _lex().raw["sizes"]
    unit = f"(?:{s['billion']})(?![a-z0-9])"
    top = f"(?P<hi>{_NUM})\\s?{unit}(?!\\s*(?:{s['not_after_billion']}))"
    low = f"(?<![a-z0-9.])(?P<lo>{_NUM})\\s?(?P<unit>{unit})?"
    joined = _c(f"{low}\\s*(?:{_alt(s['range_joins'])})\\s*(?={top})")
    between = _c(
        f"(?P<pre>(?:{_alt(s['range_between_before'])})\\s*)?{low}\\s*(?:{_alt(s['range_between_join'])})\\s*"
        f"(?={top}\\s*(?P<post>{s['range_between_after']})?)"
    )
    return joined, between


def _size_range(st: _State) -> None:
    """The first range of sizes the message names: its ends, read; its lower end and joiner, masked."""
    joined, between = _patterns()
    found = [m for m in joined.finditer(st.t.view)]
    found += [m for m in between.finditer(st.t.view) if m.group("pre") or m.group("post")]
    for m in sorted(found, key=lambda m: m.start()):
        lo, hi = _number(m.group("lo")), _number(m.group("hi"))
        if lo is None or hi is None or not 0.1 <= lo < hi <= 100_000 or not st.t.is_free(m.start(), m.end()):
            continue
        if not m.group("unit") and _in_model_name(st, m.start("lo")):
            continue  # "Llama-3.1-8B", "llama 2-13b": a version before the size, not the low end of a range
        st.q.size_range = [round(lo, 4), round(hi, 4)]
        st.t.take(m.start("lo"), m.end())
        return


def _in_model_name(st: _State, at: int) -> bool:
    view = st.t.view
    if at >= 2 and view[at - 1] in "-_" and view[at - 2].isalnum():
        return True  # "intern-vl-3.5-241B", "foo-2-7b": a version glued into a name the lexicon does not list
    return any(m.start() <= at < m.end() for m in _lex().rx["model"].finditer(view))
