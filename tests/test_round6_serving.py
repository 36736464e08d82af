"""Serving many users (issue 19, round 6): N conversations at once are a shared service, sized as a team's server
(never a Mac or a unified-memory mini PC at 2 tokens/s per user); a company's only data-center option being a whole
8-GPU board for a job one card holds brings in the professional cards that ship in PCIe servers; one conversation at
a time is said as one; a serving answer sizes one context throughout."""

from __future__ import annotations

import re

import pytest
from asking import ask_checked, lead_of

from tools.recommend import RecommendRequest, recommend_gpus
from tools.vram import VramRequest

_KB_SERVER = (  # a knowledge base for 200 staff on a cloud server (Langchain-Chatchat issue 492, reworded)
    "如果在公司内部搭建产品知识库，使用INT-4模型，200人规模需要配置多少显存的服务器？"
    " 并发峰值估计100人次，应该选购何种规格的云服务器？"
)
_UNIFIED = ("Ryzen AI Max", "Mac", "DGX Spark", "M4", "M3", "M2")


def _per_user(lead: str) -> float:
    """The per-user speed the lead quotes ("(20 per user)", "（每路 26）")."""
    m = re.search(r"\((\d+) per user\)|（每路 (\d+)）", lead)
    assert m, lead
    return float(m.group(1) or m.group(2))


@pytest.mark.parametrize(
    "question",
    [
        "100 concurrent users on Qwen2.5-14B, what GPU?",
        "What GPU should I buy to serve Mistral Small 24B to 40 simultaneous users?",
        "we need to serve Llama 3.1 8B to 200 concurrent users, which GPU should we buy?",
        "50 人同时用 Qwen3-32B 问答，配什么卡",
        "并发 10 路 DeepSeek-R1-Distill-Qwen-32B，买什么显卡",
    ],
)
def test_many_users_at_once_are_a_shared_server_at_a_usable_speed(advisor, question):
    final = ask_checked(advisor, question, consistent=True)
    lead = lead_of(final.answer)
    assert not any(word in lead for word in _UNIFIED), final.answer
    assert _per_user(lead) >= 15, final.answer  # advice.yaml min_tokens_per_s_per_user
    alternatives = final.answer.split("\n\n")
    assert not any("(3 per user)" in p or "（每路 3）" in p for p in alternatives), final.answer


def test_a_shared_service_is_a_team_purchase_and_says_why():
    req = RecommendRequest(
        workload=VramRequest(model="qwen2.5-14b", mode="inference", batch=100), currency="USD", serving=True
    )
    r = recommend_gpus(req)
    assert r.persona == "team" and r.persona_source == "serving"
    assert r.assumptions[0].code == "persona_serving"
    assert r.primary is not None and (r.primary.tokens_per_s_per_user or 0) >= 15


def test_a_few_people_at_home_stay_a_personal_purchase():
    req = RecommendRequest(workload=VramRequest(model="qwen2.5-14b", mode="inference", batch=3), currency="USD")
    assert recommend_gpus(req).persona == "individual"


@pytest.mark.parametrize(
    ("question", "not_in_lead"),
    [
        ("公司 200 人用知识库，并发 30，Qwen2.5-14B，买什么服务器", "H20"),
        ("公司内部 RAG，50 人同时用 Qwen2.5-7B，采购什么服务器", "H20"),
        ("企业部署 GLM-4-9B，并发 40 路，买什么卡", "H20"),
    ],
)
def test_a_company_is_not_sold_a_whole_8_gpu_board_for_a_one_card_job(advisor, question, not_in_lead):
    final = ask_checked(advisor, question, consistent=True)
    lead = lead_of(final.answer)
    assert not_in_lead not in lead and "8 张" not in lead, final.answer
    assert "建议买 1 张" in lead and _per_user(lead) >= 15, final.answer
    assert "只能整台 8 卡服务器买" in final.answer  # why the professional cards were considered


def test_a_job_that_needs_half_the_board_is_what_the_server_is_for(advisor):
    final = ask_checked(advisor, "公司大概300人，想内部部署 qwen2.5 72b 给大家用，要稳定，买什么卡？")
    assert "H20" in lead_of(final.answer), final.answer


@pytest.mark.parametrize(
    ("question", "lead_words"),
    [
        ("How many users can one RTX 4090 serve with Qwen2.5-32B?", ["Only one conversation at a time"]),
        ("一张 4090 跑 Qwen2.5-32B 能同时服务多少人？", ["只能同时服务 1 路对话"]),
    ],
)
def test_one_conversation_at_a_time_is_said_as_one(advisor, question, lead_words):
    final = ask_checked(advisor, question)
    lead = lead_of(final.answer)
    assert all(w in lead for w in lead_words), final.answer
    assert "1 conversations" not in final.answer and "1 concurrent sequences" not in final.answer
    assert "Yes, about" not in lead and "能，大约" not in lead


@pytest.mark.parametrize(
    "question",
    [
        "How many concurrent users can a single RTX 3090 handle with Gemma 3 27B?",
        "一张 3090 跑 gemma3 27b 最多并发多少",
    ],
)
def test_several_conversations_lead_with_their_number(advisor, question):
    final = ask_checked(advisor, question)
    assert re.search(r"about \d+ conversations at once|大约能同时服务 \d+ 路对话", lead_of(final.answer)), final.answer


@pytest.mark.parametrize(
    "question",
    [
        _KB_SERVER,
        "We need to host Qwen2.5-14B for 80 concurrent users in the cloud, what instance and how much memory?",
        "租云服务器给 40 人同时用 Qwen2.5-32B，需要多大显存，租什么卡",
    ],
)
def test_a_serving_answer_sizes_one_context_throughout(advisor, question):
    final = ask_checked(advisor, question, consistent=True)
    contexts = {c.args.get("context_tokens") for c in final.tool_calls if c.name == "estimate_vram"}
    assert contexts == {4096}, final.tool_calls


def test_a_server_to_buy_leads_with_the_pick(advisor):
    question = _KB_SERVER
    final = ask_checked(advisor, question, consistent=True)
    lead = lead_of(final.answer)
    assert "建议租用" in lead and "GiB" in lead, final.answer
    assert "租用的" not in lead  # "租用 1 张租用的 ..." said once
