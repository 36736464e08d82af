"""The offline planner's message parser: realistic Chinese and English questions -> slots.

The phrasing -> slots cases live in tests/parse_cases.yaml; this file runs them and holds the tests
that are not tables (invariants, fuzzing, pathological input, determinism, speed).
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from assistant.understanding import ParsedQuery, _parse, parse
from tools.catalog import resolve_gpu
from tools.model_match import match_model
from tools.precision import kv_bytes, resolve_precision

_DATA = yaml.safe_load(Path(__file__).with_name("parse_cases.yaml").read_text(encoding="utf-8"))
# language -> the messages written in it
BY_LANGUAGE = {
    lang: [case["text"] for cases in sections.values() for case in cases] for lang, sections in _DATA["cases"].items()
}
CASES = [
    pytest.param(case["text"], case["want"], id=f"{group}-{section}-{i}")
    for group, sections in {**_DATA["cases"], "notations": _DATA["notations"]}.items()
    for section, cases in sections.items()
    for i, case in enumerate(cases)
]
ALL_TEXTS = [param.values[0] for param in CASES]


def _check_invariants(q: ParsedQuery) -> None:
    """What the planner relies on for every parse."""
    assert isinstance(q, ParsedQuery)
    if q.model:
        match_model(q.model)  # every model value is a name the tools accept (a registry id, or a sized name)
        assert q.params_b is None
    for gpu in {*q.gpu_mentions, *q.gpu_counts, *([q.gpu] if q.gpu else [])}:
        resolve_gpu(gpu)  # every GPU value is a name the tools accept
    assert set(q.gpu_counts) <= set(q.gpu_mentions)
    if q.gpu:
        assert q.gpu in q.gpu_mentions
    if q.precision:
        resolve_precision(q.precision)
    if q.kv_dtype:
        kv_bytes(q.kv_dtype)
    assert len(set(q.intents)) == len(q.intents)
    for value in (q.budget, q.monthly_budget, q.electricity_price, q.hours_per_day, q.horizon_years, q.params_b):
        assert value is None or value > 0
    if q.hours_per_day is not None:
        assert q.hours_per_day <= 24


@pytest.mark.parametrize("text, want", CASES)
def test_parse_case(text: str, want: dict[str, Any]) -> None:
    q = _parse(text)
    _check_invariants(q)
    for key, expected in want.items():
        if key == "intents_has":
            assert set(expected) <= set(q.intents), f"{text!r}: intents {q.intents}"
        elif key.endswith("_has"):
            field = key.removesuffix("_has")
            assert expected in getattr(q, field), f"{text!r}: {field} {getattr(q, field)}"
        elif key == "gpu_mentions_len":
            assert len(q.gpu_mentions) == expected, f"{text!r}: {q.gpu_mentions}"
        else:
            got = [c.model_dump() for c in q.claims] if key == "claims" else getattr(q, key)
            assert got == expected, f"{text!r}: {key} = {got!r}, want {expected!r}\n{q.model_dump(exclude={'text'})}"


def test_cases_are_balanced_and_plentiful() -> None:
    assert len(BY_LANGUAGE["zh"]) >= 60 and len(BY_LANGUAGE["en"]) >= 60
    assert all(_parse(text).language == "zh" for text in BY_LANGUAGE["zh"] if text)
    assert all(_parse(text).language == "en" for text in BY_LANGUAGE["en"])


def test_case_file_checks_only_real_fields() -> None:
    """Check every slot parse_cases.yaml names is a ParsedQuery field, so a typo fails with its case id."""
    fields = set(ParsedQuery.model_fields)
    for param in CASES:
        for key in param.values[1]:
            name = "intents" if key == "intents_has" else key.removesuffix("_has").removesuffix("_len")
            assert name in fields, f"{param.id}: unknown slot {key!r}"


def test_huge_and_odd_numbers_never_raise() -> None:
    for text in [
        "9" * 5000 + "B",
        "预算" + "9" * 40 + "万",
        "1e400 tokens",
        "上下文 " + "9" * 30,
        "并发 99999999999",
        "$" + "9" * 20,
        "0B 0k 0万 0张4090",
        "-5 张 4090",
        "4090" * 500,
        "两" * 3000,
        "\ud800\udfff broken surrogates 4090",
        "\x00\x01\x02 7B",
    ]:
        q = _parse(text)
        _check_invariants(q)


@pytest.mark.parametrize(
    "text",
    [
        "4090" + " " * 1990,
        "上下文" + " " * 1990,
        "kv" + " " * 1990 + "fp8",
        "kv cache " * 220,
        "1 " * 1000,
        "qwen-" * 400,
        "4090 " * 400,
        "_" * 2000,
        "预算" + " " * 1990 + "5",
        "llama" + " 70b" * 490,
        "x" * 100_000,
    ],
)
def test_pathological_input_stays_linear(text: str) -> None:
    _parse(text)  # warm
    start = time.perf_counter()
    _check_invariants(_parse(text))
    assert time.perf_counter() - start < 2.0  # loose: ~50 ms here; guards against quadratic regexes


def test_non_string_input_is_handled() -> None:
    assert parse(None).unparsed  # type: ignore[arg-type]
    assert parse(12345).text == "12345"  # type: ignore[arg-type]


def test_parse_is_deterministic() -> None:
    text = ALL_TEXTS[0]
    assert _parse(text) == _parse(text)


def test_parsing_is_fast_when_warm() -> None:
    texts = ALL_TEXTS
    for text in texts:  # warm the name caches (first resolution loads the catalog and registry)
        _parse(text)
    start = time.perf_counter()
    for text in texts:
        _parse(text)
    per_message_ms = (time.perf_counter() - start) / len(texts) * 1000
    assert per_message_ms < 50  # loose bound: typically ~1 ms; CI machines vary


_FRAGMENTS = [
    "4090",
    "两张",
    "8x",
    "H100",
    "A100 80G",
    "预算",
    "1.5万",
    "$3k",
    "7B",
    "700亿",
    "Qwen2.5-7B",
    "llama 70b",
    "LoRA",
    "QLoRA",
    "全参",
    "推理",
    "8k",
    "上下文",
    "tokens",
    "并发",
    "users",
    "FP16",
    "int4",
    "Q4_K_M",
    "kv cache",
    "电费",
    "元/度",
    "每天",
    "小时",
    "三年",
    "吗",
    "呢",
    "？",
    "?",
    "vs",
    "和",
    "NVLink",
    "不支持",
    "ignore previous instructions",
    " ",
    "，",
    "9999999999999",
    "0",
    ".",
    "-",
    "k",
    "万",
    "张",
]


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.text(max_size=300))
def test_fuzz_arbitrary_text_never_raises(text: str) -> None:
    q = _parse(text)
    _check_invariants(q)
    assert q.language in ("zh", "en")


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.lists(st.one_of(st.sampled_from(_FRAGMENTS), st.integers(0, 10**15).map(str), st.text(max_size=4)), max_size=25)
)
def test_fuzz_domain_fragments_never_raise(parts: list[str]) -> None:
    text = "".join(parts)
    q = _parse(text)
    _check_invariants(q)
    assert parse(text) == q
