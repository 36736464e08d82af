"""Where the proposal's facts come from, each with its date: the price observation, the card's specification
sources, the rental offers, the platform, the cost defaults and the guides the answer cited."""

from __future__ import annotations

from assistant.citations import cited_again
from assistant.proposal.costs import rental_rows
from assistant.proposal.labels import say
from assistant.proposal.model import Section
from assistant.turns import SessionTurn
from tools.catalog import catalog
from tools.prices import Market, tco_defaults
from tools.recommend import Pick
from tools.workstation import WorkstationPlan

_URLS = 2  # the first sources of a card or platform: enough to check, short enough to read


def sources_section(
    lang: str, turn: SessionTurn, pick: Pick, plan: WorkstationPlan | None, rented: Pick | None, market: Market
) -> Section:
    spec = catalog()[pick.gpu_id]
    bullets: list[str] = []
    observed = spec.used_price if pick.condition == "used" else spec.street_price
    if pick.deployment == "local" and observed is not None and observed.source:
        date = str(observed.date or "") or say("cost.estimate", lang)
        bullets.append(say("sources.price", lang, gpu=pick.gpu, source=observed.source, date=date))
    urls = ", ".join(spec.sources[:_URLS])
    bullets.append(say("sources.specs", lang, gpu=pick.gpu, urls=urls, date=spec.as_of))
    if rented is not None:
        rows = rental_rows(rented, market)
        if rows:
            offers = ", ".join(sorted({f"{r.provider} {r.offering} ({r.date})" for r in rows}))
            bullets.append(say("sources.rent", lang, offers=offers))
    if plan is not None and plan.platform is not None:
        p = plan.platform
        urls = ", ".join(p.sources[:_URLS])
        bullets.append(say("sources.platform", lang, name=p.id, urls=urls, date=p.as_of))
    if pick.deployment == "local":
        bullets.append(say("sources.tco", lang, date=tco_defaults()["as_of"]))
    searches = [r.result for r in turn.records if r.result is not None]
    for c in cited_again(searches, turn.cited):
        bullets.append(say("sources.guide", lang, title=c.title, section=c.section))
    return Section(key="sources", title=say("section.sources", lang), bullets=bullets)
