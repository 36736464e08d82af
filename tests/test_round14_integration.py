"""Round 14 integration: where the helpers' new readings met each other's, and the grounding of the parser's notes.

- An application named in a report of a run (a slowdown, a crash) is that run's diagnosis, not the application's
  memory question (apps.py runs after the symptom is read).
- A card bought beside the one owned ("... buy a 4090 D too?") is no switch: both cards stay the subject.
- ", which is slower." after two cards is a clause about them, not a question weighing them; "which one is faster?"
  still is.
- The catalog facts the parser states (a laptop part's desktop card) ground the numbers the answer repeats.
"""

from __future__ import annotations

import pytest

from assistant.advisor import _parsed_notes
from assistant.grounding import check_grounding
from assistant.understanding import parse


@pytest.mark.parametrize(
    "text",
    [
        "Why is my RTX 4090 slower than an A10 running a small Whisper model? About 3 GB used on both.",
        "my 3090 turns off the whole PC when I generate with Stable Diffusion",
        "为什么我的 4090 跑 whisper 比 A10 还慢？两边都只占 3G 显存",
    ],
)
def test_an_application_in_a_run_report_is_diagnosed(text: str) -> None:
    q = parse(text)
    assert q.app is None and "diagnose" in q.intents and q.symptom


@pytest.mark.parametrize(
    "text",
    ["IndexTTS：12g显存够吗", "现在是cpu在跑whisper，太慢了，买什么卡", "Will 16GB VRAM be ok for Gaussian Splatting?"],
)
def test_an_application_asked_about_stays_its_memory_question(text: str) -> None:
    assert parse(text).app


@pytest.mark.parametrize(
    ("text", "cards"),
    [
        ("I have a 4090. Should I buy a 4090 D too?", {"rtx-4090", "rtx-4090-d"}),
        ("I own a 3090, thinking to get a second card, an A6000, as well", {"rtx-3090", "rtx-a6000"}),
        ("我有一张3090，想再加一张4090", {"rtx-3090", "rtx-4090"}),
    ],
)
def test_a_card_bought_beside_the_owned_one_is_no_switch(text: str, cards: set[str]) -> None:
    q = parse(text)
    assert set(q.gpu_mentions) == cards and q.replaced_gpu is None


def test_a_switch_still_replaces_the_old_card() -> None:
    q = parse("I currently have a Tesla P4 and I would like to change it to a V100")
    assert q.gpu.startswith("v100"), q.gpu
    assert q.replaced_gpu == "tesla-p4"


def test_a_relative_clause_is_no_choice_between_the_cards() -> None:
    q = parse(
        "I have two GPUs: an RTX 3090 and a 2060. ollama splits the load among both, which is slower. "
        "Model: solar:q4_0. RTX 3090 alone: 81 t/s. RTX 3090 and RTX 2060: 31.5 t/s"
    )
    assert q.gpus_together and q.symptom == "slow" and "diagnose" in q.intents


@pytest.mark.parametrize(
    "text",
    [
        "I have a 3090 and a 2060 in my PC, which one is faster for llama 8b?",
        "I have a 3090 and a 2060 in my PC, which is faster for llama 8b?",
    ],
)
def test_a_question_after_a_comma_still_weighs_the_cards(text: str) -> None:
    assert "compare" in parse(text).intents


def test_a_laptop_part_note_grounds_the_desktop_figure() -> None:
    question = "需要多大的显存，笔记本RTX4090 16G是否可以运行Qwen2.5-32B"
    notes = _parsed_notes(question)
    assert any(n.code == "laptop_gpu_memory" for n in notes)
    answer = "笔记本版 RTX 4090 的显存是 16 GB（台式机 NVIDIA GeForce RTX 4090 是 24 GB）"
    assert check_grounding(answer, notes, [], [question]).grounded
    assert not check_grounding(answer, [], [], [question]).grounded  # without the note, 24 is no one's figure


# ---- how the pick's cards talk: a 3090 bridge joins two cards, not eight -----------------------------------------


def _link_codes(gpus: list[str], counts: dict[str, int]) -> list[str]:
    from tools.compare import CompareRequest, compare_gpus

    result = compare_gpus(CompareRequest(gpus=gpus, counts=counts, focus="training", preference="fastest"))
    return [n.code for n in result.verdict.reasons if n.code.startswith("cmp_link")]


def test_eight_bridged_cards_cross_pcie_between_pairs() -> None:
    # platforms.yaml nvlink_bridges: the GeForce RTX NVLink bridge joins 2 cards (3090 and A6000 alike)
    assert _link_codes(["v100-sxm2-32gb", "rtx-3090"], {"v100-sxm2-32gb": 4, "rtx-3090": 8}) == [
        "cmp_link_nvlink_bridged"
    ]


def test_two_bridged_cards_talk_over_nvlink() -> None:
    # whichever of the pair is picked, its 2 cards fit one bridge
    assert _link_codes(["rtx-3090", "rtx-a6000"], {"rtx-3090": 2, "rtx-a6000": 2}) == ["cmp_link_nvlink"]
