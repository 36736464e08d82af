"""Free GPUs asked for ("有没有免费的GPU可以微调", "Can't afford paying cloud services"): the free notebook tiers
(Colab's T4, Kaggle's 2x T4 / P100, rental_providers.yaml) lead, with what a 16 GB card of theirs does; the
cheapest paid hour follows for when they are not enough."""

from __future__ import annotations

from assistant.capabilities.base import PlanContext, Turn
from assistant.strings import Writer
from assistant.toolset import ToolName
from tools.rent import RentResult, provider_facts

FREE_CARD = "t4"  # the card every free notebook tier on record gives (rental_providers.yaml free_gpus)


def plan_free(ctx: PlanContext, owner: str, currency: str) -> None:
    """Free tiers asked for with no card or model named: the free tiers' card, for their list."""
    parsed = ctx.parsed
    if parsed.rent_ask == "free" and not parsed.gpu_mentions and not ctx.has_model:
        ctx.add(owner, ToolName.RENT_PROVIDERS, gpu=FREE_CARD, currency=currency, limit=1)


def free_lead(w: Writer, turn: Turn, results: list[RentResult]) -> list[RentResult]:
    """Write the free tiers first when they were asked for; return the results still to list as rentals (the
    free tiers' own card, looked up only for them, is not one)."""
    if turn.parsed.rent_ask != "free":
        return results
    tiers = {t.name: t for r in results for t in r.free_tiers}
    sized = next((r for r in results if r.model and r.need_gib), None)
    if not tiers and sized is not None:
        # "有没有免费的GPU跑 Qwen2.5-7B" in 16-bit: the free tiers' card is too small at that format; say so
        free = [p for p in provider_facts().values() if p.kind == "free_tier"]
        w.say(
            "rent_free_too_small",
            tiers=("、" if w.lang == "zh" else ", ").join(p.name for p in free),
            model=sized.model,
            precision=w.label("format", sized.precision) if sized.precision else "",
            need=sized.need_gib,
        )
        return results
    if not tiers:
        return results
    names = ("、" if w.lang == "zh" else ", ").join(tiers)
    gpus = ", ".join(dict.fromkeys(g for t in tiers.values() for g in t.gpus))
    if sized is not None:
        w.say("rent_lead_free_model", tiers=names, gpus=gpus, model=sized.model, need=sized.need_gib)
    else:
        w.say("rent_lead_free", tiers=names, gpus=gpus)
    lookup_only = not turn.parsed.gpu_mentions and not (turn.parsed.model or turn.parsed.params_b)
    return [r for r in results if not (lookup_only and r.gpu and r.free_tiers)]
