"""Leads of fit questions asked as real people ask them: how many users at once, a machine described by its VRAM and
RAM, the biggest model of a family with candidate sizes listed (issue 19, wild set round 3)."""

from __future__ import annotations

import re

import pytest
from asking import ask_checked, lead_of

from assistant.events import FinalEvent
from tools.offload import OffloadRequest, estimate_offload


def _ask(advisor, text: str) -> FinalEvent:
    return ask_checked(advisor, text)


def _lead(answer: str) -> str:
    return lead_of(answer, 2)


@pytest.mark.parametrize(
    "question",
    [
        "How many concurrent users can a single 4090 serve with Qwen2.5-7B?",
        "一张 L40S 跑 Qwen2.5-14B，能同时支持多少人并发？",
        "how many users can use llama 3 8b at the same time on one RTX 3090?",
    ],
)
def test_a_concurrency_question_leads_with_the_number_of_sequences(advisor, question):
    final = _ask(advisor, question)
    fit = [c for c in final.tool_calls if c.name == "fit_on_gpu"][-1]
    n = fit.result.max_concurrent_sequences
    assert n and n > 1
    assert re.search(rf"\b{n}\b", final.answer.split("\n\n")[0]), final.answer[:400]


@pytest.mark.parametrize(
    ("question", "vram"),
    [
        ("12G显存 64G内存，能不能跑 Qwen2.5-32B", 12.0),
        ("I have 8GB VRAM and 32GB RAM, can I run Llama 3 70B?", 8.0),
        ("my GPU has 16gb vram, 64gb ram. can it run mixtral 8x7b?", 16.0),
    ],
)
def test_a_machine_described_by_vram_and_ram_is_answered_with_offload_on_that_card(advisor, question, vram):
    final = _ask(advisor, question)
    offload = [c for c in final.tool_calls if c.name == "estimate_offload"]
    assert offload and offload[-1].args.get("vram_gib") == vram
    assert "tokens/s" in _lead(final.answer)


def test_offload_on_a_card_known_only_by_its_size():
    r = estimate_offload(OffloadRequest(model="qwen2.5-32b", vram_gib=12, ram_gib=64))
    assert r.strategy == "layers" and 0 < r.on_gpu_gib < 12 and r.fits_in_ram
    assert any(a.code == "offload_card_size" for a in r.assumptions)
    short = estimate_offload(OffloadRequest(model="llama-3-70b", vram_gib=8, ram_gib=32))
    assert short.fits_in_ram is False  # 35 GiB of a 4-bit 70B in RAM: 32 GB is not enough


@pytest.mark.parametrize(
    ("question", "big"),
    [
        ("RTX 5090 32GB，内存 64GB DDR5，最多能部署哪个 Qwen 模型（如 14B、32B、72B）？", "32B"),
        ("my 3060 12gb, what's the biggest qwen model I can run, 7b or 14b?", "14B"),
    ],
)
def test_the_biggest_of_a_family_with_sizes_listed_is_a_capacity_answer(advisor, question, big):
    final = _ask(advisor, question)
    assert final.tool_calls[0].name == "largest_model"
    assert not [c for c in final.tool_calls if c.name == "recommend_gpus"]
    assert big in final.answer.split("\n\n")[0]


@pytest.mark.parametrize(
    ("question", "ram"),
    [
        ("没有显卡，只有 32G 内存，能跑多大的模型", 32.0),
        ("no GPU, just a ryzen 5600 with 32gb ddr4. biggest model I can run?", 32.0),
        ("I only have a laptop with Intel UHD graphics and 16GB RAM, what LLM can I run?", 16.0),
    ],
)
def test_no_gpu_and_ram_is_what_the_cpu_runs_with_its_speed(advisor, question, ram):
    final = _ask(advisor, question)
    cap = next(c for c in final.tool_calls if c.name == "largest_model")
    assert cap.args.get("cpu_ram_gib") == ram
    speed = next(c for c in final.tool_calls if c.name == "estimate_offload")
    assert speed.args.get("strategy") == "cpu"
    assert "CPU" in final.answer.split("\n\n")[0]
    assert f"{speed.result.decode_tokens_per_s:,.1f}" in final.answer


def test_capacity_on_the_cpu_leaves_room_for_the_os():
    from tools.capacity import CapacityRequest, largest_model

    r = largest_model(CapacityRequest(cpu_ram_gib=16, with_finetune=False))
    assert r.cpu_ram_gib == 16 and r.gpu is None and r.capacity_gib < 16
    assert all(w.mode == "inference" for w in r.ways)
    assert any(a.code == "capacity_cpu_ram" for a in r.assumptions)
