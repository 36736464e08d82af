"""A Mac weighed against an x86 PC with a discrete GPU (issue 19, wild round 7; capabilities/mac_or_pc.py): the
model's memory decides. Up to what a 24 GB card holds, the PC (a used RTX 3090, or the card named) leads; a model
for two such cards names both ways; a Mac the user owns or runs ("M1 Pro is slow, would another GPU be faster?")
is not turned into a purchase."""

from __future__ import annotations

import pytest
from asking import ask_checked, lead_of


@pytest.mark.parametrize(
    ("question", "words"),
    [
        ("Mac mini vs x86 box with a GPU for ~$2k for local LLMs (Ollama, RAG, agents)?", ["x86", "RTX 3090"]),
        ("买 Mac mini 还是 x86 主机加显卡跑本地大模型，预算 1.5万", ["x86", "RTX 3090", "CUDA"]),
        ("Mac Studio 还是攒一台 4090 主机跑大模型，预算 2 万", ["独立显卡", "RTX 4090"]),
        ("For PoC an old GPU would be sufficient; or a mac mini with >= 192 GB RAM", ["RTX 3090", "M2 Ultra"]),
        (
            "Mac mini M4 24GB vs an x86 box with a used RTX 3060 12GB for Gemma 3 27B, budget $2000?",
            ["RTX 3090", "16.0 GiB"],
        ),
    ],
)
def test_a_model_one_card_holds_leads_with_the_pc(advisor, question, words):
    lead = lead_of(ask_checked(advisor, question, consistent=True).answer)
    for word in words:
        assert word in lead, (word, lead)


def test_a_model_for_two_cards_names_both_ways(advisor):
    lead = lead_of(ask_checked(advisor, "Mac Studio or a PC with an RTX 3090 to run Llama 3.3 70B?").answer)
    assert "two of them" in lead and "unified memory" in lead, lead


@pytest.mark.parametrize(
    "question",
    [
        "用这个去解析一些文本，发现速度有点慢，M1 pro 芯片 大概有 1500tokens，耗时 13s 是不是换成别的 GPU 会更快？",
        "I'm considering the Mac Studio M2 Ultra 192GB. Does it run 65B 4-bit as fast as an A6000?",
    ],
)
def test_a_mac_in_use_or_two_cards_compared_is_no_mac_or_pc_verdict(advisor, question):
    answer = ask_checked(advisor, question).answer
    assert "x86" not in lead_of(answer), answer[:400]


def test_a_named_card_too_small_is_replaced_and_said(advisor):
    question = "Mac mini M4 24GB vs an x86 box with a used RTX 3060 12GB for Gemma 3 27B, budget $2000?"
    answer = ask_checked(advisor, question, consistent=True).answer
    assert "RTX 3060 12GB you list does not hold it" in answer, answer[:600]
