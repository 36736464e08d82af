"""Round 5 defects (issue 19), each fixed as a class: a scaled model far from its base's size scales its widths
too; a concurrency question with no format named is answered at the published precision first; replacements for
an unsupported old card are cards CUDA still supports."""

from __future__ import annotations

import uuid

import pytest
from asking import lead_of

from assistant.events import FinalEvent
from tools.fit import FitRequest, fit_on_gpu
from tools.model_match import match_model
from tools.models import registry


def _ask(advisor, text: str) -> FinalEvent:
    final = advisor.ask(f"t-{uuid.uuid4().hex[:8]}", text)
    assert isinstance(final, FinalEvent)
    return final


@pytest.mark.parametrize("typed", ["mistral-1b", "llama-3-1b", "qwen2.5-0.2b", "qwen3-1000b"])
def test_a_size_far_from_its_base_scales_width_and_depth_together(typed):
    m = match_model(typed)
    base = next(a for a in registry().values() if a.name == m.base)
    assert m.how == "scaled" and abs(m.arch.params / 1e9 - m.arch.official_params_b) / m.arch.official_params_b < 0.05
    assert m.arch.hidden_size != base.hidden_size and m.arch.num_layers >= 8
    # the family's depth/width ratio is kept within a factor of 1.5
    ratio = (m.arch.num_layers / m.arch.hidden_size) / (base.num_layers / base.hidden_size)
    assert 1 / 1.5 < ratio < 1.5
    assert any(n.code == "model_scaled_wide" for n in m.name_notes())


def test_a_size_near_its_base_keeps_the_widths():
    m = match_model("qwen2.5-20b")
    assert m.how == "scaled" and m.arch.hidden_size == 5120
    assert any(n.code == "model_scaled" for n in m.name_notes())


def test_without_spare_room_the_published_precision_answers_when_it_holds_a_sequence():
    req = dict(model="qwen2.5-72b", gpu="a100-80gb-sxm", num_gpus=2, context_tokens=4096)
    assert fit_on_gpu(FitRequest(**req)).best_precision != "bf16"  # the roomy pick for "what can it do"
    r = fit_on_gpu(FitRequest(**req, spare_room=False))
    assert r.best_precision == "bf16" and 2 <= (r.max_concurrent_sequences or 0) <= 8
    # bf16 does not hold a sequence on one H100: the roomy rule picks as before
    one = fit_on_gpu(FitRequest(model="llama-3.1-70b", gpu="h100-sxm", context_tokens=4096, spare_room=False))
    assert one.best_precision != "bf16"


@pytest.mark.parametrize(
    ("question", "words"),
    [
        ("2x A100, default config, Qwen2.5-72B, how many concurrent users can vLLM serve?", ["about 4 ", "bf16"]),
        ("两张A100 80G 默认配置跑 Qwen2.5-72B，vLLM 能支持多少并发用户？", ["4 路", "bf16"]),
        ("One A100 80GB, Qwen2.5-32B, how many concurrent users?", ["bf16"]),
    ],
)
def test_a_concurrency_question_with_no_format_leads_at_the_published_precision(advisor, question, words):
    lead = lead_of(_ask(advisor, question).answer, 2)
    assert all(w in lead for w in words), lead


def test_a_concurrency_question_with_a_named_format_keeps_it(advisor):
    lead = lead_of(_ask(advisor, "2x A100, Qwen2.5-72B AWQ, how many concurrent users?").answer, 2)
    assert "awq" in lead.lower()


def test_every_listed_replacement_for_an_old_card_is_still_supported():
    from tools.card_risk import supported_now, table
    from tools.catalog import catalog

    lists = [row.get("alternatives", []) for row in table()["generations"]]
    lists.append(table()["rocm_dropped"]["alternatives"])
    for ids in lists:
        for gid in ids:
            assert gid in catalog() and supported_now(catalog()[gid]), gid


@pytest.mark.parametrize("card", ["k80", "tesla m40", "p40", "mi50"])
def test_replacements_for_an_unsupported_card_are_turing_or_newer(card):
    from tools.card_risk import CardRiskRequest, assess_card

    names = " ".join(n.text for n in assess_card(CardRiskRequest(gpus=[card], job="buy")).alternatives)
    assert names and not any(old in names for old in ("P40", "P100", "M40", "K80", "V100"))


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Run DeepSeek-R1 4bit with ktransformers on a 4090 and 512GB RAM, how fast?", "q4_k_m"),
        ("用 ktransformers 跑 DeepSeek-V3 4bit，一张 4090 加 384G 内存够吗", "q4_k_m"),
        ("ktransformers 8bit DeepSeek-R1 on two 4090s and 768GB RAM?", "q8_0"),
        ("Ollama 4bit qwen2.5 32b on a 3090, does it fit?", "q4_k_m"),
        ("llama.cpp 4bit Llama-3.1-70B on two 3090s?", "q4_k_m"),
        ("vLLM 4bit qwen2.5 72b on two 4090s?", "int4"),
    ],
)
def test_a_generic_bit_width_on_a_gguf_engine_is_its_gguf_build(text, expected):
    from assistant.planner.plan import merge
    from assistant.scenario import Scenario
    from assistant.understanding import parse

    scenario, _ = merge(parse(text), Scenario())
    assert scenario.precision == expected
