"""The cost of the pick: its price with date and source, the cost calculator's owning figures (power, upkeep, the
multi-year total), buy against rent with the break-even, the budget left, and the parts list's money lines.

The owning figures come from `calculate_tco` with the arguments `recommend_gpus` itself priced the pick with
(tools/recommend.py `_bought`: the pick's price, count, busy hours and horizon), so the up-front total and the
multi-year total equal the pick's `machine_cost` and `cost_over_horizon` — nothing is computed a second way.
"""

from __future__ import annotations

from pydantic import BaseModel

from assistant.proposal.labels import say
from assistant.proposal.model import PartLine, Section, Table
from tools.catalog import catalog
from tools.notes import Note, money, render_all
from tools.prices import Market, PriceRow, bundled_prices, purchase_price_noted, tco_defaults, used_price_range
from tools.recommend import Pick, RecommendResult
from tools.tco import RentOption, TcoRequest, TcoResult, calculate_tco

# the calculator's note that the price was "given by you": here the price is the catalog's, said with its source
_PRICE_GIVEN = "tco_gpu_price"


class PriceFact(BaseModel):
    """Where one card's purchase price comes from: the catalog note in the reader's language, its date."""

    basis: str
    source: str
    date: str
    estimated: bool


_MONTH_HOURS = 24 * 365 / 12  # 730: every hour of an average month


def price_fact(p: Pick, lang: str) -> PriceFact:
    """The dated observation behind a bought pick's price (gpus.yaml street or used price)."""
    spec = catalog()[p.gpu_id]
    observed = spec.used_price if p.condition == "used" and spec.used_price is not None else spec.street_price
    basis = p.price_basis or ""
    found = purchase_price_noted(spec, p.currency, bundled_prices())
    if found is not None and (p.condition == "new" or found[1].text == basis):  # the street price (a comparison
        basis = found[1].render(lang)  # prices a discontinued card by it), in the reader's language
        observed = spec.street_price
    elif p.condition == "used":
        span = used_price_range(spec, p.currency, bundled_prices())
        if span:  # the dated second-hand range the price is the middle of
            low, high = money(span[0], p.currency), money(span[1], p.currency)
            basis = say("cost.used_range", lang, low=low, high=high, date=span[2] or say("cost.estimate", lang))
    source = (observed.source or "") if observed else ""
    estimated = bool(observed and (observed.estimated or source.lower().startswith("estimate")))
    date = str(observed.date) if observed and observed.date and not observed.estimated else ""
    if estimated:
        basis = f"{basis}; {say('cost.estimate', lang)}"
    return PriceFact(basis=basis, source=source, date=date, estimated=estimated)


def owning(r: RecommendResult, bought: Pick, rented: Pick | None, horizon_years: float) -> TcoResult:
    """The cost calculator on the bought pick, as recommend_gpus priced it; the rented option as the rent side."""
    rent = dict(rent_gpu=rented.gpu_id, rent_num_gpus=rented.count) if rented else {}  # else its own card's rent
    return calculate_tco(
        TcoRequest(
            gpu=bought.gpu_id,
            num_gpus=bought.count,
            currency=bought.currency,
            utilization=r.hours_per_month / tco_defaults()["hours_per_month"],
            horizon_years=horizon_years,
            gpu_price=bought.price_each,
            market=r.market,
            **rent,  # type: ignore[arg-type]
        )
    )


def tco_assumptions(t: TcoResult) -> list[Note]:
    return [n for n in t.assumptions if n.code != _PRICE_GIVEN]


def _on_demand(t: TcoResult) -> RentOption | None:
    return next((o for o in t.rent if o.kind == "on_demand"), None)


def cost_section(
    lang: str,
    r: RecommendResult,
    p: Pick,
    t: TcoResult | None,
    price: PriceFact | None,
    computed: bool,
    monthly_budget: float | None = None,
) -> Section:
    """The cost table and the sentences under it: break-even, budget and what is left."""
    cur = p.currency
    rows: list[list[str]] = []
    years = t.horizon_months / 12 if t else 3
    if p.deployment == "local" and t is not None and price is not None:
        cards = say("cost.cards", lang, count=p.count, gpu=p.gpu)
        each = say("cost.each", lang, price=money(p.price_each or 0, cur), basis=price.basis)
        rows.append([cards, money(p.gpu_cost or 0, cur), each])
        host_basis = say("cost.host_basis", lang, date=tco_defaults()["as_of"])
        rows.append([say("cost.host", lang), money(t.host_cost, cur), host_basis])
        rows.append([say("cost.upfront", lang), money(t.upfront, cur), ""])
        hours = say("cost.power_basis", lang, hours=t.busy_hours_per_month)
        rows.append([say("cost.power", lang), money(t.power_monthly, cur), hours])
        rows.append([say("cost.upkeep", lang), money(t.maintenance_monthly, cur), ""])
        total = say("cost.total", lang, years=years, resale=money(t.resale_value, cur))
        rows.append([total, money(t.buy_total, cur), ""])
    rent = _on_demand(t) if t is not None else None
    paragraphs: list[str] = []
    if p.deployment == "local" and t is not None and rent is not None:
        head = say("cost.rent_month", lang, count=t.rent_num_gpus or t.num_gpus, gpu=t.rent_gpu or t.gpu)
        rows.append([head, money(rent.monthly, cur), ", ".join(rent.providers)])
        rows.append([say("cost.rent_total", lang, years=years), money(rent.total, cur), ""])
        if t.break_even_month is not None:
            paragraphs.append(say("cost.break_even", lang, month=t.break_even_month))
        elif rent.break_even_hours_per_month is not None:
            be = rent.break_even_hours_per_month
            if be > _MONTH_HOURS:  # more busy hours than a month has: owning never catches up
                paragraphs.append(say("cost.rent_cheaper_always", lang, hours=t.busy_hours_per_month, years=years))
            else:
                paragraphs.append(say("cost.rent_cheaper", lang, hours=t.busy_hours_per_month, years=years, be=be))
    if p.deployment == "cloud" and monthly_budget is not None and not p.over_budget_by:
        left = money(monthly_budget - p.monthly, cur)
        spend = money(p.monthly, cur)
        paragraphs.append(say("cost.monthly_budget", lang, budget=money(monthly_budget, cur), spend=spend, left=left))
    if p.deployment == "cloud":
        total_rent = money(p.cost_over_horizon, cur)
        paragraphs.append(say("cost.rent_only", lang, monthly=money(p.monthly, cur), total=total_rent, years=years))
    if r.budget is not None:
        budget, spend = money(r.budget, cur), money(p.spend, cur)
        if p.over_budget_by:
            paragraphs.append(
                say("cost.over_budget", lang, budget=budget, spend=spend, over=money(p.over_budget_by, cur))
            )
        elif p.deployment == "local":
            left = money(r.budget - p.spend, cur)
            paragraphs.append(say("cost.budget", lang, budget=budget, spend=spend, left=left))
    if computed and t is not None:
        paragraphs.append(say("cost.computed_here", lang))
    header = [say("cost.item", lang), say("cost.amount", lang), say("cost.basis", lang)]
    table = Table(header=header, rows=rows) if rows else None
    return Section(key="cost", title=say("section.cost", lang), table=table, paragraphs=paragraphs)


def money_lines(lang: str, r: RecommendResult, p: Pick, t: TcoResult | None, price: PriceFact | None) -> list[PartLine]:
    """The priced lines of the parts list: the cards and the rest of the machine, or a month's rent."""
    cur = p.currency
    if p.deployment == "cloud":
        rows = rental_rows(p, r.market)
        item = say("parts.rent", lang, count=p.count, gpu=p.gpu)
        hours = round(p.monthly / p.hourly, 1) if p.hourly else 0.0
        source = ", ".join(sorted({row.provider for row in rows}))
        date = max((str(row.date) for row in rows), default="")
        return [
            PartLine(
                item=item,
                quantity=hours,
                unit_price=p.hourly,
                currency=cur,
                source=source,
                date=date,
                line_total=p.monthly,
            )
        ]
    if t is None or price is None:
        return []
    condition = say_condition(p, lang)
    gpu = PartLine(
        item=say("parts.gpu", lang, condition=condition, gpu=p.gpu),
        quantity=p.count,
        unit_price=p.price_each,
        currency=cur,
        source=price.basis,
        date=price.date,
        line_total=p.gpu_cost,
    )
    host = PartLine(
        item=say("parts.host", lang),
        quantity=1,
        unit_price=t.host_cost,
        currency=cur,
        source=say("cost.host_basis", lang, date=tco_defaults()["as_of"]),
        date=str(tco_defaults()["as_of"]),
        line_total=t.host_cost,
    )
    return [gpu, host]


def say_condition(p: Pick, lang: str) -> str:
    from assistant.strings import label

    return label("rec_condition", p.condition, lang)


def rental_rows(p: Pick, market: Market) -> list[PriceRow]:
    """The dated offers behind a rented pick's hourly price (the median recommend_gpus took)."""
    found = bundled_prices().typical(catalog()[p.gpu_id], "on_demand", p.currency, market=market)
    return found[1] if found else []


def tco_warnings(t: TcoResult | None, lang: str) -> list[str]:
    """The calculator's warnings, less "no cloud price" when another card is the rent side."""
    if t is None:
        return []
    return render_all([n for n in t.warnings if not (t.rent_gpu and n.code == "tco_no_cloud_price")], lang)
