"""Round 15 (helper H7), kinds of failure the earlier rounds left open, each read as a user would:

- tokens per minute asked or stated: a parser slot, SpeedResult's per-minute fields, tokens/min beside tokens/s;
- a comparison whose lead ranks another option best on the bottleneck says first why the pick wins anyway;
- a speed asked of one person's 12-16 GB card is timed in the 4-bit build people run, not BF16 on 4 cards;
- a follow-up swapping the card ("what about with 4090s instead") counts the new card anew;
- a Mac's verdict says the GPU's default share of unified memory and how `iogpu.wired_limit_mb` raises it;
- quantize only when needed: two cards of one's own that hold the model as published are sized at BF16.
"""

import uuid

import pytest
from asking import ask_checked, lead_of

from assistant.understanding import parse

# ---- 1. tokens per minute ------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "per_minute"),
    [
        ("我现在有A100的显卡，想试试8B 32B 72B 模型的运行效率和每一分钟可以生成多少toekn", True),
        ("H100 跑 70B 模型，每分钟大概能出多少 tokens", True),
        ("How many tokens per minute can an RTX 3090 generate with Llama 3 8B?", True),
        ("What's the tokens/min throughput of Qwen2.5-32B on one L40S?", True),
        ("4090 跑 14B 速度怎么样", False),
        ("每分钟 5 次请求，API 还是自己部署", False),
    ],
)
def test_tokens_a_minute_is_read_as_the_unit_asked(text, per_minute) -> None:
    parsed = parse(text)
    assert parsed.rate_per_minute is per_minute
    if per_minute:
        assert "speed" in parsed.intents


@pytest.mark.parametrize(
    ("text", "unit"),
    [
        ("我有一张4090，跑Qwen2.5-14B每分钟能生成多少token？", "每分钟约"),
        ("H100 跑 70B 模型，每分钟大概能出多少 tokens", "每分钟约"),
        ("How many tokens per minute can an RTX 3090 generate with Llama 3 8B?", "tokens a minute"),
        ("What's the tokens/min throughput of Qwen2.5-32B on one L40S?", "tokens a minute"),
    ],
)
def test_a_speed_asked_per_minute_gives_tokens_a_minute_beside_tokens_a_second(advisor, text, unit) -> None:
    final = ask_checked(advisor, text)
    line = next(p for p in final.answer.split("\n\n") if unit in p)
    assert "tokens/s" in line, final.answer  # beside the rate per second, in the same sentence


def test_each_size_of_a_multi_size_speed_question_gets_its_rate_per_minute(advisor) -> None:
    final = ask_checked(advisor, "我现在有A100的显卡，想试试8B 32B 72B 模型的运行效率和每一分钟可以生成多少toekn")
    assert lead_of(final.answer).count("每分钟约") >= 2, final.answer


def test_a_speed_not_asked_per_minute_stays_per_second(advisor) -> None:
    final = ask_checked(advisor, "How fast is Qwen2.5-14B on one RTX 4090?")
    assert "a minute" not in final.answer and "tokens/s" in final.answer


# ---- 2. the pick's reason when another option leads on the bottleneck ------------------------------------------------


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        ("7900 XTX or 4080 Super for running local LLMs?", "CUDA"),
        ("7900XTX 和 4080 Super 跑大模型选哪个", "CUDA"),
        ("Should I buy an RX 7900 XTX or an RTX 4080 Super to run Qwen2.5 32B?", "brim"),
        ("RX 7900 XTX 还是 4080 SUPER，跑 Qwen2.5-32B 选哪张", "勉强"),
    ],
)
def test_a_pick_behind_on_the_bottleneck_says_why_it_wins_first(advisor, text, reason) -> None:
    final = ask_checked(advisor, text)
    lead = lead_of(final.answer)
    assert reason in lead, final.answer
    assert lead.index(reason) < lead.index("GB"), final.answer  # before the figures that favour the other card


def test_a_pick_ahead_on_the_bottleneck_needs_no_such_reason(advisor) -> None:
    final = ask_checked(advisor, "RTX 4090 or RTX 3090 for running Qwen2.5-14B?")
    assert "not for the figures below" not in final.answer and "brim" not in lead_of(final.answer)


# ---- 3. one person's card timed in the format it runs --------------------------------------------------------------


@pytest.mark.parametrize(
    "text",
    [
        "B580 跑 14B 速度怎么样",
        "3060 12G 跑 qwen2.5 14b 速度多少",
        "tokens per second for Qwen2.5-14B on an RTX 4070 Ti Super?",
        "我有一张 4060Ti 16G，跑 14B 每秒多少 token",
    ],
)
def test_a_speed_on_a_personal_card_is_sized_at_the_four_bit_build_on_that_card(advisor, text) -> None:
    final = ask_checked(advisor, text)
    vram = [c.args for c in final.tool_calls if c.name == "estimate_vram"]
    assert vram and vram[0].get("precision") == "q4_k_m" and vram[0].get("num_gpus") == 1, vram
    assert "4 张" not in lead_of(final.answer) and "4 ×" not in lead_of(final.answer), final.answer


# ---- 4. a card swapped in a follow-up is counted anew --------------------------------------------------------------


@pytest.mark.parametrize(
    ("first", "then", "count"),
    [
        ("How many A6000s do I need to serve Llama 3 70B at bf16?", "what about with 4090s instead", "8 ×"),
        ("部署 Qwen2.5-72B BF16 需要几张 A100 80G", "换成 4090 呢", "8 张"),
        ("How many L40S for Mixtral 8x7B in fp16?", "and with 3090s?", "8 ×"),
        ("跑 Llama-3.1-70B 要几张 A800", "如果用 3090 的话要几张", "8 张"),
    ],
)
def test_a_card_swapped_in_a_follow_up_is_counted_anew(advisor, first, then, count) -> None:
    session = "r15h7-" + uuid.uuid4().hex[:6]
    advisor.ask(session, first)
    final = advisor.ask(session, then)
    assert count in lead_of(final.answer, 2), final.answer


def test_a_count_the_user_stated_stays_when_the_card_is_swapped(advisor) -> None:
    session = "r15h7-" + uuid.uuid4().hex[:6]
    advisor.ask(session, "I have 2x 3090, can they run Qwen2.5-32B?")
    final = advisor.ask(session, "what about with 4090s instead?")
    vram = [c.args for c in final.tool_calls if c.name == "estimate_vram"]
    assert vram and vram[0]["num_gpus"] == 2 and vram[0]["gpu"] == "rtx-4090", vram


# ---- 5. a Mac's GPU share of unified memory ------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "share"),
    [
        ("Can a Mac Studio M2 Ultra 64GB run Llama 3 70B at Q4?", "48 of its 64 GB"),
        ("M3 Max 36G 的 MacBook 能跑 Qwen2.5-32B 吗", "36 GB 统一内存中的约 27 GB"),
        ("MacBook Pro M4 Pro 24GB, can it run a 14b model?", "16 of its 24 GB"),
        ("Mac mini M4 16G 跑 Qwen2.5-14B 可以吗", "16 GB 统一内存中的约 11 GB"),
    ],
)
def test_a_macs_verdict_says_the_gpus_default_share_and_how_to_raise_it(advisor, text, share) -> None:
    final = ask_checked(advisor, text)
    assert share in final.answer and "iogpu.wired_limit_mb" in final.answer, final.answer
    assert final.answer.count("iogpu.wired_limit_mb") == 1, final.answer


# ---- 6. quantize only when needed ----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "text",
    [
        "I have two RTX 3090s. Can I run Qwen2.5-14B-Instruct?",
        "我有两张 4060Ti 16G，能推理 Llama-3.1-8B 吗",
        "Two RTX 4080 16GB cards: can they run Mistral-Nemo-12B for inference?",
        "两张 A4000 16G 能跑 Qwen2-VL-7B 吗",
    ],
)
def test_two_own_cards_that_hold_the_published_weights_are_sized_at_bf16(advisor, text) -> None:
    final = ask_checked(advisor, text, consistent=True)
    assert "BF16" in lead_of(final.answer) and "Q4_K_M" not in lead_of(final.answer), final.answer
    assert "8-bit" in final.answer or "8-bit 或 4-bit" in final.answer, final.answer


def test_the_two_a4000_vision_case_gives_the_bf16_total_and_the_smaller_build(advisor) -> None:
    final = ask_checked(
        advisor,
        "Is there a minimum VRAM requirement for local inference? I have two RTX A4000 GPUs (16GB VRAM each). "
        "Note: For Vision 11B multi-modal inference.",
    )
    lead = lead_of(final.answer).lower()
    assert "bf16" in lead and "fit" in lead and lead.index("bf16") < lead.find("q4_k_m") % 10_000, final.answer


@pytest.mark.parametrize(
    "text",
    ["Can my RTX 3090 run Llama 3 8B?", "我有两张 3090，能跑 Qwen2.5-32B 吗", "B580 12G 能跑 14B 吗"],
)
def test_one_card_or_weights_too_big_for_the_pair_keep_the_four_bit_build(advisor, text) -> None:
    final = ask_checked(advisor, text)
    vram = [c.args for c in final.tool_calls if c.name == "estimate_vram"]
    assert vram and vram[0].get("precision") == "q4_k_m", vram
