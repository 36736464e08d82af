"""Features wanted or ruled out (NVLink, ECC, FP8, MIG), and a feature named is no precision to run in."""

from __future__ import annotations

import re

from assistant.understanding.lexicon import _lex
from assistant.understanding.text import _State


def _requirements(st: _State) -> None:
    """NVLink / ECC / FP8 / MIG wanted (True) or explicitly not wanted (False); None where not said."""
    q = st.q
    said = {topic: _requirement(st, topic) for topic in ("nvlink", "ecc", "fp8", "mig")}
    # what an earlier pass read stays: the pass after the intents only fills what is still open
    q.require_nvlink = said["nvlink"] if q.require_nvlink is None else q.require_nvlink
    q.require_ecc = said["ecc"] if q.require_ecc is None else q.require_ecc
    q.require_fp8 = said["fp8"] if q.require_fp8 is None else q.require_fp8
    q.require_mig = said["mig"] if q.require_mig is None else q.require_mig


def _requirement(st: _State, topic: str) -> bool | None:
    """One feature: after a require word ("需要支持 NVLink"), or in a listing question; negated, never wanted."""
    lex, q = _lex(), st.q
    if topic in {c.topic for c in q.claims} or (topic in q.asks and q.gpu_mentions):
        return None  # a question or claim about a named GPU, not a requirement
    rx, text = lex.rx, st.names_masked
    wanted = None
    for m in lex.topics[topic].finditer(text):
        before = rx["not_negation"].sub(" ", text[max(0, m.start() - 40) : m.start()])  # "有没有 ECC" asks
        if rx["require_must"].search(before):
            wanted = True  # "不能没有 ECC"
        elif rx["require_negated"].search(before) or rx["require_negated_after"].match(text[m.end() : m.end() + 40]):
            return False  # "不需要 FP8", "no NVLink needed", "ECC 不是必须的"
        elif wanted is None and _wanted(st, topic, before, taken=not st.t.is_free(m.start(), m.end())):
            wanted = True
    return wanted


def _wanted(st: _State, topic: str, before: str, taken: bool) -> bool:
    lex, q = _lex(), st.q
    listing = bool({"catalog", "recommend"} & set(q.intents))
    if topic in lex.raw["format_topics"] and taken and not lex.rx["support"].search(before):
        # "70B with FP8", "an fp8 kv cache": read as the precision to run in, unless GPUs are being listed
        return "catalog" in q.intents
    return listing or bool(lex.rx["require"].search(before))


def _drop_feature_precision(st: _State) -> None:
    """In "4090 支持 BF16 吗" BF16 is a feature asked about, not the precision to compute with."""
    q = st.q
    features = set(q.asks) | {c.topic for c in q.claims} | ({"fp8"} if q.require_fp8 else set())
    if q.precision in features and not {"memory", "speed", "fit", "recommend"} & set(q.intents):
        q.precision = None


def _precisions_mentioned(st: _State) -> None:
    """Every format named to run in ("FP8 vs BF16"): not one ruled out ("不用 FP8"), nor features asked about."""
    q = st.q
    ruled_out = {"fp8"} if q.require_fp8 is False else set()
    named = [p for p in dict.fromkeys(st.precision_order) if p not in ruled_out]
    if q.precision is None:  # "4090 支持 BF16 吗": the formats named were features, not formats to run in
        features = set(q.asks) | {c.topic for c in q.claims} | ({"fp8"} if q.require_fp8 else set())
        named = [p for p in named if p not in features]
    q.precisions_mentioned = _without_compute_dtype(st.t.text, named)


# "dtype=torch.float16, ..., quantization=gptq" (a vLLM config line, a from_pretrained call): the 16-bit type a
# quantized model's kernels compute in, not a second format to load it in
_DTYPE_SET = re.compile(
    r"(?<![a-z])(?:torch_)?dtype\s*[=:]\s*(?:torch\.)?[\"']?(?:float16|bfloat16|half|fp16|bf16)", re.I
)
_SIXTEEN = re.compile(r"fp16|float16|bf16|bfloat16|半精度|16[- ]?bit|16\s*位", re.I)


def _without_compute_dtype(text: str, named: list[str]) -> list[str]:
    """The formats named, less a 16-bit one stated only as the compute dtype beside a quantized format."""
    from tools.precision import resolve_precision

    if not _DTYPE_SET.search(text) or _SIXTEEN.search(_DTYPE_SET.sub(" ", text)):
        return named
    if not any(resolve_precision(p).bits < 16 for p in named if p not in ("fp16", "bf16")):
        return named
    return [p for p in named if p not in ("fp16", "bf16")]


def _unquantized(st: _State) -> None:
    """ "能否把非量化版本的满血版跑起来", "the unquantized 70B on two 3090s": the model in the format its publisher
    ships (BF16; FP8 for DeepSeek-V3/R1), so the verdict is about that format, not a quantized one chosen for it."""
    q = st.q
    if q.precision or not _lex().rx["unquantized"].search(st.t.text):
        return
    from tools.models import registry

    arch = registry().get(q.model or "")
    q.precision = (arch.native_precision if arch else None) or "bf16"
    st.precisions_found.add(q.precision)
    st.precision_order.append(q.precision)
