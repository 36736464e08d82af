"""A Proposal from a session: the last turn that recommends GPUs, its typed results, in the conversation's language.

Every number comes from that turn's results (recommend_gpus; plan_workstation and calculate_tco where the turn
has them, else the same tools run on the pick) and is written with the answer's own templates: the pick line is
the catalog's rec_pick through `capabilities.recommend._pick_line`, amounts go through `tools.notes.money`.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable
from typing import Any

from pydantic import BaseModel, Field

from assistant.capabilities.recommend import _pick_line, pick_cost, pick_fields
from assistant.language import Language
from assistant.proposal import costs, machine
from assistant.proposal.compared import as_recommendation
from assistant.proposal.labels import say
from assistant.proposal.model import MemoryBar, Parts, Proposal, Section, Table
from assistant.proposal.sources import sources_section
from assistant.strings import Writer
from assistant.strings import label as catalog_label
from assistant.turns import SessionTurn, turns
from tools.catalog import catalog
from tools.compare import CompareResult
from tools.errors import AdvisorError
from tools.notes import money, render_all
from tools.recommend import Pick, RecommendResult
from tools.tco import TcoResult
from tools.workstation import WorkstationPlan

_PLAN_ASSUMPTIONS = 6  # the machine's first assumptions (power, PSU, RAM); the rest are in `gpu-advisor build`


class NothingToPropose(AdvisorError):
    """The session has no answer that recommends GPUs: there is nothing to put in a proposal yet."""


class Source(BaseModel):
    """The turn a proposal is written from, and its choice as a recommendation."""

    turn: SessionTurn
    result: RecommendResult
    args: dict[str, Any] = Field(description="The recommend_gpus or compare_gpus call's arguments: what was stated")
    compared: bool = Field(description="From compare_gpus: its speeds are written to one decimal, as it writes them")


def proposal_turn(session_turns: list[SessionTurn]) -> Source | None:
    """The last turn that names cards to get: a recommendation's pick (or the nearest option over the budget),
    or a comparison's verdict."""
    for turn in reversed(session_turns):
        sources = _sources(turn)
        if sources:  # several parts ("7B and 70B"): the machine the heaviest needs, as the answer plans it
            return max(sources, key=lambda s: _weight(s.result.primary or s.result.stretch))  # type: ignore[arg-type]
    return None


def _sources(turn: SessionTurn) -> list[Source]:
    sources = []
    for record in turn.records:
        found = record.result
        if isinstance(found, RecommendResult) and (found.primary or found.stretch) is not None:
            sources.append(Source(turn=turn, result=found, args=record.args, compared=False))
        if isinstance(found, CompareResult):
            adapted = as_recommendation(found, record.args)
            if adapted is not None:
                sources.append(Source(turn=turn, result=adapted, args=record.args, compared=True))
    return sources


def _weight(p: Pick) -> float:
    """Memory bought (capabilities/workstation.py plans the machine for the part with the most)."""
    return p.gpu_memory_gib * p.count


def build_proposal(
    messages: Iterable[Any], session: str, lang: Language | None = None, today: dt.date | None = None
) -> Proposal:
    """The proposal for a session's saved messages; NothingToPropose when no turn recommends GPUs."""
    session_turns = turns(messages)
    found = proposal_turn(session_turns)
    if found is None:
        said = lang or (session_turns[-1].language if session_turns else "en")
        raise NothingToPropose(say("errors.nothing", said, session=session))
    turn, r, args, compared = found.turn, found.result, found.args, found.compared
    lang = lang or turn.language
    pick: Pick = r.primary or r.stretch  # type: ignore[assignment]
    bought = pick if pick.deployment == "local" else None  # a rented pick costs its rent: no owning figures
    rented = pick if pick.deployment == "cloud" else next((a for a in r.alternatives if a.deployment == "cloud"), None)

    own, tco_computed = _owning(turn, r, bought, rented, float(args.get("horizon_years") or 3))
    price = costs.price_fact(bought, lang) if bought is not None else None
    plan, planned_here = (
        machine.plan_for(pick, turn.results(WorkstationPlan)) if pick.deployment == "local" else (None, False)
    )

    w = Writer(lang)
    sections = [
        _need(lang, turn, r, args),
        _recommendation(w, r, pick, compared),
        machine.machine_section(lang, plan, planned_here)
        if plan is not None
        else machine.cloud_section(lang, pick, r.market, r.hours_per_month),
        costs.cost_section(lang, r, pick, own, price, tco_computed, args.get("monthly_budget")),
        _alternatives(w, r, pick, compared),
        _risks(lang, r, pick, plan, own, price),
        _assumptions(lang, own, plan),
        sources_section(lang, turn, pick, plan, rented, r.market),
    ]
    lines = costs.money_lines(lang, r, pick, own, price)
    if plan is not None and lines:
        lines += machine.component_lines(lang, plan, pick.currency, lines[-1].date)
    total = round(sum(line.line_total or 0 for line in lines), 2)
    rent = pick.deployment == "cloud"
    title = say("title", lang, model=r.model)
    return Proposal(
        language=lang,
        title=title,
        subtitle=say("subtitle", lang, date=(today or dt.date.today()).isoformat(), session=session),
        summary=_summary(w, r, pick, compared, assumed=turn.assumed_job is not None),
        sections=_numbered(lang, [s for s in sections if s.lead or s.paragraphs or s.bullets or s.table]),
        chart_title=say("rec.chart_title", lang),
        chart_labels=(say("rec.chart_need", lang), say("rec.chart_usable", lang)),
        chart=_bars(lang, r, pick),
        parts_title=say("section.parts", lang),
        parts_header=[
            say(f"parts.{k}", lang)
            for k in ("item", "quantity", "unit_price", "currency", "source", "date", "line_total")
        ],
        parts_total_label=say("parts.total", lang),
        parts=Parts(lines=lines, total=total, currency=pick.currency, kind="rent" if rent else "buy"),
        total_label=say("cost.rent_pick_month", lang, count=pick.count, gpu=pick.gpu)
        if rent
        else say("cost.upfront", lang),
        total_text=money(total, pick.currency),
        recheck=say("recheck", lang),
    )


def _numbered(lang: Language, sections: list[Section]) -> list[Section]:
    """Number the sections that have something to say, in order (no gaps where one is empty)."""
    return [
        s.model_copy(update={"title": say("numbered", lang, n=i, title=s.title)}) for i, s in enumerate(sections, 1)
    ]


def _owning(
    turn: SessionTurn, r: RecommendResult, bought: Pick | None, rented: Pick | None, years: float
) -> tuple[TcoResult | None, bool]:
    """The turn's own cost result for the bought cards, else the calculator run on them now (True)."""
    if bought is None:
        return None, False
    for t in turn.results(TcoResult):
        if t.gpu == bought.gpu and t.num_gpus == bought.count and t.currency == bought.currency:
            return t, False
    return costs.owning(r, bought, rented, years), True


def _line(w: Writer, p: Pick, compared: bool, verdict: bool = False) -> str:
    """One option as the answer writes it: recommend's rec_pick line, or the comparison's figures."""
    if not compared:
        return _pick_line(w, p, verdict=verdict)
    speed = say("rec.compare_speed", w.lang, tps=p.tokens_per_s) if p.tokens_per_s else ""
    cost = money(p.spend, p.currency) if p.deployment == "local" else money(p.monthly, p.currency)
    return say("rec.compare_pick", w.lang, **pick_fields(w, p), speed=speed, cost=cost)


def _summary(w: Writer, r: RecommendResult, pick: Pick, compared: bool, assumed: bool = False) -> str:
    """The answer's verdict line, without its bold (a job nobody named is called an assumption, as there)."""
    lead = w.t("rec_for_assumed" if assumed else "rec_for", model=r.model, method=w.label("method", pick.mode))
    if compared:
        return lead + say("rec.compare_verdict", w.lang, pick=_line(w, pick, compared))
    if pick is r.primary:
        verdict = "rec_verdict_rent" if pick.deployment == "cloud" else "rec_verdict_buy"
        return (lead + w.t(verdict, pick=_pick_line(w, pick, verdict=True))).replace("**", "")
    budget, amount = money(r.budget or 0, r.currency), money(pick.over_budget_by or 0, r.currency)
    line = w.t("rec_over_budget_verdict", pick=_pick_line(w, pick), budget=budget, amount=amount)
    return (lead + line).replace("**", "")


def _need(lang: Language, turn: SessionTurn, r: RecommendResult, args: dict[str, Any]) -> Section:
    """The workload as sized, the constraints the question stated, the defaults the policy assumed."""
    sized = r.sized_workload
    ways = [n for n in r.needs if n.mode == sized.mode]
    need = next((n for n in ways if n.precision == sized.precision), ways[0] if ways else None)
    workload = say(
        "need.workload",
        lang,
        model=r.model,
        method=catalog_label("method", sized.mode, lang),
        precision=need.precision if need else sized.precision,
        tokens=need.context_tokens if need else sized.context_tokens,
        batch=need.batch if need else sized.batch,
    )
    stated: list[str] = []
    if args.get("users"):
        stated.append(say("need.users", lang, n=args["users"]))
    if r.budget is not None:
        key = "need.budget_machine" if r.budget_covers == "machine" else "need.budget_gpus"
        stated.append(say(key, lang, amount=money(r.budget, r.currency)))
    if args.get("monthly_budget"):
        stated.append(say("need.monthly_budget", lang, amount=money(float(args["monthly_budget"]), r.currency)))
    if args.get("max_gpus"):
        stated.append(say("need.max_gpus", lang, n=args["max_gpus"]))
    if args.get("deployment") in ("local", "cloud"):
        stated.append(say(f"deployment.{args['deployment']}", lang))
    stated.append(say(f"market.{r.market}", lang))
    sep = "；" if lang == "zh" else "; "
    constraints = say("need.stated_head", lang) + ("" if lang == "zh" else " ") + sep.join(stated)
    lead = [say("need.question", lang, text=turn.question), workload, constraints, say("need.defaults_head", lang)]
    # the job itself first when nobody named it: whoever approves must see the cards were sized for an assumption
    assumed = [turn.assumed_job.render(lang)] if turn.assumed_job is not None else []
    bullets = assumed + render_all(r.assumptions, lang)
    return Section(key="need", title=say("section.need", lang), lead=lead, bullets=bullets)


def _options(r: RecommendResult) -> list[Pick]:
    return [p for p in [r.primary, *r.alternatives, r.stretch] if p is not None]


def _option_name(w: Writer, r: RecommendResult, p: Pick, pick: Pick) -> str:
    if p is pick:
        return say("rec.chosen", w.lang)
    if p.label == "stretch":
        return w.t("rec_stretch", amount=money(p.over_budget_by or 0, p.currency))
    if p.label is None:  # an option the user compared
        return say("rec.compared", w.lang)
    return w.label("rec_label", p.label)


def _recommendation(w: Writer, r: RecommendResult, pick: Pick, compared: bool) -> Section:
    """The pick as the answer states it, why, and every option's memory, speed and cost side by side."""
    lang = w.lang
    rows = []
    for p in _options(r):
        cost = pick_cost(w, p)
        speed = ""
        if p.tokens_per_s:
            # a per-user figure only where it differs from the total, as each answer does
            apart = abs((p.tokens_per_s_per_user or 0) - p.tokens_per_s) > (0.05 if compared else 0)
            per_user = p.tokens_per_s_per_user if p.tokens_per_s_per_user and apart else None
            speed = (
                say(
                    "rec.compare_speed_cell" if compared else "rec.speed_cell",
                    lang,
                    tps=p.tokens_per_s,
                    per_user=per_user,
                )
                if per_user
                else say("rec.compare_speed_total" if compared else "rec.speed_cell_total", lang, tps=p.tokens_per_s)
            )
        condition = w.label("rec_condition", p.condition)
        option = say("rec.option_label", lang, count=p.count, condition=condition, gpu=p.gpu, precision=p.precision)
        memory = say("rec.memory_cell", lang, need=p.memory_per_gpu_gib, usable=p.usable_gib_per_gpu)
        rows.append([_option_name(w, r, p, pick), option, memory, speed, cost])
    header = [
        say("rec.table_option", lang),
        "",
        say("rec.table_memory", lang),
        say("rec.table_speed", lang),
        say("rec.table_cost", lang),
    ]
    return Section(
        key="recommendation",
        title=say("section.recommendation", lang),
        lead=[say("rec.pick", lang, pick=_line(w, pick, compared))],
        chart=True,
        table=Table(header=header, rows=rows),
        paragraphs=[say("rec.why_head", lang)],
        bullets=render_all(pick.reasons, lang),
    )


def _bars(lang: Language, r: RecommendResult, pick: Pick) -> list[MemoryBar]:
    return [
        MemoryBar(
            label=say(
                "rec.option_label",
                lang,
                count=p.count,
                condition=catalog_label("rec_condition", p.condition, lang),
                gpu=p.gpu,
                precision=p.precision,
            ),
            need_gib=p.memory_per_gpu_gib,
            usable_gib=p.usable_gib_per_gpu,
            chosen=p is pick,
        )
        for p in _options(r)
    ]


def _alternatives(w: Writer, r: RecommendResult, pick: Pick, compared: bool) -> Section:
    """Each other option and what it gives up, as the answer lists them."""
    sep = "；" if w.lang == "zh" else "; "
    bullets = [
        say(
            "alt.line",
            w.lang,
            label=_option_name(w, r, p, pick),
            pick=_line(w, p, compared),
            gives=sep.join(n.render(w.lang) for n in p.gives_up) or "-",
        )
        for p in _options(r)
        if p is not pick
    ]
    return Section(key="alternatives", title=say("section.alternatives", w.lang), bullets=bullets)


def _risks(
    lang: Language,
    r: RecommendResult,
    pick: Pick,
    plan: WorkstationPlan | None,
    tco: TcoResult | None,
    price: costs.PriceFact | None,
) -> Section:
    """Used or modified cards, export controls in China, estimated prices, and the tools' warnings."""
    spec = catalog()[pick.gpu_id]
    bullets: list[str] = []
    if pick.condition == "used":
        bullets.append(say("risk.used", lang, gpu=pick.gpu))
    if pick.unofficial or spec.unofficial:
        bullets.append(say("risk.unofficial", lang, gpu=pick.gpu))
    if r.market == "cn" and spec.cn_availability == "export_controlled":
        bullets.append(say("risk.export_controlled", lang, gpu=pick.gpu))
    if r.market == "cn" and spec.cn_availability == "china_market":
        bullets.append(say("risk.china_market", lang, gpu=pick.gpu))
    if price is not None and price.estimated:
        bullets.append(say("risk.estimated_price", lang, gpu=pick.gpu))
    observed = spec.used_price if pick.condition == "used" else spec.street_price
    if observed is not None and observed.note and lang == "en":  # the catalog's check is English data
        bullets.append(say("risk.price_note", lang, gpu=pick.gpu, note=observed.note))
    bullets += render_all([*pick.warnings, *r.warnings], lang)
    if plan is not None:
        bullets += render_all(plan.warnings, lang)
    bullets += costs.tco_warnings(tco, lang)
    return Section(key="risks", title=say("section.risks", lang), bullets=list(dict.fromkeys(bullets)))


def _assumptions(lang: Language, tco: TcoResult | None, plan: WorkstationPlan | None) -> Section:
    """How the costs and the machine were computed (the workload's defaults are in the need)."""
    notes = costs.tco_assumptions(tco) if tco is not None else []
    if plan is not None:
        notes += plan.assumptions[:_PLAN_ASSUMPTIONS]
    bullets = list(dict.fromkeys(render_all(notes, lang)))
    return Section(key="assumptions", title=say("section.assumptions", lang), bullets=bullets)
