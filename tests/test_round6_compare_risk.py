"""Compare and risk kinds (issue 19, round 6): the cards a user has, as the question. N of one card with no model
("双卡A4000有好的方案吗") is what the set runs, with the pool and the bandwidth behind the speed; different cards of one
machine with no model are one pool split by layers, the slowest card setting the pace; a card the user has stays the
pick against another unless that one is clearly faster; a card ruled out by its price ("4090太贵了") is why they ask
about the other, not a buy-vs-rent question; owned cards asked "which one for X" buy nothing."""

from __future__ import annotations

import pytest
from asking import ask_checked, lead_of

from assistant.understanding import parse
from tools.compare import CompareRequest, compare_gpus


@pytest.mark.parametrize(
    ("question", "pool"),
    [
        ("双卡A4000有好的方案吗？", "共 32 GB"),
        ("2x A4000, any good setup?", "32 GB in all"),
        ("4张2080ti 有什么推荐的玩法", "共 44 GB"),
        ("What should I do with two 3090s?", "48 GB in all"),
        ("Got two A4000s, what's a good plan for them?", "32 GB in all"),
    ],
)
def test_cards_with_no_model_asked_for_a_plan_say_what_the_set_runs(advisor, question, pool):
    final = ask_checked(advisor, question, consistent=True)
    assert next(c.name for c in final.tool_calls) == "largest_model", final.answer
    assert pool in lead_of(final.answer), final.answer
    assert "GB/s" in final.answer  # the bandwidth that sets the speed quoted


@pytest.mark.parametrize(
    ("question", "slow"),
    [
        ("I have a 3090 and a 3060 12GB, can I use both together?", "3060"),
        ("我有一张4090和一张3090，能一起用吗？", "3090"),
        ("I have a 4090, and a 3060 in a drawer. What can they run together?", "3060"),
        ("我这还有一个5090D 24， A5000， 还有个2080TI ，都是不宽裕的显存", "2080 Ti"),
        ("我有2张3090和一张A6000，能一起跑大模型吗", "A6000"),
    ],
)
def test_different_cards_of_one_machine_are_one_pool_split_by_layers(advisor, question, slow):
    final = ask_checked(advisor, question, consistent=True)
    lead = lead_of(final.answer)
    assert "llama.cpp" in lead and slow in lead, final.answer
    assert "Pick" not in lead and "结论" not in lead, final.answer  # not a ranking of cards to buy


@pytest.mark.parametrize(
    ("question", "kept"),
    [
        ("I have a 5090. Would a pair of 2080 Ti be better?", "1 × NVIDIA GeForce RTX 5090"),
        ("我手上有4090，换成两张3090哪个好？", "1 张 NVIDIA GeForce RTX 4090"),
        ("I already own a 3090; is a 4060 Ti 16GB better for running LLMs?", "NVIDIA GeForce RTX 3090"),
        ("我有两张3090，换一张4090会更好吗？", "2 张 NVIDIA GeForce RTX 3090"),
        ("太折腾了，5090 24G和这套2080方案，哪个好？我手上有5090 24G", "NVIDIA GeForce RTX 5090"),
    ],
)
def test_a_card_the_user_has_stays_the_pick_unless_another_is_clearly_faster(advisor, question, kept):
    final = ask_checked(advisor, question, consistent=True)
    first = final.answer.split("\n")[0]
    assert kept in first, final.answer


def test_the_owned_card_is_kept_against_a_cheaper_card_no_faster():
    """A 4090 owner weighing two 3090s (cheaper, no faster): keep the 4090, and say it is theirs; a ranked pick
    that is clearly faster than the owned card stays the pick (`_SWITCH_GAIN`)."""
    r = compare_gpus(CompareRequest(gpus=["rtx-5090", "rtx-2080-ti"], counts={"rtx-2080-ti": 2}))
    assert r.verdict.gpu_id == "rtx-2080-ti"  # nobody's card: the cheaper pair is the ranking's pick
    r = compare_gpus(CompareRequest(gpus=["rtx-5090", "rtx-2080-ti"], counts={"rtx-2080-ti": 2}, owned=["5090"]))
    assert r.verdict.gpu_id == "rtx-5090"
    r = compare_gpus(CompareRequest(gpus=["rtx-4090", "rtx-3090"], counts={"rtx-3090": 2}, owned=["rtx-4090"]))
    assert r.verdict.gpu_id == "rtx-4090"
    assert any(n.code == "cmp_pick_owned" for n in r.verdict.reasons)


@pytest.mark.parametrize(
    ("question", "card"),
    [
        ("4090太贵了，用几张2080ti跑Qwen2.5-32B能行吗？", "2080 Ti"),
        ("H100太贵，用V100跑DeepSeek-R1-Distill-Qwen-32B可以吗", "V100"),
        ("I can't afford an A100, would two 3090s handle Qwen2.5-72B?", "3090"),
        ("A 4090 is too expensive. Can a couple of used 3060s run Llama 3 70B instead?", "3060"),
        (
            "[kvcache-ai/ktransformers] 老哥们,4090太贵了,有没有试过2080ti这种垃圾卡? 多卡下,能跑起来么? ddr4内存管够",
            "2080 Ti",
        ),
    ],
)
def test_a_card_ruled_out_by_price_leaves_the_question_about_the_other(advisor, question, card):
    final = ask_checked(advisor, question)
    assert "calculate_tco" not in [c.name for c in final.tool_calls], final.answer
    lead = lead_of(final.answer)
    assert card in lead, final.answer
    assert "4090" not in lead or card == "4090", final.answer


def test_the_price_word_reads_the_rejected_card_out_of_the_cards_named():
    q = parse("4090太贵了，用几张2080ti跑Qwen2.5-32B能行吗？")
    assert q.gpu_mentions == ["rtx-2080-ti"] and "cost" not in q.intents
    q = parse("4090 和 2080ti 哪个便宜？")  # a price asked, not a card ruled out
    assert q.gpu_mentions == ["rtx-4090", "rtx-2080-ti"]


@pytest.mark.parametrize(
    "question",
    [
        "I have a 3090 and a 2060. Which one should I use for Qwen2.5-14B?",
        "我有一张4090和一张3060，跑Qwen3-32B用哪张？",
    ],
)
def test_owned_cards_asked_which_to_use_buy_nothing(advisor, question):
    final = ask_checked(advisor, question, consistent=True)
    assert "recommend_gpus" not in [c.name for c in final.tool_calls], final.answer
    assert not lead_of(final.answer).startswith(("For inference", "**Buy")), final.answer


def test_owned_cheaper_card_states_what_the_switch_buys() -> None:
    """ "I have a 3060; would a 4090 be worth it for Qwen2.5-14B?": the owned card stays the pick, and the verdict
    says what the clearly faster card buys (x speed, memory) and its price, for the user's need to decide."""
    job = {"model": "qwen2.5-14b", "mode": "inference"}
    r = compare_gpus(CompareRequest(gpus=["rtx-3060-12gb", "rtx-4090"], workload=job, owned=["rtx-3060-12gb"]))
    assert r.verdict.gpu_id == "rtx-3060-12gb"
    gain = next(n for n in r.verdict.reasons if n.code == "cmp_owned_switch_gain")
    assert gain.params["times"] > 2 and gain.params["cost"] > 0
