"""Purchase answers: the recommendation policy (a buyer's usual spend, price steps, CUDA for fine-tuning, used cards
only for memory no new card gives), each part of a question in the lead, the machine around the card, a model too
big for any card, and a request rate sized as a fleet."""

from __future__ import annotations

import uuid

import pytest

from tools import advice
from tools.fleet import FleetRequest, size_fleet
from tools.recommend import RecommendRequest, recommend_gpus


def _rec(**kw):
    return recommend_gpus(RecommendRequest(limit=20, **kw))


def test_no_budget_a_person_gets_the_card_a_person_buys():
    # Llama-2-13B LoRA: bf16 needs 27 GiB (a 48-96 GB workstation card); QLoRA on one 24 GB card is what a person buys
    r = _rec(workload={"model": "llama-2-13b", "mode": "lora", "grad_checkpointing": True}, currency="CNY")
    assert r.primary is not None and r.primary.spend <= advice.unstated_budget("individual", "CNY")
    assert r.primary.mode == "qlora" and r.primary.gpu_id != "rtx-pro-6000-blackwell"
    assert any(a.code == "unstated_budget" for a in r.assumptions)
    assert all(catalog_vendor(p.gpu_id) == "nvidia" for p in r.alternatives if p.deployment == "local")


def catalog_vendor(gpu_id: str) -> str:
    from tools.catalog import catalog

    return catalog()[gpu_id].vendor


def test_a_fine_tune_is_not_offered_rocm_as_the_cheaper_way():
    r = _rec(workload={"model": "qwen2.5-7b", "mode": "lora", "grad_checkpointing": True}, currency="USD", budget=1041)
    assert r.primary is not None and catalog_vendor(r.primary.gpu_id) == "nvidia"
    assert all(catalog_vendor(p.gpu_id) == "nvidia" for p in r.alternatives)


def test_price_steps_rank_a_cheap_rig_before_a_card_six_times_its_price():
    # both past the similar-price band: two used 3090s ($1.5k) before one $8.6k card of the same job
    items = [
        advice.Ranked(key="rig", count=2, cost=1500, tokens_per_s=800, per_user_tokens_per_s=None, ecosystem=0),
        advice.Ranked(key="big", count=1, cost=8600, tokens_per_s=3000, per_user_tokens_per_s=None, ecosystem=0),
        advice.Ranked(key="cheap", count=1, cost=400, tokens_per_s=300, per_user_tokens_per_s=None, ecosystem=0),
    ]
    assert advice.rank(items, "balanced", "individual") == ["cheap", "rig", "big"]


def test_a_used_card_is_offered_only_for_memory_no_new_card_gives_for_less():
    job = {"model": "codegeex2-6b", "mode": "inference"}
    r = _rec(workload=job, currency="CNY", budget=10000, persona="individual")
    used = [p for p in r.options if p.condition == "used"]
    assert all(p.gpu_memory_gib >= 24 for p in used)  # a used 3090 / 3090 Ti, not a used 12 GB 3080


def test_needs_are_said_in_the_cards_people_know():
    r = _rec(workload={"model": "llama-2-70b", "mode": "inference"}, currency="USD")
    bf16 = next(n for n in r.needs if n.precision == "bf16")
    assert bf16.cards == 2 and "H100" in (bf16.card or "")
    fp8 = next((n for n in r.needs if n.precision == "fp8"), None)
    assert fp8 is None or "A100" not in (fp8.card or "")  # FP8 weights need FP8 tensor cores


def test_a_speed_wanted_is_a_floor_the_pick_is_checked_against():
    r = _rec(workload={"model": "gemma-3-27b", "mode": "inference"}, currency="USD", budget=1041, min_tokens_per_s=5)
    assert r.primary is not None and any(n.code == "meets_speed" for n in r.primary.reasons)


def test_a_request_rate_is_a_fleet_of_replicas():
    small = size_fleet(FleetRequest(params_b=8, requests_per_s=5000, prompt_tokens=3000))
    assert small.gpus_per_replica == 1 and small.gpus > 100  # hundreds of H100s, each its own replica
    big = size_fleet(FleetRequest(model="qwen2.5-72b", requests_per_s=10))
    assert big.gpus_per_replica > 1 and big.gpus == big.replicas * big.gpus_per_replica


@pytest.fixture(scope="module")
def advisor():
    from assistant.advisor import Advisor

    return Advisor()


def _ask(advisor, question: str):
    return advisor.ask(f"p-{uuid.uuid4().hex[:8]}", question)


def test_every_model_gets_its_pick_in_the_lead(advisor):
    final = _ask(advisor, "llama2-13B和llama2-70b微调所需要的显卡配置，请问有推荐的配置吗？")
    recs = [c for c in final.tool_calls if c.name == "recommend_gpus"]
    assert len(recs) == 2
    lead = final.answer.split("\n\n")[0]
    assert "Llama-2-13B" in lead and "Llama-2-70B" in lead
    assert any(c.name == "plan_workstation" for c in final.tool_calls)  # "推荐的配置": the machine too


def test_gpu_ram_and_cpu_with_a_euro_budget(advisor):
    final = _ask(
        advisor,
        "I want to run a model on a GPU at about 5 tokens per second or more. What GPU, ram, and CPU do you "
        "recommend? (an API for personal use) My budget is about 1000€",
    )
    rec = next(c for c in final.tool_calls if c.name == "recommend_gpus")
    assert rec.args["budget"] == pytest.approx(1041.1) and rec.args["currency"] == "USD"
    build = next(c for c in final.tool_calls if c.name == "plan_workstation")
    assert build.args["gpu"] == rec.result.primary.gpu_id
    assert final.answer.index("Buy") < final.answer.index("CPU cores")  # the card first, then the machine
    assert "1,000 EUR" in final.answer and not final.grounding.untraceable


def test_a_model_too_big_for_any_card_is_sized_the_ways_people_deploy_it(advisor):
    final = _ask(advisor, "请问本地推理deepseek r1需要多少显存空间？还有多少内存需求呢？")
    servers = [c for c in final.tool_calls if c.name == "estimate_vram" and c.args.get("num_gpus") == 8]
    assert {c.args["gpu"] for c in servers} >= {"h200-sxm", "h20", "h100-sxm"}
    assert any(c.name == "estimate_offload" for c in final.tool_calls)
    assert "ktransformers" in final.answer and "Distill" in final.answer and "多节点" in final.answer


def test_a_request_rate_leads_with_the_fleet(advisor):
    final = _ask(advisor, "每秒 200 个请求，部署 qwen2.5-7b 要多少张卡？")
    fleet = next(c for c in final.tool_calls if c.name == "size_fleet")
    assert fleet.args["requests_per_s"] == pytest.approx(200, rel=0.01)
    assert final.answer.startswith("**这需要一个集群") and not final.grounding.untraceable


def test_a_card_about_to_be_bought_that_does_not_hold_the_model_gets_the_one_that_would(advisor):
    final = _ask(
        advisor,
        "Will ollama run dolphin-mixtral on my gtx 1080 Ti? Im just asking since im about to buy one and im curious "
        "if it will see the gpu and use it to generate responses faster? Or does Ollama support all Nvidia gpus?",
    )
    assert "If you are buying for this model" in final.answer and "RTX 3090" in final.answer


def test_ram_beyond_what_the_model_spills_is_not_faster(advisor):
    final = _ask(advisor, "I have a 3090. I can order up to 192GB of RAM, if it makes a big difference. Will it?")
    assert final.answer.startswith("**You don't need 192 GB of RAM")
    assert any(c.name == "estimate_offload" and c.args.get("gpu") == "rtx-3090" for c in final.tool_calls)
