"""Round 14, buy vs rent and the cost of a training job, read as a user:

- a fine-tune's cost or time asked with no card named is priced on the cheapest rental that holds it and on the
  datacenter card such runs are published on (an A100), the cheaper whole run leading;
- "一张A100可以训吗" after a fine-tune was priced asks whether that card holds the run (训 is the spoken 训练), and the
  priced run's model and method outlive the cards it was priced on;
- each method's memory leads when it is asked in words beside the training time and a cost word;
- a paid API given up for a model hosted by the user ("替换调用 Qwen-max", "replacing our Claude API calls") is API
  against self-hosting, with no cost word said;
- the time a named fine-tune took ("[codealpaca] How long did it take?") is its training time, not a reply's speed;
- LLaVA is sized as the Vicuna it is built on;
- a training run's time asked at a named provider ("Assuming Lambda Labs 8xA100", "在 AutoDL 上") leads with its hours
  at that provider's price.
"""

import uuid

import pytest
from asking import ask_checked, lead_of

from assistant.understanding import parse


@pytest.mark.parametrize(
    ("text", "hours"),
    [
        ("How long would it take to fine-tune Mistral-7B, and what would the GPUs cost?", "hour"),
        ("微调 Qwen2.5-14B 大概要多久？租卡要花多少钱？", "小时"),
        ("what's the cost of fine-tuning llama 3 8b on cloud gpus?", "hour"),
        ("用 LoRA 训练 Qwen2.5-7B 一般要花多少钱", "小时"),
        ("How many hours and dollars to fine tune Gemma 2 9B?", "hour"),
    ],
)
def test_a_fine_tunes_cost_with_no_card_is_also_priced_on_an_a100(advisor, text, hours) -> None:
    final = ask_checked(advisor, text)
    assert hours in lead_of(final.answer), final.answer
    assert "A100" in final.answer, final.answer


@pytest.mark.parametrize(
    ("text", "training"),
    [
        ("一张A100可以训吗", True),
        ("两张3090够训吗", True),
        ("4090 训得动 Qwen2.5-7B 吗", True),
        ("公司培训要用显卡吗", False),
    ],
)
def test_xun_alone_is_the_spoken_word_for_training(text, training) -> None:
    parsed = parse(text)
    assert ("lora" in parsed.jobs) is training, parsed


@pytest.mark.parametrize(
    ("first", "then", "words"),
    [
        ("租卡微调 Qwen2.5-7B 要多少钱", "一张4090能训吗", ("可以", "LoRA")),
        ("How much does it cost to fine-tune Llama-3-8B in the cloud?", "Can a single 3090 train it?", ("Yes", "LoRA")),
        ("微调 Qwen2.5-14B 大概要多久、多少钱", "两张3090够训吗", ("LoRA",)),
    ],
)
def test_a_card_asked_after_a_priced_fine_tune_is_that_run_on_the_card(advisor, first, then, words) -> None:
    session = "r14b-" + uuid.uuid4().hex[:6]
    advisor.ask(session, first)
    final = advisor.ask(session, then)
    lead = lead_of(final.answer)
    assert all(w in lead for w in words), final.answer
    assert "租" not in lead[:12] and "rent" not in lead[:40].lower(), final.answer
    assert "up to about" not in lead and "最大约" not in lead, final.answer  # the run asked, not what the card trains


@pytest.mark.parametrize(
    ("text", "hours"),
    [
        (
            "训练成本与训练时间 — 请问按照您的训练参数对llama7B进行全量训练以及Lora训练时的"
            "显存占用以及训练时间分别是多少呢？是否测试过训练QLora版本呢？",
            "小时",
        ),
        ("Qwen2.5-7B 全量微调和 LoRA 的显存占用、训练时间和成本各是多少？", "小时"),
        (
            "How much VRAM and training time do full fine-tuning and LoRA of Llama-3-8B take, and what would it cost?",
            "hour",
        ),
        ("Qwen2.5-14B 用 LoRA 和 QLoRA 训练，显存各要多少，要训多久？", "小时"),
    ],
)
def test_each_methods_memory_leads_when_asked_beside_time_and_cost(advisor, text, hours) -> None:
    final = ask_checked(advisor, text)
    assert "GiB" in lead_of(final.answer), final.answer
    assert hours in final.answer, final.answer


@pytest.mark.parametrize(
    "text",
    [
        "服务器部署一个Qwen72b模型--替换通过apiKey来调用Qwen-max模型",
        "Thinking of replacing our Claude API calls with a self-hosted Qwen2.5-32B",
        "We want to stop paying for the OpenAI API and host Llama-3.1-70B ourselves",
        "我想把现在调用的 GPT-4o 接口换成本地部署的 Qwen2.5-14B",
    ],
)
def test_an_api_given_up_for_self_hosting_is_priced_both_ways(advisor, text) -> None:
    assert "api" in parse(text).intents
    final = ask_checked(advisor, text)
    assert "API" in lead_of(final.answer), final.answer


def test_switching_between_two_apis_is_no_self_hosting_question() -> None:
    assert "api" not in parse("switch from GPT-4 to Claude API?").intents


@pytest.mark.parametrize(
    "text",
    [
        "[sahil280114/codealpaca] How long did it take? — Assuming Lambda Labs 8xA100 and 80gb",
        "How long did Alpaca 7B take on 8 A100s?",
        "WizardLM 13B 在 8 张 A100 上花了多久？",
        "Zephyr 7B: how long did it take on 8 H100s?",
    ],
)
def test_the_time_a_named_fine_tune_took_is_its_training_time(advisor, text) -> None:
    final = ask_checked(advisor, text)
    lead = lead_of(final.answer, paragraphs=2)
    assert any(u in lead for u in ("hour", "小时", "minute", "分钟")), final.answer
    assert any(t in lead for t in ("train", "训练", "微调")), final.answer


def test_how_fast_a_named_fine_tune_answers_stays_a_speed_question() -> None:
    parsed = parse("How long does Zephyr 7B take to answer on a 4090?")
    assert not parsed.jobs and not parsed.fine_tune_unspecified, parsed


@pytest.mark.parametrize(
    ("text", "model"),
    [
        (
            "Would you mind mentioning the training cost of LLaVA (including both the GPU hours and cost of API)?",
            "vicuna-13b",
        ),
        ("How much VRAM does llava 13b need?", "vicuna-13b"),
        ("llava-v1.5-7b 推理要多少显存", "vicuna-7b"),
    ],
)
def test_llava_is_sized_as_its_vicuna(text, model) -> None:
    assert parse(text).model == model


@pytest.mark.parametrize(
    ("text", "currency", "provider"),
    [
        ("[sahil280114/codealpaca] How long did it take? — Assuming Lambda Labs 8xA100 and 80gb", "$", "Lambda"),
        ("How long would fine-tuning Mistral-7B take on a RunPod A100?", "$", "RunPod"),
        ("在 AutoDL 上用 4090 微调 Qwen2.5-7B 要多久", "¥", "AutoDL"),
    ],
)
def test_a_runs_time_asked_at_a_named_provider_leads_with_its_hours_at_that_price(
    advisor, text, currency, provider
) -> None:
    final = ask_checked(advisor, text)
    lead = lead_of(final.answer)
    assert provider in lead and currency in lead, final.answer
    assert any(u in lead for u in ("hour", "小时")), final.answer
