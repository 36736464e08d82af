"""rent_providers: where to rent a GPU, cheapest first, from dated price rows and what each provider bills.

The prices are knowledge/data/prices.yaml (one dated, sourced row per provider offering, per GPU-hour); the
provider facts the price does not say (billing unit, interruptible capacity, what survives a stop, whether
it needs a Chinese account, free tiers) are knowledge/data/rental_providers.yaml. Asked for a card, the
tool lists the offers for that card in the user's market; asked for a memory need instead ("a 28 GiB
model"), it lists every rentable card at the count that holds it. Nothing is live: every offer carries its
date and source.
"""

from __future__ import annotations

import re
from functools import cache
from typing import Literal

from pydantic import BaseModel, Field, model_validator

from tools._data import load_yaml
from tools.catalog import GpuSpec, catalog, resolve_gpu_noted
from tools.errors import AdvisorError
from tools.notes import Note, note
from tools.prices import Currency, Market, PriceBook, PriceRow, load_prices
from tools.sizing import usable_gib

_COUNTS = (1, 2, 4, 8)  # GPUs per instance people rent
_PER_PROVIDER = 2  # offers per provider in one list (a secure and a community tier, not five regions)
_MONTH_HOURS = 730  # a month kept up 24/7, what a shared server's month costs


class LocalText(BaseModel):
    """A provider fact in both languages, as rental_providers.yaml words it."""

    zh: str
    en: str

    def get(self, lang: str) -> str:
        return self.zh if lang == "zh" else self.en


class ProviderFacts(BaseModel):
    """What one provider bills and keeps, beyond the price (null: not recorded)."""

    name: str
    aliases: list[str] = Field(default_factory=list)
    market: Market
    kind: Literal["marketplace", "gpu_cloud", "hyperscaler", "free_tier"]
    billing: Literal["per_second", "per_minute", "per_hour"] | None = None
    interruptible: LocalText | None = None
    storage: LocalText | None = None
    paid: LocalText | None = None
    no_gpu_mode: dict | None = None
    free_gpus: list[str] = Field(default_factory=list)
    access: Literal["china_only", "global", "global_usd"]
    persist: LocalText | None = Field(default=None, description="Where checkpoints survive a stop or disconnect")
    persist_source: str | None = None
    connect: LocalText | None = Field(default=None, description="How one reaches the machine (SSH, JupyterLab)")
    price: Literal["unconfirmed"] | None = Field(default=None, description="unconfirmed: no dated price on record")
    source: str
    date: str


@cache
def provider_facts() -> dict[str, ProviderFacts]:
    """Every provider of rental_providers.yaml by name."""
    rows = load_yaml("rental_providers.yaml")["providers"]
    return {r["name"]: ProviderFacts(**{**r, "date": str(r["date"])}) for r in rows}


def provider_aliases() -> list[tuple[str, list[str]]]:
    """(provider name, the words users write for it), for the parser."""
    return [(p.name, p.aliases) for p in provider_facts().values()]


def resolve_provider(name: str) -> str:
    """A provider name as written ("autodl", "EC2", "vast") -> its name in the data (AdvisorError if none)."""
    low = name.strip().lower()
    for p in provider_facts().values():
        if low == p.name.lower() or low in (a.lower() for a in p.aliases):
            return p.name
    known = ", ".join(p.name for p in provider_facts().values())
    raise AdvisorError(f"unknown provider '{name}' — use one of: {known}")


class RentRequest(BaseModel):
    """Where to rent a GPU (or enough GPU memory for a job), cheapest first."""

    gpu: str | None = Field(default=None, description="GPU name, fuzzy: '4090', 'A100 80G'; or give need_gib")
    num_gpus: int = Field(default=1, ge=1, le=64, description="GPUs wanted (with gpu)")
    need_gib: float | None = Field(
        default=None,
        gt=0,
        le=100_000,
        description="Memory the job needs in GiB, all GPUs together: every rentable card at the count that holds it",
    )
    currency: Currency = "CNY"
    market: Market | None = Field(
        default=None, description="cn = Chinese platforms (default for CNY), global = everyone else (default for USD)"
    )
    model: str | None = Field(default=None, description="Or: a model to hold (sized with estimate_vram), no gpu given")
    params_b: float | None = Field(default=None, gt=0, le=20000, description="Or: a model's size in billions")
    mode: Literal["inference", "full", "lora", "qlora"] = Field(default="inference", description="The job on it")
    precision: str | None = Field(
        default=None, description="Weight format (default: the model's native one, else bf16 up to 14B, else awq)"
    )
    context_tokens: int | None = Field(default=None, ge=1, le=10_000_000, description="Context (default 8,192)")
    provider: str | None = Field(default=None, description="Only this provider's offers ('AWS', 'AutoDL', 'RunPod')")
    hours: float | None = Field(default=None, gt=0, le=100_000, description="Length of the job, for its cost")
    price_per_gpu_hour: float | None = Field(
        default=None, gt=0, le=1e5, description="Your own price per GPU-hour in `currency` (a quote): listed first"
    )
    limit: int = Field(default=5, ge=1, le=20, description="How many offers to list")
    shared_by: int | None = Field(
        default=None, ge=2, le=10_000, description="People sharing one instance: each offer states each one's month"
    )
    exclude: list[str] = Field(
        default_factory=list, description="Providers to leave out ('besides AutoDL', 'other than AWS'): a reference"
    )
    about: list[str] = Field(
        default_factory=list, description="Providers asked about whose facts to return, priced or not ('恒源云')"
    )
    prices_file: str | None = Field(default=None, description="Your own prices.yaml to override the bundled one")
    cny_per_usd: float | None = Field(default=None, gt=0, le=100, description="Exchange rate override")

    @model_validator(mode="after")
    def _one_target(self) -> RentRequest:
        if not self.gpu and self.need_gib is None and not (self.model or self.params_b):
            raise ValueError("give gpu (the card to rent), need_gib (the memory the job needs) or model")
        return self


class RentOffer(BaseModel):
    """One provider offering, priced for the GPUs asked."""

    provider: str
    offering: str
    yours: bool = Field(default=False, description="The price the user gave, not a dated offer")
    region: str | None
    market: Market
    gpu: str
    gpu_id: str
    memory_gib: float = Field(description="Memory of one GPU")
    num_gpus: int
    kind: Literal["on_demand", "spot"]
    price_per_gpu_hour: float = Field(description="In the result's currency")
    price_per_hour: float = Field(description="All num_gpus together")
    listed_price: float = Field(description="Per GPU-hour as the provider lists it")
    listed_currency: Currency
    job_cost: float | None = Field(default=None, description="price_per_hour x hours, when hours were given")
    month_each: float | None = Field(
        default=None, description="Kept up all month (730 h), each one's share when shared_by people split it"
    )
    date: str
    source: str
    confidence: Literal["high", "medium", "low"]
    includes: str | None = None
    billing: str | None = None
    interruptible: LocalText | None = None
    storage: LocalText | None = None
    access: str | None = None


class FreeTier(BaseModel):
    name: str
    gpus: list[str]
    limits: LocalText | None
    storage: LocalText | None
    paid: LocalText | None = None
    source: str
    date: str


class RentResult(BaseModel):
    """Offers cheapest first, in `currency`."""

    gpu: str | None = Field(description="The card asked for (None when sized from need_gib)")
    model: str | None = Field(default=None, description="The model the memory need was sized for")
    precision: str | None = Field(default=None, description="The weight format it was sized in")
    num_gpus: int
    need_gib: float | None
    currency: Currency
    market: Market
    provider: str | None
    offers: list[RentOffer]
    spot: RentOffer | None = Field(description="The cheapest interruptible offer, when one is cheaper than on demand")
    cross_market: bool = Field(description="No offer in the user's market: these are the other market's")
    alternatives: list[RentOffer] = Field(
        default_factory=list, description="When the card is not rented anywhere on record: cards with its memory"
    )
    twins: list[RentOffer] = Field(
        default_factory=list,
        description="No offer in the user's market: the same chip's local variant (A800 for A100, H800 for H100)",
    )
    free_tiers: list[FreeTier] = Field(default_factory=list)
    no_gpu_modes: list[str] = Field(default_factory=list, description="Providers that start an instance without a GPU")
    named: list[ProviderFacts] = Field(
        default_factory=list,
        description="The facts of the providers asked about (named, or filtered on), priced or not",
    )
    excluded: list[str] = Field(default_factory=list, description="Providers left out of the list (a reference)")
    cny_per_usd: float
    assumptions: list[Note]
    warnings: list[Note]
    tips: list[Note] = Field(description="How not to pay for idle GPUs or lose work")


def rent_providers(req: RentRequest) -> RentResult:
    """List where to rent, cheapest first."""
    book = load_prices(req.prices_file, req.cny_per_usd)
    market: Market = req.market or ("cn" if req.currency == "CNY" else "global")
    provider = resolve_provider(req.provider) if req.provider else None
    excluded = [resolve_provider(p) for p in req.exclude]
    if excluded:
        book = book.model_copy(update={"rows": [r for r in book.rows if r.provider not in excluded]})
    assumptions: list[Note] = []
    warnings: list[Note] = []
    gpu: GpuSpec | None = None
    model: str | None = None
    precision = req.precision
    if req.gpu:
        gpu, read_as = resolve_gpu_noted(req.gpu)
        assumptions += [read_as] if read_as else []
    elif req.need_gib is None and (req.model or req.params_b):
        need, model, precision = _workload_need(req, assumptions)
        req = req.model_copy(update={"need_gib": need})
    else:
        model = req.model  # the memory was sized elsewhere (estimate_vram): the model only names it
    offers, cross = _market_offers(req, book, market, provider, gpu)
    twins = _twins(req, book, market, gpu) if cross and gpu is not None else []
    if cross:
        warnings.append(note("rent_cross_market", market="global" if market == "cn" else "cn"))
    if twins:
        assumptions.append(note("rent_twin", asked=gpu.name if gpu else "", twin=twins[0].gpu))
    alternatives: list[RentOffer] = []
    unpriced = provider is not None and provider_facts()[provider].price == "unconfirmed"
    if gpu is not None and not offers and not unpriced:  # a provider with no dated price has no offer to replace
        warnings.append(note("rent_no_offer", gpu=gpu.name))
    if gpu is not None and not unpriced and (not offers or cross):  # only the other market rents it: a local stand-in
        # what the asked card holds: a card of the same memory qualifies at the same count (A100 80GB PCIe for SXM)
        alt_req = req.model_copy(update={"gpu": None, "need_gib": usable_gib(gpu) * req.num_gpus})
        alternatives = [o for o in _market_offers(alt_req, book, market, provider, None)[0] if o.kind == "on_demand"]
        alternatives = twins or alternatives  # the same chip under its local name stands in first (A800 for A100)
    if req.need_gib is not None and gpu is None and any(o.num_gpus > 1 for o in offers[: req.limit]):
        assumptions.append(note("rent_need_split", need=req.need_gib))
    on_demand = [o for o in offers if o.kind == "on_demand"]
    spot = next((o for o in offers if o.kind == "spot"), None)
    if spot and on_demand and spot.price_per_hour >= on_demand[0].price_per_hour:
        spot = None
    listed = _pick(on_demand, req.limit)
    if req.price_per_gpu_hour and gpu is not None:
        listed = [_your_offer(req, gpu), *listed[: req.limit - 1]]
    assumptions.append(note("rent_prices_dated", n=len(listed), rate=book.cny_per_usd))
    return RentResult(
        gpu=gpu.name if gpu else None,
        model=model,
        precision=precision,
        num_gpus=req.num_gpus,
        need_gib=req.need_gib,
        currency=req.currency,
        market=market,
        provider=provider,
        offers=listed,
        spot=spot,
        cross_market=cross,
        alternatives=_pick(alternatives, 3),
        twins=_pick(twins, 3),
        free_tiers=_free_tiers(gpu, req.need_gib, provider),
        no_gpu_modes=[p.name for p in provider_facts().values() if (p.no_gpu_mode or {}).get("available")],
        named=[
            provider_facts()[n]
            for n in dict.fromkeys([*(resolve_provider(a) for a in req.about), *[provider or ""]])
            if n
        ],
        excluded=excluded,
        cny_per_usd=book.cny_per_usd,
        assumptions=assumptions,
        warnings=warnings,
        tips=_tips([*twins[:1], *listed], spot),
    )


def rent_precision(model: str | None, params_b: float | None, mode: str = "inference") -> str | None:
    """The weight format a rented server runs a model in when none is named: the format its weights ship in
    (FP8 DeepSeek, MXFP4 gpt-oss, 8-bit Grok-1), else 16-bit up to 14B and 4-bit AWQ above; None for training
    (the estimator's own default)."""
    if mode != "inference":
        return None
    from tools.models import resolve_model

    native, params = None, (params_b or 0) * 1e9
    if model:
        try:
            arch, _ = resolve_model(model)
            native, params = arch.native_precision, arch.params
        except AdvisorError:
            pass
    return native or ("bf16" if params <= 14e9 else "awq")


_QUALITY_ORDER = ("bf16", "int8_wo", "awq")  # best first: 16-bit, near-lossless 8-bit, 4-bit


def best_rent_precision(
    model: str | None,
    params_b: float | None,
    mode: str = "inference",
    currency: Currency = "USD",
    provider: str | None = None,
) -> str | None:
    """The best-quality format among 16-bit, 8-bit and 4-bit whose cheapest rental costs no more than the
    cheapest of the three: 8-bit Baichuan-13B on one 24 GB card beats 16-bit on two, 16-bit 7B costs what 4-bit
    does. A model that ships in its own format (FP8 DeepSeek, MXFP4 gpt-oss) runs in it; training: None."""
    default = rent_precision(model, params_b, mode)
    if mode != "inference" or default not in ("bf16", "awq"):
        return default
    priced: list[tuple[str, float]] = []
    for precision in _QUALITY_ORDER:
        found = rent_providers(
            RentRequest(
                model=model, params_b=params_b, precision=precision, currency=currency, provider=provider, limit=1
            )
        )
        if found.offers and not found.cross_market:
            priced.append((precision, found.offers[0].price_per_hour))
    if not priced:
        return default
    cheapest = min(p for _, p in priced)
    return next(name for name, price in priced if price <= cheapest * 1.001)


def _workload_need(req: RentRequest, assumptions: list[Note]) -> tuple[float, str, str]:
    """GiB a model needs on one GPU (all of it, to split over an instance's GPUs), at the format a rented
    server runs it in: the format the weights ship in (FP8 DeepSeek, MXFP4 gpt-oss, 8-bit Grok-1), else 16-bit
    up to 14B and 4-bit AWQ above (what people rent the fewest GPUs for; a stated precision wins)."""
    from tools.vram import VramRequest, estimate_vram

    precision = req.precision or best_rent_precision(req.model, req.params_b, req.mode, req.currency, req.provider)
    ref = {"model": req.model} if req.model else {"params_b": req.params_b}
    vram = estimate_vram(
        VramRequest(**ref, mode=req.mode, precision=precision, context_tokens=req.context_tokens or 8192)
    )
    assumptions.append(
        note("rent_sized_for", model=vram.model, mode=req.mode, precision=vram.precision, need=vram.total_gib)
    )
    return vram.total_gib, vram.model, vram.precision


def _market_offers(
    req: RentRequest, book: PriceBook, market: Market, provider: str | None, gpu: GpuSpec | None
) -> tuple[list[RentOffer], bool]:
    """Offers in the user's market; when there are none, the other market's (cross=True). A provider named
    by the user is their market, whatever the currency."""
    rows = [r for r in book.rows if provider is None or r.provider == provider]
    local = [r for r in rows if provider is not None or r.market == market]
    offers = _offers(req, book, local, gpu)
    if offers or provider is not None:
        return offers, False
    other = [r for r in rows if r.market != market]
    return _offers(req, book, other, gpu), True


def _twins(req: RentRequest, book: PriceBook, market: Market, gpu: GpuSpec) -> list[RentOffer]:
    """Local on-demand offers of the asked card's market variant: the same compute capability, memory size and
    memory type under another name (A800 80GB for an A100 80GB, H800 for H100 in China), cheapest first."""
    local = [r for r in book.rows if r.market == market]
    out = []
    for row in local:
        spec = _row_gpu(row.gpu)
        if spec is None or spec.id == gpu.id or not gpu.compute_capability:
            continue
        same = (spec.compute_capability, spec.vram_gib, spec.memory_type) == (
            gpu.compute_capability,
            gpu.vram_gib,
            gpu.memory_type,
        )
        if same and row.price("on_demand"):
            out += _offers(req.model_copy(update={"gpu": spec.name}), book, [row], spec)
    return sorted((o for o in out if o.kind == "on_demand"), key=lambda o: o.price_per_hour)


def _offers(req: RentRequest, book: PriceBook, rows: list[PriceRow], gpu: GpuSpec | None) -> list[RentOffer]:
    out: list[RentOffer] = []
    for row in rows:
        spec = _row_gpu(row.gpu)
        if spec is None or (gpu is not None and spec.id != gpu.id):
            continue
        count = _instance_count(row, spec, req.num_gpus if gpu is not None else None, req.need_gib or 0)
        if count is None:
            continue
        for kind in ("on_demand", "spot"):
            listed = row.price(kind)  # type: ignore[arg-type]
            if listed:
                out.append(_offer(row, spec, count, kind, listed, req, book))  # type: ignore[arg-type]
    return sorted(out, key=lambda o: (o.price_per_hour, o.date))


def _offer(
    row: PriceRow,
    spec: GpuSpec,
    count: int,
    kind: Literal["on_demand", "spot"],
    listed: float,
    req: RentRequest,
    book: PriceBook,
) -> RentOffer:
    per_gpu = book.convert(listed, row.currency, req.currency)
    facts = provider_facts().get(row.provider)
    return RentOffer(
        provider=row.provider,
        offering=row.offering,
        region=row.region,
        market=row.market,
        gpu=spec.name,
        gpu_id=spec.id,
        memory_gib=spec.vram_gib,
        num_gpus=count,
        kind=kind,
        price_per_gpu_hour=round(per_gpu, 4),
        price_per_hour=round(per_gpu * count, 4),
        listed_price=listed,
        listed_currency=row.currency,
        job_cost=round(per_gpu * count * req.hours, 2) if req.hours else None,
        month_each=round(per_gpu * count * _MONTH_HOURS / req.shared_by, 2) if req.shared_by else None,
        date=str(row.date),
        source=row.source,
        confidence=row.confidence,
        includes=row.includes,
        billing=facts.billing if facts else None,
        interruptible=facts.interruptible if facts else None,
        storage=facts.storage if facts else None,
        access=facts.access if facts else None,
    )


def _your_offer(req: RentRequest, gpu: GpuSpec) -> RentOffer:
    """The user's own price for the card, priced like an offer (its job cost included)."""
    price = req.price_per_gpu_hour or 0
    return RentOffer(
        provider="",
        offering="",
        yours=True,
        region=None,
        market=req.market or ("cn" if req.currency == "CNY" else "global"),
        gpu=gpu.name,
        gpu_id=gpu.id,
        memory_gib=gpu.vram_gib,
        num_gpus=req.num_gpus,
        kind="on_demand",
        price_per_gpu_hour=price,
        price_per_hour=round(price * req.num_gpus, 4),
        listed_price=price,
        listed_currency=req.currency,
        job_cost=round(price * req.num_gpus * req.hours, 2) if req.hours else None,
        date="",
        source="your price",
        confidence="high",
    )


@cache
def _row_gpu(name: str) -> GpuSpec | None:
    try:
        return resolve_gpu_noted(name)[0]
    except AdvisorError:
        return None


def _instance_count(row: PriceRow, gpu: GpuSpec, asked: int | None, need_gib: float) -> int | None:
    """GPUs of this offering to rent: the count asked, else the fewest (1, 2, 4, 8) that hold `need_gib`.

    A hyperscaler sells fixed instance shapes (a g5.xlarge has one GPU, a p5.48xlarge eight): its row is
    rented whole, so a count it does not come in is no offer. GPU clouds and marketplaces rent 1-8 GPUs of
    a kind at the per-GPU price of their row."""
    facts = provider_facts().get(row.provider)
    fixed = facts is not None and facts.kind == "hyperscaler"
    if fixed:
        n = row.gpus_per_instance
        wanted = asked or next((c for c in _COUNTS if need_gib / c <= usable_gib(gpu) + 1e-9), None)
        return n if wanted is not None and wanted <= n and need_gib / n <= usable_gib(gpu) + 1e-9 else None
    if asked:
        return asked
    return next((n for n in _COUNTS if need_gib / n <= usable_gib(gpu) + 1e-9), None)


def _pick(offers: list[RentOffer], limit: int) -> list[RentOffer]:
    """The cheapest offers, at most two per provider (a secure and a community tier, not every region)."""
    seen: dict[str, int] = {}
    out: list[RentOffer] = []
    for o in offers:
        if seen.get(o.provider, 0) >= _PER_PROVIDER:
            continue
        seen[o.provider] = seen.get(o.provider, 0) + 1
        out.append(o)
        if len(out) == limit:
            break
    return out


def _free_tiers(gpu: GpuSpec | None, need_gib: float | None, provider: str | None) -> list[FreeTier]:
    """Free notebook tiers whose GPU is the card asked for, or holds the memory asked for."""
    out = []
    for p in provider_facts().values():
        if p.kind != "free_tier" or (provider and p.name != provider):
            continue
        cards = [catalog()[g] for g in p.free_gpus if g in catalog()]
        if gpu is not None:
            ok = any(c.id == gpu.id for c in cards)
        else:
            ok = any((need_gib or 0) <= usable_gib(c) for c in cards)
        if ok:
            out.append(
                FreeTier(
                    name=p.name,
                    gpus=[c.name for c in cards],
                    limits=p.interruptible,
                    storage=p.storage,
                    paid=p.paid,
                    source=p.source,
                    date=p.date,
                )
            )
    return out


def _tips(offers: list[RentOffer], spot: RentOffer | None) -> list[Note]:
    """What an expert tells someone renting for the first time, for the providers listed."""
    names = list(dict.fromkeys(o.provider for o in offers))
    tips = [note("rent_tip_checkpoint"), note("rent_tip_shutdown")]
    facts = provider_facts()
    no_gpu = [n for n in names if n in facts and (facts[n].no_gpu_mode or {}).get("available")]
    if no_gpu:
        tips.append(note("rent_tip_no_gpu", providers=", ".join(no_gpu)))
    if spot is not None:
        tips.append(note("rent_tip_spot"))
    return tips


def provider_words() -> list[tuple[str, str]]:
    """(alias, provider name) pairs, longest alias first, for matching in text."""
    pairs = [(a, p.name) for p in provider_facts().values() for a in p.aliases]
    return sorted(pairs, key=lambda x: -len(x[0]))


def find_providers(text: str) -> list[str]:
    """Providers named in a text, in the order they appear (whole words, any case)."""
    found: list[tuple[int, str]] = []
    low = text.lower()
    for alias, name in provider_words():
        pat = re.escape(alias.lower())
        guard = (r"(?<![a-z0-9])" if alias[0].isascii() and alias[0].isalnum() else "") + pat
        guard += r"(?![a-z0-9])" if alias[-1].isascii() and alias[-1].isalnum() else ""
        m = re.search(guard, low)
        if m and name not in (n for _, n in found):
            found.append((m.start(), name))
    return [n for _, n in sorted(found)]
