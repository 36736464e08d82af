"""assess_card: what an expert says first about an old, memory-modified or multi-GPU card, and the risk capability
that leads the answer with it (tools/card_risk.py, assistant/capabilities/risk.py)."""

from __future__ import annotations

import pytest

from assistant.planner.model import parse
from assistant.planner.plan import make_plan
from assistant.scenario import Scenario
from assistant.toolset import ToolName, run_tool, tool_specs
from tools.card_risk import CardRiskRequest, assess_card, risky
from tools.notes import render_all


def _text(r, lang: str = "en") -> str:
    return " ".join(render_all([r.lead, *r.facts, *r.instead, *r.alternatives], lang))


def test_p40_runs_with_llama_cpp_not_vllm_with_its_speed_and_cooling() -> None:
    r = assess_card(CardRiskRequest(gpus=["P40"], params_b=7))
    assert r.risk == "pascal" and r.cards[0].compute_capability == "6.1"
    lead = r.lead.render("en")
    assert "llama.cpp" in lead and "not vLLM" in lead and "1/64" in lead
    text = _text(r)
    assert "passively cooled" in text and "tokens/s" in text
    assert r.decode_tokens_per_s and 20 < r.decode_tokens_per_s < 80  # 346 GB/s over ~4.4 GB of 4-bit weights
    assert "llama.cpp" in r.lead.render("zh") and "算力" in r.lead.render("zh")


def test_cards_already_bought_are_used_one_model_per_card_or_split() -> None:
    r = assess_card(CardRiskRequest(gpus=["P40"], num_gpus=10, owned=True))
    assert "can still run" in r.lead.render("en")
    assert any(n.code == "risk_fact_many" for n in r.facts)


def test_maxwell_is_not_worth_buying_and_a_dual_gpu_board_is_two_8gb_gpus() -> None:
    r = assess_card(CardRiskRequest(gpus=["M40", "M60"], job="buy"))
    # the better buy is a card CUDA still supports (not the P40, itself Pascal and losing support)
    lead = r.lead.render("en")
    assert r.risk == "legacy" and "Not worth buying" in lead and "RTX 3060" in lead and "P40" not in lead
    board = next(n for n in r.facts if n.code == "risk_fact_board")
    assert board.params["n"] == 2 and board.params["gib"] == 8
    assert [n.code for n in r.alternatives] == ["risk_alternative", "risk_alternative"]


def test_the_m10_is_four_gpus_of_8gb() -> None:
    r = assess_card(CardRiskRequest(gpus=["Tesla M10"], job="buy"))
    board = next(n for n in r.facts if n.code == "risk_fact_board")
    assert board.params["n"] == 4 and board.params["gbs"] == pytest.approx(83.2)


def test_maxwell_fine_tunes_slowly_against_a_3090() -> None:
    r = assess_card(CardRiskRequest(gpus=["M40"], job="training", num_gpus=2, owned=True))
    lead = r.lead.render("zh")
    assert "能微调" in lead and "慢" in lead and "Tensor Core" in lead
    assert any(n.code == "risk_fact_support_ending" for n in r.facts)  # PyTorch / CUDA / drivers drop Maxwell


def test_volta_fine_tunes_in_fp16_with_flash_attention_off() -> None:
    r = assess_card(CardRiskRequest(gpus=["V100"], job="training"))
    assert r.risk == "pre_bf16"
    lead = r.lead.render("zh")
    assert lead.startswith("NVIDIA Tesla V100") and "能微调" in lead and "FP16" in lead and "BF16" in lead
    assert "use_flash_attn" in _text(r)


def test_turing_runs_inference_when_docs_ask_for_ampere() -> None:
    assert not risky("rtx-2080-ti", "inference")
    assert risky("rtx-2080-ti", "inference", architecture_asked=True)
    r = assess_card(CardRiskRequest(gpus=["2080 Ti"], architecture_asked=True))
    assert r.lead.render("zh").startswith("推理能跑") and "11 GB" in _text(r)


def test_a_modded_card_is_tested_past_its_stock_memory() -> None:
    r = assess_card(CardRiskRequest(gpus=["RTX 3080"], stated_vram_gib=20, failing=True))
    assert r.risk == "modded"
    assert "魔改" in r.lead.render("zh") and "10 GB" in r.lead.render("zh")
    assert "memtest_vulkan" in _text(r)
    assert risky("rtx-4090-48gb-mod", "inference") and not risky("rtx-4090", "inference")


def test_apple_silicon_is_not_a_training_machine() -> None:
    assert not risky("apple-m2-ultra-192gb", "inference") and risky("apple-m2-ultra-192gb", "training")
    r = assess_card(CardRiskRequest(gpus=["M2 Ultra"], job="training"))
    assert r.lead.render("zh").startswith("不推荐") and "312" in r.lead.render("zh")
    assert "MLX" in _text(r)


def test_current_cards_have_nothing_to_warn_about() -> None:
    assert not risky("rtx-4090", "training") and not risky("h100-sxm", "inference")
    r = assess_card(CardRiskRequest(gpus=["4090"]))
    assert r.lead is None and r.risk == "none"


def test_assess_card_is_a_tool() -> None:
    spec = next(s for s in tool_specs() if s.name == ToolName.ASSESS_CARD)
    out = run_tool(spec, {"gpus": ["P40"], "job": "inference"})
    assert out.ok and out.result["risk"] == "pascal"
    assert not run_tool(spec, {"gpus": ["H1000"]}).ok  # an unknown card is a message, not a crash


def test_the_trap_leads_the_answer_and_sets_llama_cpp_for_the_fit() -> None:
    plan = make_plan(parse("Has anyone used a P40? Is it worth it for LLMs?"), Scenario())
    assert plan.intents[0] == "risk" and plan.calls[0].name == ToolName.ASSESS_CARD
    plan = make_plan(parse("Has anyone used a P40? How many tokens per second on 7B models?"), Scenario())
    assert plan.intents[0] == "risk"  # it plans first: the engine it sets is the one the fit assumes
    vram = next(c for c in plan.calls if c.name == ToolName.ESTIMATE_VRAM)
    assert vram.args.get("engine") == "llama.cpp"


def test_a_direct_engine_question_keeps_the_engine_verdict_first() -> None:
    plan = make_plan(parse("vLLM 能在 P40 上跑吗？"), Scenario())
    assert plan.intents[:2] == ["support", "risk"]


def test_a_follow_up_about_the_same_card_keeps_its_trap() -> None:
    first = make_plan(parse("两张24g的p40能跑未量化的14b吗？"), Scenario())
    follow = make_plan(parse("主要就是显存到位就行了是吧，其他差点就差点？"), first.scenario)
    assert follow.intents[0] == "risk"


def test_a_listed_mod_is_tested_before_it_is_trusted() -> None:
    r = assess_card(CardRiskRequest(gpus=["2080 Ti 22G"], job="buy"))
    assert r.risk == "modded" and r.lead.code == "risk_lead_modded_buy"
    assert "11 GB" in r.lead.render("en")  # the stock 2080 Ti
    plan = make_plan(parse("saw a modded 4090 48gb. will it run llama 3.1 70b q4?"), Scenario())
    assert plan.intents[0] != "risk"  # the sizing asked leads; the mod's caveats follow


def test_rocm_dropped_cards_run_on_vulkan() -> None:
    assert risky("mi50-32gb", "inference") and not risky("rx-7900-xtx", "inference")
    r = assess_card(CardRiskRequest(gpus=["MI50"], job="buy"))
    assert r.risk == "rocm_dropped" and "Vulkan" in r.lead.render("en") and "gfx906" in r.lead.render("en")
    assert r.alternatives


@pytest.mark.parametrize(
    ("text", "lang", "word"),
    [
        ("May I ask if V100s are currently supported?", "en", "Ampere"),
        ("V100 还支持吗？", "zh", "Ampere"),
        ("Are 2080 Ti cards supported?", "en", "FP16"),
        ("T4 支持吗", "zh", "FP16"),
    ],
)
def test_is_a_card_supported_is_answered_with_what_still_runs_on_it(text: str, lang: str, word: str) -> None:
    # no engine, feature or model named: the card's standing (FP16 inference yes; BF16 and FlashAttention-2 need
    # Ampere) answers it, not its spec sheet
    q = parse(text)
    assert q.asks_card_support and q.intents[0] == "risk"
    plan = make_plan(q, Scenario())
    assert plan.calls[0].name == ToolName.ASSESS_CARD and plan.calls[0].args.get("architecture_asked")
    assert parse("is the 3090 supported?").intents[:1] != ["risk"]  # a current card has no trap to state


def test_an_out_of_support_card_runs_ollama_on_the_cpu() -> None:
    # Kepler is below Ollama's and llama.cpp's 5.0 floor: they run on the CPU there, which is why it is slow
    r = assess_card(CardRiskRequest(gpus=["K80"]))
    assert r.risk == "unsupported" and [n.code for n in r.instead] == ["risk_do_cpu_fallback"]
    assert "CPU" in _text(r) and "CPU" in _text(r, "zh")
    # "[ktransformers] K80 这种老卡能用吗？跑 ollama 都很慢": the engine's tutorial model is no run of the user's, so
    # the card's verdict leads, not a diagnosis of DeepSeek-R1 on it
    q = parse("[kvcache-ai/ktransformers] 显卡可以用K80这种老卡不？虽然它跑ollama都很慢。。。")
    assert q.intents[0] == "risk" and "diagnose" not in q.intents
