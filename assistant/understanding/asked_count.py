"""One card named with two counts, one said of a setup that runs and one asked about: "34b runs fine on 4x4090 ...
would 3 4090s be enough?", "works on 8 A100s, can I do it with 4 A100s?". The count asked about is the hardware the
answer is sized on; the other is the setup the user already knows works (the first count read is kept otherwise).
"""

from __future__ import annotations

import re

from assistant.understanding.text import _GpuSpan, _State

# clauses: a question mark applies to its own clause; a period ends one only before a space ("69.49GB" is a number)
_CLAUSE = re.compile(r"(?:[^,，。！？!?；;\n.]|\.(?=\S))+(?:[,，。！？!?；;\n]|\.(?!\S))*")
# ... and asks whether that count does the job ("would 3 4090s be enough?", "4张A100能跑吗？"), not any question
# that happens to name the card ("a single 4090 is faster than dual 3090s (I don't know why?)")
_ENOUGH = re.compile(
    r"\b(?:enough|suffic\w*|suffice|do it|do the job|work|handle|fit|run|load|serve|possible)\b"
    r"|够|能跑|能不能|可以|行吗|行不行",
    re.I,
)


def _asks(sentence: str) -> bool:
    return ("?" in sentence or "？" in sentence) and bool(_ENOUGH.search(sentence))


def _asked_count(st: _State) -> None:
    """The count of the card the question is about, when it is named twice with different counts."""
    q = st.q
    if not q.gpu:
        return
    spans = [s for s in st.gpus if s.value == q.gpu and s.count]
    if len({s.count for s in spans}) < 2:
        return
    sentences = [(m.start(), m.end(), m.group(0)) for m in _CLAUSE.finditer(st.t.text)]

    def asked(span: _GpuSpan) -> bool:
        return any(a <= span.start < b and _asks(text) for a, b, text in sentences)

    asked_spans = [s for s in spans if asked(s)]
    counts = {s.count for s in asked_spans}
    if len(counts) != 1 or len(asked_spans) == len(spans):
        return  # no count asked, several asked, or every mention asks: the first count read stands
    count = counts.pop()
    q.gpu_counts[q.gpu] = count
    q.num_gpus = count
