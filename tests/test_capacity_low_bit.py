"""Cards plus RAM too small for a frontier MoE at 4-bit but not at 2-bit: the 2-bit offload example
(tools/capacity.py `offload_low_bit`), and "anything better than X on my cards?" asked as what the cards hold."""

from __future__ import annotations

import pytest
from asking import planned_turn

from tools.capacity import CapacityRequest, largest_model


def test_four_4090d_and_256_gb_ddr4_name_a_671b_moe_at_2_bit():
    r = largest_model(CapacityRequest(gpu="4090d", num_gpus=4, ram_gib=256, ram_type="ddr4"))
    low = r.offload_low_bit
    assert low is not None and low.precision == "q2_k" and low.fits_in_ram
    assert low.model.startswith("DeepSeek")  # V3 / R1, 671B (Kimi-K2 at 2-bit outgrows 256 GB of RAM)
    assert low.decode_tokens_per_s >= 2


def test_no_low_bit_example_when_ram_is_small_or_not_stated():
    assert largest_model(CapacityRequest(gpu="4090", num_gpus=1, ram_gib=32)).offload_low_bit is None
    assert largest_model(CapacityRequest(gpu="4090", num_gpus=4)).offload_low_bit is None


@pytest.mark.parametrize(
    ("question", "words"),
    [
        ("显卡 4*4090D 、256GD4内存有比distill的70B更好的部署选择吗", ["2-bit", "DDR4", "Q4_K_M", "IQ1_S"]),
        ("I have 4x 3090 and 256GB DDR4 RAM, anything better than Llama-3.3-70B I can run?", ["2-bit", "DDR4"]),
        ("4张4090，256G DDR4内存，能跑多大的模型？", ["2-bit", "ktransformers"]),
    ],
)
def test_better_than_a_named_model_is_what_the_cards_and_ram_hold(question, words):
    plan, answer = planned_turn(question)
    assert plan.intents[0] == "capacity"
    assert all(x in answer for x in words), answer
