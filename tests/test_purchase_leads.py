"""Leads of purchase questions asked as real people ask them (issue 19, wild set round 3): cards weighed for one
yes/no ("3090 or 4090, can it run ...?"), a Mac weighed against NVIDIA cards for fine-tuning, one card to buy beside
the one the user has, a Mac wanted with a memory size, several model sizes on one machine, and which hardware to
build "considering cost-efficiency" (a purchase, not a rental)."""

from __future__ import annotations

import pytest
from asking import ask_checked, lead_of

from assistant.events import FinalEvent
from tools.card_risk import CardRiskRequest, assess_card
from tools.gpu_search import FindGpusRequest, find_gpus


def _ask(advisor, text: str) -> FinalEvent:
    return ask_checked(advisor, text)


def _lead(answer: str) -> str:
    return lead_of(answer)


@pytest.mark.parametrize(
    ("question", "yes", "no"),
    [
        ("3090或4090 单卡可以在本地推理 llama13B + 中文lora 的 4-bit量化模型吗？", ["3090 可以", "4090 可以"], []),
        ("两张3090还是一张4090可以推理 Llama-3-70B 4bit 吗", ["3090 可以"], ["4090 不够"]),
        ("Can two 3090s or one 4090 run Llama 3 70B at 4-bit?", ["3090 — yes"], ["4090 — no"]),
    ],
)
def test_each_card_option_gets_its_yes_or_no_in_the_lead(advisor, question, yes, no):
    final = _ask(advisor, question)
    assert not any(c.name == "compare_gpus" for c in final.tool_calls)
    lead = _lead(final.answer)
    for phrase in [*yes, *no]:
        assert phrase in lead, lead


def test_a_mac_against_named_nvidia_cards_is_measured_against_them() -> None:
    r = assess_card(CardRiskRequest(gpus=["apple-m2-ultra-192gb"], job="training", reference_gpu="rtx-4090"))
    assert "RTX 4090" in r.lead.render("en") and "165" in r.lead.render("en")
    plain = assess_card(CardRiskRequest(gpus=["apple-m2-ultra-192gb"], job="training"))
    assert "A100" in plain.lead.render("en")  # nothing named: the datacenter reference
    quiet = assess_card(CardRiskRequest(gpus=["apple-m4-pro-64gb"], job="training", reference_gpu="rtx-4090"))
    assert " 0 TFLOPS" not in quiet.lead.render("zh") + quiet.lead.render("en")  # no published figure, none said


@pytest.mark.parametrize(
    "question",
    [
        "有谁用过Mac Studio微调的 — 这个如果是192G的话，是否比8张4090要好，8张4090太占地方了，"
        "如果Mac Studio可以的话还是想入手这个",
        "Mac Studio M3 Ultra or two 3090s for fine-tuning Llama 3 8B?",
    ],
)
def test_a_mac_weighed_against_nvidia_for_fine_tuning_names_the_nvidia_card_first(advisor, question):
    final = _ask(advisor, question)
    lead = _lead(final.answer)
    assert ("4090" in lead or "3090" in lead) and ("Mac" in lead or "M3 Ultra" in lead), lead


@pytest.mark.parametrize(
    "question",
    [
        "I currently have an RTX 3060. I might buy an RTX 4090 if it would make token generation for 70B models in "
        "koboldcpp significantly faster. Does it make sense?",
        "我现在用的是3060，想入手一张4090，跑 Qwen2.5-72B 4bit 能快多少",
    ],
)
def test_one_card_to_buy_beside_the_owned_one_is_the_model_on_that_card(advisor, question):
    final = _ask(advisor, question)
    fits = [c for c in final.tool_calls if c.name == "fit_on_gpu"]
    assert fits and fits[0].args["gpu"] == "rtx-4090" and fits[0].args.get("num_gpus", 1) == 1
    assert not any(c.name == "compare_gpus" for c in final.tool_calls)
    assert any(c.name == "estimate_offload" for c in final.tool_calls)  # the rest from system RAM, and how fast


def test_macs_are_found_by_the_memory_they_are_sold_with() -> None:
    found = find_gpus(FindGpusRequest(vendor="apple", min_total_gib=192))
    ids = {g.id for g in found.gpus}
    assert "apple-m2-ultra-192gb" in ids and all(g.vram_gib >= 191.5 for g in found.gpus)


@pytest.mark.parametrize(
    "question",
    [
        "let's see if we can find a mac mini or similar with >= 192 GB RAM for a local LLM",
        "有没有 256G 内存以上的 Mac 可以跑大模型",
    ],
)
def test_a_mac_wanted_with_a_memory_size_lists_those_macs(advisor, question):
    final = _ask(advisor, question)
    calls = [c for c in final.tool_calls if c.name == "find_gpus"]
    assert calls and calls[0].args.get("vendor") == "apple"
    head = " ".join(final.answer.split("\n\n")[:2])
    assert "Mac Studio" in head and "Ultra" in head, head


@pytest.mark.parametrize(
    ("question", "sizes"),
    [
        ("想买两张 4090 24G，能跑 13b 的微调吗？能跑 72b 的微调吗？", ["13B", "72B"]),
        ("Planning to buy two 3090s. Can they fine-tune Qwen2.5-7B and Qwen2.5-32B?", ["7B", "32B"]),
    ],
)
def test_several_model_sizes_on_one_machine_lead_with_each(advisor, question, sizes):
    lead = _lead(_ask(advisor, question).answer)
    for size in sizes:
        assert size in lead, lead


@pytest.mark.parametrize(
    "question",
    [
        "Seeking the most suitable CPU and GPU configurations for training and inference with LLaMA 2 (70B), "
        "considering performance and cost-efficiency",
        "自配大模型服务器如何选择GPU，CPU和内存？想用 DeepSeek-V2 做底座训练，考虑性价比怎么选",
    ],
)
def test_which_hardware_to_build_considering_cost_is_a_purchase_not_a_rental(advisor, question):
    final = _ask(advisor, question)
    assert not any(c.name == "rent_providers" for c in final.tool_calls[:3])
    lead = _lead(final.answer)
    assert "Rent it by the hour" not in lead and "按小时租来跑" not in lead, lead
