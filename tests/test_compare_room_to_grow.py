"""Cards weighed with no job to size: memory per money, room to grow (advice.md §4-5), unless speed is asked."""

from __future__ import annotations

import pytest

from assistant.advisor import Advisor
from tools.compare import CompareRequest, compare_gpus


def _pick(**kw) -> tuple[str, str]:
    res = compare_gpus(CompareRequest(**kw))
    return res.rows[res.verdict.pick].gpu_id, res.focus


@pytest.mark.parametrize(
    ("gpus", "pick"),
    [
        (["rtx-3060-ti", "rtx-3060-12gb"], "rtx-3060-12gb"),  # 8 vs 12 GB, the 12 GB card also cheaper
        (["rtx-4070", "rtx-4060-ti-16gb"], "rtx-4060-ti-16gb"),  # 12 vs 16 GB
    ],
)
def test_no_job_weighs_memory_when_it_differs(gpus, pick):
    got, focus = _pick(gpus=gpus)
    assert (got, focus) == (pick, "memory")


def test_speed_asked_keeps_bandwidth():
    got, focus = _pick(gpus=["rtx-3060-ti", "rtx-3060-12gb"], preference="fastest")
    assert (got, focus) == ("rtx-3060-ti", "decode")


def test_same_memory_keeps_bandwidth():
    _, focus = _pick(gpus=["rtx-3090", "rtx-4090"])
    assert focus == "decode"


@pytest.mark.parametrize(
    ("question", "lead", "not_lead"),
    [
        ("RTX 3060ti 8G 还是 3060 12G，纠结买哪种卡", "3060 12GB", "选 1 张 NVIDIA GeForce RTX 3060 Ti"),
        ("4060 Ti 16GB or 4070 12GB for running local LLMs?", "4060 Ti 16GB", "Pick: 1 × NVIDIA GeForce RTX 4070"),
    ],
)
def test_the_answer_leads_with_the_roomier_card_and_says_why(question, lead, not_lead):
    answer = Advisor().ask("room-to-grow", question).answer
    head = answer.split("\n")[0]
    assert lead in head and not_lead not in head
    assert ("显存" in head) or ("memory" in head)
