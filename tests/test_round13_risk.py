"""Round 13, risk questions read as a user:

- a Chinese question with a pasted English log (vLLM's INFO lines, a traceback, nvidia-smi rows) is answered in Chinese;
- vLLM's own log lines name the engine when the message does not, so an old card's support verdict leads;
- "can use which models" on named cards is what they hold (capacity), not their spec sheet;
- a GPU series named the support table's way ("the RX7900 series") is a family to check, not an unknown card;
- a machine that freezes and reboots under load leads with the power supply, and clears the memory when it fits;
- whether PCIe lanes or bandwidth matter is answered first: one card, a layer split, training;
- an old card's worth with no job and no bill named is its used value, not buy versus rent.
"""

import pytest
from asking import ask_checked, lead_of

from assistant.language import detect_language
from assistant.understanding import parse

_VLLM_LOG = (
    "\nINFO 05-15 11:04:11 [model_runner.py:1110] Starting to load model ../Qwen2.5-7B-Instruct...\n"
    "Loading safetensors checkpoint shards: 100% Completed | 4/4 [00:02<00:00,  1.36it/s]\n"
    "INFO 05-15 11:04:14 [model_runner.py:1146] Model loading took 14.2487 GB and 3.016548 seconds\n"
    "[rank0]: Traceback (most recent call last):\n"
    '[rank0]:   File "/home/work/app/venv/bin/app-cli", line 8, in <module>'
)


@pytest.mark.parametrize(
    "text",
    [
        "我想问下P40能跑吗?" + _VLLM_LOG,
        "这张卡为啥这么慢\n| 0 NVIDIA GeForce RTX 3090 Off | 00000000:01:00.0 Off | N/A |\n"
        "| 30% 45C P2 120W / 350W | 20000MiB / 24576MiB | 90% Default |",
        "M40 能用吗" + _VLLM_LOG,
    ],
)
def test_a_chinese_question_with_a_pasted_english_log_is_chinese(text) -> None:
    assert detect_language(text) == "zh"


def test_an_english_question_stays_english() -> None:
    assert detect_language("Will the P40 run this?" + _VLLM_LOG) == "en"


@pytest.mark.parametrize(
    ("text", "lead"),
    [
        ("我想问下P40能跑吗?" + _VLLM_LOG, ("6.1", "7.5")),
        ("M40 能跑这个吗" + _VLLM_LOG, ("5.2", "7.5")),
        ("Can my Tesla P4 run this?" + _VLLM_LOG, ("6.1", "7.5")),
    ],
)
def test_vllms_own_log_names_the_engine_and_the_cards_support_leads(advisor, text, lead) -> None:
    assert parse(text).engine == "vllm"
    final = ask_checked(advisor, text)
    first = lead_of(final.answer)
    assert all(x in first for x in lead), final.answer
    assert ("vLLM" in first) and (detect_language(final.answer) == detect_language(text)), final.answer


@pytest.mark.parametrize(
    "text",
    [
        "双卡Tesla V100-SXM2-16GB在1.2.+可以使用哪些大尺寸和小尺寸的模型？",
        "双卡V100 16G能用哪些模型",
        "我有一张3060 12G，可以用什么模型",
    ],
)
def test_which_models_the_cards_can_use_is_what_they_hold(text) -> None:
    assert "capacity" in parse(text).intents


@pytest.mark.parametrize(
    ("text", "target"),
    [
        ("Will the RX7900 series be supported? I hope so.", "RX7900 series"),
        ("Does ROCm support the RX 7900 series?", "RX 7900 series"),
        ("RX 6800 series 能跑 ROCm 吗", "RX 6800 series"),
    ],
)
def test_a_series_named_the_support_tables_way_is_a_family_not_an_unknown_card(text, target) -> None:
    q = parse(text)
    assert q.unknown_gpu is None and target in q.support_targets, q
    assert "support" in q.intents, q


def test_the_rx7900_series_is_answered_as_rdna3(advisor) -> None:
    final = ask_checked(advisor, "Will the RX7900 series be supported? I hope so.")
    assert "gfx1100" in final.answer and "don't know the GPU" not in final.answer, final.answer


@pytest.mark.parametrize(
    ("text", "power", "fits"),
    [
        (
            "[BUG] 上传本地数据库文件（450k，word）后会死机重启，显卡4080 — 如题，模型为chatglm-6b-int4。显存16g",
            "电源",
            "显存不是问题",
        ),
        ("3090跑qwen2.5-7b 推理时电脑自动重启", "电源", "显存不是问题"),
        ("My PC freezes and reboots when I run llama 3 8B on my 3090", "power supply", "Memory is not the problem"),
    ],
)
def test_a_machine_that_reboots_under_load_leads_with_the_power_supply(advisor, text, power, fits) -> None:
    q = parse(text)
    assert q.symptom == "crash" and "power_off" in q.diagnose_flags, q
    final = ask_checked(advisor, text)
    assert power in lead_of(final.answer), final.answer
    assert fits in lead_of(final.answer, 2), final.answer


@pytest.mark.parametrize(
    ("text", "lead"),
    [
        ("是否非常依赖pcie 带宽呢？我用的是p104-100 8g 矿渣跑 pci 只有1g的速度，速度很慢", "不依赖 PCIe 带宽"),
        ("3090 插在 x4 的插槽上 推理会慢吗", "不依赖 PCIe 带宽"),
        ("Will the v100 work in a 2-lane PCIE slot, or through 1 lane?", "barely matters"),
        ("Dual 4090 on a 13900k for ExLlama: 1x16 + 4 or 2x8 + 4, which is better?", "x8/x8"),
        ("Does PCIe bandwidth matter for inference with two 3090s at x8/x8?", "x8/x8"),
        ("两张3090做LoRA微调，PCIe x4 会成为瓶颈吗", "确实有影响"),
    ],
)
def test_whether_pcie_lanes_matter_is_answered_first(advisor, text, lead) -> None:
    assert parse(text).asks_pcie
    final = ask_checked(advisor, text)
    assert lead in lead_of(final.answer), final.answer


@pytest.mark.parametrize(
    "text",
    ["A100 80G PCIe 能跑 70B 吗", "Is the 4090 PCIe 4.0?", "4090 PCIe 4.0 x16 规格"],
)
def test_a_cards_own_pcie_name_or_spec_asks_nothing_about_lanes(text) -> None:
    assert not parse(text).asks_pcie


@pytest.mark.parametrize(
    ("text", "lead"),
    [
        ("Is a Titan RTX still worth it in 2025 for local LLMs?", "Worth buying"),
        ("Titan RTX 现在还值得买吗？", "能买"),
        ("Is the Tesla V100 32GB still worth it?", "Worth buying"),
    ],
)
def test_an_old_cards_worth_is_its_used_value_not_buy_versus_rent(advisor, text, lead) -> None:
    q = parse(text)
    assert q.intents == ["gpu_info"] and q.used_market, q
    final = ask_checked(advisor, text)
    first = lead_of(final.answer)
    assert lead in first and "rent" not in first and "租" not in first, final.answer


def test_a_worth_with_a_bill_stays_buy_versus_rent() -> None:
    assert "cost" in parse("Is a Titan RTX still worth it, or should I rent in the cloud at $0.5/hour?").intents


@pytest.mark.parametrize(
    ("text", "card"),
    [
        ("The Llm-scaller project is for bmg (b580/b60)", "arc-pro-b60"),
        ("B60 24GB for llama 70b?", "arc-pro-b60"),
        ("4x B60", "arc-pro-b60"),
    ],
)
def test_intels_b60_by_its_short_name_in_a_list_or_beside_its_memory(text, card) -> None:
    assert card in parse(text).gpu_mentions


def test_a_bare_b60_in_other_text_is_no_card() -> None:
    assert not parse("qwen b60 model").gpu_mentions


@pytest.mark.parametrize(
    "text",
    [
        'I have a Tesla P4 card running on 2 lanes of PCIE, through a "PCIE to M2" bridge',
        "my M2 SSD is slow when loading the model",
        "4090 插在 M2 转接卡上能跑吗",
    ],
)
def test_an_m2_slot_or_drive_is_no_apple_chip(text) -> None:
    assert not any(t.upper().startswith("M2") for t in parse(text).support_targets)
