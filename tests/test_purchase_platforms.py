"""Purchase questions about the rest of the machine (issue 19, wild set round 4): the CPU, RAM channels and
sockets for a model run from RAM (capabilities/host.py), the CPU alone against a GPU (capabilities/cpu_or_gpu.py),
and how many of each card the user names for a model no card holds (capabilities/big_model.py)."""

from __future__ import annotations

import re

import pytest
from asking import ask_checked, lead_of

from assistant.events import FinalEvent


def _ask(advisor, text: str) -> FinalEvent:
    return ask_checked(advisor, text, consistent=True)


def _lead(answer: str) -> str:
    return lead_of(answer)


@pytest.mark.parametrize(
    ("question", "words"),
    [
        (
            "I want to run DeepSeek R1 671B with ktransformers. Which CPU should I buy, and how many memory channels? "
            "DDR4 or DDR5?",
            ["RAM bandwidth", "12-channel DDR5"],
        ),
        ("想用 llama.cpp 跑 Qwen3-235B-A22B，CPU 选什么？内存通道要几个？单路还是双路？", ["内存带宽", "通道", "双路"]),
        ("跑 GLM-4.5 用内存加一张显卡推理，至强和 EPYC 哪个好，主频重要吗", ["内存带宽", "EPYC"]),
    ],
)
def test_the_host_platform_question_leads_with_ram_bandwidth(advisor, question, words):
    final = _ask(advisor, question)
    lead = _lead(final.answer)
    for word in words:
        assert word in lead, (word, lead)
    # more channels decode faster: the speeds in the lead rise with the platform
    speeds = [float(x) for x in re.findall(r"(\d+(?:\.\d+)?) tokens/s", lead)]
    assert len(speeds) >= 2 and speeds == sorted(speeds), lead


def test_the_cards_named_beside_the_platform_are_compared_on_one_server(advisor):
    final = _ask(
        advisor,
        "[kvcache-ai/ktransformers] 和cpu主频核心数量是否有很大关系？单路和双路哪个会更快些 "
        "显卡的性能是否不需要4090这么好？我手上有2080ti 22g不知道是否影响速度",
    )
    paragraphs = final.answer.split("\n\n")
    assert "内存带宽" in paragraphs[0]
    assert "2080 Ti" in paragraphs[1] and "4090" in paragraphs[1], paragraphs[1]


@pytest.mark.parametrize(
    ("question", "card", "faster"),
    [
        ("Should I get the 13600k and no gpu or a bad cpu and a rtx 3060 12gb? Which is faster?", "3060", "faster"),
        ("预算有限，是纯CPU跑大模型还是买张 3060 12G 显卡？哪个快？", "3060", "快约"),
        ("不买显卡，用 13900K 跑 Qwen2.5-7B，和买一张 4060 8G 比差多少", "4060", "快约"),
        (
            "Is it better to get a 4070 Super or just a CPU with 64GB RAM and no gpu for running Mistral 7B?",
            "4070",
            "faster",
        ),
    ],
)
def test_cpu_alone_against_a_gpu_leads_with_the_gpu_and_bandwidth(advisor, question, card, faster):
    final = _ask(advisor, question)
    lead = _lead(final.answer)
    assert card in lead and faster in lead and "GB/s" in lead, lead
    assert any(c.name == "estimate_speed" and card in c.args.get("gpu", "") for c in final.tool_calls)


@pytest.mark.parametrize(
    ("question", "counts"),
    [
        (
            "[deepseek-ai/DeepSeek-V3] 请问我要运行推理，需要什么显卡配置 用多少卡4090可以哇，或者H100需要多少卡",
            ["4090 要 32 张", "H100 SXM5 80GB 要 16 张"],
        ),
        ("deepseek v3 用H20的话要几张，H100呢", ["H20 要 8 张", "H100 SXM5 80GB 要 16 张"]),
        ("Llama 3.1 405B: how many H100 or MI300X do I need?", ["16 × NVIDIA H100", "8 × AMD Instinct MI300X"]),
    ],
)
def test_the_cards_named_for_a_server_model_lead_with_their_counts(advisor, question, counts):
    lead = _lead(_ask(advisor, question).answer)
    for count in counts:
        assert count in lead, (count, lead)


@pytest.mark.parametrize(
    ("question", "price"),
    [
        ("Grok-1 hardware requirements: is 8 GPUs really $4,000 for each gpu?", "a card)"),
        ("部署 DeepSeek-R1 满血版要买什么服务器，多少钱？", "（每张约 ¥"),
    ],
)
def test_a_server_model_bought_gets_the_price_of_a_card_of_each_server_class(advisor, question, price):
    final = _ask(advisor, question)
    assert price in final.answer, final.answer
    assert any(c.name == "gpu_specs" for c in final.tool_calls)


def test_a_home_question_about_a_server_model_leads_with_its_4bit_size(advisor):
    q = "What are the minimum hardware specs to run GLM 4.5 locally on Windows 11 with Ollama or LM Studio?"
    lead = _lead(_ask(advisor, q).answer)
    assert "GiB of weights" in lead and "4-bit" in lead, lead


@pytest.mark.parametrize(
    ("question", "words", "card"),
    [
        ("Do I need a GPU to run Llama 3 8B, or can I use integrated graphics?", ["not required", "CPU"], "3060"),
        ("跑 deepseek r1 14b 需要独显吗，还是集显就行", ["不需要独立显卡", "CPU"], "3060"),
        ("没有独立显卡能跑 qwen2.5 7b 吗？我的电脑 16G 内存", ["不需要独立显卡", "CPU"], "3060"),
        ("没有显卡可以跑 Qwen2.5-32B 吗？电脑 16G 内存", ["16 GB 内存放不下"], "4090"),
    ],
)
def test_do_i_need_a_gpu_leads_with_the_cpu_then_the_card_that_holds_it(advisor, question, words, card):
    """No card named: no GPU is required (the CPU's speed from RAM, or the RAM too small), then the smallest common
    card that holds the model at 4-bit and how much faster it is; integrated graphics run at the CPU's speed."""
    final = _ask(advisor, question)
    lead = _lead(final.answer)
    assert all(w in lead for w in words), lead
    second = lead_of(final.answer, 2)
    assert card in second and "GB/s" in second, second
    assert "集成显卡" in final.answer or "Integrated graphics" in final.answer


@pytest.mark.parametrize(
    ("question", "words"),
    [
        ("Thinkpad with Intel UHD Graphics 620, 8GB DDR4. What models can I run?", ["Without a GPU", "8 GB"]),
        ("我的笔记本是集成显卡，内存 32G，能跑什么大模型？", ["不用显卡也能跑", "CPU", "32 GB"]),
        (
            "mac 什么配置可以跑呢 MacBook Pro 2.8 GHz 四核Intel Core i7 Intel Iris Plus Graphics 655 1536 MB "
            "16 GB 2133 MHz LPDDR3",
            ["能跑", "CPU", "16 GB"],
        ),
    ],
)
def test_a_machine_with_only_integrated_graphics_is_sized_on_its_cpu_and_ram(advisor, question, words):
    final = _ask(advisor, question)
    lead = _lead(final.answer)
    assert all(w in lead for w in words), lead
    assert any(c.name == "estimate_offload" and c.args.get("strategy") == "cpu" for c in final.tool_calls)


@pytest.mark.parametrize(
    ("question", "card", "faster"),
    [
        (
            "I have two 3090's and 128 gigs of ram on an i9. Would the GPU play any relevance in this or is that "
            "only used for training models?",
            "3090",
            "faster",
        ),
        ("显卡是不是只对训练有用？推理的话用 CPU 就行吗？我有一张 3060 和 64G 内存", "3060", "快约"),
    ],
)
def test_is_the_gpu_only_for_training_answers_with_its_speed_for_running(advisor, question, card, faster):
    final = _ask(advisor, question)
    lead = _lead(final.answer)
    assert card in lead and faster in lead and "GB/s" in lead, lead
    assert not any(c.args.get("mode") in ("finetune", "lora", "qlora") for c in final.tool_calls)
