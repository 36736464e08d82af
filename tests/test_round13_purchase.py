"""Round 13, purchase questions read as a user:

- a card to buy as the step up from a small card the user owns, no model and no budget ("suggest an external GPU for
  the best performance/price", "想买个外接显卡，哪个性价比最高"): the step-up cards lead, not a bill of ownership for
  the owned card nor a question back about the purpose; an external enclosure says what its link costs;
- three or more cards listed with commas after "which ... is best": the candidates are compared, an old card among
  them is one of the options (its trap follows, it does not lead); SLI is said to pool no memory;
- the minimum hardware for a family named with no size ("minimum requirements for Llama 3"): every common size is
  sized, not only the size a library's default tag pulls.
"""

import pytest
from asking import lead_of, planned_turn

from assistant.toolset import ToolName
from assistant.understanding import parse


@pytest.mark.parametrize(
    ("text", "words"),
    [
        (
            "Super app ... best GPU? I have a Laptop with RTX 3070 / 8Gb running Suse Tumbleweed ... can you suggest "
            "an external GPU for best performance/GPU price?",
            ("Thunderbolt",),
        ),
        ("I have a laptop with an RTX 3070 8GB. Can you suggest an external GPU with the best price/performance?", ()),
        ("I have an RTX 2060 6GB, which GPU should I upgrade to? best bang for the buck", ()),
        ("我笔记本是3070 8G，想买个外接显卡，哪个性价比最高？", ("雷电",)),
        ("我有一张 1660 Super 6G，想换张卡玩本地大模型，买什么性价比高？", ()),
        ("我的电脑是2060 6G，想升级显卡，推荐买哪张？", ()),
    ],
)
def test_a_step_up_from_a_small_owned_card_leads_with_the_cards_to_buy(text, words) -> None:
    plan, answer = planned_turn(text)
    assert ToolName.CALCULATE_TCO not in {c.name for c in plan.calls}, answer  # no bill for the card already owned
    lead = lead_of(answer)
    assert "3090" in lead and "3060 12GB" in lead, answer
    assert "24 GB" in lead, answer
    assert all(w in answer for w in words), answer


@pytest.mark.parametrize(
    "text",
    [
        "I have an RTX 3090, which GPU should I upgrade to?",  # 24 GB: no step up to name, the purpose is asked
        "I have an RTX 3070 8GB, can it run Qwen2.5-14B?",  # a model named: its own verdict
    ],
)
def test_no_step_up_lead_where_the_card_is_big_or_a_model_is_named(text) -> None:
    parsed = parse(text)
    assert parsed.buy_or_rent != "buy" or parsed.intents != ["capacity"], parsed.intents


@pytest.mark.parametrize(
    ("text", "cards"),
    [
        (
            "Which graphics card is best? I want to buy a graphics card. Which graphics card is best for this program? "
            "1080ti sli, 2080ti, rtx3080",
            {"gtx-1080-ti", "rtx-2080-ti", "rtx-3080-10gb"},
        ),
        ("Which GPU should I buy for Stable Diffusion: 3060, 4060 Ti, 3080?", {"rtx-3060-12gb", "rtx-3080-10gb"}),
        ("which card should I get for training? P40, 3090, 4090", {"tesla-p40", "rtx-3090", "rtx-4090"}),
    ],
)
def test_cards_listed_with_commas_after_which_are_compared(text, cards) -> None:
    parsed = parse(text)
    assert parsed.gpus_alternative, parsed
    plan, _ = planned_turn(text)
    compared = [c for c in plan.calls if c.name == ToolName.COMPARE_GPUS]
    assert compared and cards <= set(compared[0].args["gpus"]), plan.calls
    assert plan.intents[0] == "compare", plan.intents  # an old card among the options does not lead with its trap


@pytest.mark.parametrize(
    ("text", "said"),
    [
        ("Which graphics card is best? 1080ti sli, 2080ti, rtx3080", "SLI"),
        ("两张 1080 Ti 组 SLI 能跑 Qwen2.5-14B 吗？", "SLI"),
        ("2x 2080 Ti in SLI, can I run a 13B model?", "SLI"),
    ],
)
def test_sli_is_said_to_pool_no_memory(text, said) -> None:
    _, answer = planned_turn(text)
    assert any(said in line and ("pool" in line or "合并" in line) for line in answer.split("\n")), answer


@pytest.mark.parametrize(
    "text",
    [
        "Llama 3 — Minimum hardware Requirements to run the models locally? CPU : GPU: Ram:",
        "what is the minimum GPU to run llama3?",
        "llama3 最低需要什么显卡？",
    ],
)
def test_the_minimum_for_a_family_with_no_size_sizes_every_common_size(text) -> None:
    plan, answer = planned_turn(text)
    models = {c.args.get("model") or (c.args.get("workload") or {}).get("model") for c in plan.calls}
    assert {"llama-3-8b", "llama-3-70b"} <= models, plan.calls
    assert "70B" in lead_of(answer), answer


def test_a_family_memory_question_with_no_minimum_keeps_the_default_tag() -> None:
    plan, _ = planned_turn("llama3 needs how much VRAM?")
    models = {c.args.get("model") for c in plan.calls if c.name == ToolName.ESTIMATE_VRAM}
    assert models == {"llama-3-8b"}, plan.calls


@pytest.mark.parametrize(
    ("text", "verdict"),
    [
        (
            "请教一下各位，如果要训练以ResNet或Xception为骨架的模型，并且mIoU达到0.7左右，需要什么级别(显存)的显卡？"
            "RTX3090 (24G)单卡够用吗？",
            "够",
        ),
        ("我有一张 2080 Ti，训练 U-Net 语义分割够吗？", "够"),
        ("I want to train YOLOv8 on my RTX 4060 8GB, is it enough?", "enough"),
        ("Is a single RTX 3060 12GB enough to train a Mask R-CNN detector?", "enough"),
    ],
)
def test_a_vision_network_on_the_users_card_gets_the_cards_verdict(text, verdict) -> None:
    plan, answer = planned_turn(text)
    lead = lead_of(answer)
    assert plan.intents == ["vision_train"], plan.intents
    assert verdict in lead and "GB" in lead, answer
    assert "QLoRA" not in answer and "LoRA" not in lead, answer  # no language models the card would fine-tune


@pytest.mark.parametrize(
    "text",
    [
        "[AlexeyAB/darknet] Graphic card recommendation for training own model — the card is in continuous operation",
        "训练 YOLOv5 目标检测模型，买什么显卡好？",
        "which GPU should I buy to train a ResNet-50 image classifier?",
    ],
)
def test_a_card_to_buy_for_a_vision_network_names_the_cards_and_their_memory(text) -> None:
    plan, answer = planned_turn(text)
    lead = lead_of(answer)
    assert "3060 12GB" in lead and "3090" in lead and "24 GB" in lead, answer
    assert not any(c.name == ToolName.RECOMMEND_GPUS for c in plan.calls), plan.calls


def test_a_language_model_named_beside_a_vision_word_keeps_its_own_sizing() -> None:
    parsed = parse("fine-tune Qwen2.5-VL-7B for object detection (目标检测) on my 4090")
    assert "vision_train" not in parsed.intents, parsed.intents


@pytest.mark.parametrize(
    ("text", "cards"),
    [
        ("PaddleX 太吃显存啦 12个G显存都不够，这。。。我该用什么显卡去部署", ("3090",)),
        ("My 8GB card is not enough, which GPU should I buy?", ("3060 12GB", "3090")),
        ("8G显存不够用，该买什么显卡？", ("3060 12GB", "3090")),
        ("6GB VRAM isn't enough anymore, what GPU do you recommend?", ("3060 12GB", "3090")),
    ],
)
def test_a_size_said_to_fall_short_gets_the_bigger_step_up_cards(text, cards) -> None:
    _, answer = planned_turn(text)
    lead = lead_of(answer)
    assert all(c in lead for c in cards) and "24 GB" in lead, answer
    assert "3060 12GB" not in lead or "12个G" not in text, answer  # a 12 GB user is not sold a 12 GB card


@pytest.mark.parametrize(
    "text",
    [
        "训练的时候 8G 显存不够怎么办",  # how to cope, not what to buy
        "8GB VRAM is not enough for SDXL training, what settings should I use?",
        "24G 显存不够，该买什么卡？",  # no step-up card is bigger than 24 GB: the purchase is recommend's
        "My 8GB card is not enough for Qwen2.5-14B, which GPU should I buy?",  # a model named: its own sizing
    ],
)
def test_a_short_size_without_a_purchase_or_with_a_job_is_not_a_step_up(text) -> None:
    parsed = parse(text)
    assert parsed.intents != ["capacity"] or parsed.buy_or_rent != "buy", parsed.intents
