"""Round 15 (helper H1, issue 20 item 1): "will it run on my card" questions, the kinds the r8 wild cases found.

- a feature asked of an old card ("flash attention是否支持RTX8000", "Does the V100 support bf16?") leads with that
  feature's verdict (no: it needs compute capability 8.0), not with "for inference, yes" (capabilities/risk.py);
  a lack the user states ("v100不支持bfloat16，如何修改代码") keeps the FP16 how-to lead;
- a support word asking whether a card has a feature (FP8, BF16, FP4) leads with that verdict, also beside a model
  named in the message (understanding/software.py `_feature_verdict_asked`);
- a platform asked about a card beside an application ("Is the RX 7900 XTX supported by ROCm now? I want to run
  stable diffusion") keeps the support verdict, first (understanding/apps.py, capabilities/app_fit.py);
- application names (knowledge/data/apps.yaml) are names in a Chinese answer, not English sentences.
"""

import pytest
from asking import lead_of, planned_turn

from assistant.language_check import check
from assistant.understanding import parse

# ---- 1. a feature asked of an old card ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("question", "no_words", "why"),
    [
        ("flash attention是否支持RTX8000", ("不能",), "Ampere"),
        ("T4 能用 flash attention 2 吗", ("不能",), "Turing"),
        ("Can I use FlashAttention 2 on my T4?", ("No",), "Ampere"),
        ("Will FlashAttention-2 work on a Titan RTX?", ("No",), "Turing"),
        ("Does the V100 support bf16?", ("No",), "8.0"),
        ("V100支持bf16吗", ("不能",), "8.0"),
        ("P40 支持 bf16 吗", ("不能",), "6.1"),
    ],
)
def test_feature_asked_of_an_old_card_leads_with_its_verdict(
    question: str, no_words: tuple[str, ...], why: str
) -> None:
    plan, answer = planned_turn(question)
    lead = lead_of(answer)
    assert plan.intents[0] == "support", plan.intents
    assert any(w in lead[:12] for w in no_words), lead[:200]
    assert why in lead, lead[:300]
    assert not lead.startswith(("For inference, yes", "推理能跑")), lead[:120]


def test_a_stated_lack_keeps_the_fp16_how_to_lead() -> None:
    # the user states the lack and asks how to change the code: FP16 leads (the card's how-to), the verdict follows
    _, answer = planned_turn("v100不支持bfloat16，如何修改代码")
    lead = lead_of(answer)
    assert "FP16" in lead and not lead.startswith("**不能"), lead[:200]


# ---- 2. a support word asking whether a card has a feature ------------------------------------------------------


@pytest.mark.parametrize(
    ("question", "verdict", "need"),
    [
        ("Does the A100 support FP8? I want to serve Qwen2.5-72B", "No", "8.9"),
        ("3090 支持 FP8 吗？想跑 Qwen2.5-32B", "不能", "8.9"),
        ("Is FP4 supported on the RTX 4090 for Llama-3.1-8B?", "No", "Blackwell"),
        ("L40S 支持 FP8 吗，我要部署 Qwen2.5-72B", "能", "8.9"),
    ],
)
def test_a_feature_asked_beside_a_model_leads_with_its_verdict(question: str, verdict: str, need: str) -> None:
    plan, answer = planned_turn(question, traceable=False)
    lead = lead_of(answer)
    assert plan.intents[0] == "support", plan.intents
    assert verdict in lead[:12] and need in lead, lead[:300]


@pytest.mark.parametrize(
    ("question", "word"), [("3090 支持 FP8 吗？", "FP8 不支持"), ("Does the RTX 3090 support FP8?", "FP8 none")]
)
def test_a_feature_asked_alone_stays_the_cards_fact(question: str, word: str) -> None:
    plan, answer = planned_turn(question)
    assert plan.intents[:1] == ["gpu_info"] and word in lead_of(answer), lead_of(answer)[:200]


def test_a_feature_asked_beside_a_model_leads_before_the_sizing() -> None:
    q = (
        "[Bug]: Llama3.1-70B-FP8 Prompt insufficient computing power\nThe computing power of 3090 is 8.6, and the "
        "computing power of 4090 is 8.9. Does it mean that 3090 no longer supports FP8?"
    )
    plan, answer = planned_turn(q, traceable=False)
    assert plan.intents[0] == "support" and "fit" in plan.intents
    lead = lead_of(answer, 2)
    assert "FP8" in lead and "8.9" in lead and "no" in lead, lead[:300]
    # without a support word the figures asked stay a spec question
    assert parse("What is the memory bandwidth of the 3090?").intents[:1] != ["support"]


# ---- 3. a platform asked beside an application -------------------------------------------------------------------


@pytest.mark.parametrize(
    ("question", "word"),
    [
        ("我的7900xtx想用rocm跑stable diffusion，现在支持了吗", "gfx1100"),
        ("Is the RX 7900 XTX supported by ROCm now? I want to run stable diffusion on it", "gfx1100"),
        ("Can my RX 6800 run ComfyUI with ROCm?", "gfx1030"),
        (
            "I can't wait to use my 7900xtx to run stable diffusion under rocm, rather than directml on win11.\n"
            "Pro w7900卡发布了，和7900xtx一个核心，那按道理来说我这个7900xtx很快就能适配ROCm了吧",
            "ROCm",
        ),
    ],
)
def test_platform_verdict_leads_beside_an_application(question: str, word: str) -> None:
    plan, answer = planned_turn(question)
    assert plan.intents[:2] == ["support", "app_fit"], plan.intents
    lead = lead_of(answer, 2)
    assert word in lead, lead[:300]
    assert "Stable Diffusion" in answer or "ComfyUI" in answer  # the application's memory still follows


def test_an_application_without_a_platform_is_unchanged() -> None:
    assert parse("Will 16GB VRAM be ok for Gaussian Splatting?").intents == ["app_fit"]
    assert parse("IndexTTS：12g显存够吗").intents == ["app_fit"]


# ---- 4. application names in a Chinese answer ------------------------------------------------------------------


@pytest.mark.parametrize(
    "text",
    [
        "**够，一张 AMD Radeon RX 7900 XTX（24 GB）跑 Stable Diffusion / SDXL / Flux 足够**（图像生成）",
        "用 ComfyUI 跑 SDXL 需要 12 GB 显存",
        "Stable Diffusion 在 16 GB 上不用卸载",
    ],
)
def test_application_names_are_names_in_chinese(text: str) -> None:
    assert not check(text, "zh")


def test_an_english_sentence_beside_an_application_name_still_fails() -> None:
    assert check("Stable Diffusion 可以跑, but you should really buy a bigger card for this", "zh")
