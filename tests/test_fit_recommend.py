"""fit_on_gpu and recommend_gpus: solved with the estimator, checked on cases users ask."""

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tools import advice
from tools.catalog import catalog
from tools.fit import FitRequest, fit_on_gpu
from tools.recommend import RecommendRequest, recommend_gpus
from tools.vram import VramRequest, estimate_vram


def test_fit_answers_are_exact_boundaries():
    r = fit_on_gpu(FitRequest(model="llama-3.1-8b", gpu="RTX 4090", context_tokens=8192))
    assert r.best_precision == "bf16"
    usable = 24 * 0.9

    def per_gpu(**kw):
        return estimate_vram(VramRequest(model="llama-3.1-8b", precision="bf16", **kw)).per_gpu_gib

    assert per_gpu(context_tokens=r.max_context) <= usable < per_gpu(context_tokens=r.max_context + 1)
    n = r.max_concurrent_sequences
    assert per_gpu(context_tokens=8192, batch=n) <= usable < per_gpu(context_tokens=8192, batch=n + 1)
    assert "KV cache" in r.limiting_factor


def test_fit_picks_lower_precision_when_needed():
    r = fit_on_gpu(FitRequest(model="llama-3.1-70b", gpu="RTX 4090", num_gpus=2))
    assert r.best_precision not in ("bf16", "fp8", "q8_0")
    assert r.warnings


def test_fit_reports_when_weights_cannot_fit():
    r = fit_on_gpu(FitRequest(model="llama-3.1-405b", gpu="RTX 4090"))
    assert r.best_precision is None and r.limiting_factor.startswith("weights")


def test_fit_full_context_when_memory_is_plentiful():
    r = fit_on_gpu(FitRequest(model="qwen2.5-7b", gpu="H200"))
    assert r.max_context == 131072 and r.limiting_factor.startswith("model")


def test_70b_4bit_on_24gib_needs_two_cards_or_offload():
    w = VramRequest(model="llama-3.1-70b", precision="awq", context_tokens=4096)
    req = RecommendRequest(workload=w, deployment="local", vendors=["nvidia"], persona="team", limit=50)
    r = recommend_gpus(req)
    for o in r.options:
        if o.gpu_memory_gib <= 24:
            assert o.count >= 2, o
    one = recommend_gpus(req.model_copy(update={"max_gpus": 1}))
    assert one.options and all(o.gpu_memory_gib > 24 and o.count == 1 for o in one.options)


def test_7b_qlora_fits_a_16gib_card():
    w = VramRequest(model="qwen2.5-7b", mode="qlora", context_tokens=2048, grad_checkpointing=True)
    r = recommend_gpus(RecommendRequest(workload=w, deployment="local", vendors=["nvidia"], limit=50))
    assert any(o.count == 1 and o.gpu_memory_gib == 16 for o in r.options)


def test_nothing_fits_says_what_would():
    w = VramRequest(model="llama-3.1-405b", precision="bf16", context_tokens=8192, batch=16)
    r = recommend_gpus(RecommendRequest(workload=w, deployment="local", max_gpus=2, budget=10000, currency="USD"))
    assert r.nothing_fits and r.primary is None and r.suggestions
    codes = {s.code for s in r.suggestions}
    # 16 users of a 405B: a box that decodes under the per-user floor (a 512 GB Mac) is no way out; renting is
    assert {"suggest_more_gpus", "suggest_more_budget", "suggest_rent_instead"} & codes
    assert "suggest_nothing" not in codes


def test_constraints_are_respected():
    w = VramRequest(model="qwen2.5-14b", context_tokens=4096)
    r = recommend_gpus(RecommendRequest(workload=w, require_nvlink=True, require_ecc=True, limit=50))
    assert r.options
    from tools.catalog import catalog

    assert all(catalog()[o.gpu_id].nvlink and catalog()[o.gpu_id].ecc for o in r.options)


def test_preferences_order_options():
    w = VramRequest(model="qwen2.5-7b", context_tokens=4096)
    fast = recommend_gpus(RecommendRequest(workload=w, preference="fastest", deployment="local", limit=50)).options
    # speed (or price) orders the cards within one ecosystem: a Radeon or Arc card with caveats never outranks a
    # CUDA card that is just as good for this job, whatever the preference
    eco = {g.id: advice.ecosystem_rank(g, training=False) for g in catalog().values()}

    def leading(options):  # the options before the first change of ecosystem
        n = next((i for i, o in enumerate(options) if eco[o.gpu_id] != eco[options[0].gpu_id]), len(options))
        return options[:n]

    speeds = [o.tokens_per_s for o in leading(fast)]
    assert len(speeds) > 3 and speeds == sorted(speeds, reverse=True)
    cheap = recommend_gpus(RecommendRequest(workload=w, preference="cheapest", deployment="local", limit=50)).options
    costs = [o.spend for o in leading(cheap)]
    assert len(costs) > 3 and costs == sorted(costs)


@settings(max_examples=15, deadline=None)
@given(st.floats(500, 50_000), st.floats(1.1, 10))
def test_more_budget_never_fewer_options(budget, factor):
    w = VramRequest(model="qwen2.5-7b", mode="lora", context_tokens=2048, grad_checkpointing=True)

    def count(b: float) -> int:
        # the persona is fixed: a bigger budget alone would otherwise read as a company's (data-center cards)
        req = RecommendRequest(workload=w, budget=b, currency="USD", persona="team", limit=50)
        return len(recommend_gpus(req).options)

    assert count(budget * factor) >= count(budget)


@pytest.mark.parametrize("deployment", ["local", "cloud"])
def test_deployment_filter(deployment):
    w = VramRequest(model="llama-3.1-8b", context_tokens=4096)
    r = recommend_gpus(RecommendRequest(workload=w, deployment=deployment, limit=50))
    assert r.options and all(o.deployment == deployment for o in r.options)


def test_a_count_asked_for_sizes_every_option_on_exactly_that_many_cards():
    w = VramRequest(params_b=7, mode="lora", grad_checkpointing=True)
    r = recommend_gpus(RecommendRequest(workload=w, currency="CNY", budget=15000, persona="individual", num_gpus=2))
    assert r.primary is not None and r.primary.count == 2
    assert {o.count for o in [*r.options, *r.alternatives]} == {2}
    assert "exact_cards" in {n.code for n in r.primary.reasons}
    one_gpu = estimate_vram(r.sized_workload.model_copy(update={"num_gpus": 1})).per_gpu_gib
    assert [n.gib for n in r.needs if n.mode == "lora"] == [one_gpu]  # what one GPU needs is still said
    one_4090 = RecommendRequest(
        workload=w, currency="CNY", budget=15000, deployment="local", num_gpus=2, gpus=["rtx-4090"]
    )
    over = recommend_gpus(one_4090)  # 2 used 4090s: ¥29,000 against ¥15,000; one card already holds 17.2 GiB
    assert over.primary is None and over.stretch is not None and over.stretch.count == 2
    assert over.stretch.over_budget_by == pytest.approx(over.stretch.spend - 15000)
    fewer = next(n for n in over.stretch.reasons if n.code == "fewer_cards_hold_it")
    assert fewer.params["count"] == 1
    hints = {n.code: n.params for n in over.suggestions}
    assert hints["suggest_any_count"]["count"] == 1 and hints["suggest_any_count"]["spend"] <= 15000


def test_a_full_card_ranks_after_a_roomier_one_but_before_a_rig_of_more_cards():
    from tools.advice import Ranked, rank

    def option(key: str, count: int, cost: float, tps: float, tight: bool) -> Ranked:
        return Ranked(
            key=key, count=count, cost=cost, tokens_per_s=tps, per_user_tokens_per_s=tps, ecosystem=0, tight=tight
        )

    used_3090 = option("3090", 1, 752, 31.9, tight=True)  # Gemma-3-27B at 4-bit, 8k: 19.1 of 21.6 GiB
    two_4060ti = option("2x4060ti", 2, 900, 19.2, tight=False)  # 9.9 of 14.4 GiB each
    assert rank([two_4060ti, used_3090], "balanced", "individual", 1500) == ["3090", "2x4060ti"]
    roomy_4090 = option("4090", 1, 760, 31.9, tight=False)  # one card, as many cards, more room
    assert rank([used_3090, roomy_4090], "balanced", "individual", 1500)[0] == "4090"


def test_local_llms_on_a_budget_get_the_card_with_the_most_memory_for_the_money():
    from tools.advice import local_chat_model

    assert [local_chat_model(b, "USD") for b in (300, 600, 1500, 20000)] == [
        "qwen2.5-7b",
        "qwen2.5-14b",
        "gemma-3-27b",
        "llama-3.1-70b",
    ]
    w = VramRequest(model=local_chat_model(1500, "USD"), mode="inference", context_tokens=8192)
    r = recommend_gpus(RecommendRequest(workload=w, currency="USD", budget=1500, persona="individual"))
    assert r.primary is not None and (r.primary.gpu_id, r.primary.count, r.primary.condition) == ("rtx-3090", 1, "used")


def test_a_one_card_answer_states_no_multi_gpu_layout():
    w = VramRequest(model="qwen2.5-14b", mode="qlora", grad_checkpointing=True)
    one = recommend_gpus(RecommendRequest(workload=w, currency="CNY", budget=15000, max_gpus=1))
    any_count = recommend_gpus(RecommendRequest(workload=w, currency="CNY", budget=15000))
    assert "multi_gpu_layout" not in {n.code for n in one.assumptions}
    assert "multi_gpu_layout" in {n.code for n in any_count.assumptions}


def test_a_service_pick_keeps_room_for_bursts() -> None:
    """50 concurrent conversations of Qwen3-32B: one 96 GB card at 84.1 of 86.4 GiB is filled to the brim; a
    service keeps advice.yaml serving_free_share of usable memory free, and says so in its assumptions."""
    w = VramRequest(model="qwen3-32b", mode="inference", batch=50, context_tokens=4096)
    r = recommend_gpus(RecommendRequest(workload=w, deployment="local", currency="USD"))
    p = r.primary
    assert p is not None
    assert p.memory_per_gpu_gib <= (1 - advice.serving_free_share()) * p.usable_gib_per_gpu
    assert any(n.code == "serving_free_share" for n in r.assumptions)
