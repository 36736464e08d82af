"""Round 13b, hosted closed models named as the model to run (knowledge/data/model_names.yaml `closed_products`):

- "run GPT-4 / ChatGPT / Claude / Gemini / 通义 App on my card": that it cannot run there leads (its weights are not
  published), then the largest open model the user's cards run (largest_model on those cards);
- with no card named, the publisher's open-weight models are sized, or (Anthropic has none) the cards are asked for;
- an open model named beside the service is the local side of a comparison, the service the API side;
- open GPT-named models (gpt-oss, GPT-J, GPT-2) and "GPT" as an architecture trained stay what they were.
"""

import pytest
from asking import ask_checked, lead_of

from assistant.understanding import parse


@pytest.mark.parametrize(
    ("text", "said", "gpu"),
    [
        ("Can I run GPT-4 locally on my RTX 3060 12GB?", "You cannot run GPT-4", "rtx-3060-12gb"),
        ("How do I host ChatGPT on my own server with two RTX 3090s?", "You cannot run ChatGPT", "rtx-3090"),
        ("Is there a way to run Claude offline on a 4090?", "You cannot run Claude", "rtx-4090"),
        ("I want to run Gemini locally, I have a 16GB RTX 4060 Ti", "You cannot run Gemini", "rtx-4060-ti-16gb"),
        ("我想在自己的4090上本地部署ChatGPT，可以吗？", "ChatGPT没法在自己的显卡上运行", "rtx-4090"),
        ("Claude 能本地部署吗？我有一张 3090", "Claude没法在自己的显卡上运行", "rtx-3090"),
        ("通义千问 app 能离线部署吗？我有两张 4090", "没法在自己的显卡上运行", "rtx-4090"),
    ],
)
def test_a_hosted_service_on_the_users_card_says_it_cannot_then_the_largest_open_model(
    advisor, text, said, gpu
) -> None:
    final = ask_checked(advisor, text, consistent=True)
    assert said in lead_of(final.answer).split("：")[0].split(":")[0], final.answer
    assert any(c.name == "largest_model" and c.args.get("gpu") == gpu for c in final.tool_calls), final.tool_calls
    second = final.answer.split("\n\n")[1]
    assert "4-bit" in second and "GiB" in second, final.answer  # the largest open model, with its size at 4-bit


def test_a_small_card_says_the_open_model_is_weaker(advisor) -> None:
    final = ask_checked(advisor, "Any way to run GPT model locally? I have an RTX 3050", consistent=True)
    lead = lead_of(final.answer)
    assert "You cannot run GPT" in lead and "weaker" in lead, final.answer


@pytest.mark.parametrize(
    ("text", "said", "model_id"),
    [
        ("GPT-4o 本地部署需要什么显卡", "GPT-4o是OpenAI的在线服务", "gpt-oss-20b"),
        (
            "Can I self-host Gemini 2.5 Pro on my own server?",
            "Gemini 2.5 Pro is Google's hosted service",
            "gemma-3-12b",
        ),
        ("文心一言 能本地部署吗", "文心一言是百度的在线服务", "ernie-4.5-21b-a3b"),
    ],
)
def test_no_card_named_sizes_the_publishers_open_models_after_the_no(advisor, text, said, model_id) -> None:
    final = ask_checked(advisor, text)
    assert final.answer.startswith(said), final.answer
    assert any(c.args.get("model") == model_id for c in final.tool_calls), final.tool_calls


@pytest.mark.parametrize(
    ("text", "said"),
    [
        ("Can I run Claude 3.5 Sonnet locally?", "You cannot run Claude 3.5 Sonnet"),
        ("Claude 能本地部署吗", "Claude没法在自己的显卡上运行"),
    ],
)
def test_a_publisher_with_no_open_weights_and_no_card_asks_for_the_card(advisor, text, said) -> None:
    final = ask_checked(advisor, text)
    assert final.answer.startswith(said) and not final.tool_calls, final.answer


@pytest.mark.parametrize(
    ("text", "model"),
    [
        ("Should I use the GPT-4o API or run Qwen2.5-72B on my 2x3090 for 500 requests a day?", "qwen2.5-72b"),
        ("Run gpt-oss-20b on RTX 4060 Ti 16GB?", "gpt-oss-20b"),
        ("Can I run GPT-J on a 3060 12GB?", "gpt-j-6b"),
        ("训练一个 GPT-2 124M 需要什么显卡", "gpt2"),
        ("Is it possible to run 7B on a MacBook Pro M1 16GB? ChatGPT told me I can't", None),
    ],
)
def test_open_models_and_a_named_size_are_not_the_hosted_service(text, model) -> None:
    p = parse(text)
    assert p.model_family != "closed" and p.model == model


def test_gpt_as_an_architecture_trained_is_no_hosted_service() -> None:
    assert parse("train a GPT model from scratch on a 4090").model_family != "closed"
    assert parse("用 4090 从零训练一个 GPT 模型").model_family != "closed"


def test_kimi_the_open_model_stays_open_and_the_app_is_hosted() -> None:
    assert parse("Kimi K2 需要多少显存").model == "kimi-k2"
    assert parse("Kimi 智能助手能在我的 4090 上本地部署吗").model_family == "closed"
