"""calculate_tco: buy versus rent over a horizon, with break-even and cost per million tokens."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from pydantic import BaseModel, Field

from tools.catalog import GpuSpec, resolve_gpu_noted
from tools.errors import AdvisorError
from tools.notes import Note, note
from tools.prices import Currency, PriceBook, PriceKind, load_prices, purchase_price_noted, tco_defaults


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
    rent_gpu: str | None = Field(
        default=None,
        description="Rent this GPU instead of the one bought (a DGX Spark against a rented H100); default: the same",
    )
    rent_num_gpus: int | None = Field(default=None, ge=1, le=10_000, description="How many of `rent_gpu`")
    prices_file: str | None = Field(default=None, description="Your own prices.yaml to override the bundled one")
    market: Literal["global", "cn"] | None = Field(
        default=None, description="Whose cloud prices: cn = Chinese GPU clouds (default for CNY), global otherwise"
    )
    throughput_tokens_per_s: float | None = Field(
        default=None, ge=0.001, le=1e9, description="For cost per million tokens"
    )


class RentOption(BaseModel):
    kind: PriceKind
    price_per_gpu_hour: float
    monthly: float
    total: float
    break_even_hours_per_month: float | None = Field(description="Usage above which buying is cheaper")
    break_even_hours_per_day: float | None = Field(
        default=None,
        description="The same usage as hours a day (a month of hours_per_month / 24 days), as people plan it",
    )
    cost_per_million_tokens: float | None = None
    basis: str
    providers: list[str] = Field(default_factory=list, description="Clouds whose prices the rate comes from")


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
    rent_gpu: str | None = Field(default=None, description="The rented GPU when it is not the one bought")
    rent_num_gpus: int | None = None
    cheapest: str
    cumulative_months: list[int]
    cumulative_buy: list[float]
    cumulative_rent_on_demand: list[float] | None
    break_even_month: int | None = Field(description="Month at which cumulative rent passes cumulative buy")
    assumptions: list[Note]
    warnings: list[Note]


@dataclass(frozen=True)
class _Power:
    """Electricity of the whole machine (GPUs and host), busy and idle, with the rates behind it."""

    busy_kw: float
    idle_kw: float
    pue: float
    kwh_price: float
    busy_hours: float

    def per_month(self, busy_hours: float) -> float:
        """One formula for a month's power bill, used for the totals and for the break-even alike."""
        idle_hours = tco_defaults()["hours_per_month"] - busy_hours
        return (self.busy_kw * busy_hours + self.idle_kw * idle_hours) * self.pue * self.kwh_price

    @property
    def monthly(self) -> float:
        return self.per_month(self.busy_hours)


@dataclass(frozen=True)
class _Owning:
    """What owning the GPUs costs over the horizon, in the figures the rent comparison reuses."""

    months: int
    busy_hours: float
    upfront: float
    resale: float
    maintenance_monthly: float
    power: _Power

    @property
    def running_monthly(self) -> float:
        return self.power.monthly + self.maintenance_monthly


def calculate_tco(req: TcoRequest) -> TcoResult:
    """Compare buying with renting."""
    gpu, read_as = resolve_gpu_noted(req.gpu)
    cfg = tco_defaults()
    book = load_prices(req.prices_file, req.cny_per_usd)
    cur = req.currency
    assumptions: list[Note] = [read_as] if read_as else []
    warnings: list[Note] = []
    months = max(1, round(req.horizon_years * 12))
    hours = cfg["hours_per_month"] * req.utilization
    n = req.num_gpus

    price_each, price_basis = _purchase_price(req, gpu, book)
    host = _host_cost(req, gpu, book, assumptions)
    upfront = price_each * n + host
    assumptions.append(note("tco_gpu_price", gpu=gpu.name, price=price_each, basis=[price_basis], currency=cur))
    power = _power(req, gpu, hours, assumptions, warnings)
    maintenance_monthly, resale = _maintenance_and_resale(req, gpu, upfront, price_each * n, assumptions)
    own = _Owning(
        months=months,
        busy_hours=hours,
        upfront=upfront,
        resale=resale,
        maintenance_monthly=maintenance_monthly,
        power=power,
    )
    buy_total = upfront + (power.monthly + maintenance_monthly) * months - resale
    tokens_month = req.throughput_tokens_per_s * 3600 * hours if req.throughput_tokens_per_s else None

    rented = resolve_gpu_noted(req.rent_gpu)[0] if req.rent_gpu else gpu
    rent = _rent_options(req, rented, book, own, tokens_month)
    if req.rent_gpu:
        rent_n = req.rent_num_gpus or n
        assumptions.append(note("tco_rent_other", n=rent_n, gpu=rented.name, bought=gpu.name))
    warnings.extend(_rent_warnings(req, rented, rent))
    if (req.market or ("cn" if cur == "CNY" else "global")) == "cn" and gpu.cn_availability == "export_controlled":
        warnings.append(note("tco_export_controlled", gpu=gpu.name))
    on_demand = next((o for o in rent if o.kind == "on_demand"), None)
    cum_buy = [round(upfront + own.running_monthly * m - (resale if m == months else 0), 2) for m in range(months + 1)]
    cum_rent = [round(on_demand.monthly * m, 2) for m in range(months + 1)] if on_demand else None
    be_month = _break_even_month(own, cum_rent)
    if be_month:
        assumptions.append(note("tco_break_even", month=be_month))
    options = {"buy": buy_total, **{f"rent_{o.kind}": o.total for o in rent}}
    assumptions.append(note("tco_hours", hours=hours, utilization=req.utilization, rate=book.cny_per_usd))
    return TcoResult(
        gpu=gpu.name,
        num_gpus=n,
        currency=cur,
        horizon_months=months,
        busy_hours_per_month=round(hours, 1),
        upfront=round(upfront, 2),
        gpu_price_each=round(price_each, 2),
        host_cost=round(host, 2),
        power_monthly=round(power.monthly, 2),
        maintenance_monthly=round(maintenance_monthly, 2),
        resale_value=round(resale, 2),
        buy_total=round(buy_total, 2),
        buy_monthly_equivalent=round(buy_total / months, 2),
        buy_cost_per_million_tokens=round(buy_total / months / tokens_month * 1e6, 4) if tokens_month else None,
        rent=rent,
        rent_gpu=rented.name if req.rent_gpu else None,
        rent_num_gpus=(req.rent_num_gpus or n) if req.rent_gpu else None,
        cheapest=min(options, key=options.get),
        cumulative_months=list(range(months + 1)),
        cumulative_buy=cum_buy,
        cumulative_rent_on_demand=cum_rent,
        break_even_month=be_month,
        assumptions=assumptions,
        warnings=warnings,
    )


def has_purchase_price(gpu_name: str, currency: Currency) -> bool:
    """Whether buy-vs-rent can price the card without the user's quote (data-center parts often cannot)."""
    gpu, _ = resolve_gpu_noted(gpu_name)
    return purchase_price_noted(gpu, currency, load_prices(None, None)) is not None


def _purchase_price(req: TcoRequest, gpu: GpuSpec, book: PriceBook) -> tuple[float, Note]:
    """Return the price of one GPU and where it comes from: the caller's, else the price book's."""
    if req.gpu_price is not None:
        return req.gpu_price, note("price_yours")
    found = purchase_price_noted(gpu, req.currency, book)
    if found is None:
        raise AdvisorError(
            f"no purchase price is known for {gpu.name} (data-center parts have no public list price); pass gpu_price"
        )
    return found


def _host_cost(req: TcoRequest, gpu: GpuSpec, book: PriceBook, assumptions: list[Note]) -> float:
    """Return the cost of the rest of the machine: the caller's, else a typical build for the GPU's segment."""
    if req.host_cost is not None:
        return req.host_cost
    # a SoC sold as a whole computer (DGX Spark, a Ryzen AI Max mini PC, a Mac) needs no host around it
    kind = "soc" if gpu.form_factor == "soc" else gpu.segment
    h = tco_defaults()["host_cost_usd"].get(kind, tco_defaults()["host_cost_usd"][gpu.segment])
    host = book.convert(h["base"] + h["per_gpu"] * req.num_gpus, "USD", req.currency)
    cost = dict(host=host, base=h["base"], per_gpu=h["per_gpu"], segment=kind, currency=req.currency)
    assumptions.append(note("tco_host", **cost))
    return host


def _power(req: TcoRequest, gpu: GpuSpec, hours: float, assumptions: list[Note], warnings: list[Note]) -> _Power:
    """Price a month of electricity: GPUs at load while busy, near idle otherwise, plus the host and PUE."""
    cfg = tco_defaults()
    cur = req.currency
    n = req.num_gpus
    kwh_price = req.electricity_price_per_kwh
    if kwh_price is None:
        kwh_price = cfg["electricity_price_per_kwh"][cur]
    pue = req.pue or cfg["pue"]["datacenter" if gpu.segment == "datacenter" else "local"]
    load = req.average_load_share or cfg["average_load_share"]
    idle = cfg["idle_power_share"]
    tdp = gpu.tdp_w or 300
    if not gpu.tdp_w:
        warnings.append(note("tco_no_tdp", gpu=gpu.name))
    host_kw = 0.15 + 0.05 * n  # CPU, fans, drives; the host idles at half of that
    power = _Power(
        busy_kw=tdp * load * n / 1000 + host_kw,
        idle_kw=tdp * idle * n / 1000 + host_kw * 0.5,
        pue=pue,
        kwh_price=kwh_price,
        busy_hours=hours,
    )
    load_line = dict(n=n, tdp=tdp, load=load, hours=hours, idle=idle, host_w=host_kw * 1000, pue=pue)
    assumptions.append(note("tco_power", **load_line, kwh=kwh_price, monthly=power.monthly, currency=cur))
    return power


def _maintenance_and_resale(
    req: TcoRequest, gpu: GpuSpec, upfront: float, gpus_price: float, assumptions: list[Note]
) -> tuple[float, float]:
    """Return the monthly maintenance and the resale value of the GPUs at the end of the horizon."""
    cfg = tco_defaults()
    maint_share = (
        req.maintenance_per_year_share
        if req.maintenance_per_year_share is not None
        else cfg["maintenance_per_year_share"]
    )
    maintenance_monthly = upfront * maint_share / 12
    years = min(5, max(1, round(req.horizon_years)))
    resale_share = req.resale_share if req.resale_share is not None else cfg["resale_share_after"][gpu.segment][years]
    resale = gpus_price * resale_share
    assumptions.append(note("tco_upkeep", maintenance=maint_share, resale=resale_share, years=req.horizon_years))
    return maintenance_monthly, resale


def _rent_rate(req: TcoRequest, gpu: GpuSpec, book: PriceBook, kind: PriceKind) -> tuple[float, str, list[str]] | None:
    """Return the hourly rate of one GPU for `kind`, its basis and the clouds behind it (None: no price)."""
    if kind == "on_demand" and req.cloud_price_per_gpu_hour:
        return req.cloud_price_per_gpu_hour, "your price", []
    market = req.market or ("cn" if req.currency == "CNY" else "global")
    found = book.typical(gpu, kind, req.currency, market=market)
    if found is None:
        return None
    rate, rows = found
    dates = sorted(str(r.date) for r in rows)
    providers = sorted({r.provider for r in rows})
    return rate, f"median of {len(rows)} offers ({', '.join(providers)}), dated {dates[0]}..{dates[-1]}", providers


def _rent_options(
    req: TcoRequest, gpu: GpuSpec, book: PriceBook, own: _Owning, tokens_month: float | None
) -> list[RentOption]:
    """Price renting the same GPUs (or `rent_gpu`) for the same busy hours, for every kind of cloud price on record."""
    n = (req.rent_num_gpus or req.num_gpus) if req.rent_gpu else req.num_gpus
    months = own.months
    power = own.power
    rent: list[RentOption] = []
    for kind in ("on_demand", "spot", "reserved_1y", "reserved_3y"):
        priced = _rent_rate(req, gpu, book, kind)
        if priced is None:
            continue
        rate, basis, providers = priced
        monthly = rate * n * own.busy_hours
        total = monthly * months
        # buy_total(h) = fixed + months * power'(h) * h and rent(h) = months * rate * n * h are both linear in
        # the busy hours h: buying pays off above the h where they meet (the same power formula as the totals)
        fixed = own.upfront - own.resale + (own.maintenance_monthly + power.per_month(0)) * months
        extra_power_per_hour = power.per_month(1) - power.per_month(0)
        saved_per_hour = rate * n - extra_power_per_hour
        be = fixed / (months * saved_per_hour) if saved_per_hour > 0 else None
        rent.append(
            RentOption(
                kind=kind,
                price_per_gpu_hour=round(rate, 4),
                monthly=round(monthly, 2),
                total=round(total, 2),
                break_even_hours_per_month=round(be, 1) if be is not None else None,
                break_even_hours_per_day=round(be / (tco_defaults()["hours_per_month"] / 24), 1)
                if be is not None
                else None,
                basis=basis,
                providers=providers,
                cost_per_million_tokens=round(monthly / tokens_month * 1e6, 4) if tokens_month else None,
            )
        )
    return rent


def _rent_warnings(req: TcoRequest, gpu: GpuSpec, rent: list[RentOption]) -> list[Note]:
    """Say when there is nothing to compare with, or when buying can never pay off."""
    hours_per_month = tco_defaults()["hours_per_month"]
    warnings = []
    if not rent:
        warnings.append(note("tco_no_cloud_price", gpu=gpu.name))
    for option in rent:
        if option.break_even_hours_per_month is not None and option.break_even_hours_per_month > hours_per_month:
            warnings.append(note("tco_never_pays_off", kind=option.kind, years=req.horizon_years))
    return warnings


def _break_even_month(own: _Owning, cum_rent: list[float] | None) -> int | None:
    """Return the first month in which cumulative on-demand rent reaches the cost of owning so far."""
    if not cum_rent:
        return None
    return next(
        (m for m in range(1, own.months + 1) if cum_rent[m] >= own.upfront + own.running_monthly * m),
        None,
    )
