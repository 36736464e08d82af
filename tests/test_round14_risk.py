"""Round 14, risk questions read as a user (helper h6):

- a Hygon DCU named ("海光 Z100L", "曙光的DCU", "Hygon K100_AI") is an accelerator on Hygon's DTK stack, not a card
  nobody knows;
- a card without BF16 asked about a BF16 error for inference: load the checkpoint in FP16 (the how, not only the why);
- the machine powering off under load ("power goes off on my pc", "turns off the whole PC") is the PSU, a crash;
- a laptop chip named with a glued "M" ("3060M 12GB", "RTX 3080M 16G") is that card, and a card size with no model
  ("what can my 6GB card run") asks what it holds;
- old cards someone is thinking of buying for training ("contemplating picking up", "想入手") are judged as a
  purchase: not worth buying, and what to buy instead; "I have no clue" and "想入手" own no card.
"""

import pytest
from asking import ask_checked, lead_of

from assistant.understanding import parse


@pytest.mark.parametrize(
    ("text", "name"),
    [
        ("请问是否支持海光Z100L dcu（gfx906）？", "Z100L"),
        ("海光K100_AI能部署qwen2.5-72b吗", "K100_AI"),
        ("Does vLLM run on a Hygon DCU?", "Hygon DCU"),
        ("我们单位只有曙光的DCU服务器，能跑deepseek吗", "Hygon DCU"),
    ],
)
def test_a_hygon_dcu_is_answered_with_its_dtk_stack(advisor, text, name) -> None:
    final = ask_checked(advisor, text)
    lead = lead_of(final.answer)
    assert name in lead and "DTK" in lead, final.answer
    assert "不认识" not in final.answer and "don't recognise" not in final.answer.lower(), final.answer


@pytest.mark.parametrize(
    ("text", "how"),
    [
        (
            "V100不支持 BF16 之后是否会有FP16的版本呢？ valueerror: bfloat16 is only supported on gpus with compute "
            "capability of at least 8.0. your tesla v100-sxm2-32gb gpu has compute capability 7.0.",
            "torch_dtype=torch.float16",
        ),
        ("My 2080 Ti says bf16 is not supported, do I need to wait for an fp16 version of the model?", "--dtype half"),
        (
            "T4 报错 bfloat16 is only supported on GPUs with compute capability of at least 8.0，我只是想推理 "
            "Qwen2.5-7B，怎么办",
            "--dtype half",
        ),
        (
            "Colab T4: 'Bfloat16 is only supported on GPUs with compute capability of at least 8.0' when loading "
            "Llama 3 8B. Is there a float16 release?",
            "torch_dtype=torch.float16",
        ),
    ],
)
def test_a_bf16_error_on_a_card_without_bf16_says_how_to_load_in_fp16(advisor, text, how) -> None:
    final = ask_checked(advisor, text)
    assert how in final.answer, final.answer


@pytest.mark.parametrize(
    "text",
    [
        "Power off after 3 or 4 input to the webui. i Have 3090 which i bought used a month ago when i start to chat "
        "after 3. or 4. text that i sent power goes off on my pc.",
        "My second-hand 3090 turns off the whole PC as soon as ollama starts generating",
        "my pc just dies when llama.cpp starts generating on the 4090",
        "二手3090，跑模型几分钟电脑就断电",
    ],
)
def test_a_machine_powering_off_under_load_is_the_power_supply(advisor, text) -> None:
    parsed = parse(text)
    assert parsed.symptom == "crash" and "power_off" in parsed.diagnose_flags, parsed
    final = ask_checked(advisor, text)
    lead = lead_of(final.answer)
    assert "power supply" in lead or "电源" in lead, final.answer
    assert "nvidia-smi -pl" in final.answer, final.answer


@pytest.mark.parametrize(
    ("text", "gpu", "gib"),
    [
        ("can a 3060M 12GB run llama 8b", "rtx-3060-12gb", None),
        ("RTX 3060M 12G 能跑 qwen2.5 14b 吗", "rtx-3060-12gb", None),
        ("my 3080M 16gb, what can it run", None, 16.0),
        ("RTX 3060M laptop", None, 6.0),
    ],
)
def test_a_laptop_chip_named_with_a_glued_m_is_that_card(text, gpu, gib) -> None:
    parsed = parse(text)
    assert parsed.gpu == gpu and parsed.stated_capacity_gib == gib, parsed


@pytest.mark.parametrize(
    "text",
    [
        "what can my RTX 3060 laptop run",
        "what can my 6GB card run",
        "我的笔记本4060 8G能跑什么模型",
        "my 3080M 16gb, what can it run",
    ],
)
def test_a_card_size_with_no_model_asks_what_it_holds(text) -> None:
    assert parse(text).intents[0] == "capacity", parse(text)


def test_the_3060m_12gb_question_is_answered_with_what_it_holds(advisor) -> None:
    text = (
        "Could someone check if AI models can be run locally on cards like the 3060M with FrankenDriver? "
        "Like the 3060M 12GB with FrankenDriver? Do you get any errors or do they start normally?"
    )
    final = ask_checked(advisor, text)
    assert lead_of(final.answer).startswith("Yes"), final.answer
    assert any(c.name == "largest_model" and c.args.get("gpu") == "rtx-3060-12gb" for c in final.tool_calls)


@pytest.mark.parametrize(
    ("text", "lead"),
    [
        (
            "Is Nvidia maxwell supported? I was contemplating picking up some tesla m10 GPU's for wan 2.1 training "
            "but I have no clue if its supported or not.",
            "Not worth buying for training",
        ),
        ("contemplating picking up a Tesla M60 to train LoRAs, is Maxwell still supported?", "Not worth buying"),
        ("想入手几张二手M40 24G做模型训练，值得吗", "不值得为训练买"),
        ("I'm considering getting some cheap Tesla P100s for fine-tuning, is Pascal fine?", "Not worth buying"),
    ],
)
def test_old_cards_to_be_bought_for_training_are_not_worth_buying(advisor, text, lead) -> None:
    final = ask_checked(advisor, text)
    assert lead_of(final.answer).startswith(lead), final.answer


@pytest.mark.parametrize(
    ("text", "owns"),
    [
        ("I have no clue if the M10 is supported", False),
        ("想入手几张二手M40", False),
        ("刚入手两张M40，能训练吗", True),
        ("I have a 3090, what can it run?", True),
    ],
)
def test_owning_words_that_own_nothing(text, owns) -> None:
    assert bool(parse(text).owns_hardware) is owns, parse(text)


def test_owned_old_cards_for_training_keep_the_slow_verdict(advisor) -> None:
    final = ask_checked(advisor, "刚入手两张M40，能训练吗")
    assert "不值得" not in lead_of(final.answer), final.answer


@pytest.mark.parametrize(
    ("text", "new", "old"),
    [
        (
            "Will the v100 accelerator work as is in a 2-lane PCIE slot? I currently have a Tesla P4 card running on 2 "
            "lanes of PCIE, and I would like to change it to a v100.",
            "v100-sxm2-32gb",
            "tesla-p4",
        ),
        ("现在用的是P40，想换成3090，我的850W电源够吗", "rtx-3090", "tesla-p40"),
        ("I have a 2080 Ti and I'm switching to a 4090, will my 750W PSU handle it?", "rtx-4090", "rtx-2080-ti"),
    ],
)
def test_the_card_switched_to_is_the_subject_not_a_comparison(text, new, old) -> None:
    q = parse(text)
    assert q.gpu == new and "compare" not in q.intents, q
    assert old not in q.gpu_mentions and q.replaced_gpu == old, q


@pytest.mark.parametrize(
    "text", ["I have a 3060, would switching to a 4090 or a 3090 be faster?", "我有一张3090，换4090能快多少"]
)
def test_a_comparison_word_keeps_both_cards_of_the_switch(text) -> None:
    q = parse(text)
    assert len(set(q.gpu_mentions)) >= 2 and not q.replaced_gpu, q


@pytest.mark.parametrize(
    ("text", "yes"),
    [
        ("can used for 5090d v2 24G ?", "Yes"),
        ("5090d v2 24G 能用吗", "够用"),
        ("can 5090d v2 24G use this repo ?", "Yes"),
    ],
)
def test_a_card_given_with_its_own_memory_and_nothing_else_asked_is_what_it_holds(advisor, text, yes) -> None:
    final = ask_checked(advisor, text)
    lead = lead_of(final.answer)
    assert lead.startswith(yes) and "24 GB" in lead, final.answer
    assert "32 GB" in final.answer, final.answer  # the catalog card's own memory, said beside it


@pytest.mark.parametrize(
    ("text", "said"),
    [
        (
            "Could someone check if AI models can be run locally on cards like the 3060M 12GB with FrankenDriver?",
            "no warranty",
        ),
        ("魔改驱动的 3070M 16G 能跑 qwen2.5 14b 吗", "没有保修"),
        ("I run a modded driver on my 2080 Ti, will Ollama work?", "nobody supports it"),
    ],
)
def test_a_modified_driver_is_said_beside_the_answer(advisor, text, said) -> None:
    final = ask_checked(advisor, text)
    assert said in final.answer, final.answer


def test_a_driver_named_without_a_modification_says_nothing_of_it() -> None:
    codes = [getattr(n, "code", None) for n in parse("my 2080 Ti driver is 550, will Ollama work?").notes]
    assert "risk_modified_driver" not in codes


@pytest.mark.parametrize(
    "text",
    [
        "IGPU limits the inference speed of the entire system. System: U265K+48G ddr5 +B580, Ollama Portable Zip with "
        "IPEX-LLM. When i load deepseek-r1:7b , igpu loaded 4g, B580 loaded 3.2g.",
        "ollama puts half of qwen2.5 7b on my iGPU and half on the A770, it's really slow",
        "核显把速度拖慢了，A770 用 ollama 跑 qwen2.5 7b 只有 5 tokens/s",
    ],
)
def test_a_run_split_onto_the_integrated_gpu_is_the_first_cause(advisor, text) -> None:
    assert "igpu_split" in parse(text).diagnose_flags
    final = ask_checked(advisor, text)
    assert "ONEAPI_DEVICE_SELECTOR" in final.answer, final.answer
    lead = lead_of(final.answer, paragraphs=2)
    assert "integrated GPU" in lead or "核显" in lead, final.answer


def test_an_integrated_gpu_only_named_beside_an_nvidia_card_is_no_split() -> None:
    text = "my laptop has integrated graphics and a 4060, llama.cpp is very slow on llama 3 8b"
    assert "igpu_split" not in parse(text).diagnose_flags


@pytest.mark.parametrize(
    ("text", "together"),
    [
        (
            "Dual GPU setup on 13900k — We are considering buying a dual 4090 13900k rig for ExLlama LLM inference, "
            "but given the PCIe configurations, (1x16 + 4 or 2x8 + 4) we're not entirely sure if the 13900k is our "
            "best option.",
            "48 GB in all",
        ),
        ("4x 3090 on x1 risers for inference, does PCIe matter?", "96 GB in all"),
        ("Planning 2x A6000 on an x8/x8 board, will that bottleneck LLM inference?", "96 GB in all"),
        ("两张3090插在x16和x4的槽上跑推理，是否依赖pcie带宽", "共 48 GB"),
    ],
)
def test_several_cards_asked_about_the_link_say_what_they_hold_together(advisor, text, together) -> None:
    final = ask_checked(advisor, text)
    lead = lead_of(final.answer)
    assert "x8" in lead or "x4" in lead, final.answer  # the link's answer still leads
    assert together in final.answer, final.answer
