"""A range of sizes and a team's budget (issue 19, round 6).

"7B-14B models" is one machine that must run the top of the range (and so runs the smaller sizes): one workload,
sized at the top, the range named in the lead; a list ("7B, 13B and 70B") is still answered part by part. A team
or lab's budget with no one job named buys one shared machine for the group (advice.md §3: 2-4 x 24 GB or
1-2 x 48 GB in one workstation), the host inside the budget; one person's budget keeps the cheapest card that works.
"""

from __future__ import annotations

import re

import pytest
from asking import ask_checked, lead_of

from tools.recommend import RecommendRequest, recommend_gpus
from tools.vram import VramRequest


@pytest.mark.parametrize(
    ("question", "top"),
    [
        ("预算1万，想跑7B到14B的模型，买什么卡", "14B"),
        ("what GPU for running 7B-14B models locally?", "14B"),
        ("13~34B 的模型推理用什么卡", "34B"),
        ("I want to fine-tune models between 7 and 13B, which card?", "13B"),
        ("budget $2000, I want to run 8B to 32B models at home", "32B"),
        ("想本地跑 qwen2.5 7B~32B，推荐什么显卡", "Qwen2.5-32B"),
    ],
)
def test_a_range_of_sizes_is_one_machine_for_its_top(advisor, question, top):
    final = ask_checked(advisor, question, consistent=True)
    recommends = [c for c in final.tool_calls if c.name == "recommend_gpus"]
    assert len(recommends) == 1, final.answer  # one workload, not "Generic-7B" and "Generic-14B" apart
    lead = lead_of(final.answer)
    assert top in lead and ("range" in lead or "范围" in lead), final.answer
    assert "Generic-7B" not in final.answer and "分别来看" not in lead and "Each part" not in lead


def test_a_list_of_sizes_is_still_answered_part_by_part(advisor):
    for question in ("what GPU for 7B, 13B and 70B models?", "7 and 13b models, which gpu?"):
        final = ask_checked(advisor, question)
        assert len([c for c in final.tool_calls if c.name == "recommend_gpus"]) >= 2, final.answer


def test_a_memory_question_over_a_range_says_it_sized_the_top(advisor):
    final = ask_checked(advisor, "7B~70B 的模型要多少显存")
    assert "70B" in lead_of(final.answer) and "7–70B" in final.answer, final.answer


def _cards(lead: str) -> int:
    m = re.search(r"(?:Buy|建议买) (\d+)", lead)
    assert m, lead
    return int(m.group(1))


@pytest.mark.parametrize(
    "question",
    [
        "实验室 5 个人共用，预算 5 万，买什么卡",
        "our lab of 6 students has $15k for GPUs, what should we buy?",
        "课题组经费 10 万买服务器",
        "research group with a $30k budget for a GPU machine, what to buy?",
    ],
)
def test_a_team_budget_buys_one_shared_machine(advisor, question):
    final = ask_checked(advisor, question, consistent=True)
    lead = lead_of(final.answer, 2)
    assert 2 <= _cards(lead) <= 4, final.answer
    assert "shared machine" in lead or "共用一台机器" in lead, final.answer
    assert "budget" in lead or "预算" in lead, final.answer  # the spend against the budget, host included


def test_a_team_that_names_its_job_buys_for_that_job(advisor):
    final = ask_checked(advisor, "小团队，预算 5 万，想本地 lora 微调 qwen2.5 14b，买啥卡？")
    assert "A6000" in lead_of(final.answer) and "共用一台机器" not in final.answer, final.answer


def test_one_persons_budget_keeps_the_cheapest_card_that_works(advisor):
    final = ask_checked(advisor, "预算 1 万，学生，买什么卡跑大模型")
    assert _cards(lead_of(final.answer)) == 1 and "共用一台机器" not in final.answer, final.answer


def test_the_shared_machine_fits_the_budget_with_its_host():
    req = RecommendRequest(
        workload=VramRequest(model="qwen2.5-14b", mode="lora", grad_checkpointing=True),
        currency="CNY",
        deployment="local",
        budget=50_000,
        persona="team",
        shared_by=5,
    )
    p = recommend_gpus(req).primary
    assert p is not None and p.jobs_at_once >= 2 and p.count <= 4
    assert p.machine_cost is not None and p.machine_cost <= 50_000
    assert any(n.code == "team_shared_jobs" for n in p.reasons)
    alone = recommend_gpus(req.model_copy(update={"shared_by": None})).primary
    assert alone is not None and alone.jobs_at_once == 1
