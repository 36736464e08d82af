"""Compare kinds (issue 19, round 8, from new real questions): "which is stronger / is A faster than B" is a
performance question, so the faster card leads, not the cheaper one ("感觉双卡 RTX 6000 PRO 应该比双卡 H100 强吧");
a card seen slower than another with no speeds is the diagnosis's "not the card" ("在4090运行为啥比L20更慢");
a bare "Mac Studio" is sized on the configuration that holds the model; a Mac compared with NVIDIA's cards as a
class is the Mac-or-PC answer."""

from __future__ import annotations

import pytest
from asking import ask_checked, lead_of


@pytest.mark.parametrize(
    ("question", "faster"),
    [
        ("感觉双卡 RTX 6000 PRO 应该比 双卡H100 强吧", "H100"),
        ("Is the RTX PRO 6000 faster than the H100?", "H100"),
        ("A100 和 L40S 哪个性能更强", "A100"),
        ("Is a 4060 Ti stronger than a 3090?", "3090"),
    ],
)
def test_which_is_stronger_leads_with_the_faster_card(advisor, question, faster):
    final = ask_checked(advisor, question, consistent=True)
    lead = lead_of(final.answer)
    assert faster in lead.split("。")[0].split(". ")[0], final.answer


@pytest.mark.parametrize(
    ("question", "word"),
    [
        (
            "在4090运行为啥比L20更慢？发现4090上速度比L20速度更慢，显存占用大概都是4.5G，跑LLM时相反，4090明显比L20性能更好。",
            "不是显卡",
        ),
        (
            "Why is my 4090 slower than the L20 on the same small model? On LLMs the 4090 is clearly better.",
            "Not the card",
        ),
    ],
)
def test_a_card_seen_slower_than_it_should_be_is_not_the_card(advisor, question, word):
    final = ask_checked(advisor, question, consistent=True)
    assert any(c.name == "diagnose" for c in final.tool_calls), final.answer
    assert word in lead_of(final.answer), final.answer


@pytest.mark.parametrize(
    ("question", "config"),
    [
        ("Can a Mac Studio run Qwen3-235B?", "M3 Ultra"),
        ("Mac Studio 能跑满血 DeepSeek R1 吗", "M3 Ultra"),
    ],
)
def test_a_bare_mac_studio_is_sized_on_the_configuration_that_holds_the_model(advisor, question, config):
    final = ask_checked(advisor, question, consistent=True)
    assert config in lead_of(final.answer), final.answer
    assert "M4 Max" not in lead_of(final.answer), final.answer
