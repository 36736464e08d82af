"""Round 12 (purchase): kinds found on new real purchase questions.

- A GPU platform said of another vendor's cards ("amd显卡不支持cuda") is checked on those cards, first.
- A training run priced with no count stated is priced on the fewest of the cards that hold it, and "how many of
  this card" leads with the count, the run's cost after it.
- "Is <card> worth it for <model>?" is whether the card holds the job (fit), not buy versus rent.
"""

import pytest
from asking import lead_of, planned_turn

from assistant.planner.plan import make_plan
from assistant.scenario import Scenario
from assistant.toolset import ToolName
from assistant.understanding import parse


def _calls(question: str, name: ToolName) -> list[dict]:
    plan = make_plan(parse(question), Scenario())
    return [c.args for c in plan.calls if c.name == name]


@pytest.mark.parametrize(
    ("question", "first"),
    [
        ("有没mi50显卡的性能对比 — 咨询了一圈,amd显卡不支持cuda,所以不下手了. 最近看上p4了,本来想买t4", "mi50-32gb"),
        ("MI50 or P40 for llama.cpp? I heard AMD has no CUDA", "mi50-32gb"),
        ("7900 XTX 还是 3090？听说 A卡 不支持 CUDA", "rx-7900-xtx"),
    ],
)
def test_platform_said_of_another_vendor_is_checked_on_its_cards(question: str, first: str) -> None:
    checks = [a for a in _calls(question, ToolName.CHECK_SUPPORT) if a["engine"] == "cuda"]
    assert checks and checks[0]["gpu"] == first, checks


def test_platform_among_cards_still_checked_on_its_own_vendor() -> None:
    """ "MI300X vs H100: how mature is ROCm?" asks about the MI300X only."""
    checks = _calls("MI300X vs H100: how mature is ROCm?", ToolName.CHECK_SUPPORT)
    assert [a["gpu"] for a in checks] == ["mi300x"], checks


@pytest.mark.parametrize(
    "question",
    [
        "How many H100 GPUs should I use to train Llama-3.1-70B? My goal is efficient training in time and cost.",
        "I need advice on the optimal number of NVIDIA H100 GPUs to train Llama-3.1-70B, efficient in time and cost.",
    ],
)
def test_how_many_cards_leads_with_the_count_and_prices_a_count_that_holds(question: str) -> None:
    plan, answer = planned_turn(question)
    speeds = [c.args for c in plan.calls if c.name == ToolName.ESTIMATE_SPEED and c.args.get("mode") == "training"]
    assert speeds and all(a["num_gpus"] > 1 for a in speeds), speeds  # 70B LoRA does not fit one 80 GB card
    lead = lead_of(answer)
    assert "needs 32" in lead and "needs 4" in lead, lead  # full and LoRA, each method's count
    assert "an hour" not in lead, lead


@pytest.mark.parametrize(
    ("question", "said"),
    [
        ("Is a 4090 worth it for running Qwen2.5-32B?", "Yes"),
        ("I have a budget of $2000, is the RTX 4090 worth it for LoRA of Qwen2.5-14B?", "does not fit"),
        ("Is the RTX 5090 worth the price for Qwen2.5-32B inference?", "Yes"),
    ],
)
def test_worth_it_on_a_card_for_a_model_is_whether_it_holds_it(question: str, said: str) -> None:
    plan, answer = planned_turn(question)
    assert not [c for c in plan.calls if c.name == ToolName.CALCULATE_TCO], plan.calls
    assert said in lead_of(answer), answer


def test_worth_it_against_renting_stays_buy_vs_rent() -> None:
    assert _calls("Is a 4090 worth it vs renting for Qwen2.5-32B?", ToolName.CALCULATE_TCO)


@pytest.mark.parametrize(
    ("question", "gpu"),
    [
        (
            "Is it faster to use Jetson Orin Super 8G for Qwen or a Raspberry Pi with an RX6800XT?",
            "jetson-orin-nano-super-8gb",
        ),
        ("RTX 4060 vs Jetson Orin 16GB for real-time edge inference", "jetson-orin-nx-16gb"),
        ("Jetson Orin Nano Super 能跑 Qwen2.5-3B 吗", "jetson-orin-nano-super-8gb"),
        ("买 Jetson Orin NX 16GB 跑 Qwen2.5-7B 够不够", "jetson-orin-nx-16gb"),
    ],
)
def test_a_jetson_module_is_named_like_a_card(question: str, gpu: str) -> None:
    assert gpu in parse(question).gpu_mentions


def test_a_jetson_is_compared_when_named_never_recommended_and_never_doubled() -> None:
    from tools.recommend import RecommendRequest, recommend_gpus
    from tools.vram import VramRequest, estimate_vram

    picks = recommend_gpus(RecommendRequest(workload=VramRequest(model="qwen2.5-3b", mode="inference"), budget=400))
    assert picks.options and all("jetson" not in p.gpu_id for p in picks.options)
    fit = estimate_vram(VramRequest(model="qwen3-8b", precision="bf16", gpu="jetson-orin-nano-super-8gb")).fit
    assert fit is not None and not fit.fits and fit.gpus_needed is None  # one module: memory does not pool
    _, answer = planned_turn("Is it faster to use Jetson Orin Super 8G or an RX 6800 XT for Qwen2.5-3B?")
    assert "6800 XT" in lead_of(answer) and "2 × NVIDIA Jetson" not in answer, answer
