"""Round 13b, how a user's card is read from what they wrote:

- a generic name and a specific one for the same card in one message are one card, the specific one ("A100 ... my
  A100-PCIE 40G", "the 4090 ... RTX 4090 D"); set against each other ("4090 vs 4090 D") they stay two;
- a memory stated beside a card in any common wording picks that variant, a memory mod included ("a 2080 Ti with
  22GB", "4090 with 48GB"); a size no variant has stays a claim to check;
- the card-name typos people make ("M2 Ultral", "A6000ada") are tolerated without matching a different card.
"""

import pytest
from asking import ask_checked, lead_of

from assistant.understanding import parse


@pytest.mark.parametrize(
    ("text", "mentions"),
    [
        ("Why is my A100 as slow as a 3090? My A100-PCIE 40G gives 2.67 it/s", ["a100-40gb-pcie", "rtx-3090"]),
        ("the 4090 is slow here. My RTX 4090 D runs qwen 32b at 20 tok/s", ["rtx-4090-d"]),
        ("H100 跑 qwen 72b 很慢。我的是 H100 PCIe 80G", ["h100-pcie"]),
        ("4090 训练 lora 爆显存了，机器是 RTX 4090D 24G", ["rtx-4090-d"]),
        ("A100 keeps running out of memory. Setup: 4x A100 SXM4 40GB, llama 70b lora", ["a100-40gb-sxm"]),
    ],
)
def test_a_generic_and_a_specific_name_of_one_card_are_one_card(text, mentions) -> None:
    q = parse(text)
    assert q.gpu_mentions == mentions, q.gpu_mentions
    assert q.gpu == mentions[0]


@pytest.mark.parametrize(
    ("text", "mentions"),
    [
        ("RTX 4090 vs RTX 4090 D for training", {"rtx-4090", "rtx-4090-d"}),
        ("4090 和 4090D 哪个好", {"rtx-4090", "rtx-4090-d"}),
        ("3090 还是 3090 Ti 跑 qwen 32b", {"rtx-3090", "rtx-3090-ti"}),
        ("Is an H100 or an H100 PCIe better for inference?", {"h100-sxm", "h100-pcie"}),
        ("I have a 4090. Should I buy a 4090 D too?", {"rtx-4090", "rtx-4090-d"}),
        ("我有一张 4090，想再买一张 4090D 24G 一起跑 qwen 72b", {"rtx-4090", "rtx-4090-d"}),
        ("My A100 is slow. Our other box has an A100 PCIe 40GB", {"a100-80gb-sxm", "a100-40gb-pcie"}),
    ],
)
def test_two_variants_set_against_each_other_stay_two(text, mentions) -> None:
    assert set(parse(text).gpu_mentions) == mentions


@pytest.mark.parametrize(
    ("text", "gpu"),
    [
        ("a 2080 Ti with 22GB runs out of memory on qwen 14b", "rtx-2080-ti-22gb-mod"),
        ("2080 Ti (22GB) OOM on qwen 14b", "rtx-2080-ti-22gb-mod"),
        ("I have a 4090 with 48GB, can it run llama 70b awq", "rtx-4090-48gb-mod"),
        ("我的2080ti，22G显存，跑qwen 14b 爆显存", "rtx-2080-ti-22gb-mod"),
        ("my 3060 12G can it run qwen2.5 7b", "rtx-3060-12gb"),
        ("V100 16G 能跑 qwen 7b 吗", "v100-sxm2-16gb"),
        ("4060 Ti 8GB 能跑 14b 吗", "rtx-4060-ti-8gb"),
        ("I have a 3090 (24GB), can it run llama 70b?", "rtx-3090"),
    ],
)
def test_a_memory_beside_a_card_picks_that_variant(text, gpu) -> None:
    q = parse(text)
    assert q.gpu == gpu
    assert not [c for c in q.claims if c.topic == "vram"], q.claims


def test_a_size_no_variant_has_stays_a_claim() -> None:
    q = parse("my 3090 with 48GB runs out of memory on llama 70b")
    assert q.gpu == "rtx-3090"
    assert [c.asserted for c in q.claims if c.topic == "vram"] == [48.0]


@pytest.mark.parametrize(
    ("text", "gpu"),
    [
        ("Mac Studio M2 Ultral 192G， llama2 训练", "apple-m2-ultra-192gb"),
        ("M2 Ultral 192GB can it run llama 70b?", "apple-m2-ultra-192gb"),
        ("M3 Ultral Mac Studio 512G 跑 deepseek", "apple-m3-ultra-512gb"),
        ("A6000ada 能微调 llama 8b 吗", "rtx-6000-ada"),
        ("RTX A6000 Ada 48G for qwen 32b?", "rtx-6000-ada"),
        ("RTX4090D 能跑 qwen 32b 吗", "rtx-4090-d"),
        ("3090TI 能不能跑 llama 70b", "rtx-3090-ti"),
        ("2080ti22g 跑 qwen 14b 够吗", "rtx-2080-ti-22gb-mod"),
    ],
)
def test_common_card_name_typos_are_read(text, gpu) -> None:
    assert parse(text).gpu == gpu


def test_the_plain_a6000_stays_the_ampere_card() -> None:
    assert parse("RTX A6000 能微调 llama 8b 吗").gpu == "rtx-a6000"


def test_one_card_named_twice_is_answered_as_one(advisor) -> None:
    final = ask_checked(advisor, "My A100 is slow. My A100-PCIE 40G decodes llama 3 8b at 20 tok/s, why?")
    assert "A100 40GB PCIe" in lead_of(final.answer), final.answer
    assert "80GB" not in final.answer, final.answer


def test_a_modded_card_with_its_memory_is_sized_as_the_mod(advisor) -> None:
    final = ask_checked(advisor, "Can a 2080 Ti with 22GB run qwen2.5 14b awq?")
    assert "22" in lead_of(final.answer), final.answer


@pytest.mark.parametrize(
    "text",
    [
        "llama-13b 在 A10 上 43 tokens/s，在 A100 80G 上才 51 tokens/s，为什么没有快一倍？",
        "On my A10 it does 40 tokens/s, and on the A100 40GB only 50 tokens/s",
    ],
)
def test_a_model_number_that_runs_on_into_another_is_another_card(text):
    # "A10" is no family of "A100 80G" (card_names.one_card): both cards stay, each with its own speed
    assert len(set(parse(text).gpu_mentions)) == 2
