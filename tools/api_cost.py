"""compare_api: a monthly token volume through a hosted API against running an open model on GPUs.

The API side is list price x tokens (knowledge/data/api_prices.yaml, dated and sourced). The self-hosted
side is the GPUs the model needs (the cheapest dated rental that holds it, or the user's card), kept up the
hours a day the service runs: rented at that provider's hourly price, or bought (calculate_tco, power
included). How many tokens one server produces comes from the speed estimator at a batch of concurrent
requests, so a volume beyond one server's capacity adds servers. The break-even volume is where the API
bill equals the self-hosted bill; when one fully busy server costs more per token than the API, owning
never pays on cost alone, and the answer says so.
"""

from __future__ import annotations

import math
import re
from functools import cache
from typing import Literal

from pydantic import BaseModel, Field

from tools._data import load_yaml
from tools.errors import AdvisorError
from tools.models import resolve_model
from tools.notes import Note, note
from tools.prices import Currency, Market, PriceBook, load_prices, tco_defaults
from tools.rent import RentOffer, RentRequest, rent_providers
from tools.speed import SpeedRequest, estimate_speed
from tools.tco import TcoRequest, calculate_tco, has_purchase_price
from tools.vram import VramRequest, estimate_vram

Tier = Literal["small", "mid", "frontier"]
_BATCHES = (32, 16, 8, 4, 2, 1)  # concurrent requests tried, largest first, until the model fits


class ApiRow(BaseModel):
    id: str
    provider: str
    provider_key: str
    model: str
    aliases: list[str] = Field(default_factory=list)
    serves: str | None = None
    tier: Tier
    market: Market
    currency: Currency
    input_per_million: float
    cached_input_per_million: float | None = None
    output_per_million: float
    date: str
    source: str
    confidence: Literal["high", "medium", "low"]
    notes: str | None = None


@cache
def _data() -> dict:
    return load_yaml("api_prices.yaml")


@cache
def api_rows() -> dict[str, ApiRow]:
    return {r["id"]: ApiRow(**{**r, "date": str(r["date"])}) for r in _data()["apis"]}


def provider_words() -> list[tuple[str, list[str]]]:
    """(provider key, the words users write for it), for the parser."""
    return [(k, v["words"]) for k, v in _data()["providers"].items()]


@cache
def _mention_patterns() -> list[tuple[str, re.Pattern[str]]]:
    """(what to pass as `api`, its pattern): a row's own names first, then the provider words."""
    guard = r"(?<![a-z0-9]){}(?![a-z0-9])"
    out = [
        (row.id, re.compile(guard.format(re.escape(alias)), re.I))
        for row in api_rows().values()
        for alias in row.aliases
    ]
    for key, entry in _data()["providers"].items():
        for word in entry["words"]:
            out.append((key, re.compile(guard.format(f"(?:{word})"), re.I)))
    return out


def api_mentions(text: str) -> list[str]:
    """The APIs a text names, first named first: row ids for a model named ("gpt-5.4-mini"), provider keys for a
    provider ("OpenAI", "调用 GPT", "DeepSeek"); "gpt-oss" and "GPT-J" are open models, not OpenAI's API."""
    text = re.sub(r"(?i)gpt[- ]?(?:oss|j|neo|neox|2)(?![a-z])", " ", text)
    found: dict[str, int] = {}
    for key, rx in _mention_patterns():
        m = rx.search(text)
        if m and key not in found and not any(v == m.start() for v in found.values()):
            found[key] = m.start()
    rows = api_rows()
    named = {rows[k].provider_key for k in found if k in rows}  # "the OpenAI API (mostly GPT-4o)": GPT-4o is priced
    return sorted((k for k in found if k not in named), key=found.get)  # type: ignore[arg-type]


def resolve_api(name: str, market: Market) -> tuple[ApiRow, bool]:
    """An API as written ("deepseek", "gpt-5.4-mini", "openai") -> its row; True when a provider word was
    read as the provider's default model (the answer says which model it priced)."""
    low = name.strip().lower()
    rows = api_rows()
    if low in rows:
        return rows[low], False
    for row in rows.values():
        if low in (a.lower() for a in row.aliases) or low == row.model.lower():
            return row, False
    for key, entry in _data()["providers"].items():
        if low == key or any(re.fullmatch(w, low, re.IGNORECASE) for w in entry["words"]):
            return rows[entry["default"][market]], True
    raise AdvisorError(f"unknown API '{name}' — use one of: {', '.join(rows)} or a provider name")


class ApiCostRequest(BaseModel):
    """Paying an API per token versus running an open model on your own or rented GPUs, per month."""

    requests_per_day: float | None = Field(default=None, gt=0, le=1e9, description="Requests (calls) a day")
    input_tokens_per_request: int | None = Field(default=None, ge=1, le=10_000_000, description="Prompt tokens")
    output_tokens_per_request: int | None = Field(default=None, ge=1, le=1_000_000, description="Generated tokens")
    tokens_per_month: float | None = Field(default=None, gt=0, le=1e15, description="Input + output tokens a month")
    monthly_bill: float | None = Field(default=None, gt=0, le=1e10, description="Your API bill a month, `currency`")
    api: str | None = Field(default=None, description="API to price: 'deepseek', 'gpt-5.4-mini', 'openai', 'claude'")
    model: str | None = Field(default=None, description="Open model to self-host (default: the API's own, if open)")
    params_b: float | None = Field(default=None, gt=0, le=20000, description="Or its size in billions")
    gpu: str | None = Field(default=None, description="Your GPU (default: the cheapest rental that holds the model)")
    num_gpus: int | None = Field(default=None, ge=1, le=64, description="GPUs per server (default: what it needs)")
    gpu_price: float | None = Field(
        default=None, gt=0, le=1e8, description="Price of one of your GPUs, `currency` (default: the dated price)"
    )
    precision: str | None = Field(default=None, description="Self-hosted weight format (default 4-bit AWQ)")
    hours_per_day: float = Field(default=24, gt=0, le=24, description="Hours a day the service is up")
    self_host: Literal["cheapest", "rent", "buy"] = Field(
        default="cheapest", description="How the user would self-host: rent GPUs, buy them, or whichever is cheaper"
    )
    owned: bool = Field(
        default=False, description="The user already has `gpu`: running it costs its electricity, not a purchase"
    )
    currency: Currency = "CNY"
    market: Market | None = Field(default=None, description="cn or global (default: cn for CNY)")
    cny_per_usd: float | None = Field(default=None, gt=0, le=100, description="Exchange rate override")


class ApiLine(BaseModel):
    id: str
    provider: str
    model: str
    serves: str | None
    tier: Tier
    input_per_million: float = Field(description="In the result's currency")
    output_per_million: float
    listed_currency: Currency
    monthly_cost: float | None = Field(description="At the stated usage; None when no usage was given")
    date: str
    source: str
    confidence: str
    same_model: bool = Field(description="It serves the model priced for self-hosting")


class SelfHost(BaseModel):
    kind: Literal["rent", "buy", "own"] = Field(description="own: the user's card, already paid for (power only)")
    gpu: str
    gpu_id: str
    num_gpus: int = Field(description="GPUs per server")
    servers: int = Field(description="Servers the volume needs (1 when no usage was given)")
    monthly_cost: float = Field(description="All servers, the hours a day the service is up")
    monthly_per_server: float
    hourly_per_server: float | None = Field(default=None, description="Rent: price per hour of one server")
    provider: str | None = Field(default=None, description="Rent: the provider whose dated price this is")
    date: str | None = None
    gpu_price_each: float | None = Field(default=None, description="Buy: the price of one card")
    upfront: float | None = Field(default=None, description="Buy: cards and host of one server")
    resale: float | None = Field(default=None, description="Buy: what one server sells for at the end")
    months: int | None = Field(default=None, description="Buy: months the purchase is spread over")
    power_monthly: float | None = Field(default=None, description="Buy: one server's electricity a month")
    upkeep_monthly: float | None = Field(default=None, description="Buy: one server's maintenance a month")
    busy_hours: float | None = Field(default=None, description="Buy: hours a month one server is busy")


class ApiCostResult(BaseModel):
    """Monthly costs in `currency`; the verdict at the stated usage, and the break-even volume."""

    currency: Currency
    market: Market
    usage: Literal["requests", "tokens", "bill", "none"]
    requests_per_day: float | None
    input_tokens_per_request: int
    output_tokens_per_request: int
    tokens_per_month: float | None = Field(description="Input + output tokens a month at the stated usage")
    input_tokens_per_month: float | None
    output_tokens_per_month: float | None
    reference: ApiLine
    apis: list[ApiLine]
    model: str = Field(description="The open model priced for self-hosting")
    model_id: str | None
    model_tier: Tier
    precision: str
    gpu: str
    num_gpus: int
    batch: int = Field(description="Concurrent requests one server runs")
    decode_tokens_per_s_total: float
    prefill_tokens_per_s: float | None
    capacity_tokens_per_month: float = Field(description="Input + output tokens one server handles in its hours")
    gpu_hours_needed_per_month: float | None = Field(description="Server-hours the stated volume keeps busy")
    busy_share: float | None = Field(description="Share of the servers' hours the stated volume keeps busy")
    hours_up_per_month: float
    self_host: list[SelfHost]
    cheapest_self_host: SelfHost
    self_cost_per_million_at_capacity: float = Field(description="One fully busy server, per million tokens")
    api_cost_per_million: float = Field(description="The reference API at this input/output mix")
    break_even_tokens_per_month: float | None = Field(description="None: self-hosting never costs less")
    break_even_requests_per_day: float | None
    verdict: Literal["api", "self_host", "depends"]
    saving_monthly: float | None = Field(description="What the cheaper side saves a month at the stated usage")
    assumptions: list[Note]
    warnings: list[Note]


def compare_api(req: ApiCostRequest) -> ApiCostResult:
    """Price the usage through the API and on self-hosted GPUs; find the break-even."""
    book = load_prices(None, req.cny_per_usd)
    market: Market = req.market or ("cn" if req.currency == "CNY" else "global")
    assumptions: list[Note] = []
    warnings: list[Note] = []
    ref, by_provider = _reference(req, market)
    if by_provider:
        assumptions.append(note("api_provider_default", provider=ref.provider, model=ref.model))
    model_id, model_name, tier = _self_host_model(req, ref, assumptions)
    in_tok, out_tok = _request_shape(req)
    precision = req.precision or _defaults()["self_host_precision"]
    server = _server(req, model_id, precision, in_tok + out_tok, market, assumptions)
    speed = server["speed"]
    cap_hours = tco_defaults()["hours_per_month"] * req.hours_per_day / 24
    out_share = out_tok / (in_tok + out_tok)
    sec_per_token = out_share / speed.decode_tokens_per_s_total + (1 - out_share) / (speed.prefill_tokens_per_s or 1e12)
    capacity = cap_hours * 3600 / sec_per_token
    api_per_m = _blend(ref, req.currency, book, out_share)
    usage, tokens = _usage(req, in_tok, out_tok, api_per_m)
    needed_hours = tokens * sec_per_token / 3600 if tokens is not None else None
    servers = max(1, math.ceil((needed_hours or 0) / cap_hours - 1e-9))
    if servers > 1:
        warnings.append(note("api_servers_needed", servers=servers, hours=needed_hours, cap=cap_hours))
    hosts = _self_host_costs(req, server, servers, cap_hours, needed_hours, market, warnings)
    wanted = [
        h for h in hosts if req.self_host in ("cheapest", h.kind, "buy" if h.kind == "own" else "")
    ] or hosts  # "租 GPU 会不会比 API 贵": renting
    cheapest = min(wanted, key=lambda h: h.monthly_cost)
    self_per_m = _per_server(req, server, cap_hours, cap_hours, market) / capacity * 1e6  # one server, flat out
    be_tokens = (
        _break_even(req, server, cap_hours, market, api_per_m, sec_per_token) if self_per_m < api_per_m else None
    )
    api_monthly = tokens * api_per_m / 1e6 if tokens is not None else None
    verdict: Literal["api", "self_host", "depends"] = "depends"
    if api_monthly is not None:
        verdict = "api" if api_monthly <= cheapest.monthly_cost else "self_host"
    per_request = in_tok + out_tok
    assumptions += _assumption_lines(req, in_tok, out_tok, speed, cap_hours, model_name, precision)
    assumptions += _arithmetic(
        req, usage, tokens, (in_tok, out_tok), (ref, book, api_per_m), hosts, cap_hours, be_tokens, api_monthly
    )
    return ApiCostResult(
        currency=req.currency,
        market=market,
        usage=usage,
        requests_per_day=req.requests_per_day or (tokens / per_request / _days() if tokens else None),
        input_tokens_per_request=in_tok,
        output_tokens_per_request=out_tok,
        tokens_per_month=tokens,
        input_tokens_per_month=tokens * (1 - out_share) if tokens is not None else None,
        output_tokens_per_month=tokens * out_share if tokens is not None else None,
        reference=_line(ref, req.currency, book, out_share, tokens, model_id),
        apis=_lines(ref, model_id, market, req.currency, book, out_share, tokens, req.params_b),
        model=model_name,
        model_id=model_id,
        model_tier=tier,
        precision=precision,
        gpu=server["gpu_name"],
        num_gpus=server["count"],
        batch=speed.batch,
        decode_tokens_per_s_total=round(speed.decode_tokens_per_s_total, 1),
        prefill_tokens_per_s=round(speed.prefill_tokens_per_s, 1) if speed.prefill_tokens_per_s else None,
        capacity_tokens_per_month=_sig(capacity, 3),
        gpu_hours_needed_per_month=round(needed_hours, 1) if needed_hours is not None else None,
        busy_share=round(min(1.0, needed_hours / (cap_hours * servers)), 2) if needed_hours is not None else None,
        hours_up_per_month=round(cap_hours, 1),
        self_host=hosts,
        cheapest_self_host=cheapest,
        self_cost_per_million_at_capacity=round(self_per_m, 4),
        api_cost_per_million=round(api_per_m, 4),
        break_even_tokens_per_month=_sig(be_tokens, 2) if be_tokens is not None else None,
        break_even_requests_per_day=_sig(be_tokens / per_request / _days(), 2) if be_tokens is not None else None,
        verdict=verdict,
        saving_monthly=round(abs(api_monthly - cheapest.monthly_cost), 2) if api_monthly is not None else None,
        assumptions=assumptions,
        warnings=warnings + _quality(ref, model_name, model_id, tier, req.params_b),
    )


def _sig(value: float, digits: int) -> float:
    """A volume to `digits` significant figures: a break-even is an estimate, not a count to the token."""
    if value <= 0:
        return 0.0
    return float(round(value, digits - 1 - math.floor(math.log10(value))))


def _defaults() -> dict:
    return _data()["defaults"]


def _days() -> float:
    return tco_defaults()["hours_per_month"] / 24


def _reference(req: ApiCostRequest, market: Market) -> tuple[ApiRow, bool]:
    """The API the user named; else one serving the model they would self-host; else the market's default."""
    if req.api:
        return resolve_api(req.api, market)
    target = _model_id(req.model) if req.model else None
    same = [r for r in api_rows().values() if target and r.serves == target]
    same = same or [r for r in _size_peers(req.params_b) if r.market == market]  # "a 70B": hosted 70Bs, if local
    if same:
        local = [r for r in same if r.market == market] or same
        return min(local, key=lambda r: r.input_per_million + r.output_per_million), False
    return api_rows()[_defaults()["reference"][market]], False


def _size_peers(params_b: float | None) -> list[ApiRow]:
    """The hosted APIs serving an open model of the size the user named without a family ("self-host a 70B or use an
    API": Llama 3.3 70B on Groq and Together), within 15% of its parameters."""
    if not params_b:
        return []
    return [r for r in api_rows().values() if r.serves and abs(_params_b(r.serves) - params_b) <= 0.15 * params_b]


@cache
def _params_b(model_id: str) -> float:
    return resolve_model(model_id)[0].params / 1e9


def _model_id(name: str) -> str | None:
    try:
        return resolve_model(name)[0].id
    except AdvisorError:
        return None


def _self_host_model(req: ApiCostRequest, ref: ApiRow, assumptions: list[Note]) -> tuple[str | None, str, Tier]:
    """The open model to run: the user's, else the one the API serves, else the open model of the API's tier."""
    if req.params_b:
        return None, f"{req.params_b:g}B", _tier_of(req.params_b)
    # an API the user named runs its own open model; with nothing named, the open model one affordable
    # server runs (a 24 GB card holds ~32B at 4-bit), not the 671B behind the cheapest API
    by_tier = _defaults()["self_host_by_tier"][ref.tier if req.api else "mid"]
    if req.gpu and not req.model:
        by_tier = _on_users_card(req, ref.tier if req.api else "mid")  # "buy one 4090 or keep Claude": what it runs
    name = req.model or (ref.serves if req.api and not req.gpu else None) or by_tier
    arch, _ = resolve_model(name)
    if not req.model and not (req.api and ref.serves):
        assumptions.append(note("api_self_host_model", model=arch.name, api=ref.model))
    return arch.id, arch.name, _tier_of(arch.params / 1e9)


def _on_users_card(req: ApiCostRequest, tier: Tier) -> str:
    """The default open model of the API's class, or of the next class down, that the user's own card(s) hold at
    the self-hosted format: one 24 GB card is a 32B-class server, not a sixteenth of a 671B one."""
    order: list[Tier] = ["small", "mid", "frontier"]
    models = _defaults()["self_host_by_tier"]
    precision = req.precision or _defaults()["self_host_precision"]
    context = (req.input_tokens_per_request or 0) + (req.output_tokens_per_request or 0) or 2048
    for t in reversed(order[: order.index(tier) + 1]):
        vram = VramRequest(
            model=models[t], precision=precision, context_tokens=context, gpu=req.gpu, num_gpus=req.num_gpus or 1
        )
        fit = estimate_vram(vram).fit
        if fit is not None and fit.fits:
            return models[t]
    return models["small"]


def _tier_of(params_b: float) -> Tier:
    limits = _defaults()["tier_params_b"]
    return "small" if params_b < limits["mid"] else "mid" if params_b < limits["frontier"] else "frontier"


def _request_shape(req: ApiCostRequest) -> tuple[int, int]:
    d = _defaults()
    return (
        req.input_tokens_per_request or d["input_tokens_per_request"],
        req.output_tokens_per_request or d["output_tokens_per_request"],
    )


def _blend(row: ApiRow, currency: Currency, book: PriceBook, out_share: float) -> float:
    """The API's price per million tokens at this input/output mix, in `currency`."""
    per_m = row.input_per_million * (1 - out_share) + row.output_per_million * out_share
    return book.convert(per_m, row.currency, currency)


def _usage(
    req: ApiCostRequest, in_tok: int, out_tok: int, api_per_m: float
) -> tuple[Literal["requests", "tokens", "bill", "none"], float | None]:
    """Tokens a month (input + output) from what the user said."""
    if req.requests_per_day:
        return "requests", req.requests_per_day * (in_tok + out_tok) * _days()
    if req.tokens_per_month:
        return "tokens", req.tokens_per_month
    if req.monthly_bill:
        return "bill", req.monthly_bill / api_per_m * 1e6
    return "none", None


def _server(
    req: ApiCostRequest, model_id: str | None, precision: str, context: int, market: Market, assumptions: list[Note]
) -> dict:
    """The GPUs of one server and its throughput: the user's card (at the count the model needs), else the
    cheapest dated rental that holds the model."""
    ref = {"model": model_id} if model_id else {"params_b": req.params_b}
    need = estimate_vram(VramRequest(**ref, precision=precision, context_tokens=context, batch=1))
    if req.gpu:
        fit = estimate_vram(
            VramRequest(**ref, precision=precision, context_tokens=context, gpu=req.gpu, num_gpus=req.num_gpus or 1)
        ).fit
        assert fit is not None
        count = req.num_gpus or fit.gpus_needed
        if count is None:
            raise AdvisorError(f"{model_id or req.params_b} at {precision} does not fit on {fit.gpu} (up to 512 GPUs)")
        gpu_id, gpu_name, offer = fit.gpu_id, fit.gpu, None
    else:
        found = rent_providers(RentRequest(need_gib=need.total_gib, currency=req.currency, market=market, limit=1))
        if not found.offers:
            raise AdvisorError("no rental on record holds this model; name a GPU")
        offer = found.offers[0]
        gpu_id, gpu_name, count = offer.gpu_id, offer.gpu, offer.num_gpus
        assumptions.append(note("api_server_cheapest", n=count, gpu=gpu_name, need=need.total_gib))
    speed = None
    for batch in _BATCHES:
        speed = estimate_speed(
            SpeedRequest(**ref, gpu=gpu_id, num_gpus=count, precision=precision, context_tokens=context, batch=batch)
        )
        if speed.fits_in_memory:
            break
    assert speed is not None and speed.decode_tokens_per_s_total
    return {"gpu_id": gpu_id, "gpu_name": gpu_name, "count": count, "offer": offer, "speed": speed}


def _self_host_costs(
    req: ApiCostRequest,
    server: dict,
    servers: int,
    cap_hours: float,
    needed_hours: float | None,
    market: Market,
    warnings: list[Note],
) -> list[SelfHost]:
    """Renting the servers at the cheapest dated price for the card, and buying them (when it has a price)."""
    gpu_id, count = server["gpu_id"], server["count"]
    offer: RentOffer | None = server["offer"]
    if offer is None:
        found = rent_providers(RentRequest(gpu=gpu_id, num_gpus=count, currency=req.currency, market=market, limit=1))
        offer = found.offers[0] if found.offers else None
    hosts: list[SelfHost] = []
    if offer is not None:
        per_server = offer.price_per_gpu_hour * count * cap_hours
        hosts.append(
            SelfHost(
                kind="rent",
                gpu=server["gpu_name"],
                gpu_id=gpu_id,
                num_gpus=count,
                servers=servers,
                monthly_cost=round(per_server * servers, 2),
                monthly_per_server=round(per_server, 2),
                hourly_per_server=round(offer.price_per_gpu_hour * count, 4),
                provider=offer.provider,
                date=offer.date,
            )
        )
    if req.owned and req.gpu and servers == 1:
        hosts.append(_owned(req, server, needed_hours, market))
    elif has_purchase_price(gpu_id, req.currency) or (req.gpu and req.gpu_price):
        busy = min(1.0, max(0.05, (needed_hours or cap_hours * 0.5) / servers / tco_defaults()["hours_per_month"]))
        price = req.gpu_price if req.gpu and req.gpu_price else None  # what the user pays for their card
        tco = calculate_tco(
            TcoRequest(
                gpu=gpu_id, num_gpus=count, currency=req.currency, utilization=busy, market=market, gpu_price=price
            )
        )
        hosts.append(
            SelfHost(
                kind="buy",
                gpu=server["gpu_name"],
                gpu_id=gpu_id,
                num_gpus=count,
                servers=servers,
                monthly_cost=round(tco.buy_monthly_equivalent * servers, 2),
                monthly_per_server=round(tco.buy_monthly_equivalent, 2),
                gpu_price_each=tco.gpu_price_each,
                upfront=tco.upfront,
                resale=tco.resale_value,
                months=tco.horizon_months,
                power_monthly=tco.power_monthly,
                upkeep_monthly=tco.maintenance_monthly,
                busy_hours=tco.busy_hours_per_month,
            )
        )
    if not hosts:
        raise AdvisorError(f"neither a rental price nor a purchase price is on record for {server['gpu_name']}")
    if len(hosts) == 1 and hosts[0].kind == "rent":
        warnings.append(note("api_no_purchase_price", gpu=server["gpu_name"]))
    return hosts


def _owned(req: ApiCostRequest, server: dict, needed_hours: float | None, market: Market) -> SelfHost:
    """The card the user already has: what it adds a month is its electricity (and the host's) at the hours the volume
    keeps it busy, idle the rest; the purchase is already made, so no price, upkeep or resale enters."""
    hours = tco_defaults()["hours_per_month"]
    busy = min(1.0, max(0.05, (needed_hours or hours * 0.5) / hours))
    tco = calculate_tco(
        TcoRequest(
            gpu=server["gpu_id"], num_gpus=server["count"], currency=req.currency, utilization=busy, market=market,
            gpu_price=0.01, host_cost=0, maintenance_per_year_share=0, resale_share=0,
        )
    )  # fmt: skip
    return SelfHost(
        kind="own",
        gpu=server["gpu_name"],
        gpu_id=server["gpu_id"],
        num_gpus=server["count"],
        servers=1,
        monthly_cost=tco.power_monthly,
        monthly_per_server=tco.power_monthly,
        power_monthly=tco.power_monthly,
        busy_hours=tco.busy_hours_per_month,
    )


def _per_server(req: ApiCostRequest, server: dict, cap_hours: float, busy_hours: float, market: Market) -> float:
    """What one server costs a month the way the user would self-host, busy `busy_hours` of its hours."""
    hosts = _self_host_costs(req, server, 1, cap_hours, busy_hours, market, [])
    wanted = [h for h in hosts if req.self_host in ("cheapest", h.kind, "buy" if h.kind == "own" else "")] or hosts
    return min(h.monthly_per_server for h in wanted)


def _break_even(
    req: ApiCostRequest, server: dict, cap_hours: float, market: Market, api_per_m: float, sec_per_token: float
) -> float:
    """Tokens a month at which the API bill equals one server's: an owned server's power bill depends on how busy
    that volume keeps it, so the volume is found by a few rounds of fixed-point iteration (it settles fast)."""
    tokens = _per_server(req, server, cap_hours, cap_hours * 0.5, market) / api_per_m * 1e6
    for _ in range(4):
        busy = min(cap_hours, tokens * sec_per_token / 3600)
        tokens = _per_server(req, server, cap_hours, busy, market) / api_per_m * 1e6
    return tokens


def _line(
    row: ApiRow, currency: Currency, book: PriceBook, out_share: float, tokens: float | None, model_id: str | None
) -> ApiLine:
    per_m = _blend(row, currency, book, out_share)
    return ApiLine(
        id=row.id,
        provider=row.provider,
        model=row.model,
        serves=row.serves,
        tier=row.tier,
        input_per_million=round(book.convert(row.input_per_million, row.currency, currency), 4),
        output_per_million=round(book.convert(row.output_per_million, row.currency, currency), 4),
        listed_currency=row.currency,
        monthly_cost=round(tokens * per_m / 1e6, 2) if tokens is not None else None,
        date=row.date,
        source=row.source,
        confidence=row.confidence,
        same_model=bool(model_id) and row.serves == model_id,
    )


def _lines(
    ref: ApiRow,
    model_id: str | None,
    market: Market,
    currency: Currency,
    book: PriceBook,
    out_share: float,
    tokens: float | None,
    params_b: float | None = None,
) -> list[ApiLine]:
    """The reference API, the other APIs serving the same model (or one of the size named), and the market's default,
    cheapest first."""
    rows = [ref]
    rows += [r for r in api_rows().values() if model_id and r.serves == model_id and r.market == market]
    peers = _size_peers(params_b)
    rows += [r for r in peers if r.market == market] or peers[:2]
    rows.append(api_rows()[_defaults()["reference"][market]])
    unique = list({r.id: r for r in rows}.values())
    lines = [_line(r, currency, book, out_share, tokens, model_id) for r in unique]
    return sorted(lines, key=lambda x: (x.id != ref.id, x.input_per_million + x.output_per_million))[:4]


def _quality(ref: ApiRow, model_name: str, model_id: str | None, tier: Tier, params_b: float | None) -> list[Note]:
    """What the self-hosted model is next to the API's: the same model (or one of the size named), or another class."""
    if (model_id and ref.serves == model_id) or ref in _size_peers(params_b):
        return []
    order = ("small", "mid", "frontier")
    if order.index(tier) < order.index(ref.tier):
        return [note("api_quality_below", model=model_name, api=ref.model)]
    return [note("api_quality_other", model=model_name, api=ref.model)]


def _assumption_lines(
    req: ApiCostRequest, in_tok: int, out_tok: int, speed, cap_hours: float, model: str, precision: str
) -> list[Note]:
    lines = [
        note("api_request_shape", input=in_tok, output=out_tok),
        note(
            "api_throughput",
            model=model,
            precision=precision,
            n=speed.num_gpus,
            gpu=speed.gpu,
            batch=speed.batch,
            tps=speed.decode_tokens_per_s_total,
            prefill=speed.prefill_tokens_per_s or 0,
        ),
        note("api_hours_up", hours=req.hours_per_day, month=cap_hours),
        note("api_other_reasons"),
    ]
    return lines


def _arithmetic(
    req: ApiCostRequest,
    usage: str,
    tokens: float | None,
    shape: tuple[int, int],
    api: tuple[ApiRow, PriceBook, float],
    hosts: list[SelfHost],
    cap_hours: float,
    be_tokens: float | None,
    api_monthly: float | None,
) -> list[Note]:
    """The sums behind each figure of the answer, in the order a reader checks them: the volume, the API's price at
    this mix and its monthly bill, each self-hosted option's month, and the break-even volume."""
    cur = req.currency
    (in_tok, out_tok), (ref, book, per_m) = shape, api
    out: list[Note] = []
    if usage == "requests" and tokens is not None:
        out.append(
            note("api_arith_volume", requests=req.requests_per_day, input=in_tok, output=out_tok, days=_days(),
                 tokens_m=tokens / 1e6)
        )  # fmt: skip
    elif usage == "bill" and tokens is not None:
        out.append(note("api_arith_bill", bill=req.monthly_bill, per_m=per_m, tokens_m=tokens / 1e6, currency=cur))
    share = out_tok / (in_tok + out_tok)
    out.append(
        note("api_arith_price", in_share=1 - share, out_share=share, currency=cur, per_m=per_m,
             input=book.convert(ref.input_per_million, ref.currency, cur),
             output=book.convert(ref.output_per_million, ref.currency, cur))
    )  # fmt: skip
    if api_monthly is not None and tokens is not None and usage != "bill":
        out.append(note("api_arith_api_month", tokens_m=tokens / 1e6, per_m=per_m, monthly=api_monthly, currency=cur))
    for h in hosts:
        if h.kind == "rent" and h.hourly_per_server is not None:
            out.append(
                note("api_arith_rent", hourly=h.hourly_per_server, hours=cap_hours, servers=h.servers,
                     monthly=h.monthly_cost, currency=cur)
            )  # fmt: skip
        elif h.kind == "own":
            out.append(note("api_arith_own", power=h.monthly_cost, busy=h.busy_hours or 0, currency=cur))
        elif h.kind == "buy" and h.upfront is not None and h.months:
            out.append(
                note("api_arith_buy", upfront=h.upfront, resale=h.resale or 0, months=h.months,
                     power=h.power_monthly or 0, busy=h.busy_hours or 0, upkeep=h.upkeep_monthly or 0,
                     monthly=h.monthly_per_server, currency=cur)
            )  # fmt: skip
    if be_tokens is not None:
        out.append(
            note("api_arith_break_even", cost=be_tokens * per_m / 1e6, per_m=per_m, be_m=be_tokens / 1e6,
                 currency=cur)
        )  # fmt: skip
    return out
