"""The engine a job runs under ("用 Ollama 跑", "with vLLM", "llama.cpp"): it decides the fit verdict's headroom
(tools/sizing.py) and, for llama.cpp and Ollama, the weight format people mean — the GGUF build, Q4_K_M, unless a
format is named. Engine names and their aliases are the sizing table's (estimator_defaults.yaml
headroom_by_engine), so the parser and the fit rule know the same engines.
"""

from __future__ import annotations

import re
from functools import cache

from assistant.understanding.patterns import _rx
from assistant.understanding.text import _State, link_spans
from tools.sizing import engine_aliases

_GGUF_DEFAULT = "q4_k_m"  # what Ollama and llama.cpp users download unless they say (tools/model_names.py too)
# Serving engines whose "8-bit" is FP8 weights (W8A8 on Ada/Hopper/Blackwell, W8A16 Marlin on Ampere)
_FP8_ENGINES = ("vllm", "sglang", "tensorrt-llm")
_INT8_NAMED = re.compile(r"int\s*-?8|llm\.int8|bitsandbytes|bnb|w8a8", re.I)


@cache
def _patterns() -> list[tuple[str, re.Pattern[str]]]:
    return [(key, _rx([re.escape(a).replace(r"\ ", r"\s*") for a in aliases])) for key, aliases in engine_aliases()]


def _engine(st: _State) -> None:
    """The first engine the message names; a llama.cpp / Ollama job with no format named runs the Q4_K_M GGUF."""
    q = st.q
    links = link_spans(st.t.text)  # "github.com/vllm-project/vllm/issues/1374": where they read, not their engine
    found = [
        (m.start(), key, m.group(0))
        for key, rx in _patterns()
        for m in rx.finditer(st.t.text)
        if not any(a <= m.start() < b for a, b in links)
    ]
    if not found:
        return
    _, q.engine, named = min(found)
    q.engine_name = re.sub(r"\s+", " ", named.strip().lower())
    if q.engine in _FP8_ENGINES and q.precision == "int8" and not _INT8_NAMED.search(st.t.text):
        q.precision = "fp8"  # "serve it with vLLM at 8-bit": an FP8 checkpoint, not bitsandbytes LLM.int8()
        q.precisions_mentioned = ["fp8" if p == "int8" else p for p in q.precisions_mentioned]
    if q.engine == "llama.cpp" and q.precision is None and q.mode in (None, "inference"):
        q.precision = _GGUF_DEFAULT
        q.precision_from_engine = True
        st.precisions_found.add(_GGUF_DEFAULT)
        st.precision_order.append(_GGUF_DEFAULT)
