"""The way an out-of-memory that is the job itself is fixed, in the lead (advice.md §9: the verdict and what to do
in the first two sentences).

"It does not fit as loaded" alone leaves the user where they were; an expert says in the same breath which format
fits ("BF16 needs 110 GiB per card; FP8 over the 4 cards fits at 56 GiB"). The diagnose tool already lists the ways
in order (the smallest step first: a smaller format on the same cards); the first one, when it is a format, joins
the lead. A 4-bit format on a job not run under a serving engine (transformers, nothing named) also says where such
a format runs: AWQ/GPTQ in vLLM or a GGUF Q4 in llama.cpp/Ollama, since a transformers user may not know either.
"""

from __future__ import annotations

from assistant.strings import Writer
from tools.diagnose import DiagnoseResult
from tools.notes import Note
from tools.precision import resolve_precision

_FORMAT_WAYS = ("diag_opt_format", "diag_opt_format_split")
_NAMES_ITS_RUNTIME = ("vllm", "sglang", "tensorrt_llm", "lmdeploy", "tgi", "ollama", "llama_cpp", "exllamav2", "mlx")


def _first_way(r: DiagnoseResult) -> Note | None:
    """The does-not-fit cause's first fix, when it is a smaller format."""
    for cause in r.causes:
        if cause.id != "does_not_fit":
            continue
        options = cause.fix.params.get("options")
        if isinstance(options, list) and options and options[0].code in _FORMAT_WAYS:
            return options[0]
    return None


def fit_way(w: Writer, r: DiagnoseResult) -> str:
    """The sentence that names the format that fits ("" when the first way is not a format)."""
    way = _first_way(r)
    if way is None:
        return ""
    name = str(way.params.get("precision"))
    four_bit = resolve_precision(name).bits <= 4.5
    runtime = w.t("diag_lead_way_runtime") if four_bit and r.engine not in _NAMES_ITS_RUNTIME else ""
    key = "diag_lead_way_split" if way.code == "diag_opt_format_split" else "diag_lead_way"
    fields = dict(precision=w.label("format", name), need=way.params.get("need"), n=way.params.get("n"))
    return w.t(key, runtime=runtime, **fields)
