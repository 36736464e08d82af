"""A weight format written as its average bits per weight: "4.65bpw", "70B exl2 at 2.55 bpw", "5.0bpw h6",
"3.5 bits per weight", "每权重 3.5 位", "3.5bit 量化" — what ExLlamaV2/V3 (EXL2/EXL3) users name a file by."""

from __future__ import annotations

import re

from assistant.understanding.text import _State
from tools.errors import AdvisorError
from tools.precision import bpw_precision

_HEAD = r"(?:[\s_-]*h([4-8])(?![0-9a-z]))?"  # "5.0bpw h6": the output layer's bits
_BITS = r"(?<![\d.])(\d(?:\.\d{1,3})?)"
_FRACTION = r"(?<![A-Za-z\d.])(\d\.\d{1,3})"  # not "Qwen2.5 bit by bit"
_PER_WEIGHT = r"bpw|bits?\s*(?:per|/)\s*(?:weight|param(?:eter)?)|(?:位|比特|bit)\s*/\s*(?:权重|参数)"
_BIT_WORD = r"bits?(?![a-z])|位(?!\s*(?:用户|人))|比特"
_PATTERNS = (
    # "4.65bpw", "2.55 bpw", "3.5 bits per weight", "4.0 bits/weight", "3.5 位/权重"
    re.compile(_BITS + rf"\s*[-_]?\s*(?:{_PER_WEIGHT})" + _HEAD, re.IGNORECASE),
    # "每权重 3.5 位", "每个参数 2.5 bit"
    re.compile(r"每(?:个)?(?:权重|参数)\s*" + _BITS + r"\s*(?:位|比特|bits?)", re.IGNORECASE),
    # "3.5 bit", "4.65-bit", "2.5位量化": a fractional width no named format has
    re.compile(_FRACTION + rf"\s*[-_]?\s*(?:{_BIT_WORD})" + _HEAD, re.IGNORECASE),
)


def _bits_per_weight(st: _State) -> None:
    """Reads the first bits-per-weight figure as the precision and masks it (its digits are no model size)."""
    for rx in _PATTERNS:
        for m in rx.finditer(st.t.view):
            head = m.group(2) if m.lastindex and m.lastindex >= 2 else None
            try:
                name = bpw_precision(float(m.group(1)), int(head) if head else None).name
            except AdvisorError:
                continue
            st.t.take(m.start(), m.end())
            if st.q.precision is None:
                st.q.precision = name
            st.precisions_found.add(name)
            st.precision_order.append(name)
