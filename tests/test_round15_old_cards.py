"""Round 15 (issue 20, item 6): old, used and modded cards, answered as a demanding buyer would check them.

- an engine named only inside a pasted link ("github.com/vllm-project/vllm/issues/1374") is where the user read,
  not the engine they run or ask about (understanding/text.py link_spans, engine.py, software.py);
- BF16 or FlashAttention named as what the card lacks ("v100不支持bfloat16，如何修改代码"): how to run without it
  (FP16, SDPA) leads, before each method's memory verdict (capabilities/risk.py phase);
- a risky card weighed as a purchase ("还值得买吗", "划算吗", "worth it") leads with whether to buy it at all, then
  what it runs (understanding/risk.py risk_job, capabilities/risk.py phase);
- buying it: the card's own dated second-hand price, in the asker's currency when one was observed there, else
  converted and said so (tools/card_risk.py _used_price, tools/prices.py used_price_range);
- a card with FP16 but no BF16 (V100, Turing) never has its 16-bit figure called BF16 on its spec line.
"""

import pytest
from asking import ask_checked, lead_of

from assistant.understanding import parse
from tools.card_risk import CardRiskRequest, assess_card
from tools.catalog import catalog
from tools.prices import load_prices, used_price_range

# ---- an engine inside a link is context ----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "engine"),
    [
        ("P40 out of support — https://github.com/vllm-project/vllm/issues/1374 any trouble running llms?", None),
        ("看了 https://github.com/vllm-project/vllm/issues/963，我用 ollama，3090 跑 qwen2.5 32b 够吗", "llama.cpp"),
        ("saw github.com/vllm-project/vllm/issues/963 — is a used V100 still worth it with llama.cpp?", "llama.cpp"),
        ("P100 还能用吗？参考 https://github.com/vllm-project/vllm/pull/4290", None),
    ],
)
def test_an_engine_named_only_in_a_link_is_not_the_users_engine(text, engine) -> None:
    q = parse(text)
    assert q.engine == engine, (q.engine, text)
    assert "vllm" not in q.support_subjects, q.support_subjects


def test_an_engine_named_in_words_beside_a_link_still_counts() -> None:
    q = parse("vLLM 能在 P40 上跑吗？https://github.com/vllm-project/vllm/issues/1374")
    assert q.engine == "vllm"
    assert "vllm" in q.support_subjects


def test_the_p40_out_of_support_question_leads_with_what_still_runs_it(advisor) -> None:
    final = ask_checked(
        advisor, "P40 out of support — https://github.com/vllm-project/vllm/issues/1374 Hi, any trouble running llms?"
    )
    lead = lead_of(final.answer)
    assert "llama.cpp" in lead and not lead.startswith("**No"), final.answer


# ---- the missing feature leads -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "word"),
    [
        ("如何使用v100微调Mini-InternVL-Chat-2B-V1-5，v100不支持bfloat16，请问应该如何修改代码", "FP16"),
        ("2080ti 不支持 flash attention 2，怎么 LoRA 微调 qwen2.5-7b", "FP16"),
        ("My V100 has no bf16 — how do I QLoRA fine-tune Llama-3.1-8B on it?", "FP16"),
        ("T4 doesn't support bfloat16, how can I train gemma-2-2b with LoRA?", "FP16"),
    ],
)
def test_a_feature_the_card_lacks_leads_before_the_memory_verdicts(advisor, text, word) -> None:
    final = ask_checked(advisor, text)
    lead = lead_of(final.answer)
    assert word in lead, final.answer
    assert "FlashAttention" in lead, final.answer


# ---- a purchase of a risky card: the risk first -----------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "job"),
    [
        ("4张 2080ti 22G 组 88G 跑 70B 划算吗", "buy"),
        ("P40 值不值得入手", "buy"),
        ("is the M40 24GB worth it for llama 3 8b?", "buy"),
        ("我已经有 4 张 P40 了，跑 70B 划算吗", "inference"),  # owned: no purchase to weigh
    ],
)
def test_a_value_word_weighs_a_purchase_of_a_card_not_yet_owned(text, job) -> None:
    from assistant.understanding.risk import risk_job

    assert risk_job(parse(text)) == job


@pytest.mark.parametrize(
    ("text", "lead_words", "not_first"),
    [
        ("P40 还值得买吗？想跑 Qwen2.5 14B", ("值得", "Pascal"), "放得下"),
        ("Is a used Tesla P40 worth buying to run Llama 3.1 8B?", ("Worth it only", "Pascal"), "fits"),
        ("二手 M40 24G 现在还值得买来跑 qwen2.5-7b 吗", ("不值得", "Maxwell"), "放得下"),
        ("4张 2080ti 22G 组 88G 跑 70B 划算吗", ("魔改", "11 GB"), "放得下"),
        (
            "Planning to buy four 2080 Ti 22GB modded cards to run Llama 3.3 70B, good idea?",
            ("memory-modified",),
            "Yes",
        ),
    ],
)
def test_buying_a_risky_card_leads_with_the_risk_then_the_fit(advisor, text, lead_words, not_first) -> None:
    final = ask_checked(advisor, text)
    lead = lead_of(final.answer)
    assert all(w in lead for w in lead_words), final.answer
    assert not lead.startswith(f"**{not_first}") and not_first not in lead[:40], final.answer


# ---- the card's own dated used price ----------------------------------------------------------------------------


def _facts(gpu: str, currency: str, job: str = "buy") -> list[str]:
    r = assess_card(CardRiskRequest(gpus=[gpu], job=job, currency=currency))  # type: ignore[arg-type]
    return [f.code for f in r.facts]


@pytest.mark.parametrize(
    ("gpu", "currency", "code"),
    [
        ("tesla-p40", "CNY", "risk_fact_used_price_one"),  # 闲鱼 ¥700, observed in yuan
        ("tesla-p40", "USD", "risk_fact_used_price"),  # eBay $150-330
        ("mi50-32gb", "CNY", "risk_fact_used_price_converted_one"),  # a dollar group-buy price, converted
        ("mi50-16gb", "CNY", "risk_fact_used_price"),  # 闲鱼 500-600 yuan
        ("rtx-2080-ti-22gb-mod", "CNY", "risk_fact_used_price_converted"),
    ],
)
def test_buying_an_old_card_states_its_dated_used_price(gpu, currency, code) -> None:
    assert code in _facts(gpu, currency)


def test_running_an_owned_card_gets_no_price() -> None:
    assert not [c for c in _facts("tesla-p40", "CNY", job="inference") if c.startswith("risk_fact_used_price")]


def test_a_range_observed_in_the_askers_currency_comes_first() -> None:
    book = load_prices()
    p40 = catalog()["tesla-p40"]
    assert used_price_range(p40, "CNY", book) == (700.0, 700.0, "2023-11-19")
    assert used_price_range(p40, "USD", book) == (150.0, 330.0, "2026-06")


def test_the_price_sentence_is_dated_and_in_the_users_language(advisor) -> None:
    final = ask_checked(advisor, "二手 P40 还值得买吗")
    assert "二手约 ¥700（2023-11-19" in final.answer, final.answer
    final = ask_checked(advisor, "is a used MI50 32GB worth buying?")
    assert "about $400" in final.answer and "2026-03-06" in final.answer, final.answer


# ---- FP16, not BF16, on the spec line -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "want", "never"),
    [
        ("specs of the tesla v100 16gb", "no BF16 (dense FP16", "dense BF16 -"),
        ("2080ti 的参数", "不支持 BF16（稠密 FP16", "稠密 BF16 -"),
        ("Titan RTX specs", "no BF16 (dense FP16", "dense BF16 -"),
    ],
)
def test_a_card_without_bf16_has_its_fp16_figure_named_fp16(advisor, text, want, never) -> None:
    final = ask_checked(advisor, text)
    assert want in final.answer and never not in final.answer, final.answer


def test_a_bf16_card_keeps_its_bf16_figure(advisor) -> None:
    final = ask_checked(advisor, "RTX 3090 specs")
    assert "dense BF16 71" in final.answer, final.answer


# ---- cards ROCm dropped, and the RX 580 row ------------------------------------------------------------------------


def test_the_rx_580_is_a_catalog_card_with_its_target_and_no_invented_price() -> None:
    rx = catalog()["rx-580"]
    assert (rx.compute_capability, rx.vram_gib, rx.bandwidth_gbs) == ("gfx803", 8, 256)
    assert rx.street_price is None and rx.used_price is None and rx.launch_price_usd is None


@pytest.mark.parametrize(
    ("text", "lead_word"),
    [
        ("Can I do anything with LLMs on my Radeon RX 580 8GB, or is it useless?", "9.5B"),
        ("我的 RX 580 8G 跑AI是不是废了", "9.5B"),
        ("I have 4 MI50 16GB, what can I run?", "llama.cpp"),  # sized for the engine that runs it, not vLLM
    ],
)
def test_an_owned_card_rocm_dropped_leads_with_what_it_still_runs(advisor, text, lead_word) -> None:
    final = ask_checked(advisor, text)
    lead = lead_of(final.answer)
    assert lead_word in lead and "AWQ" not in lead, final.answer


@pytest.mark.parametrize(
    "text", ["will Ollama run on my RX 580", "我的RX 580能跑ROCm吗", "will llama.cpp run on a MI50?"]
)
def test_a_support_question_on_a_dropped_card_says_the_target_once(advisor, text) -> None:
    final = ask_checked(advisor, text)
    assert not any(c.name == "assess_card" for c in final.tool_calls), final.answer


@pytest.mark.parametrize(
    "text", ["[kvcache-ai/ktransformers] 能否支持2080ti", "vllm 能不能支持 P40", "[ollama/ollama] 可否支持 MI50"]
)
def test_asking_whether_software_can_support_a_card_is_a_support_question(text) -> None:
    assert "support" in parse(text).intents
