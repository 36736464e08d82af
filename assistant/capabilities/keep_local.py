"""Keep my card or move to the cloud: "My local setup: RTX 3080 10GB. Sufficient, or should I move to a cloud L4/A10?",
"我有一张 3060 12G，够用吗，还是租云上的 4090？".

The card the user owns is not rented (no rental listing or buy-vs-rent for it); what it runs decides the answer. The
lead says how big a model the owned card runs and what the rented card adds, at its price: rent only for the models
that do not fit at home (advice.md section 9: answer the choice the user weighs, with their hardware).
"""

from __future__ import annotations

from assistant.capabilities.base import PlanContext, Turn
from assistant.strings import Writer
from assistant.toolset import ToolName
from assistant.understanding import ParsedQuery
from tools.capacity import CapacityResult, CapacityWay
from tools.notes import money
from tools.rent import RentResult

INTENT = "rent_where"


def owned_card(parsed: ParsedQuery) -> str | None:
    """The card the user owns when they weigh keeping it against renting another one in the cloud; None otherwise
    (buying is weighed too, or only one card is named)."""
    if not (parsed.owns_hardware and parsed.buy_or_rent == "rent" and parsed.gpu):
        return None
    others = [g for g in parsed.gpu_mentions if g != parsed.gpu]
    return parsed.gpu if others and parsed.gpu in parsed.gpu_mentions else None


def plan_owned(ctx: PlanContext, owned: str) -> None:
    """What the owned card runs, unless the capacity part sizes it already."""
    if "capacity" in ctx.intents:
        return
    count = ctx.parsed.gpu_counts.get(owned) or 1
    ctx.add(INTENT, ToolName.LARGEST_MODEL, gpu=owned, num_gpus=count, mode="inference")


def _four_bit(r: CapacityResult) -> CapacityWay | None:
    ways = [w for w in r.ways if w.mode == "inference" and w.max_params_b]
    return next((w for w in ways if w.bits == 4), ways[0] if ways else None)


def keep_local_lead(w: Writer, turn: Turn, owned: str) -> bool:
    """The lead: the owned card's largest model, and the rented card's cheapest offer and what it adds."""
    mine = next((r for _, r in turn.results(CapacityResult) if r.gpu_id == owned), None)
    rents = [r for r in turn.own(INTENT, RentResult) if r.offers]
    if mine is None or not rents:
        return False
    way = _four_bit(mine)
    named = turn.plan.scenario.rent_provider  # "rent an H100 on RunPod": that provider's price
    offers = [r.offers[0] for r in rents]
    offer = min([o for o in offers if o.provider == named] or offers, key=lambda o: o.price_per_gpu_hour)
    if way is None or way.max_params_b is None:
        return False
    cur = rents[0].currency
    example = way.examples[0].model if way.examples else ""
    common = {
        "owned": mine.gpu,
        "size": way.max_params_b,
        "example": w.t("keep_local_example", model=example) if example else "",
        "cloud": offer.gpu,
        "clouds": w.t("keep_local_or").join(dict.fromkeys(r.offers[0].gpu for r in rents)),
        "provider": offer.provider,
        "rate": money(offer.price_per_hour, cur),
    }
    bigger = offer.memory_gib * offer.num_gpus > mine.capacity_gib * mine.num_gpus
    w.say("keep_local_lead" if bigger else "keep_local_no_gain", **common, cloud_gib=offer.memory_gib)
    return True
