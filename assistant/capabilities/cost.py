"""Buy vs rent: what owning GPUs costs over a horizon against renting them, and where they break even."""

from __future__ import annotations

from typing import Any, ClassVar

from pydantic import BaseModel

from assistant.capabilities.base import Capability, Outcome, Plan, PlanContext, ToolCall, Turn
from assistant.capabilities.job_cost import is_job_question, job_calls, job_lines, job_speeds, plan_job
from assistant.strings import Writer
from assistant.toolset import ToolName
from assistant.understanding import ParsedQuery
from tools.catalog import resolve_gpu
from tools.errors import AdvisorError
from tools.notes import label as tool_label
from tools.notes import money, note, render_all
from tools.prices import tco_defaults
from tools.rent import RentRequest, RentResult, rent_providers
from tools.tco import TcoResult, has_purchase_price


def verdict(
    w: Writer, r: TcoResult, hours_stated: bool = True, restartable: bool = False, occasional: bool = False
) -> None:
    """Buy or rent at the user's hours first (spot for jobs that survive a restart); with no hours said,
    the usage at which buying starts to pay."""
    od = next((o for o in r.rent if o.kind == "on_demand"), None)
    if od is None:  # "buy a 5090 or rent?" with no rental of it on record: what owning costs, and what to give
        w.say(
            "tco_verdict_no_rent",
            n=r.num_gpus,
            gpu=r.gpu,
            buy_monthly=money(r.buy_monthly_equivalent, r.currency),
            months=r.horizon_months,
            upfront=money(r.upfront, r.currency),
        )
        return
    be = od.break_even_hours_per_month
    be_text = w.t("tco_be_hours", hours=be) if be is not None and be <= 730 else w.t("tco_be_never")
    spot = next((o for o in r.rent if o.kind == "spot"), None)
    where = w.t("tco_providers", providers="、".join(od.providers) if w.lang == "zh" else ", ".join(od.providers))
    where = where if od.providers else ""
    # "a DGX Spark or rent an H100": the rented card is another one, named wherever renting is priced
    rent_n, rent_gpu = (r.rent_num_gpus or r.num_gpus, r.rent_gpu) if r.rent_gpu else (r.num_gpus, r.gpu)
    if r.rent_gpu:
        where = w.t("tco_rented_other", n=rent_n, gpu=rent_gpu) + where
    if restartable and spot is not None and spot.total < r.buy_total:
        w.say(
            "tco_verdict_spot",
            n=rent_n,
            gpu=rent_gpu,
            hours=r.busy_hours_per_month,
            spot=money(spot.price_per_gpu_hour, r.currency),
            spot_monthly=money(spot.monthly, r.currency),
            od=money(od.price_per_gpu_hour, r.currency),
        )
        return
    if not hours_stated and be is not None and be <= 730:
        # buying that pays only at 12+ busy hours a day is a card run round the clock: the verdict is to rent
        near_always_on = od.break_even_hours_per_day >= 12
        w.say(
            "tco_verdict_occasional"
            if occasional
            else ("tco_verdict_threshold_rent" if near_always_on else "tco_verdict_threshold"),
            n=rent_n if occasional else r.num_gpus,
            gpu=rent_gpu if occasional else r.gpu,
            hours=be,
            per_day=od.break_even_hours_per_day,
            rate=money(od.price_per_gpu_hour, r.currency),
            upfront=money(r.upfront, r.currency),
            where=where,
        )
        return
    key = "tco_verdict_buy" if r.buy_total < od.total else "tco_verdict_rent"
    rents = key == "tco_verdict_rent"
    w.say(
        key,
        n=rent_n if rents else r.num_gpus,
        gpu=rent_gpu if rents else r.gpu,
        hours=r.busy_hours_per_month,
        months=r.horizon_months,
        rent_monthly=money(od.monthly, r.currency),
        rent_total=money(od.total, r.currency),
        buy_total=money(r.buy_total, r.currency),
        buy_monthly=money(r.buy_monthly_equivalent, r.currency),  # each way a month: what the user budgets in
        upfront=money(r.upfront, r.currency),
        be=be_text,
        rate=money(od.price_per_gpu_hour, r.currency),
        where=where,
    )


def tco_lines(
    w: Writer, r: TcoResult, hours_stated: bool = True, restartable: bool = False, occasional: bool = False
) -> None:
    verdict(w, r, hours_stated, restartable, occasional)
    cur = r.currency
    lines = [
        w.t(
            "cost_line",
            upfront=money(r.upfront, cur),
            n=r.num_gpus,
            each=money(r.gpu_price_each, cur),
            host=money(r.host_cost, cur),
            buy_total=money(r.buy_total, cur),
            power=money(r.power_monthly, cur),
            resale=money(r.resale_value, cur),
        )
    ]
    for o in r.rent:
        be = o.break_even_hours_per_month
        be_text = w.t("break_even", hours=be) if be is not None and be <= 730 else w.t("never")
        lines.append(
            w.t(
                "rent_line",
                kind=tool_label("rent_kind", o.kind, w.lang),
                rate=money(o.price_per_gpu_hour, cur),
                monthly=money(o.monthly, cur),
                total=money(o.total, cur),
                be=be_text,
            )
        )
    w.add("\n".join(lines))
    w.say("cheapest", option=w.label("option_label", r.cheapest))
    w.bullets("assumptions_head", render_all(r.assumptions, w.lang), limit=5)
    w.bullets("warnings_head", render_all(r.warnings, w.lang))


def _stand_in(ctx: PlanContext, gid: str, count: int) -> dict[str, Any]:
    """A card with no rental on record (a DGX Spark, a Mac, a new consumer card) is weighed against renting the
    cheapest card that runs the same job: the one that holds the named model, else the cheapest with at least its
    memory (one card when one is listed, else several). Nothing when the card itself rents."""
    s = ctx.scenario
    cur = s.currency or "USD"
    own = rent_providers(RentRequest(gpu=gid, num_gpus=count, currency=cur))
    if own.offers and not own.cross_market:
        return {}  # rented in the user's market
    card = resolve_gpu(gid)[0]
    if own.offers and own.cross_market:
        # rented only in the other market: its local twin (the same chip, A800 for an A100) stands in. A datacenter
        # card with no twin keeps its own converted price (an H100 rents worldwide at like prices; an A800 merely has
        # its memory and is slower); a consumer card rented only on the other market's platforms (a 5090 on AutoDL,
        # out of reach from abroad) is weighed on the local card that does its job, below
        if own.twins:
            twin = min(own.twins, key=lambda o: o.price_per_hour)
            ctx.notes.append(note("rent_twin", asked=card.name, twin=twin.gpu))
            return {"rent_gpu": twin.gpu_id, "rent_num_gpus": twin.num_gpus}
        if card.segment == "datacenter":
            return {}
    offer = None
    # a datacenter card bought for a server (an H20 run 7x24) is weighed against renting datacenter cards, not the
    # consumer cards that happen to hold the model cheapest
    same_class = (lambda o: resolve_gpu(o.gpu_id)[0].segment == "datacenter") if card.segment == "datacenter" else None
    if s.model or s.params_b:
        ref: dict[str, Any] = {"model": s.model} if s.model else {"params_b": s.params_b}
        mode = s.mode if s.mode in ("inference", "full", "lora", "qlora") else "inference"
        try:
            offers = rent_providers(RentRequest(**ref, mode=mode, currency=cur, limit=20)).offers
            offer = next((o for o in offers if same_class is None or same_class(o)), None)
        except AdvisorError:
            offer = None
    if offer is None:
        single = [o for o in own.alternatives if o.num_gpus == 1]
        offer = min(single, key=lambda o: o.price_per_hour) if single else next(iter(own.alternatives), None)
    if offer is None:
        return {}
    ctx.notes.append(
        note("tco_stand_in", gpu=card.name, n=offer.num_gpus, alt=offer.gpu, gib=card.vram_gib * count)
        if not (s.model or s.params_b)
        else note("tco_stand_in_model", gpu=card.name, n=offer.num_gpus, alt=offer.gpu)
    )
    return {"rent_gpu": offer.gpu_id, "rent_num_gpus": offer.num_gpus}


def _rent_side(ctx: PlanContext, gid: str, count: int) -> None:
    """A card with no purchase price on record (A800, H800): where it rents and, for a month kept up or the user's
    hours, what that costs, so the answer has the half of buy-vs-rent that can be priced."""
    s = ctx.scenario
    args: dict[str, Any] = {"gpu": gid, "num_gpus": count, "currency": s.currency or "USD", "limit": 3}
    month = s.horizon_years is not None and abs(s.horizon_years - 1 / 12) < 0.01
    if month or ctx.parsed.hosted_all_month:
        args["hours"] = tco_defaults()["hours_per_month"]  # a month of rent is the cards kept up all month
    elif s.utilization:
        args["hours"] = round(s.utilization * tco_defaults()["hours_per_month"], 1)
    ctx.add("rent_where", ToolName.RENT_PROVIDERS, **args)


def _first_card_question(parsed: ParsedQuery) -> bool:
    """Buy vs rent asked by one person with nothing named: a first 24 GB card answers it. A team's cards depend on
    its workload (ask which), and "how do I save when renting?" is a how-to the guides answer."""
    if parsed.buy_or_rent == "buy" or parsed.persona in ("team", "company"):
        return False
    return not (parsed.advice and parsed.buy_or_rent == "rent")


def _trains_on_rent(turn: Turn) -> bool:
    """A training job where renting stays on the table (the verdict is not to buy): a rented instance can be
    restarted or reclaimed mid-run, so the answer says how not to lose the run (no rental listing says it here)."""
    p = turn.parsed
    if not (p.focus == "training" or any(j != "inference" for j in p.jobs)) or turn.results(RentResult):
        return False
    for out in turn.outcomes:
        r = out.result
        if out.call.owner == "cost" and isinstance(r, TcoResult):
            od = next((o for o in r.rent if o.kind == "on_demand"), None)
            if od is not None and ("utilization" not in out.call.args or od.total <= r.buy_total):
                return True
    return False


class Cost(Capability):
    intent = "cost"
    owns = (ToolName.CALCULATE_TCO,)
    scenario_fields: ClassVar[dict[ToolName, dict[str, str]]] = {
        ToolName.CALCULATE_TCO: {
            "gpu": "gpu",
            "num_gpus": "num_gpus",
            "currency": "currency",
            "horizon_years": "horizon_years",
            "utilization": "utilization",
            "electricity_price_per_kwh": "electricity_price",
            "gpu_price": "gpu_price",
            "cloud_price_per_gpu_hour": "cloud_price",
        }
    }
    guides_topic = "cloud cost buy vs rent break-even"

    def plan(self, ctx: PlanContext) -> None:
        s, parsed = ctx.scenario, ctx.parsed
        names = parsed.gpu_mentions or ([s.gpu] if s.gpu else [])
        if not names:
            # "what to rent for $500 a month", "buy what for Qwen2.5-72B": which card first; "租云 GPU 跑满血 R1，有什么
            # 推荐" asks where the model rents, not for a ranked purchase
            picks = "recommend" in ctx.intents and parsed.buy_or_rent != "rent"
            budgeted = s.budget or s.monthly_budget or picks
            serving = s.users or s.serving or (s.batch or 1) > 1  # users to serve: which card, at what speed each
            # used now and then ("预算2w，偶尔微调一下7B，租还是买"): below ~100 h a month renting wins (advice.md §6),
            # so where it rents and from how many hours owning pays lead, whatever the budget
            occasional = parsed.occasional_use and parsed.buy_or_rent != "buy" and not serving
            if ctx.has_model and (occasional or not (budgeted or serving or parsed.buy_or_rent == "buy")):
                # "the lowest cost way to run Grok-1", "is it cheaper to rent for Qwen2.5-72B?": where the model's
                # memory rents cheapest, and from how many hours a month owning that card would pay
                ctx.hand_over(self.intent, "rent_where")
            elif ctx.has_model:
                ctx.delegate("recommend")  # "buy what for Qwen2.5-72B": which GPUs first
            elif _first_card_question(parsed):
                # "不经常用的话云还是比买显卡便宜", "buying a workstation vs the cloud?" with no card or model: what a
                # first (24 GB) card rents for, and from how many hours a month owning it pays
                ctx.hand_over(self.intent, "rent_where")
            else:
                ctx.need("need_gpu")
            return
        if is_job_question(ctx):
            plan_job(ctx, self.intent, names)  # "$0.0525/minute: what will this fine-tune cost?"
            return
        rented = parsed.rented_gpu if parsed.rented_gpu in names and len(names) == 2 else None
        for gid in names:
            if gid == rented:
                continue  # "a DGX Spark or rent an H100": one comparison, the bought card against the rented one
            count = parsed.gpu_counts.get(gid) or (s.num_gpus if gid == s.gpu and s.num_gpus else 1)
            args = self._args(ctx, gid, count, len(names) - bool(rented))
            if rented:
                args |= {"rent_gpu": rented, "rent_num_gpus": parsed.gpu_counts.get(rented) or 1}
            if "gpu_price" not in args and not has_purchase_price(gid, s.currency):
                # say what to give instead of showing the tool's error
                ctx.notes.append(note("tco_needs_price", gpu=resolve_gpu(gid)[0].name))
                _rent_side(ctx, gid, count)  # "租 8 卡 A800 一个月多少钱，跟买比呢": the renting side still has prices
                continue
            if not rented and "cloud_price_per_gpu_hour" not in args:
                args |= _stand_in(ctx, gid, count)  # "buy a DGX Spark or rent?": no rental of it on record
            ctx.add(self.intent, ToolName.CALCULATE_TCO, **args)

    @staticmethod
    def _args(ctx: PlanContext, gid: str, count: int, named: int) -> dict[str, Any]:
        s = ctx.scenario
        tco: dict[str, Any] = {"gpu": gid, "num_gpus": count, "currency": s.currency}
        if s.horizon_years:
            tco["horizon_years"] = s.horizon_years
        if s.utilization:
            tco["utilization"] = s.utilization
        if s.electricity_price is not None:
            tco["electricity_price_per_kwh"] = s.electricity_price
        if s.gpu_price and (gid == s.gpu or named == 1):
            tco["gpu_price"] = s.gpu_price
        if s.cloud_price and (gid == s.gpu or named == 1):
            tco["cloud_price_per_gpu_hour"] = s.cloud_price  # "AutoDL 上 1.88 元一小时": the user's own rate
        return tco

    def second_round(self, plan: Plan, outcomes: list[Outcome]) -> list[ToolCall]:
        return job_calls(plan, outcomes, self.intent)  # a training job's hours, priced

    def active(self, turn: Turn) -> bool:
        # Nothing computed (no price to compare, or handed to recommend): the answer does not lead with cost.
        return turn.owns_any(self.intent)

    def phase(self, turn: Turn) -> int:
        """First when buying or renting was asked first ("buy a 4090 or rent one, for LoRA on 7B?"): the verdict
        at the user's hours leads, whether the job fits the card follows."""
        first = turn.plan.intents[:1] == [self.intent] and turn.parsed.buy_or_rent == "compare"
        # "how long and what will it cost": the run's hours and price in one sentence lead (advice.md §9), unless
        # the question is how many of the card ("how many H100s ... efficient in time and cost"): the count leads
        job_first = job_speeds(turn, self.intent) and not turn.parsed.asks_gpu_count
        return -2 if first or job_first else self.render_phase

    def render(self, w: Writer, turn: Turn) -> None:
        job_lines(w, turn, self.intent)
        for o in turn.outcomes:
            if o.call.owner == self.intent and isinstance(o.result, TcoResult):
                stated = "utilization" in o.call.args  # the user's hours, or a 50% default
                tco_lines(w, o.result, stated, turn.parsed.interruptible, turn.parsed.occasional_use)
        if _trains_on_rent(turn):
            w.bullets(
                "rent_tips_head", [note("rent_tip_checkpoint").render(w.lang), note("rent_tip_shutdown").render(w.lang)]
            )

    def summary(self, tool: ToolName, result: BaseModel, lang: str) -> str:
        if not isinstance(result, TcoResult):
            return str(tool)
        return f"buy {result.buy_total} {result.currency} vs rent; cheapest: {result.cheapest}"
