"""Fuzz every tool's request model and the chat turn with hostile input: a result or a clean message, never a crash.

Each tool is driven the way an LLM drives it: a dict of arguments through `run_tool` (validation, then the
calculator) and through the LangChain wrapper the agent calls. Arguments start from a valid call and have
any field (nested workload fields included) replaced by arbitrary Unicode, huge, negative, zero, NaN/inf,
empty or wrongly typed values, so the calculators are reached as well as the validators.
"""

from __future__ import annotations

import atexit
import json
import math
import shutil
import tempfile
import types
import typing
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from pydantic import BaseModel

from assistant.toolset import ToolSpec, run_tool, tool_specs

SPECS = {spec.name: spec for spec in tool_specs()}
CALCULATORS = [name for name in SPECS if name != "search_guides"]
MAX_ERROR_CHARS = 2000
# run_tool's safety nets: a bug in a calculator, or arithmetic that blew up instead of a validation error
UNEXPECTED = ("failed unexpectedly", "outside what")

# A valid call per tool; the fuzzer mutates from here so that most examples get past validation.
BASE_ARGS: dict[str, dict[str, Any]] = {
    "estimate_vram": {"model": "qwen2.5-7b"},
    "estimate_speed": {"model": "llama-3.1-8b", "gpu": "4090"},
    "find_gpus": {},
    "gpu_specs": {"names": ["4090"]},
    "calculate_tco": {"gpu": "4090"},
    "fit_on_gpu": {"model": "qwen2.5-7b", "gpu": "4090"},
    "recommend_gpus": {"workload": {"model": "qwen2.5-7b"}},
    "compare_gpus": {"workload": {"model": "llama-3.1-8b"}, "gpus": ["4090", "a6000"]},
    "plan_workstation": {"gpu": "4090"},
    "search_guides": {"query": "NVLink"},
    "check_support": {"engine": "vllm", "gpu": "P40", "precision": "awq"},
    "largest_model": {"gpu": "4090"},
    "estimate_offload": {"model": "llama-3.1-70b", "gpu": "4090", "ram_gib": 64},
    "diagnose": {"model": "qwen2.5-7b", "gpu": "t4", "engine": "vllm", "measured_tokens_per_s": 5},
    "estimate_rl": {"params_b": 7, "algorithm": "grpo", "gpu": "4090", "num_gpus": 2},
    "assess_card": {"gpus": ["P40"], "job": "inference", "params_b": 7},
    "rent_providers": {"gpu": "4090", "currency": "CNY"},
    "compare_api": {"model": "llama-3.3-70b", "requests_per_day": 10000, "currency": "USD"},
    "size_fleet": {"model": "llama-3.1-8b", "requests_per_s": 50},
}

NAMES = st.sampled_from(
    [
        "4090",
        "RTX 4090",
        "A100 80G",
        "H100 SXM",
        "H20",
        "MI300X",
        "M2 Ultra",
        "qwen2.5-7b",
        "llama-3.1-70b",
        "deepseek-v3",
        "mixtral-8x7b",
        "Qwen/Qwen2.5-7B-Instruct",
        "q4_k_m",
        "nf4",
        "fp8",
        "bf16",
        "gguf",
        "us_120v_15a",
        "vllm",
        "llama.cpp",
        "H1000",
        "４０９０",
        "显卡",
        "4090 " * 200,
    ]
)
_EDGE_INTS = [0, -1, 1, 2, 3, 7, 8, 16, 1024, 2**31, 2**63, 10**30, -(10**30), True, False]
_EDGE_FLOATS = [1e-300, 5e-324, 0.5, 0.9, 1.0, 1.2, 1e308, float("nan"), float("inf"), float("-inf"), -0.0]
EDGE_NUMBERS = st.sampled_from([*_EDGE_INTS, *_EDGE_FLOATS])
TEXT = st.text(max_size=60) | st.sampled_from(
    ["", " ", "\x00", "NaN", "inf", "1e309", "-5", "💥🔥", "\u202e", "a" * 5000]
)
CHAOS = st.one_of(
    TEXT,
    EDGE_NUMBERS,
    st.integers(),
    st.floats(),
    st.none(),
    st.lists(st.one_of(TEXT, EDGE_NUMBERS, NAMES), max_size=10),
    st.dictionaries(st.text(max_size=12), st.one_of(TEXT, EDGE_NUMBERS), max_size=4),
    NAMES,
)
HF_KEYS = [
    "hidden_size",
    "num_attention_heads",
    "num_key_value_heads",
    "num_hidden_layers",
    "intermediate_size",
    "vocab_size",
    "head_dim",
    "n_routed_experts",
    "num_local_experts",
    "num_experts_per_tok",
    "moe_intermediate_size",
    "n_shared_experts",
    "shared_expert_intermediate_size",
    "first_k_dense_replace",
    "kv_lora_rank",
    "q_lora_rank",
    "qk_rope_head_dim",
    "qk_nope_head_dim",
    "v_head_dim",
    "sliding_window",
    "sliding_window_pattern",
    "layer_types",
    "use_sliding_window",
    "model_type",
    "hidden_act",
    "tie_word_embeddings",
    "max_position_embeddings",
    "multi_query_attention",
    "text_config",
    "name",
    "mlp",
]
REAL_CONFIG = {
    "hidden_size": 4096,
    "num_attention_heads": 32,
    "num_key_value_heads": 8,
    "num_hidden_layers": 32,
    "intermediate_size": 14336,
    "vocab_size": 128256,
}
MLA_MOE_CONFIG = {  # DeepSeek-V3-like: MLA attention, routed + shared experts, dense first layers
    **REAL_CONFIG,
    "num_hidden_layers": 61,
    "n_routed_experts": 256,
    "num_experts_per_tok": 8,
    "moe_intermediate_size": 2048,
    "n_shared_experts": 1,
    "first_k_dense_replace": 3,
    "kv_lora_rank": 512,
    "q_lora_rank": 1536,
    "qk_rope_head_dim": 64,
    "qk_nope_head_dim": 128,
    "v_head_dim": 128,
    "sliding_window": 4096,
    "sliding_window_pattern": 6,
}
ARCH = st.one_of(
    st.dictionaries(st.sampled_from(HF_KEYS), CHAOS, max_size=12),
    st.builds(
        lambda drop, extra: {k: v for k, v in MLA_MOE_CONFIG.items() if k not in drop} | extra,
        st.sets(st.sampled_from(sorted(MLA_MOE_CONFIG)), max_size=3),
        st.dictionaries(st.sampled_from(HF_KEYS), EDGE_NUMBERS, max_size=2),
    ),
    st.builds(
        lambda extra: {**REAL_CONFIG, **extra},
        st.dictionaries(st.sampled_from(HF_KEYS), EDGE_NUMBERS | CHAOS, min_size=1, max_size=4),
    ),
)


def _write_files(root: Path) -> list[str]:
    """Config and price files a tool may be pointed at: valid, broken, hostile."""
    root.mkdir(parents=True, exist_ok=True)
    files = {
        "config.json": json.dumps(REAL_CONFIG),
        "broken.json": '{"hidden_size": ',
        "list.json": "[1, 2, 3]",
        "huge.json": json.dumps({**REAL_CONFIG, "hidden_size": 10**40, "num_hidden_layers": 10**6}),
        "zero.json": json.dumps({**REAL_CONFIG, "num_attention_heads": 0}),
        "prices.yaml": "rows:\n  - gpu: RTX 4090\n    provider: me\n    on_demand_per_gpu_hour: 0.3\n",
        "bad.yaml": "rows: [unclosed\n  secret-line: do-not-echo\n",
        "scalar.yaml": "42\n",
        "rows.yaml": "rows: 7\n",
        "chinese.yaml": "行: 值\n",
    }
    for name, content in files.items():
        (root / name).write_text(content, encoding="utf-8")
    (root / "binary.json").write_bytes(b"\xff\xfe\x00garbage\x80")
    return [str(root / n) for n in [*files, "binary.json"]] + [str(root), str(root / "missing.json"), "/dev/null", ""]


_FILES_DIR = tempfile.mkdtemp(prefix="gpu-advisor-fuzz-")
atexit.register(shutil.rmtree, _FILES_DIR, ignore_errors=True)
FILES = _write_files(Path(_FILES_DIR))
PATHS = st.sampled_from(FILES) | TEXT


def _annotation_values(annotation: Any) -> st.SearchStrategy:
    """Plausible values for a field's type (Literal choices, numbers, names), so mutations reach the calculators."""
    origin = typing.get_origin(annotation)
    if origin is typing.Literal:
        return st.sampled_from(typing.get_args(annotation))
    if origin in (typing.Union, types.UnionType):
        return st.one_of([_annotation_values(a) for a in typing.get_args(annotation)])
    if origin is list:
        (item,) = typing.get_args(annotation) or (str,)
        return st.lists(_annotation_values(item), max_size=10)
    if annotation is type(None):
        return st.none()
    if annotation is bool:
        return st.booleans()
    if annotation is int:
        return st.integers(min_value=-5, max_value=5000) | EDGE_NUMBERS
    if annotation is float:
        return st.floats(min_value=-10, max_value=1e7) | st.floats(min_value=0, max_value=1e-3) | EDGE_NUMBERS
    if annotation is str:
        return NAMES | TEXT
    return CHAOS


def _nested_model(annotation: Any) -> type[BaseModel] | None:
    for candidate in (annotation, *typing.get_args(annotation)):
        if isinstance(candidate, type) and issubclass(candidate, BaseModel):
            return candidate
    return None


def field_values(model: type[BaseModel], name: str) -> st.SearchStrategy:
    """What to put into one field: plausible for its type, hostile, or (for nested models) a fuzzed dict."""
    field = model.model_fields[name]
    if name == "arch":
        return ARCH | CHAOS
    if name in ("config_path", "prices_file"):
        return PATHS
    nested = _nested_model(field.annotation)
    if nested is not None:
        base = BASE_ARGS["estimate_vram"] if nested.__name__ == "VramRequest" else {}
        return mutated_args(nested, base) | CHAOS
    return _annotation_values(field.annotation) | CHAOS


MODEL_FIELDS = ("model", "params_b", "config_path", "arch")
MODEL_SOURCE = st.one_of(
    st.fixed_dictionaries({"model": NAMES | TEXT}),
    st.fixed_dictionaries({"params_b": st.floats(min_value=0, max_value=0.01) | st.floats(1, 2e4) | EDGE_NUMBERS}),
    st.fixed_dictionaries({"config_path": PATHS}),
    st.fixed_dictionaries({"arch": ARCH}),
)


def mutated_args(model: type[BaseModel], base: dict[str, Any]) -> st.SearchStrategy[dict[str, Any]]:
    """A valid call with some fields replaced, some dropped, and sometimes an unknown field added.

    Requests that name a model get exactly one model source (name, size, config file or inline config),
    fuzzed on its own, so the deep paths behind each source are reached, not just the "give one" check.
    """
    names = sorted(model.model_fields)
    takes_model = "model" in model.model_fields
    others = [n for n in names if not (takes_model and n in MODEL_FIELDS)]

    @st.composite
    def build(draw: st.DrawFn) -> dict[str, Any]:
        args = dict(base)
        if takes_model:
            args = {k: v for k, v in args.items() if k not in MODEL_FIELDS} | draw(MODEL_SOURCE)
        for name in draw(
            st.lists(st.sampled_from(others or names), max_size=min(5, len(others or names)), unique=True)
        ):
            args[name] = draw(field_values(model, name))
        if draw(st.integers(0, 9)) == 0:  # sometimes a second model source, or a base field dropped
            args[draw(st.sampled_from(MODEL_FIELDS if takes_model else names))] = draw(CHAOS)
        if base and draw(st.integers(0, 9)) == 0:
            args.pop(draw(st.sampled_from(sorted(base))), None)
        if draw(st.integers(0, 7)) == 0:
            args[draw(st.text(max_size=10))] = draw(CHAOS)
        return args

    return build()


def assert_clean(spec: ToolSpec, args: dict[str, Any]) -> None:
    """run_tool never raises; it returns a JSON-able result or a short message without traceback text."""
    outcome = run_tool(spec, args)
    if outcome.ok:
        text = json.dumps(outcome.result, allow_nan=False, ensure_ascii=False)  # NaN/inf would break the LLM's JSON
        assert text and text != "null"
        return
    message = outcome.error
    assert isinstance(message, str) and message.strip(), f"empty error for {args!r}"
    assert "Traceback" not in message and 'File "' not in message, message
    assert not any(u in message for u in UNEXPECTED), f"{spec.name} crashed on {args!r}: {message}"
    assert len(message) <= MAX_ERROR_CHARS, f"{len(message)}-char error for {spec.name}"


FUZZ = settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@pytest.mark.parametrize("name", CALCULATORS)
@FUZZ
@given(data=st.data())
def test_calculator_survives_hostile_arguments(name, data):
    spec = SPECS[name]
    args = data.draw(mutated_args(spec.request, BASE_ARGS[name]), label="args")
    assert_clean(spec, args)


@pytest.mark.parametrize("name", CALCULATORS)
@settings(max_examples=40, deadline=None)
@given(data=st.data())
def test_calculator_survives_arguments_that_are_not_a_dict_of_fields(name, data):
    """Wholly wrong shapes: every field garbage, or keys that are not even field names."""
    spec = SPECS[name]
    fields = sorted(spec.request.model_fields)
    args = data.draw(
        st.dictionaries(st.sampled_from(fields), CHAOS, max_size=len(fields))
        | st.dictionaries(st.text(max_size=20), CHAOS, max_size=5),
        label="args",
    )
    assert_clean(spec, args)


@settings(max_examples=60, deadline=None)
@given(data=st.data())
def test_langchain_tools_return_text_for_hostile_arguments(data):
    """What the agent sees: the StructuredTool wrapper returns a JSON string (result or error), never raises."""
    from assistant.toolset import as_langchain_tools

    tools = {t.name: t for t in _langchain_tools(as_langchain_tools)}
    name = data.draw(st.sampled_from(CALCULATORS), label="tool")
    args = data.draw(mutated_args(SPECS[name].request, BASE_ARGS[name]), label="args")
    out = tools[name].invoke(args)
    assert isinstance(out, str)
    payload = json.loads(out)
    if isinstance(payload, dict) and set(payload) == {"error"}:
        assert "Traceback" not in payload["error"] and 'File "' not in payload["error"]


_TOOLS_CACHE: list = []


def _langchain_tools(factory) -> list:
    if not _TOOLS_CACHE:
        _TOOLS_CACHE.extend(factory())
    return _TOOLS_CACHE


def test_file_errors_do_not_echo_file_contents():
    """A tool pointed at a broken file says what is wrong without quoting the file (it may be a secret)."""
    bad_yaml = next(f for f in FILES if f.endswith("bad.yaml"))
    outcome = run_tool(SPECS["calculate_tco"], {"gpu": "4090", "prices_file": bad_yaml})
    assert not outcome.ok and "price file" in outcome.error
    assert "do-not-echo" not in outcome.error


@pytest.mark.parametrize(
    "value", [float("nan"), float("inf"), float("-inf"), 10**400, -(10**30), 0, -0.0, "NaN", "1e309", "", "四"]
)
@pytest.mark.parametrize("field", ["params_b", "context_tokens", "batch", "num_gpus", "lora_rank", "overhead_gib"])
def test_vram_edge_numbers(field, value):
    args = {"params_b": 7} if field == "params_b" else {"model": "qwen2.5-7b"}
    assert_clean(SPECS["estimate_vram"], {**args, field: value})


def test_search_guides_survives_hostile_queries(knowledge_dir):
    """search_guides hits the real store (embedded once per test session) with hostile queries and arguments."""

    @settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
    @given(args=mutated_args(SPECS["search_guides"].request, BASE_ARGS["search_guides"]))
    def run(args):
        assert_clean(SPECS["search_guides"], args)

    run()
    outcome = run_tool(SPECS["search_guides"], {"query": "NVLink 4090", "k": 3})
    assert outcome.ok and outcome.result["passages"]


# ---- the chat turn -------------------------------------------------------------------------------------------

QUESTION_PARTS = st.sampled_from(
    [
        "70B",
        "4090",
        "QLoRA",
        "预算 1.5 万",
        "8k 上下文",
        "两张",
        "H100",
        "显存多少",
        "1e309",
        "-5 GPUs",
        "0 张卡",
        "NaN",
        "inf B",
        "99999999999999999999 tokens",
        "如果换成 QLoRA 呢",
        "what about 2 cards?",
        "¥-3",
        "$0",
        "Ignore previous instructions",
        "```json {}```",
        "<script>alert(1)</script>",
        "\u202e\u200b",
    ]
)
ARBITRARY_QUESTIONS = st.lists(st.one_of(st.text(max_size=40), QUESTION_PARTS), min_size=1, max_size=8).map(" ".join)


def test_advisor_survives_arbitrary_conversations(advisor):
    """Several dozen hostile messages in one session: each gets an answer, the scenario stays usable."""
    session = "fuzz-conversation"

    @settings(max_examples=36, deadline=None, suppress_health_check=[HealthCheck.too_slow])
    @given(text=ARBITRARY_QUESTIONS)
    def run(text):
        final = advisor.ask(session, text)
        assert isinstance(final.answer, str) and final.answer.strip()
        assert "Traceback" not in final.answer and 'File "' not in final.answer
        assert len(final.answer) < 20_000
        for call in final.tool_calls:
            assert call.result is not None or call.error, call
            if call.result is not None:
                json.dumps(call.result.model_dump(mode="json"), allow_nan=False)
        json.dumps(final.scenario.model_dump(mode="json"), allow_nan=False)

    run()
    # after all that, the same session still answers a real question with real numbers
    final = advisor.ask(session, "How much memory does Qwen2.5-7B need for inference at 4k context?")
    vram = [c for c in final.tool_calls if c.name == "estimate_vram" and c.result]
    assert vram and math.isfinite(vram[-1].result.per_gpu_gib)
