"""Issue 19, round 10 (purchase): what an owned or wanted card holds, said with its memory; the step up after a
small owned card ("is my RX 580 useless?"); "do I need a dedicated GPU?" for a model no card holds (DeepSeek-R1
671B) asked of the family's smaller model people run, never of one card that cannot hold the model."""

from __future__ import annotations

import re

import pytest
from asking import ask_checked


@pytest.mark.parametrize(
    ("question", "memory"),
    [
        ("Is the RTX 5080 supported by vLLM? We want to buy a few for inference.", "16 GB"),
        ("Official RTX 5090 support? We are planning to purchase them to start working with Ollama.", "32 GB"),
        ("5070 Ti 能用 llama.cpp 吗？准备买一张", "16 GB"),
        ("Does Ollama support the RX 9070 XT yet? Thinking of buying one.", "16 GB"),
    ],
)
def test_a_card_whose_name_states_no_memory_is_sized_with_it(advisor, question, memory):
    answer = ask_checked(advisor, question).answer
    assert memory in answer, answer


@pytest.mark.parametrize(
    ("question", "cards"),
    [
        ("RX 580 8GBs are useless for AI or can i use it somehow ?", ("3060 12GB", "3090")),
        ("GTX 1650 4gb - can I do anything with LLMs on it or is it useless?", ("3060 12GB", "3090")),
        ("我的 RX 570 4G 跑 AI 是不是没用了？", ("3060 12GB", "3090")),
        ("我这张 2060 6G 做本地大模型还有用吗，还是直接废了", ("3060 12GB", "3090")),
    ],
)
def test_a_small_owned_card_gets_the_step_up(advisor, question, cards):
    answer = ask_checked(advisor, question).answer
    assert all(c in answer for c in cards), answer
    assert answer.index(cards[0]) > answer.index("4-bit"), answer  # after what their card runs


def test_a_24gb_owned_card_gets_no_step_up(advisor):
    answer = ask_checked(advisor, "I have a 3090, what's the biggest model I can run?").answer
    assert "step up" not in answer, answer


@pytest.mark.parametrize(
    "question",
    [
        "Does deepseek-r1 on Ollama need a dedicated GPU or is integrated graphics enough?",
        "deepseek-r1 用 ollama 跑需要独显吗？核显行不行",
    ],
)
def test_dedicated_gpu_for_a_model_no_card_holds_is_asked_of_its_distill(advisor, question):
    answer = ask_checked(advisor, question).answer
    assert "671B" in answer and "Distill" in answer, answer
    assert "H200" not in answer.split("\n\n")[0], answer  # no one card "holds" 378 GiB
    assert re.search(r"R1-0528-Qwen3-8B[^\n]*RTX 3060 12GB", answer), answer  # the 8B distill on a 12 GB card
