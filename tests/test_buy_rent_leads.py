"""Leads of buy-vs-rent questions asked as real people ask them (issue 19, wild set round 4): someone who trains on
rented GPUs and thinks of buying a card (rent unless the card would run most of every day, and checkpoint so a
restarted instance does not cost the run), and the owner of a card who asks whether it is enough or whether to move
to a cloud card (what the owned card runs leads; it is not priced as a rental)."""

from __future__ import annotations

import pytest
from asking import ask_checked, lead_of

from assistant.events import FinalEvent


def _ask(advisor, text: str) -> FinalEvent:
    return ask_checked(advisor, text)


def _lead(answer: str) -> str:
    return lead_of(answer)


@pytest.mark.parametrize(
    ("question", "lead", "tip"),
    [
        (
            "vast.ai keeps killing my instance mid-training, worth buying a used 3090 for $700?",
            "Rent 1 × NVIDIA GeForce RTX 3090 by the hour",
            "Save checkpoints",
        ),
        (
            "Training QLoRA on runpod spot instances keeps getting interrupted. Should I just buy a 4090?",
            "Rent 1 × NVIDIA GeForce RTX 4090 by the hour",
            "Save checkpoints",
        ),
        (
            "在AutoDL上租4090训练lora，实例被释放了数据全没了，想干脆自己买张4090，值吗",
            "按小时租 1 张 NVIDIA GeForce RTX 4090 更划算",
            "检查点",
        ),
    ],
)
def test_training_on_rented_gpus_keeps_renting_and_checkpoints(advisor, question, lead, tip):
    final = _ask(advisor, question)
    assert lead in _lead(final.answer), final.answer
    assert tip in final.answer, final.answer


@pytest.mark.parametrize(
    ("question", "owned", "lead"),
    [
        (
            "My local setup: RTX 3080 (10GB VRAM), 32GB RAM. Would that be sufficient, or should I move to a cloud "
            "GPU like L4/A10?",
            "rtx-3080-10gb",
            "Your NVIDIA GeForce RTX 3080 (10GB) is enough for models up to about",
        ),
        (
            "I have a 4060 Ti 16GB at home. Is it enough for local LLMs or should I rent an A100 in the cloud?",
            "rtx-4060-ti-16gb",
            "Your NVIDIA GeForce RTX 4060 Ti 16GB is enough for models up to about",
        ),
        (
            "我有一张3060 12G，本地跑大模型够用吗，还是直接租云上的4090？",
            "rtx-3060-12gb",
            "你的 NVIDIA GeForce RTX 3060 12GB 够用",
        ),
    ],
)
def test_an_owned_card_or_a_cloud_card_leads_with_what_the_owned_card_runs(advisor, question, owned, lead):
    final = _ask(advisor, question)
    assert _lead(final.answer).startswith("**" + lead), final.answer
    rented = [c.args.get("gpu") for c in final.tool_calls if c.name in ("rent_providers", "calculate_tco")]
    assert owned not in rented and rented, final.tool_calls


@pytest.mark.parametrize(
    ("question", "cards"),
    [
        (
            "How much would it cost in compute to pretrain a 1B model from scratch, and can I do it on a consumer GPU?",
            {"a100-80gb-sxm", "rtx-4090"},
        ),
        ("从头预训练一个3B的模型大概要花多少钱？", {"a100-80gb-sxm", "rtx-4090"}),
        ("What would pretraining a 0.5B model on 10B tokens cost on rented H100s?", {"h100-sxm"}),
    ],
)
def test_pretraining_cost_is_priced_as_one_run(advisor, question, cards):
    final = _ask(advisor, question)
    timed = {c.args["gpu"] for c in final.tool_calls if c.name == "estimate_speed"}
    assert cards <= timed, final.tool_calls
    lead = _lead(final.answer)
    assert ("pretraining" in lead or "预训练" in lead) and ("for the run" in lead or "整次" in lead), lead


@pytest.mark.parametrize(
    ("question", "rented"),
    [
        ("Should I buy a DGX Spark or just rent GPUs in the cloud?", None),
        ("buy a 5090 or rent one?", None),
        ("Is a Mac mini M4 Pro 64GB worth it vs renting cloud GPUs for running Llama 3.3 70B?", "rtx-3090"),
        ("买一台 Mac Studio M3 Ultra 512G 跑大模型，还是租云 GPU 划算？", None),
    ],
)
def test_a_card_with_no_rental_is_weighed_against_the_cheapest_rental_that_does_its_job(advisor, question, rented):
    final = _ask(advisor, question)
    tco = next(c for c in final.tool_calls if c.name == "calculate_tco")
    assert tco.args.get("rent_gpu"), tco.args
    assert rented is None or tco.args["rent_gpu"] == rented, tco.args
    assert "no rental of it is on record" not in final.answer and "没有它的租用报价记录" not in final.answer
