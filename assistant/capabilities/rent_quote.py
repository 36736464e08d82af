"""A provider's price the user quotes while asking where to rent ("best provider for A100? GCP gives it for $4/hr",
"哪里租 A100 便宜？阿里云要 30 元一小时", "比 AutoDL 1.88 元更便宜的 4090"): that provider is the reference the
question compares against, not the only place to look. The cheapest dated offers everywhere lead; the quote is
then weighed against the cheapest one.
"""

from __future__ import annotations

from assistant.capabilities.base import PlanContext, Turn
from assistant.strings import Writer
from tools.notes import money
from tools.rent import RentResult, provider_facts


def quoted_provider(ctx: PlanContext) -> str | None:
    """The provider a quoted price was for (a reference to beat), else None."""
    parsed = ctx.parsed
    if parsed.cloud_price_per_hour is None:
        return None
    return next((p for p in parsed.rent_providers if provider_facts()[p].kind != "free_tier"), None)


def quote_text(w: Writer, turn: Turn, r: RentResult) -> str:
    """The quoted price against the cheapest dated offer for the same card (empty when nothing was quoted)."""
    parsed = turn.parsed
    quote = parsed.cloud_price_per_hour
    named = next((p for p in parsed.rent_providers if provider_facts()[p].kind != "free_tier"), None)
    first = (r.offers or [None])[0]
    if quote is None or named is None or first is None or first.yours:
        return ""
    fields = {
        "provider": named,
        "quote": money(quote, r.currency),
        "best": first.provider,
        "price": money(first.price_per_gpu_hour, r.currency),
    }
    if first.price_per_gpu_hour < quote and first.provider != named:
        return w.t("rent_quote_beaten", **fields)
    return w.t("rent_quote_holds", **fields)
