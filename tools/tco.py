"""calculate_tco: buy versus rent over a horizon, with break-even and cost per million tokens."""

from __future__ import annotations

from pydantic import BaseModel, Field

from tools.catalog import resolve_gpu
from tools.errors import AdvisorError
from tools.prices import Currency, PriceKind, load_prices, purchase_price, tco_defaults


class TcoRequest(BaseModel):
    """Owning N GPUs versus renting the same GPUs in the cloud for the same hours."""

    gpu: str = Field(description="GPU name, fuzzy: '4090', 'A100 80G', 'H100 SXM'")
    num_gpus: int = Field(default=1, ge=1, le=10_000)
    horizon_years: float = Field(default=3, gt=0, le=10, description="How long the hardware is used")
    utilization: float = Field(default=0.5, gt=0, le=1, description="Share of the month the GPUs are busy")
    currency: Currency = "CNY"
    cny_per_usd: float | None = Field(default=None, gt=0, le=100, description="Exchange rate override")
    gpu_price: float | None = Field(default=None, gt=0, le=1e9, description="Purchase price per GPU in `currency`")
    host_cost: float | None = Field(
        default=None, ge=0, le=1e10, description="Rest of the machine (CPU, board, RAM, PSU) total"
    )
    electricity_price_per_kwh: float | None = Field(default=None, ge=0, le=10, description="In `currency`")
    pue: float | None = Field(default=None, ge=1, le=3, description="Facility overhead factor (1.0 at the office)")
    average_load_share: float | None = Field(default=None, gt=0, le=1.2, description="Share of TDP drawn when busy")
    maintenance_per_year_share: float | None = Field(default=None, ge=0, le=1)
    resale_share: float | None = Field(default=None, ge=0, le=1, description="Share of the price recovered at the end")
    cloud_price_per_gpu_hour: float | None = Field(
        default=None, gt=0, le=1e5, description="Your on-demand price, `currency`"
    )
    prices_file: str | None = Field(default=None, description="Your own prices.yaml to override the bundled one")
    throughput_tokens_per_s: float | None = Field(
        default=None, ge=0.001, le=1e9, description="For cost per million tokens"
    )


class RentOption(BaseModel):
    kind: PriceKind
    price_per_gpu_hour: float
    monthly: float
    total: float
    break_even_hours_per_month: float | None = Field(description="Usage above which buying is cheaper")
    cost_per_million_tokens: float | None = None
    basis: str


class TcoResult(BaseModel):
    """Costs in `currency`; monthly figures at the requested utilization."""

    gpu: str
    num_gpus: int
    currency: Currency
    horizon_months: int
    busy_hours_per_month: float
    upfront: float
    gpu_price_each: float
    host_cost: float
    power_monthly: float
    maintenance_monthly: float
    resale_value: float
    buy_total: float
    buy_monthly_equivalent: float
    buy_cost_per_million_tokens: float | None = None
    rent: list[RentOption]
    cheapest: str
    cumulative_months: list[int]
    cumulative_buy: list[float]
    cumulative_rent_on_demand: list[float] | None
    break_even_month: int | None = Field(description="Month at which cumulative rent passes cumulative buy")
    assumptions: list[str]
    warnings: list[str]


def calculate_tco(req: TcoRequest) -> TcoResult:
    """Compare buying with renting."""
    gpu, note = resolve_gpu(req.gpu)
    cfg = tco_defaults()
    book = load_prices(req.prices_file, req.cny_per_usd)
    cur = req.currency
    assumptions: list[str] = [note] if note else []
    warnings: list[str] = []
    months = max(1, round(req.horizon_years * 12))
    hours = cfg["hours_per_month"] * req.utilization
    n = req.num_gpus

    if req.gpu_price is not None:
        price_each, price_basis = req.gpu_price, "your price"
    else:
        found = purchase_price(gpu, cur, book)
        if found is None:
            raise AdvisorError(
                f"no purchase price is known for {gpu.name} (data-center parts have no public list "
                "price); pass gpu_price"
            )
        price_each, price_basis = found
    host = req.host_cost
    if host is None:
        h = cfg["host_cost_usd"][gpu.segment]
        host = book.convert(h["base"] + h["per_gpu"] * n, "USD", cur)
        assumptions.append(
            f"host (CPU, board, RAM, PSU, case) {host:,.0f} {cur}: {h['base']} + {h['per_gpu']} USD "
            f"per GPU for a {gpu.segment} build"
        )
    upfront = price_each * n + host
    assumptions.append(f"{gpu.name} at {price_each:,.0f} {cur} each ({price_basis})")

    kwh_price = req.electricity_price_per_kwh
    if kwh_price is None:
        kwh_price = cfg["electricity_price_per_kwh"][cur]
    pue = req.pue or cfg["pue"]["datacenter" if gpu.segment == "datacenter" else "local"]
    load = req.average_load_share or cfg["average_load_share"]
    idle = cfg["idle_power_share"]
    tdp = gpu.tdp_w or 300
    if not gpu.tdp_w:
        warnings.append(f"{gpu.name} has no TDP on record; 300 W assumed")
    busy_kw = tdp * load * n / 1000
    idle_kw = tdp * idle * n / 1000
    host_kw = 0.15 + 0.05 * n  # CPU, fans, drives
    kwh_month = (busy_kw + host_kw) * hours + (idle_kw + host_kw * 0.5) * (cfg["hours_per_month"] - hours)
    power_monthly = kwh_month * pue * kwh_price
    assumptions.append(
        f"power: {n} x {tdp:g} W x {load:.0%} load for {hours:,.0f} busy h/month, {idle:.0%} of TDP idle otherwise, "
        f"host {host_kw * 1000:.0f} W; PUE {pue:g}; {kwh_price:g} {cur}/kWh -> {power_monthly:,.0f} {cur}/month"
    )
    maint_share = (
        req.maintenance_per_year_share
        if req.maintenance_per_year_share is not None
        else cfg["maintenance_per_year_share"]
    )
    maintenance_monthly = upfront * maint_share / 12
    years = min(5, max(1, round(req.horizon_years)))
    resale_share = req.resale_share if req.resale_share is not None else cfg["resale_share_after"][gpu.segment][years]
    resale = price_each * n * resale_share
    assumptions.append(
        f"maintenance {maint_share:.0%} of hardware per year; resale {resale_share:.0%} of the GPU "
        f"price after {req.horizon_years:g} years"
    )
    buy_total = upfront + (power_monthly + maintenance_monthly) * months - resale
    tokens_month = req.throughput_tokens_per_s * 3600 * hours if req.throughput_tokens_per_s else None

    rent: list[RentOption] = []
    own_running = power_monthly + maintenance_monthly
    for kind in ("on_demand", "spot", "reserved_1y", "reserved_3y"):
        if kind == "on_demand" and req.cloud_price_per_gpu_hour:
            rate, basis = req.cloud_price_per_gpu_hour, "your price"
        else:
            found = book.typical(gpu, kind, cur)
            if found is None:
                continue
            rate, rows = found
            dates = sorted(str(r.date) for r in rows)
            basis = (
                f"median of {len(rows)} offers ({', '.join(sorted({r.provider for r in rows}))}), "
                f"dated {dates[0]}..{dates[-1]}"
            )
        monthly = rate * n * hours
        total = monthly * months
        # buying pays off when the rent saved per busy hour covers the fixed costs of owning
        fixed = (
            upfront
            - resale
            + maintenance_monthly * months
            + idle_kw * pue * kwh_price * cfg["hours_per_month"] * months
        )
        saved_per_hour = rate * n - (busy_kw - idle_kw) * pue * kwh_price
        be = fixed / (months * saved_per_hour) if saved_per_hour > 0 else None
        rent.append(
            RentOption(
                kind=kind,
                price_per_gpu_hour=round(rate, 4),
                monthly=round(monthly, 2),
                total=round(total, 2),
                break_even_hours_per_month=round(be, 1) if be is not None else None,
                basis=basis,
                cost_per_million_tokens=round(monthly / tokens_month * 1e6, 4) if tokens_month else None,
            )
        )
    if not rent:
        warnings.append(f"no cloud price on record for {gpu.name}: pass cloud_price_per_gpu_hour to compare renting")
    for option in rent:
        if option.break_even_hours_per_month is not None and option.break_even_hours_per_month > cfg["hours_per_month"]:
            warnings.append(
                f"against {option.kind.replace('_', ' ')} renting, buying never pays off within "
                f"{req.horizon_years:g} years even at 24/7 use"
            )
    on_demand = next((o for o in rent if o.kind == "on_demand"), None)
    cum_buy = [round(upfront + own_running * m - (resale if m == months else 0), 2) for m in range(months + 1)]
    cum_rent = [round(on_demand.monthly * m, 2) for m in range(months + 1)] if on_demand else None
    be_month = None
    if cum_rent:
        be_month = next((m for m in range(1, months + 1) if cum_rent[m] >= upfront + own_running * m), None)
    if be_month:
        assumptions.append(
            f"break-even month {be_month}: cumulative on-demand rent passes the cost of owning "
            "(purchase + running costs, before any resale)"
        )
    options = {"buy": buy_total, **{f"rent_{o.kind}": o.total for o in rent}}
    assumptions.append(
        f"{hours:,.0f} busy hours per month ({req.utilization:.0%} utilization) for both buying and "
        f"renting; cloud bills busy hours only; exchange rate {book.cny_per_usd:g} CNY/USD"
    )
    return TcoResult(
        gpu=gpu.name,
        num_gpus=n,
        currency=cur,
        horizon_months=months,
        busy_hours_per_month=round(hours, 1),
        upfront=round(upfront, 2),
        gpu_price_each=round(price_each, 2),
        host_cost=round(host, 2),
        power_monthly=round(power_monthly, 2),
        maintenance_monthly=round(maintenance_monthly, 2),
        resale_value=round(resale, 2),
        buy_total=round(buy_total, 2),
        buy_monthly_equivalent=round(buy_total / months, 2),
        buy_cost_per_million_tokens=round(buy_total / months / tokens_month * 1e6, 4) if tokens_month else None,
        rent=rent,
        cheapest=min(options, key=options.get),
        cumulative_months=list(range(months + 1)),
        cumulative_buy=cum_buy,
        cumulative_rent_on_demand=cum_rent,
        break_even_month=be_month,
        assumptions=assumptions,
        warnings=warnings,
    )
