"""Cloud GPU prices (knowledge/data/prices.yaml or a user file) and currency conversion."""

from __future__ import annotations

import datetime as dt
import statistics
from functools import cache
from typing import Literal

import yaml
from pydantic import BaseModel, Field, ValidationError

from tools._data import load_yaml
from tools.catalog import GpuSpec, resolve_gpu
from tools.errors import AdvisorError
from tools.models import user_file
from tools.notes import Note, note

Currency = Literal["USD", "CNY"]
PriceKind = Literal["on_demand", "spot", "reserved_1y", "reserved_3y"]
Market = Literal["cn", "global"]


class PriceRow(BaseModel):
    """One dated cloud offer, priced per GPU-hour."""

    gpu: str
    provider: str
    offering: str
    region: str | None = None
    gpus_per_instance: int = Field(default=1, ge=1)
    on_demand_per_gpu_hour: float | None = Field(default=None, ge=0)
    spot_per_gpu_hour: float | None = Field(default=None, ge=0)
    reserved_1y_per_gpu_hour: float | None = Field(default=None, ge=0)
    reserved_3y_per_gpu_hour: float | None = Field(default=None, ge=0)
    currency: Currency = "USD"
    includes: str | None = None
    date: str | dt.date
    source: str
    confidence: Literal["high", "medium", "low"] = "medium"
    market: Market = Field(
        default="global",
        description="cn: a Chinese cloud or market (usually CNY, needs a Chinese account); global: everything else",
    )
    notes: str | None = None

    def price(self, kind: PriceKind) -> float | None:
        return getattr(self, f"{kind}_per_gpu_hour")


class PriceBook(BaseModel):
    """All price rows plus the exchange rate used to compare them."""

    cny_per_usd: float = Field(gt=0)
    rate_date: str | dt.date | None = None
    rows: list[PriceRow]

    def convert(self, amount: float, from_: Currency, to: Currency) -> float:
        if from_ == to:
            return amount
        return amount * self.cny_per_usd if to == "CNY" else amount / self.cny_per_usd

    def rows_for(self, gpu: GpuSpec) -> list[PriceRow]:
        return [row for row in self.rows if _gpu_id(row.gpu) == gpu.id]

    def typical(
        self, gpu: GpuSpec, kind: PriceKind, currency: Currency, market: Market | None = None
    ) -> tuple[float, list[PriceRow]] | None:
        """Median price per GPU-hour across providers (low-confidence rows only when nothing else exists).

        Spot and reserved prices come from fewer providers than on-demand ones, so a plain median of
        them is not comparable; they are the on-demand median times the median discount observed on
        rows that publish both.

        `market` restricts the median to that market's rows. "cn" (Chinese clouds) falls back to every row
        when no Chinese cloud lists the GPU; "global" does not, since China-only parts (A800, H800, L20)
        are not rented outside China. None (the default) uses every row.
        """
        all_rows = self.rows_for(gpu)
        if market is not None:
            local = [r for r in all_rows if r.market == market]
            found = self._typical(local, kind, currency) if local else None
            if found is not None or market == "global":
                return found
        return self._typical(all_rows, kind, currency)

    def _typical(
        self, all_rows: list[PriceRow], kind: PriceKind, currency: Currency
    ) -> tuple[float, list[PriceRow]] | None:
        rows = [r for r in all_rows if r.price("on_demand") is not None and r.confidence != "low"]
        rows = rows or [r for r in all_rows if r.price("on_demand") is not None]
        if not rows:
            return None
        on_demand = statistics.median(self.convert(r.price("on_demand"), r.currency, currency) for r in rows)
        if kind == "on_demand":
            return on_demand, rows
        paired = [r for r in all_rows if r.price(kind) is not None and r.price("on_demand")]
        if not paired:
            return None
        ratio = statistics.median(r.price(kind) / r.price("on_demand") for r in paired)  # type: ignore[operator]
        return on_demand * ratio, paired


@cache
def _gpu_id(name: str) -> str | None:
    """Catalog id a price row's GPU name resolves to (None for GPUs outside the catalog)."""
    try:
        return resolve_gpu(name)[0].id
    except AdvisorError:
        return None


def _book_from(data: dict, origin: str) -> PriceBook:
    try:
        rate = data.get("exchange_rate") or {}
        return PriceBook(
            cny_per_usd=rate.get("cny_per_usd", 7.0),
            rate_date=rate.get("date"),
            rows=[PriceRow(**r) for r in data.get("prices") or []],
        )
    except (ValidationError, AttributeError, TypeError) as exc:
        raise AdvisorError(f"price file {origin} does not follow the prices.yaml schema: {exc}") from exc


@cache
def other_currency_rate(code: str) -> tuple[float, str] | None:
    """US dollars per unit of a currency the answers do not price in ("EUR"), with the rate's date."""
    row = (load_yaml("prices.yaml").get("other_currencies") or {}).get(code.upper())
    return (float(row["usd_per_unit"]), str(row["date"])) if row else None


@cache
def bundled_prices() -> PriceBook:
    return _book_from(load_yaml("prices.yaml"), "knowledge/data/prices.yaml")


def load_prices(path: str | None = None, cny_per_usd: float | None = None) -> PriceBook:
    """The bundled price book, with rows from a user file replacing ones with the same key."""
    book = bundled_prices()
    if path:
        p = user_file(path, "price file", "give the path to a prices.yaml")
        try:
            user = _book_from(yaml.safe_load(p.read_text(encoding="utf-8")) or {}, path)
        except OSError as exc:
            raise AdvisorError(f"cannot read price file '{path}': {exc.strerror or exc}") from None
        except yaml.YAMLError as exc:  # say where, but never quote the file (it may not be a price file at all)
            mark = getattr(exc, "problem_mark", None)
            where = f" at line {mark.line + 1}, column {mark.column + 1}" if mark else ""
            problem = getattr(exc, "problem", None) or "syntax error"
            raise AdvisorError(f"price file '{path}' is not valid YAML{where}: {problem}") from None

        def key(r: PriceRow) -> tuple:
            return (r.gpu.lower(), r.provider.lower(), r.offering.lower(), (r.region or "").lower())

        replaced = {key(r) for r in user.rows}
        rows = [r for r in book.rows if key(r) not in replaced] + user.rows
        rate = user.cny_per_usd if "exchange_rate" in (yaml.safe_load(p.read_text()) or {}) else book.cny_per_usd
        book = PriceBook(cny_per_usd=rate, rate_date=book.rate_date, rows=rows)
    if cny_per_usd:
        book = book.model_copy(update={"cny_per_usd": cny_per_usd, "rate_date": "user"})
    return book


def purchase_price(gpu: GpuSpec, currency: Currency, book: PriceBook) -> tuple[float, str] | None:
    """A representative purchase price for one GPU in `currency`, with where it came from (in English)."""
    found = purchase_price_noted(gpu, currency, book)
    return (found[0], found[1].text) if found else None


def purchase_price_noted(gpu: GpuSpec, currency: Currency, book: PriceBook) -> tuple[float, Note] | None:
    """A representative purchase price for one GPU in `currency`, with where it came from as a catalog note."""
    sp = gpu.street_price
    if sp and sp.cny and (currency == "CNY" or not sp.usd):
        cny = (sp.cny[0] + sp.cny[1]) / 2
        basis = note("price_street_cny", low=sp.cny[0], high=sp.cny[1], date=str(sp.date))
        return (cny if currency == "CNY" else book.convert(cny, "CNY", currency)), basis
    if sp and sp.usd:
        usd = (sp.usd[0] + sp.usd[1]) / 2
        basis = note("price_street_usd", low=sp.usd[0], high=sp.usd[1], date=str(sp.date))
        return book.convert(usd, "USD", currency), basis
    if gpu.launch_price_usd:
        return book.convert(gpu.launch_price_usd, "USD", currency), note("price_msrp", usd=gpu.launch_price_usd)
    return None


def used_purchase_price(gpu: GpuSpec, currency: Currency, book: PriceBook) -> tuple[float, str] | None:
    """The mid-point of a GPU's indicative used (or unofficial-card) market range in `currency`, with its basis."""
    up = gpu.used_price
    if up is None:
        return None
    tag = "indicative used price" if not gpu.unofficial else "indicative market price (unofficial card)"
    when = f" ({up.date})" if up.date else ""

    def span(low: float, high: float, unit: str) -> str:
        text = f"{low:,.0f}" if low == high else f"{low:,.0f}-{high:,.0f}"
        return f"${text}" if unit == "USD" else f"{text} CNY"

    if up.cny and (currency == "CNY" or not up.usd):
        cny = (up.cny[0] + up.cny[1]) / 2
        return book.convert(cny, "CNY", currency), f"{tag} {span(*up.cny, 'CNY')}{when}"
    if up.usd:
        usd = (up.usd[0] + up.usd[1]) / 2
        return book.convert(usd, "USD", currency), f"{tag} {span(*up.usd, 'USD')}{when}"
    return None


def used_price_range(gpu: GpuSpec, currency: Currency, book: PriceBook) -> tuple[float, float, str] | None:
    """The dated second-hand range (low, high, date) in `currency`; a discontinued card's street price is one (an
    estimate with no dated source comes with no date). A range
    observed in the asker's own currency comes first (a P40's 闲鱼 price in yuan, its eBay range in dollars); another
    currency's is converted."""
    prices = [p for p in (gpu.used_price, gpu.street_price if gpu.discontinued else None) if p is not None]
    observed = [(p, unit, b) for p in prices for unit, b in (("CNY", p.cny), ("USD", p.usd)) if b]
    for price, unit, bounds in sorted(observed, key=lambda o: o[1] != currency):  # stable: catalog order otherwise
        low, high = (round(book.convert(b, unit, currency)) for b in bounds)  # type: ignore[arg-type]
        return float(low), float(high), "" if price.estimated else str(price.date or "")  # no date: an estimate
    return None


@cache
def tco_defaults() -> dict:
    return load_yaml("tco_defaults.yaml")
