"""A result someone else got, given as the reason to ask: "Since it was able to run Llama2 70B on a single 24 GB GPU,
is there a chance you could run codellama 34b with 12gb vram?", "既然 70B 能在一张 24G 的卡上跑，34B 能不能在 12G 上跑".
The clause's model and card are the precedent, not the user's question or hardware: masked before the model and card
readers, so the question's own model and memory are the ones sized."""

from __future__ import annotations

import re

from assistant.understanding.text import _State

_PATTERNS = (
    # "Since it was able to run X on Y,", "given that you can run X on Y,", "as people have run X on Y,"
    re.compile(
        r"\b(?:since|given that|as|because)\s+(?:it|you|they|someone|people|he|she|we|others?)\s+"
        r"(?:was|were|is|are|has been|have been|can|could|managed to|got it to)\s*(?:able to\s+)?"
        r"(?:run|fit|load|serve)\b[^.?!\n,;]{3,120}[,;]",
        re.IGNORECASE,
    ),
    # "既然 70B 都能在一张 24G 上跑，", "既然别人能用 24G 跑 70B，"
    re.compile(r"既然[^，。？?！!\n,]{2,60}(?:能|可以)[^，。？?！!\n,]{0,40}[，,]"),
)


def _precedent(st: _State) -> None:
    """Masks each precedent clause (its model, size and card are someone else's result)."""
    for rx in _PATTERNS:
        for m in rx.finditer(st.t.view):
            if st.t.is_free(m.start(), m.end()):
                st.t.take(m.start(), m.end())
