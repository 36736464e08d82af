"""Issue 19, round 10: every card the user names is placed in the answer (assistant/capabilities/named_cards.py: one
line with its memory and bandwidth for a card no part covered, and the cards kept when the answer asks back); old
and modded cards: a long-tail Radeon is judged by its GCN generation (and its small memory said), the dual-GPU
Radeon Pro Duo is two 16 GB GPUs on gfx803 with Vulkan leading when it already fails, ktransformers needs Marlin
(compute capability 8.0) and a modded card's earlier good run clears only the memory it used."""

from __future__ import annotations

import pytest
from asking import ask_checked, lead_of

from assistant.capabilities.named_cards import cards_not_named, named_in
from tools.card_risk import CardRiskRequest, assess_card
from tools.notes import render_all
from tools.support import SupportRequest, check_support

# -- every named card is placed


@pytest.mark.parametrize(
    ("question", "card"),
    [
        ("A100 跑 Qwen2.5-7B 只有 40 tokens/s，我们在 4090 和 L40S 上都有 60 以上，正常吗？", "L40S"),
        ("Our A100 decodes Llama-3.1-8B at 45 tokens/s while an L40 and a 4090 both do over 55. Is it broken?", "L40"),
        ("我的 4090 跑 70B 很慢，朋友说换 A6000 会快吗？还是 H100？", "H100"),
    ],
)
def test_a_card_no_part_covers_gets_its_own_line(advisor, question: str, card: str) -> None:
    final = ask_checked(advisor, question)
    line = next(p for p in final.answer.split("\n\n") if "also named" in p or "还提到了" in p)
    assert "GB/s" in line and card in line


def test_a_card_weighed_in_passing_is_in_the_answer(advisor) -> None:
    question = "I only buy one V100 16GB a month, but an A2 gets in the same price and has flashattn2: single GPU ok?"
    assert "A2" in ask_checked(advisor, question).answer


def test_a_card_the_answer_already_names_gets_no_extra_line(advisor) -> None:
    final = ask_checked(advisor, "Can a 4090 run Qwen2.5-32B at 4-bit?")
    assert "also named" not in final.answer


def test_a_question_back_keeps_the_cards_named(advisor) -> None:
    final = ask_checked(advisor, "Which GPU works best for real-time edge computing? NVIDIA RTX 4060 or an L4?")
    assert "4060" in final.answer and "L4" in final.answer


def test_names_match_however_the_card_is_spelled() -> None:
    assert named_in("两张 NVIDIA GeForce RTX 2080 Ti", "rtx-2080-ti")
    assert named_in("a 2080Ti pair", "rtx-2080-ti")
    assert not named_in("two RTX 3090s", "rtx-2080-ti")
    assert cards_not_named("the RTX 4090 holds it", ["rtx-4090", "l40"]) == ["NVIDIA L40"]


# -- old and long-tail AMD cards


@pytest.mark.parametrize(("gpu", "target"), [("Radeon R7 360", "gfx70x"), ("Radeon HD 7970", "gfx60x")])
def test_a_long_tail_radeon_is_judged_by_its_gcn_generation(gpu: str, target: str) -> None:
    rocm = check_support(SupportRequest(engine="rocm", gpu=gpu))
    assert rocm.verdict == "no" and rocm.gfx_target == target
    ollama = check_support(SupportRequest(engine="ollama", gpu=gpu))
    assert ollama.verdict == "caveat" and "Vulkan" in " ".join(render_all(ollama.instead, "en"))


def test_a_2gb_card_says_its_memory_beside_the_verdict(advisor) -> None:
    final = ask_checked(
        advisor, "Does ollama support Amd Radeon r7 360 gpu?\nOllama doesn't use gpu. What i need to do?"
    )
    assert "2 GB" in lead_of(final.answer, 2) and "Vulkan" in final.answer
    zh = ask_checked(advisor, "ollama 支持 Radeon R7 360 吗？一直用 CPU 跑")
    assert "2 GB" in lead_of(zh.answer, 2)


@pytest.mark.parametrize(
    "question",
    [
        "我的卡是 AMD Radeon(TM) Pro Duo，跑 yi:9b 响应很慢，大部分模型报 exit status 0xc0000005，我这是 16 * 2 的卡",
        "My AMD Radeon(TM) Pro Duo is very slow with yi:9b, it waits 30 s before the first token; 16 GB x 2 card",
    ],
)
def test_a_radeon_pro_duo_is_two_16gb_gfx803_gpus_and_vulkan_leads(advisor, question: str) -> None:
    final = ask_checked(advisor, question)
    head = lead_of(final.answer, 2)
    assert "Vulkan" in head and "gfx803" in head
    assert "16 GB" in final.answer
    assert "gfx906" not in final.answer  # the older-ROCm advice is gfx906's, not Polaris'


# -- ktransformers and modded cards


@pytest.mark.parametrize(
    ("gpu", "verdict"), [("2080 Ti", "caveat"), ("P40", "caveat"), ("3090", "yes"), ("4090", "yes")]
)
def test_ktransformers_needs_marlin_on_ampere(gpu: str, verdict: str) -> None:
    r = check_support(SupportRequest(engine="ktransformers", gpu=gpu))
    assert r.verdict == verdict
    text = " ".join(render_all([*r.why, *r.instead], "en"))
    assert "Marlin" in text
    assert ("KLinearTorch" in text) == (verdict == "caveat")


def test_ktransformers_on_an_old_card_is_answered_with_the_torch_kernels(advisor) -> None:
    final = ask_checked(advisor, "ktransformers 能在 2080ti 上跑吗")
    assert "Marlin" in final.answer and "KLinearTorch" in final.answer


def test_a_modded_cards_earlier_good_run_clears_only_the_memory_it_used() -> None:
    r = assess_card(CardRiskRequest(gpus=["RTX 3080"], stated_vram_gib=20, failing=True, model="deepseek-v3.1"))
    text = " ".join(render_all(r.instead, "zh"))
    assert "DeepSeek-V3.1" in text and "10 GB" in text
    bare = assess_card(CardRiskRequest(gpus=["RTX 3080"], stated_vram_gib=20, failing=True))
    assert len(bare.instead) == 1
