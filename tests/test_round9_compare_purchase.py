"""Compare / purchase kinds (issue 19, round 9): cards said to run together in one box are pooled, not weighed as
purchases ("would a 4090 and 5090 together work?"); an owner asking which of two cards to ADD gets one of those two
as the pick, with what each makes paired with the card kept ("I have a 3090: add a 5060 Ti or a 5090?")."""

from __future__ import annotations

import re

import pytest
from asking import ask_checked, lead_of


@pytest.mark.parametrize(
    "question",
    [
        "would a 4090 and 5090 together work? and do the cards have to be the same?",
        "4090 和 5090 一起用可以吗？",
        "3090 和 4060Ti 16G 能一起用吗？还是说必须同型号？",
        "can a 3090 and a 3060 work together?",
    ],
)
def test_two_cards_together_are_pooled_not_a_pick(advisor, question):
    final = ask_checked(advisor, question, consistent=True)
    lead = lead_of(final.answer)
    assert not re.search(r"Pick:|结论：选", lead), final.answer
    assert "tensor-split" in final.answer, final.answer
    assert "compare_gpus" not in [c.name for c in final.tool_calls]


@pytest.mark.parametrize(
    ("question", "owned", "pick", "other"),
    [
        (
            "now i have RTX 3090. if i bought 5060 16GB can i use the 3090 vram as added vram? "
            "or a 5090 32gb? which one is worth for money?",
            "3090",
            "5090",
            "5060",
        ),
        ("我现在有块3090，想加一张卡组双卡：5060Ti 16G 还是 5090？哪个更值？", "3090", "5090", "5060"),
        ("I already own a 4090. Thinking of adding a second card: a 3060 12GB or a 3090?", "4090", "3090", "3060"),
        ("手上有一张4090，想再买一张卡一起用，3090还是4060Ti 16G？", "4090", "3090", "4060"),
    ],
)
def test_a_card_to_add_is_picked_among_the_two_and_paired_with_the_one_kept(advisor, question, owned, pick, other):
    final = ask_checked(advisor, question, consistent=True)
    lead = lead_of(final.answer)
    first = lead.split("。")[0].split(". ")[0]
    assert pick in first and owned not in first, final.answer
    compare = next(c for c in final.tool_calls if c.name == "compare_gpus")
    assert all(owned not in g for g in compare.args["gpus"])  # the card kept is no option to buy
    pairs = [c for c in final.tool_calls if c.name == "largest_model" and c.args.get("num_gpus") == 2]
    assert len(pairs) == 2  # each card to add sized with the one kept
    assert owned in final.answer and other in final.answer


@pytest.mark.parametrize(
    ("question", "lead_word"),
    [
        (
            "A chip like the M2 Max has a 38-core GPU w/ up to 96GB unified memory; it should put it in the same "
            "ballpark as some of these Nvidia cards, but given the limitations of MPS the models have to be 4-bit.",
            "Pick",
        ),
        ("My M3 Max 128GB runs models through Metal: how does it compare with an RTX 4090?", "Pick"),
        ("我的 M2 Ultra 192GB 用 Metal 跑模型，和 3090 比怎么样？", "结论"),
    ],
)
def test_a_mac_weighed_against_nvidia_leads_with_the_comparison_not_metal(advisor, question, lead_word):
    """Metal on a Mac is a given: the comparison the owner asks for leads, the yes on Metal follows it."""
    final = ask_checked(advisor, question, consistent=True)
    lead = lead_of(final.answer)
    assert lead_word in lead and "Metal" not in lead.split("。")[0].split(". ")[0], final.answer


def test_an_engine_in_doubt_still_leads_beside_a_comparison(advisor):
    q = (
        "My 4060 laptop is connected to a V100 via USB4. The community told me the V100 does not support "
        "flash-attention, but with -fa the speed is much better. Is that expected?"
    )
    final = ask_checked(advisor, q, consistent=True)
    assert "FlashAttention" in lead_of(final.answer), final.answer
