"""Round 14, fit questions as real people ask them (evals/wild/*_fit_r7.yaml), one test per kind, each with variations
written for this round (other wording, hardware, model and language than the wild case):

- "does it fit, and how fast?" on the user's cards: the tokens/s of the way that fits is in the first two sentences,
  right after the verdict (capabilities/speed_lead.py), also when only RAM offload runs it;
- a model too big for one card asked about (not owned): how many of that card the small format takes;
- "能跑多少B的模型" with an offload engine named: the machine's ceiling, not the engine's tutorial model;
- "并发人数 / 并发上限" asked, and "有没有…数据" as chatter, not a spec question;
- "每一分钟可以生成多少 token", "运行效率": a speed question; several sizes each get their speed;
- "since it was able to run X on a 24 GB GPU, …": someone else's result, not the user's model or card;
- "Vision 11B": the one vision model of that size; Skywork-R1V-38B in the registry;
- a model that does not fit a card named by its size, even at 2 bits: its 4-bit figure beside the no.
"""

import re

import pytest
from asking import ask_checked

from assistant.understanding import parse
from evals.runner import lead_of

_SPEED = re.compile(r"\d+(?:\.\d+)?\s*\*{0,2}\s*(?:tokens?/s|tok/s)")


@pytest.mark.parametrize(
    "text",
    [
        "I own a single RTX 4090. How many tokens per second would Qwen2.5-32B give me?",
        "How fast does Llama 3.1 8B run on my RTX 3060 12GB, and does it fit?",
        "我有一张3090，跑 Qwen2.5-14B 速度大概多少 tokens/s？",
        "4060Ti 16G 能跑 deepseek-r1 14b 吗，速度怎么样？",
        "我有张 4090，Qwen2.5-32B 跑起来有多快？",
        "I have a 3090. How fast can I run Mixtral 8x7B?",
        "我的 4060 8G 跑 Qwen2.5-32B 速度能有多少？",
    ],
)
def test_a_speed_asked_beside_the_fit_is_in_the_first_two_sentences(advisor, text) -> None:
    final = ask_checked(advisor, text, consistent=True)
    assert _SPEED.search(lead_of(final.answer)), final.answer


def test_an_owned_card_with_no_count_is_one_card_for_the_speed(advisor) -> None:
    final = ask_checked(advisor, "I have a 3090. How fast can I run a 30B model?")
    speeds = [c for c in final.tool_calls if c.name == "estimate_speed"]
    assert speeds and all(c.args.get("num_gpus") in (None, 1) for c in speeds), speeds


@pytest.mark.parametrize(
    ("text", "count"),
    [
        ("单张4090能跑 Llama-3-70B 吗", "2 张"),
        ("[zai-org/GLM-130B] 请问这个模型，有办法在单张3090跑起来推理吗", "4 张"),
        ("Will Falcon-180B run on one A100 80GB?", "2 × NVIDIA A100"),
    ],
)
def test_a_card_asked_about_says_how_many_of_it_the_small_format_takes(advisor, text, count) -> None:
    final = ask_checked(advisor, text, consistent=True)
    assert count in final.answer, final.answer


def test_an_owned_card_is_not_told_to_buy_more(advisor) -> None:
    final = ask_checked(advisor, "我只有一张 3090，能跑 Llama-3-70B 吗")
    assert "按这个格式要" not in final.answer and "拆分才放得下" not in final.answer, final.answer


@pytest.mark.parametrize(
    "text",
    [
        "[kvcache-ai/ktransformers] RTX 4080Super 16G 内存64G 能跑多少B的模型",
        "ktransformers 下 3090 24G 加 128G 内存能跑几B的模型",
        "用 ktransformers，4090 加 256G 内存能部署多少B的模型？",
    ],
)
def test_the_machine_ceiling_asked_beside_an_offload_engine_is_no_tutorial_model(text) -> None:
    q = parse(text)
    assert q.model is None and "capacity" in q.intents, (q.model, q.intents)


@pytest.mark.parametrize(
    "text",
    [
        "请问模型并发上限有没有测试\n\n我是用fastchat+vLLM调用qwen-14b-chat的api，要多人使用，请问有没有并发上限这方面的数据？"
        "或者大致预估一下在8*4090的机器上的并发人数？",
        "4张L40S 部署 Qwen2.5-32B，并发上限大概多少？有没有人测过",
        "两张A100 80G 跑 Llama-3-70B-AWQ，大概的并发用户数是多少？",
    ],
)
def test_concurrency_asked_as_a_limit_or_a_head_count(text) -> None:
    q = parse(text)
    assert q.asks_concurrency and "fit" in q.intents and "gpu_info" not in q.intents, q.intents


def test_asking_for_test_data_is_no_spec_question() -> None:
    q = parse("有没有 A100 跑 Llama-3-70B 的并发测试数据？两张A100 80G")
    assert "gpu_info" not in q.intents, q.intents
    assert "gpu_info" in parse("4090 有没有 NVLink？").intents


@pytest.mark.parametrize(
    "text",
    [
        "我现在有A100的显卡，想试试8B 32B 72B 模型的运行效率和每一分钟可以生成多少toekn",
        "4090 跑 Qwen2.5-7B 一秒能出几个字？",
        "A800 上 Qwen2.5-72B-AWQ 每分钟能输出多少 token",
    ],
)
def test_tokens_per_unit_of_time_asks_the_speed(text) -> None:
    assert "speed" in parse(text).intents


@pytest.mark.parametrize(
    ("text", "n"),
    [
        ("我现在有A100的显卡，想试试8B 32B 72B 模型的运行效率和每一分钟可以生成多少toekn", 2),
        ("我有一张A100 80G，8B、32B、72B 的模型能跑吗，速度分别多少？", 2),
        ("On my single RTX 4090, how fast would Llama 3.1 8B and Qwen2.5 7B run?", 2),
    ],
)
def test_each_size_asked_gets_its_speed_in_the_lead(advisor, text, n) -> None:
    final = ask_checked(advisor, text)
    first = final.answer.split("\n\n")[0]
    assert len(_SPEED.findall(first)) >= n, final.answer


@pytest.mark.parametrize(
    ("text", "model", "capacity"),
    [
        (
            "Since it was able to run Llama2 70B on a single 24 GB GPU with a 2048-token context, is there a chance "
            "you could run codellama 34b with 12gb vram?",
            "codellama-34b",
            12.0,
        ),
        (
            "Given that people can run Mixtral on a 24GB card, could I run Qwen2.5-14B with 8GB of VRAM?",
            "qwen2.5-14b",
            8,
        ),
        ("既然别人能在 24G 的卡上跑 70B，那 12G 显存能跑 Qwen2.5-14B 吗？", "qwen2.5-14b", 12.0),
    ],
)
def test_someone_elses_result_is_not_the_users_model_or_card(text, model, capacity) -> None:
    q = parse(text)
    assert q.model == model and q.stated_capacity_gib == capacity, (q.model, q.stated_capacity_gib)


@pytest.mark.parametrize(
    ("text", "model"),
    [
        (
            "I have two RTX A4000 GPUs (16GB VRAM each). Note: For Vision 11B multi-modal inference.",
            "llama-3.2-11b-vision",
        ),
        ("11B 的视觉模型，一张 4090 能跑吗", "llama-3.2-11b-vision"),
        ("Can a 3090 run the 90B vision model?", "llama-3.2-90b-vision"),
        ("[SkyworkAI/Skywork-R1V] 需要多大的显存", "skywork-r1v-38b"),
    ],
)
def test_a_size_with_a_vision_word_names_the_vision_model(text, model) -> None:
    assert parse(text).model == model


def test_a_bare_common_size_stays_generic() -> None:
    q = parse("Will a 7B model fit on my 3060?")
    assert q.model is None and q.params_b == 7


@pytest.mark.parametrize(
    ("text", "four"),
    [
        ("Can I run codellama 34b with 12gb vram?", "at 4-bit it needs"),
        ("我只有 8G 显存，能跑 Qwen2.5-32B 吗", "4-bit 要"),
        ("Will Mixtral 8x7B run on a 16GB card?", "at 4-bit it needs"),
    ],
)
def test_a_no_on_a_card_size_gives_the_4_bit_figure(advisor, text, four) -> None:
    final = ask_checked(advisor, text, consistent=True)
    assert four in lead_of(final.answer), final.answer


@pytest.mark.parametrize(
    "text",
    [
        "I have an RTX 3060 now. I might buy an RTX 4090 if Llama 3 70B would generate much faster on it, how fast?",
        "I currently have an RTX 3050. I might buy an RTX 4090 if a 70B would generate faster. How fast would it be?",
    ],
)
def test_a_card_considered_for_purchase_leads_with_its_memory_not_the_ram_split(advisor, text) -> None:
    final = ask_checked(advisor, text)
    assert "system RAM" not in final.answer.split("\n\n")[0], final.answer
