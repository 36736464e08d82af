"""A comparison's verdict as a recommendation: the proposal of a turn that compared cards ("买一张 4090D 还是两张
3090") is written from the same typed shape as one that recommended.

Each compared option becomes a Pick with the comparison's own figures (memory per GPU, usable memory, speed, card
price); what a comparison does not compute — power, upkeep and the multi-year total of owning — comes from
`calculate_tco` on that option's price, the calculator recommend_gpus prices its own picks with.
"""

from __future__ import annotations

from typing import Any

from assistant.proposal.offer import compared_pick
from tools import advice
from tools.compare import CompareResult, CompareRow
from tools.notes import Note
from tools.prices import tco_defaults
from tools.recommend import Pick, RecommendResult
from tools.tco import TcoRequest, calculate_tco
from tools.vram import VramRequest

_HORIZON_MONTHS = 36  # the cost calculator's default horizon, three years


def _pick(c: CompareResult, row: CompareRow, chosen: bool, reasons: list[Note], gives_up: list[Note]) -> Pick:
    count = row.count or row.count_asked or 1
    fit = row.fit
    base: dict[str, Any] = dict(
        label="primary" if chosen else None,
        gpu=row.gpu,
        gpu_id=row.gpu_id,
        count=count,
        variant="asked",
        mode=row.mode or c.mode or "inference",
        precision=row.precision or "",
        memory_per_gpu_gib=row.memory_per_gpu_gib or 0.0,
        # to one decimal, as the comparison's answer says it ("可用 23.3 GiB")
        usable_gib_per_gpu=round(fit.usable_gib_per_gpu if fit else row.vram_gib, 1),
        gpu_memory_gib=row.vram_gib,
        tokens_per_s=row.tokens_per_s,
        tokens_per_s_per_user=row.tokens_per_s_per_user,
        currency=c.currency,
        nvlink=row.link_kind == "nvlink",
        reasons=reasons,
        gives_up=gives_up,
        warnings=row.notes,
    )
    if c.basis == "rent" and row.rent_per_hour is not None:
        monthly = row.rent_per_month or row.rent_per_hour * c.hours_per_month
        return Pick(
            **base,
            deployment="cloud",
            condition="rent",
            price_each=row.rent_per_gpu_hour,
            price_basis=None,
            gpu_cost=None,
            machine_cost=None,
            spend=monthly,
            hourly=row.rent_per_hour,
            monthly=monthly,
            cost_over_horizon=round(monthly * _HORIZON_MONTHS, 2),
            within_budget=None,
        )
    owning = None
    if row.price_each:
        utilization = min(1.0, c.hours_per_month / tco_defaults()["hours_per_month"])
        request = TcoRequest(
            gpu=row.gpu_id, num_gpus=count, currency=c.currency, utilization=utilization, gpu_price=row.price_each
        )
        owning = calculate_tco(request)
    return Pick(
        **base,
        deployment="local",
        condition="used" if row.price_used else "new",
        price_each=row.price_each,
        price_basis=row.price_basis,
        gpu_cost=row.cards_cost,
        machine_cost=owning.upfront if owning else None,
        spend=row.cards_cost or 0.0,
        hourly=None,
        monthly=round(owning.power_monthly + owning.maintenance_monthly, 2) if owning else 0.0,
        cost_over_horizon=owning.buy_total if owning else 0.0,
        within_budget=None if row.over_budget_by is None else False,
        over_budget_by=row.over_budget_by,
    )


def as_recommendation(c: CompareResult, args: dict[str, Any]) -> RecommendResult | None:
    """The verdict's pick first, the other options as its alternatives; None when nothing was picked."""
    pick = compared_pick(c)
    if pick is None or c.model is None:
        return None
    others = {o.index: o.notes for o in c.verdict.others}
    order = [i for i in c.verdict.order if c.rows[i].error is None and c.rows[i].memory_per_gpu_gib is not None]
    options = [_pick(c, c.rows[i], i == pick, c.verdict.reasons if i == pick else [], others.get(i, [])) for i in order]
    primary = next(p for p, i in zip(options, order, strict=True) if i == pick)
    chosen = c.rows[pick]
    workload = dict(args.get("workload") or {})
    workload |= {"mode": chosen.mode or c.mode or "inference", "precision": chosen.precision}
    workload |= {k: v for k, v in (("context_tokens", c.context_tokens), ("batch", c.batch)) if v}
    budget = args.get("budget")
    persona = args.get("persona") or advice.persona_from_budget(budget, c.currency)
    return RecommendResult(
        model=c.model,
        needs=[],
        workload=c.model,
        sized_workload=VramRequest.model_validate(workload),
        persona=persona,
        persona_source="stated",
        market=c.market,
        currency=c.currency,
        budget=budget,
        budget_covers="gpus",
        hours_per_month=c.hours_per_month,
        primary=primary,
        alternatives=[p for p in options if p is not primary],
        stretch=None,
        options=options,
        considered=len(c.rows),
        nothing_fits=False,
        suggestions=[],
        assumptions=c.assumptions,
        warnings=c.warnings,
    )
