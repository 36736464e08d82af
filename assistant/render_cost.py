"""Human-readable tables for rent_providers and compare_api results (rich); the terminal speaks English."""

from __future__ import annotations

from rich.console import Console

from assistant.render import _notes, print_table
from tools.api_cost import ApiCostResult
from tools.rent import RentOffer, RentResult


def _offer_row(o: RentOffer, currency: str) -> list[str]:
    listed = f"{o.listed_price:g} {o.listed_currency}/GPU-h" if o.listed_currency != currency else ""
    return [
        o.provider,
        f"{o.num_gpus}x {o.gpu_id}",
        f"{o.price_per_hour:,.2f}" + (f" ({listed})" if listed else ""),
        "-" if o.job_cost is None else f"{o.job_cost:,.2f}",
        (o.billing or "-").replace("_", " "),
        o.date,
    ]


def rent(console: Console, r: RentResult) -> None:
    what = f"{r.num_gpus}x {r.gpu}" if r.gpu else f"{r.need_gib:g} GiB of GPU memory"
    per_hour = f"per hour ({r.currency})"
    headers = ("provider", "GPUs", per_hour, "job cost", "billing", "price date")
    columns = [(h, "right" if h in (per_hour, "job cost") else "left") for h in headers]
    rows = [_offer_row(o, r.currency) for o in r.offers or r.alternatives]
    print_table(console, f"Where to rent {what} ({r.market} market, {r.currency})", columns, rows, whole=None)
    if r.spot:
        console.print(f"interruptible: {r.spot.provider} {r.spot.price_per_hour:,.2f} {r.currency}/h ({r.spot.date})")
    for f in r.free_tiers:
        console.print(f"free tier: {f.name} ({', '.join(f.gpus)}): {f.limits.en if f.limits else '-'}")
    for o in (r.offers or r.alternatives)[:3]:
        if o.storage:
            console.print(f"[dim]{o.provider}: {o.storage.en}[/]")
    _notes(console, [*r.assumptions, *r.tips], r.warnings)


def api_cost(console: Console, r: ApiCostResult) -> None:
    c = r.currency
    usage = (
        f"{(r.input_tokens_per_month or 0) + (r.output_tokens_per_month or 0):,.0f} tokens/month"
        if r.input_tokens_per_month is not None
        else "no usage given"
    )
    rows = []
    for a in r.apis:
        price = f"{a.input_per_million:g} in / {a.output_per_million:g} out per 1M"
        rows.append([f"API: {a.provider} {a.model}", price, _money(a.monthly_cost), a.date])
    for h in r.self_host:
        basis = f"{h.hourly_per_server:g}/h at {h.provider}" if h.kind == "rent" else "3-year ownership, power included"
        rows.append([f"{h.kind}: {h.servers}x ({h.num_gpus}x {h.gpu})", basis, _money(h.monthly_cost), h.date or "-"])
    columns = [("option", "left"), ("price", "left"), (f"per month ({c})", "right"), ("date", "left")]
    print_table(console, f"API vs self-hosting {r.model} ({usage}, {c})", columns, rows, whole=None)
    be = (
        f"{r.break_even_tokens_per_month:,.0f} tokens/month (~{r.break_even_requests_per_day:,.0f} requests/day)"
        if r.break_even_tokens_per_month
        else "never (one busy server costs more per token than the API)"
    )
    console.print(f"verdict: [bold]{r.verdict}[/]; break-even: {be}")
    console.print(
        f"one server: {r.capacity_tokens_per_month:,.0f} tokens/month, "
        f"{r.self_cost_per_million_at_capacity:g} {c}/1M when busy vs API {r.api_cost_per_million:g} {c}/1M"
    )
    _notes(console, r.assumptions, r.warnings)


def _money(value: float | None) -> str:
    return "-" if value is None else f"{value:,.0f}"
