"""Kinds fixed while integrating round 6 (issue 19): a second-hand card bought for a named model leads with the
used-card verdict and checks, sized for the job asked (not a fixed 4-bit example); "where can I rent one" leads
when the memory was not asked in words; a family of one model is that model for a card-risk question; a sizeless
library name run beside a sized tag yields to the sized one; "魔改2080ti" is the catalog's one mod of that card;
a call shared by two parts of the answer serves both."""

from __future__ import annotations

import pytest
from asking import ask_checked, lead_of

from assistant.capabilities.base import PlanContext
from assistant.scenario import Scenario
from assistant.toolset import ToolName
from assistant.understanding import parse


@pytest.mark.parametrize(
    ("question", "verdict", "checks", "model"),
    [
        ("Is a used mining 3090 safe for running Llama 3 8B?", "Worth buying", "stress test", "Llama-3-8B"),
        ("想买二手 V100 跑 Qwen2.5-14B，靠谱吗", "能买", "烤机", "Qwen2.5-14B"),
        ("二手 4090 跑 Qwen2.5-32B 值得买吗", "能买", "烤机", "Qwen2.5-32B"),
        ("二手3090矿卡值不值得买来微调 Qwen2.5-7B", "能买", "烤机", "Qwen2.5-7B"),
    ],
)
def test_a_used_card_for_a_named_model_leads_with_the_used_verdict(advisor, question, verdict, checks, model):
    answer = ask_checked(advisor, question).answer
    assert verdict in lead_of(answer), answer[:400]
    head = lead_of(answer, 4)
    assert model in head and checks in head, head
    assert "2 × " not in head and "建议买" not in head  # this card for the job, not a shopping list


def test_a_used_card_for_fine_tuning_is_sized_for_the_method_not_a_4bit_example(advisor):
    answer = ask_checked(advisor, "二手3090矿卡值不值得买来微调 Qwen2.5-7B").answer
    assert "LoRA 微调" in lead_of(answer, 2) and "Q4_K_M" not in lead_of(answer, 2), answer[:500]


def test_a_card_the_user_owns_is_not_a_purchase(advisor):
    answer = ask_checked(advisor, "I have a used 3090, can it run Qwen2.5-32B?").answer
    assert "Worth buying" not in answer and lead_of(answer).startswith("**Yes"), answer[:300]


@pytest.mark.parametrize(
    ("question", "word"),
    [
        ("请教下大家，自己电脑不行，有其他的办法可以训练 Qwen2.5-7B 不 求网上推荐的租用GPU的网站", "租"),
        (
            "My laptop cannot do it: can I fine-tune Llama 3.1 8B somewhere? Which GPU rental site?",
            "Rent",
        ),
    ],
)
def test_where_to_rent_leads_when_memory_was_not_asked(advisor, question, word):
    assert word in lead_of(ask_checked(advisor, question).answer)


def test_memory_asked_in_words_keeps_its_place_before_the_rental():
    assert parse("训练 Qwen2.5-7B 要多少显存，哪里租卡便宜").intents[0] == "memory"


def test_a_family_of_one_model_is_that_model_for_a_card_risk_question(advisor):
    final = ask_checked(
        advisor, "[OpenMOSS/MOSS] Tesla P40 报错不支持半精度计算，有什么方法可以在Tesla P40上跑起来的方案吗？"
    )
    assert "P40" in lead_of(final.answer) and "moss-moon-003" in final.answer
    assert any(c.name == "fit_on_gpu" and c.args.get("model") == "moss-moon-003-16b" for c in final.tool_calls)


def test_a_sizeless_library_run_yields_to_the_sized_tag():
    q = parse("Llama 4 is slow on my M4 Max 48GB. ollama run llama3.2 works fine, but ollama run llama4:scout crawls")
    assert q.model == "llama-4-scout-17b-16e"
    assert parse("ollama run mistral on an 8GB GPU?").model == "mistral-7b-v0.3"


@pytest.mark.parametrize(
    ("text", "gpu"),
    [
        ("魔改2080ti跑 qwen 7b", "rtx-2080-ti-22gb-mod"),
        ("2080ti魔改版跑qwen 7b", "rtx-2080-ti-22gb-mod"),
        ("modded 2080 Ti for qwen 7b", "rtx-2080-ti-22gb-mod"),
        ("2080ti model for qwen 7b", "rtx-2080-ti"),
        ("我的2080ti跑qwen 7b", "rtx-2080-ti"),
    ],
)
def test_a_mod_word_next_to_a_card_is_its_catalog_mod(text, gpu):
    assert parse(text).gpu_mentions == [gpu]


def test_a_call_shared_by_two_parts_serves_both():
    ctx = PlanContext(parsed=parse("Qwen2.5-7B"), previous=Scenario(), scenario=Scenario(), intents=[])
    ctx.add("memory", ToolName.ESTIMATE_VRAM, model="qwen2.5-7b")
    ctx.add("rent_where", ToolName.ESTIMATE_VRAM, model="qwen2.5-7b")
    assert len(ctx.calls) == 1 and ctx.calls[0].serves("memory") and ctx.calls[0].serves("rent_where")
    assert not ctx.calls[0].serves("cost")


def test_a_tiny_model_rents_with_its_size_in_millions(advisor):
    answer = ask_checked(
        advisor, "[jingyaogong/minimind] 自己电脑不行，有其他的办法可以训练模型不 求网上推荐的租用GPU的网站"
    ).answer
    # a from-scratch run of a 26M model (understanding/small_train.py) is priced whole, the cheapest card first: a
    # rented 4090 finishes it for about ¥1, never "0.0B" parameters
    lead = lead_of(answer)
    assert "MiniMind" in lead and "4090" in lead and "A100" not in lead and "0.0B" not in answer


@pytest.mark.parametrize(
    ("question", "cards"),
    [
        ("3090 能跑 qwen2.5-32b 吗，4060ti 16g 呢", ("RTX 3090", "4060 Ti 16GB")),
        ("can a P40 run Llama 3 8B? what about a 3060?", ("P40", "3060")),
        ("2080ti 魔改 22G 能跑 qwen2.5-14b 吗，3060 呢", ("2080 Ti 22GB", "3060")),
        ("Quadro RTX 8000 和 A6000 能跑 qwen2.5-32b 吗", ("RTX 8000", "A6000")),
        ("can an A100 and an H100 run Llama 3 70B?", ("A100", "H100")),
    ],
)
def test_a_second_card_asked_after_the_first_is_answered_too(advisor, question, cards):
    final = ask_checked(advisor, question)
    checked = {c.args.get("gpu") for c in final.tool_calls if c.name == "fit_on_gpu"}
    assert len(checked) == 2, final.tool_calls
    assert all(card in final.answer for card in cards), final.answer[:600]


@pytest.mark.parametrize(
    ("text", "want"),
    [
        ("x 8,192 tokens x 1 sequence(s)", "x 8,192 tokens x 1 sequence"),
        ("over 2 GPU(s)", "over 2 GPUs"),
        ("1 concurrent sequence(s)", "1 concurrent sequence"),
        ("12 passage(s): a", "12 passages: a"),
        ("no bridge for 1 GPU(s)", "no bridge for 1 GPU"),
        ("which card(s) to buy", "which cards to buy"),
        ("1.5 card(s)", "1.5 cards"),
    ],
)
def test_a_templates_plural_follows_its_count(text, want):
    from tools.notes import plurals

    assert plurals(text) == want
