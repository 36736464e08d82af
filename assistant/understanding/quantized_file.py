"""A file quantized from the published 16-bit weights ("./quantize ggml-model-f16.bin ... q4_0", "把 fp16 的模型量化成
q4_k_m"): the lower-bit file is the one run, though the 16-bit one is named first."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from tools.errors import AdvisorError
from tools.precision import resolve_precision

if TYPE_CHECKING:
    from assistant.understanding.text import _State

_QUANTIZE = re.compile(r"quantiz|quantis|量化|转换成|转成|\bconvert(?:ed|ing)?\b", re.I)
_FLOAT = ("fp32", "fp16", "bf16")


def quantized_target(st: _State) -> None:
    """The format a 16-bit model was quantized to is the format to size, when the message says it was quantized."""
    q = st.q
    if q.precision not in _FLOAT or "compare" in q.intents or not _QUANTIZE.search(st.t.text):
        return
    for name in st.precision_order:
        try:
            bits = resolve_precision(name).bits
        except AdvisorError:
            continue
        if bits <= 8.5:
            q.precision = name
            return
