"""A run cut off or its files gone ("my Colab session died and I lost 6 hours of training", "训练到一半电脑重启，如何
接着训练", "what should I do to not lose my checkpoints", rent_ask "resume", assistant/understanding/lost_work.py):
resuming from a checkpoint kept where it survives leads, with where that is on the platform named (its `persist`
fact in rental_providers.yaml: Google Drive on Colab, /root/autodl-tmp on AutoDL, the /workspace volume on RunPod),
how a trainer resumes, the free tier's session limits, and for a free tier the cheapest per-second rental for runs
longer than a session."""

from __future__ import annotations

from typing import Any

from assistant.capabilities.base import PlanContext, Turn
from assistant.strings import Writer
from assistant.toolset import ToolName
from tools.notes import money, render_all
from tools.rent import ProviderFacts, RentResult, provider_facts

_FIRST_CARD_GIB = 20.0  # a 24 GB-class card: what a run longer than a free session is moved to


def _named(ctx_parsed: Any) -> str | None:
    """The platform the run was on: the first provider named (a free notebook tier included)."""
    return next(iter(ctx_parsed.rent_providers), None)


def plan_resume(ctx: PlanContext, owner: str, currency: str) -> bool:
    """Plan the facts of the platform named and, for a free tier, the cheapest per-second rental; False when the
    message does not ask how to resume a run."""
    parsed = ctx.parsed
    if parsed.rent_ask != "resume":
        return False
    named = _named(parsed)
    facts = provider_facts().get(named or "")
    if facts is not None and facts.kind == "free_tier":
        card = ctx.scenario.gpu or (facts.free_gpus or ["t4"])[0]
        ctx.add(owner, ToolName.RENT_PROVIDERS, gpu=card, currency=currency, provider=named, about=[named], limit=1)
        ctx.add(owner, ToolName.RENT_PROVIDERS, need_gib=_FIRST_CARD_GIB, currency=currency, limit=3)
    elif facts is not None:
        ctx.add(owner, ToolName.RENT_PROVIDERS, need_gib=_FIRST_CARD_GIB, currency=currency, about=[named], limit=1)
    else:
        # the user's own machine (or a platform not on record): the rental list is only the tips' carrier
        ctx.add(owner, ToolName.RENT_PROVIDERS, need_gib=_FIRST_CARD_GIB, currency=currency, limit=1)
    return True


def resume_lines(w: Writer, turn: Turn, owner: str) -> bool:
    """Write the resume answer; False when the turn did not ask how to resume."""
    if turn.parsed.rent_ask != "resume":
        return False
    results = turn.own(owner, RentResult)
    facts: ProviderFacts | None = next((f for r in results for f in r.named), None)
    if facts is not None and facts.persist is not None:
        w.say("resume_lead_platform", provider=facts.name, persist=facts.persist.get(w.lang))
    else:
        w.say("resume_lead")
    w.bullets("resume_how_head", [w.t("resume_how_trainer"), w.t("resume_how_loop"), w.t("resume_how_none")])
    lines = []
    tier = next((t for r in results for t in r.free_tiers if facts is not None and t.name == facts.name), None)
    if tier is not None and tier.limits is not None:
        lines.append(w.t("rent_fact_line", provider=tier.name, fact=tier.limits.get(w.lang)))
    if facts is not None and facts.storage is not None:
        lines.append(w.t("rent_fact_line", provider=facts.name, fact=facts.storage.get(w.lang)))
    if lines:
        w.add("\n".join(lines))
    if facts is not None and facts.kind == "free_tier":
        _rent_instead(w, results)
    first = next(iter(results), None)
    if first is not None and facts is not None:  # a rented or notebook machine: its meter and its disk
        w.bullets("rent_tips_head", render_all(first.tips[1:2], w.lang))  # shut it down: the checkpoint tip led
    return True


def _rent_instead(w: Writer, results: list[RentResult]) -> None:
    """A run longer than a free session: the cheapest per-second rental and where its checkpoints survive."""
    rented = next((r for r in results if not r.named and r.offers), None)
    if rented is None:
        return
    o = rented.offers[0]
    facts = provider_facts().get(o.provider)
    keep = facts.persist.get(w.lang) if facts is not None and facts.persist is not None else ""
    w.say(
        "resume_rent_instead",
        provider=o.provider,
        n=o.num_gpus,
        gpu=o.gpu,
        price=money(o.price_per_hour, rented.currency),
        date=o.date,
        keep=w.t("resume_keep", persist=keep) if keep else "",
    )
