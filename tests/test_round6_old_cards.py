"""Old and unsupported cards, and precision facts (issue 19, round 6): a fit question on a card the engine does not
run on leads with that, then what memory would allow; a card out of support is never picked for its price; "has
BF16" has one home; a model's official FP8 build is the next way on FP8 cards; a newer version read as the family's
newest is said right after the lead."""

from __future__ import annotations

import pytest
from asking import ask_checked, lead_of


def _sentences(answer: str, n: int = 2) -> str:
    import re

    return " ".join(re.split(r"(?<=[.!?。！？])\s*", answer.replace("\n", " "))[:n])


@pytest.mark.parametrize(
    ("question", "no_word", "engine"),
    [
        ("Can I serve Llama 3.1 8B with vLLM on an M40?", "No", "vLLM"),
        ("Can I run Mistral 7B on my M40 with vLLM?", "No", "vLLM"),
        ("我有一张 P40，能用 vLLM 跑 Qwen2.5-7B 吗", "不能", "vLLM"),
        ("Tesla P40 能用 vllm 部署 llama3 8b 吗", "不能", "vLLM"),
        ("I just bought 4 P40s, can I run Llama 3 70B on them with vLLM?", "No", "vLLM"),
        ("M40 能用 vllm 跑 qwen2.5 14b 吗", "不能", "vLLM"),
    ],
)
def test_an_engine_refused_by_the_card_leads_and_the_model_is_sized_where_it_runs(advisor, question, no_word, engine):
    final = ask_checked(advisor, question)
    lead = lead_of(final.answer)
    assert no_word in lead and engine in lead and "llama.cpp" in lead, final.answer  # the no, and what to use
    fits = [c.args for c in final.tool_calls if c.name == "fit_on_gpu"]
    assert fits and all(a.get("engine") == "llama.cpp" for a in fits), fits  # sized under the engine that runs


@pytest.mark.parametrize("question", ["Can I run Llama 3 8B on a K80 with Ollama?", "我的K80能用ollama跑qwen2.5 7b吗"])
def test_on_a_card_nothing_current_runs_on_the_fit_is_what_memory_would_allow(advisor, question):
    final = ask_checked(advisor, question)
    lead = lead_of(final.answer)
    assert ("No" in lead or "不能" in lead) and "Ollama" in lead, final.answer
    assert "Yes, it fits" not in final.answer and "**可以" not in final.answer
    assert "On memory alone" in final.answer or "只看显存" in final.answer


@pytest.mark.parametrize("question", ["Can I run Llama 3 8B on a K80?", "K80 能跑 llama3 8b 吗"])
def test_a_card_out_of_support_leads_a_fit_question_with_no_engine_named(advisor, question):
    final = ask_checked(advisor, question)
    lead = lead_of(final.answer)
    assert "K80" in lead and ("Avoid" in lead or "别用" in lead), final.answer
    assert "tokens/s" not in final.answer  # no speed for a card nothing current runs on


def test_a_card_the_engine_runs_on_still_leads_with_the_fit(advisor):
    final = ask_checked(advisor, "M40 24G 跑 ollama qwen2:7b 行吗")
    assert lead_of(final.answer).startswith("**可以"), final.answer


@pytest.mark.parametrize(
    "question", ["K80 vs 3090, which to buy for running local LLMs?", "K80 和 3090 买哪个跑大模型", "K80 or RTX 3060?"]
)
def test_a_card_out_of_support_is_never_the_pick_for_its_price(advisor, question):
    final = ask_checked(advisor, question)
    head = _sentences(final.answer, 2)
    assert "Pick: 1 × NVIDIA Tesla K80" not in final.answer and "选 1 张 NVIDIA Tesla K80" not in final.answer
    assert "out of support" in head or "停止支持" in head, final.answer
    assert "about the same money" not in final.answer and "差不多的钱" not in final.answer


def test_replacements_that_cost_several_times_more_are_not_about_the_same_money():
    from tools.card_risk import CardRiskRequest, assess_card

    for gpu in ("tesla-k80", "tesla-m40-24gb"):
        r = assess_card(CardRiskRequest(gpus=[gpu], job="buy"))
        assert r.alternatives and r.alternatives_cost_more, gpu
        assert not (r.lead and "same money" in r.lead.render("en")), r.lead


def test_bf16_has_one_home_the_a10g_has_it_without_a_published_rate():
    from tools.catalog import catalog
    from tools.gpu_search import FindGpusRequest, find_gpus

    ids = {g.id for g in find_gpus(FindGpusRequest(need_bf16=True, vendor="nvidia", limit=200)).gpus}
    assert "a10g" in ids and catalog()["a10g"].bf16_tflops is None
    assert "v100-sxm2-32gb" not in ids and "t4" not in ids
    assert all(catalog()[i].has_bf16 for i in ids)


def test_asked_whether_the_a10g_has_bf16_the_answer_is_yes(advisor):
    final = ask_checked(advisor, "Does the A10G support bf16?")
    assert "Yes" in lead_of(final.answer, 2), final.answer


@pytest.mark.parametrize(
    ("question", "official"),
    [
        ("Can I run Llama 3.1 405B on one 8xH100 node?", True),
        ("8 张 H100 能跑 Llama-3.1-405B 吗", True),
        ("Qwen3-235B on 4x H100?", True),
        ("Can Llama 3.3 70B run on a single H100?", False),
    ],
)
def test_fp8_cards_are_offered_fp8_before_4_bit_and_an_official_build_is_named(advisor, question, official):
    final = ask_checked(advisor, question)
    lead = lead_of(final.answer, 2)
    assert "FP8" in lead and "AWQ" not in lead_of(final.answer), final.answer
    assert ("official" in lead or "官方" in lead) == official, final.answer
    assert "bf16" in lead  # and no at BF16, said


def test_the_405b_registry_row_carries_meta_s_fp8_build():
    from tools.model_match import match_model

    arch = match_model("llama-3.1-405b").arch
    assert arch.official_builds == ["fp8"] and arch.native_precision is None


@pytest.mark.parametrize(
    "question", ["How much VRAM does Kimi K3 need?", "Kimi K3 需要多少显存", "DeepSeek V5 能在 8 张 H200 上跑吗"]
)
def test_a_newer_version_read_as_the_family_s_newest_is_said_right_after_the_lead(advisor, question):
    final = ask_checked(advisor, question)
    paragraphs = final.answer.split("\n\n")
    where = (
        next(i for i, p in enumerate(paragraphs) if "K3" in p and ("not in the model data" in p or "还没有" in p))
        if ("K3" in question)
        else next(i for i, p in enumerate(paragraphs) if "V5" in p)
    )
    assert where <= 2, final.answer
