"""Several cards that hold a model as published, and the bill asked about: serving engines keep the whole model in
GPU memory, so the 4-bit build on fewer of the same cards is what cuts the cost (capabilities/fewer_four_bit.py)."""

from __future__ import annotations

import re

import pytest
from asking import planned_turn


@pytest.mark.parametrize(
    ("question", "count"),
    [
        (
            "With Mixtral + TGI, is it actually required to fit the full model in VRAM? `ml.g5.48xlarge` instances "
            "are quite expensive, so I'm looking for options to reduce deployment costs.",
            r"2 × NVIDIA A10G",
        ),
        ("我们用 8 张 L40S 部署 Qwen2.5-72B，显存够吗？成本太高了", r"1 张 NVIDIA L40S"),
    ],
)
def test_cost_of_cards_that_hold_it_names_the_4_bit_count(question, count):
    _, answer = planned_turn(question)
    assert re.search(count, answer), answer
    assert "AWQ" in answer


def test_no_4_bit_count_without_a_cost_question():
    _, answer = planned_turn("Does Mixtral fit on 8x A10G?")
    assert "AWQ or GPTQ" not in answer
