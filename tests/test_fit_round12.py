"""Round 12 fit kinds, from new real questions (evals/wild/*_fit_r5.yaml), as people ask them (both languages):

- one machine's different cards, joined by a word written before them ("同时使用 3080 和 2080ti") or listed in the
  machine's spec line ("5950x 64GB ram, 3060 12GB, and 1080 8GB"), are sized together, and an old card among them
  follows what they run (understanding/card_joins.py, understanding/risk.py);
- a Mac named by its machine and memory with no chip ("a 16GB MacBook Pro") is sized on that memory
  (understanding/mac_memory.py); a model year before a Mac ("a 2021 MacBook Pro") is no count of Macs
  (understanding/numbers.py);
- a memory written beside a card that no catalog row of it has ("5090D v2 24G") is the memory sized
  (understanding/card_memory.py);
- several cards whose memory together is less than the weights: the sum said, so no flag is tried
  (capabilities/diagnose.py)."""

from __future__ import annotations

import uuid

import pytest


def _ask(advisor, question: str):
    return advisor.ask(f"t-{uuid.uuid4().hex[:8]}", question)


def _gpus(final) -> set[str]:
    return {str(c.args.get("gpu")) for c in final.tool_calls if c.args.get("gpu")}


@pytest.mark.parametrize(
    ("question", "wanted"),
    [
        ("Ryzen 7950X, 128GB RAM, RTX 3090 and GTX 1080 Ti - which models can I run?", "35 GB"),
        ("我的配置：i9-13900K，64G 内存，3090 和 2080ti 22g，能跑什么模型？", "46 GB"),
    ],
)
def test_one_machines_cards_are_sized_together_first(advisor, question: str, wanted: str) -> None:
    answer = _ask(advisor, question).answer
    assert wanted in answer.split("\n\n")[0]


@pytest.mark.parametrize(
    ("question", "gpu", "lead"),
    [
        ("Can I run llama 3.1 8b on my 8GB MacBook Air?", "apple-m1-8gb", "No"),
        ("16G 的 MacBook 能跑 deepseek-r1 14b 吗", "apple-m1-16gb", "能"),
        ("I have a 2020 MacBook Air M1 with 8GB, can it run phi-3 mini?", "apple-m1-8gb", "Yes"),
    ],
)
def test_a_mac_is_sized_on_its_memory(advisor, question: str, gpu: str, lead: str) -> None:
    final = _ask(advisor, question)
    assert _gpus(final) == {gpu}
    assert lead in final.answer.split("\n\n")[0]


@pytest.mark.parametrize(
    ("question", "wanted"),
    [
        ("RTX 5090 D v2 (24GB VRAM): can it run Qwen3-32B at 8-bit?", "Sized on the 24 GB you give"),
        ("我有一张 5090D v2 24G，能跑 qwen3-32b 吗", "按你写的 24 GB 显存计算"),
    ],
)
def test_the_memory_written_beside_a_card_is_sized(advisor, question: str, wanted: str) -> None:
    assert wanted in _ask(advisor, question).answer


@pytest.mark.parametrize(
    ("question", "wanted"),
    [
        ("vllm OOM serving Llama-3.1-405B AWQ on 8x RTX 4090, why?", "Together the 8 cards have 8 × 24 GB"),
        ("两张 3090 跑 Qwen2.5-72B bf16 一直 OOM", "2 张卡合计 2 × 24 GB"),
    ],
)
def test_cards_short_of_the_weights_say_the_sum(advisor, question: str, wanted: str) -> None:
    assert wanted in _ask(advisor, question).answer
