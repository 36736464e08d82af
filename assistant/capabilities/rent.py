"""Where to rent: the cheapest dated offers for a card, for a model, or for a first 24 GB card, with what each
provider bills and keeps, free tiers, how not to lose work, and from how many hours a month buying pays.

"where can I rent an A100 cheaply", "求推荐租用 GPU 的网站", "租云 GPU 跑 Grok-1 有什么推荐", "which EC2 instance
for dolphin-mixtral": rent_providers (tools/rent.py) over knowledge/data/prices.yaml and rental_providers.yaml.
A card one can buy gets calculate_tco too, so the answer says when owning starts to pay (cost.verdict).
"""

from __future__ import annotations

import re
from typing import Any, ClassVar

from pydantic import BaseModel

from assistant.capabilities.base import Capability, Outcome, Plan, PlanContext, ToolCall, Turn
from assistant.capabilities.cost import verdict as tco_verdict
from assistant.capabilities.job_cost import PRETRAIN_CARDS, is_job_question, job_calls, job_lines, job_speeds, plan_job
from assistant.capabilities.keep_local import keep_local_lead, owned_card, plan_owned
from assistant.capabilities.rent_free import FREE_CARD, free_lead, plan_free
from assistant.capabilities.rent_quote import quote_text, quoted_provider
from assistant.capabilities.rent_resume import plan_resume, resume_lines
from assistant.capabilities.rent_share import share_text, sharers, speed_call
from assistant.capabilities.rent_together import largest, plan_sizes
from assistant.capabilities.workload import workload_args
from assistant.scenario import Scenario
from assistant.strings import Writer
from assistant.toolset import ToolName
from tools.notes import Note, money, render_all
from tools.rent import RentOffer, RentRequest, RentResult, best_rent_precision, provider_facts, rent_providers
from tools.tco import TcoResult, has_purchase_price
from tools.vram import VramResult

_FIRST_CARD_GIB = 20.0  # nothing named: a 24 GB-class card, what most people rent first (holds 32B at 4-bit)
_SHOWN = 4  # offers listed under the lead
_MONTH_HOURS = 730
_CONTEXT = 8192  # a rented server's context when none is said: what rent_providers sizes for too


def _model_label(vram: VramResult) -> str:
    """The model as the answer names it, with its size ("Grok-1 (314B)"): the size is what decides the rental."""
    from tools.errors import AdvisorError
    from tools.models import resolve_model

    try:
        arch, _ = resolve_model(vram.model)
        size = arch.official_params_b or vram.params_b
    except AdvisorError:
        size = vram.params_b
    if re.search(r"\d+(?:\.\d+)?[bm](?![a-z])", vram.model, re.I):
        return vram.model  # "Qwen2.5-7B", "GPT-2 (124M)" say their size already
    if size < 0.95:  # "MiniMind2-Small (26M)", "Qwen3-0.6B" stays in billions when it says so itself
        return f"{vram.model} ({size * 1000:.0f}M)"
    return f"{vram.model} ({size:.0f}B)" if size >= 10 else f"{vram.model} ({size:.1f}B)"


def _context_for(model: str | None) -> int:
    """A rented server's context: 8k, or the model's whole window when it is shorter (GPT-3's 2,048)."""
    from tools.errors import AdvisorError
    from tools.models import resolve_model

    try:
        window = resolve_model(model)[0].max_context if model else None
    except AdvisorError:
        window = None
    return min(_CONTEXT, window) if window else _CONTEXT


def _cheapest_card_for(s: Scenario) -> list[str]:
    """The card of the cheapest dated rental that holds the scenario's training job (plan time: a pure function)."""
    ref: dict[str, Any] = {"model": s.model} if s.model else {"params_b": s.params_b}
    found = rent_providers(
        RentRequest(**ref, mode=s.mode or "lora", currency=s.currency or "USD", provider=s.rent_provider, limit=1)
    )
    if not found.offers:
        return []
    s.num_gpus = found.offers[0].num_gpus
    return [found.offers[0].gpu_id]


def _tco_args(s: Scenario, gid: str, count: int, currency: str) -> dict[str, Any]:
    """Buy vs rent for the card: at the user's hours when they said them (24/7, "每天 4 小时")."""
    args: dict[str, Any] = {"gpu": gid, "num_gpus": count, "currency": currency}
    if s.utilization:
        args["utilization"] = s.utilization
    return args


def _base_args(s: Scenario) -> dict[str, Any]:
    """The currency, and a service's hours: kept up all month, the offers carry their monthly cost."""
    args: dict[str, Any] = {"currency": s.currency or "USD"}
    if s.serving or s.requests_per_day or (s.utilization or 0) >= 1 or s.shared_by:
        args["hours"] = _MONTH_HOURS
    elif s.horizon_years and s.horizon_years <= 1 and s.utilization is None:
        # "一年多少钱", "what would it cost per year": a deployment kept up for the year asked, hours unsaid
        args["hours"] = round(_MONTH_HOURS * 12 * s.horizon_years)
    if s.shared_by and s.shared_by > 1:
        args["shared_by"] = s.shared_by  # people who split it: each one's month
    return args


class Rent(Capability):
    intent = "rent_where"
    owns = (ToolName.RENT_PROVIDERS,)
    scenario_fields: ClassVar[dict[ToolName, dict[str, str]]] = {
        ToolName.RENT_PROVIDERS: {"gpu": "gpu", "num_gpus": "num_gpus", "currency": "currency", "model": "model"}
    }
    guides_topic = "cloud GPU rental providers billing spot checkpoint storage"

    def _job_cards(self, ctx: PlanContext, currency: str) -> list[str]:
        """The cards a training job with no card named is priced on."""
        if ctx.parsed.rent_ask == "free":
            # "train a small GPT-2 without paying for a GPU": the run timed on the free tiers' card, the tiers first
            ctx.add(self.intent, ToolName.RENT_PROVIDERS, gpu=FREE_CARD, currency=currency, limit=1)
            return [FREE_CARD]
        # "what does pretraining a 1B model cost?": on a rented datacenter card and on a consumer one;
        # "微调 Qwen2.5-7B 租卡要花多少钱": on the cheapest rental that holds it, and on the datacenter card such runs
        # are usually rented and published on ("how long does it take to train Vicuna-7B, and on what GPUs?": the
        # A100 hours an expert quotes beside the cheapest card; the cheaper whole run still leads, job_lines)
        if ctx.parsed.pretrain:
            return list(PRETRAIN_CARDS)
        cards = _cheapest_card_for(ctx.scenario)
        return [*cards, PRETRAIN_CARDS[0]] if cards and PRETRAIN_CARDS[0] not in cards else cards

    def plan(self, ctx: PlanContext) -> None:
        s, parsed = ctx.scenario, ctx.parsed
        if plan_resume(ctx, self.intent, s.currency or "USD"):
            return  # "my Colab session died and I lost training": resume from a checkpoint kept where it survives
        sharers(ctx)  # "10人合伙": the month split between them
        named = next((p for p in parsed.rent_providers if provider_facts()[p].kind != "free_tier"), None)
        # "GCP gives it for $4/hr, which provider is best?": the quoted provider is what to beat, not the filter
        # ("cheaper than AWS, GCP, Azure", "除了阿里云"): the providers named are a reference too
        elsewhere = quoted_provider(ctx) or parsed.rent_ask == "elsewhere"
        s.rent_provider = None if elsewhere else (named or s.rent_provider)
        base, provider = _base_args(_hosted(ctx)), s.rent_provider
        others = _named_args(ctx, base, bool(elsewhere))
        names = parsed.gpu_mentions or ([s.gpu] if s.gpu and not ctx.has_model else [])
        # "Colab Pro+ 太贵了" about a model: the tier's own GPU is not the card to rent; what holds the model is
        tier = any(isinstance(n, Note) and n.code.startswith("notebook_tier") for n in parsed.notes)
        names = [] if tier and ctx.has_model else names
        if is_job_question(ctx) and not names:
            names = self._job_cards(ctx, base["currency"])
        if names and is_job_question(ctx):
            plan_job(ctx, self.intent, names)  # "租一张 4090 微调 Qwen2.5-7B 要花多少钱": the job, priced
            return
        owned = owned_card(parsed)
        if owned and names:
            plan_owned(ctx, owned)  # "my 3080, or move to a cloud L4?": what the owned card runs; it is not rented
            names = [g for g in names if g != owned]
        if names:
            for gid in names:
                count = parsed.gpu_counts.get(gid) or (s.num_gpus if gid == s.gpu and s.num_gpus else 1)
                self._add(ctx, base | {"gpu": gid, "num_gpus": count}, provider, others)
                if has_purchase_price(gid, base["currency"]) and not provider:
                    self._tco(ctx, gid, count)
            speed = speed_call(s, names[0], parsed.gpu_counts.get(names[0]) or s.num_gpus or 1, None, self.intent)
            if speed is not None and ctx.has_model:  # "租 4 张 3090 给 10 个人同时用": each one's speed
                ctx.add(self.intent, ToolName.ESTIMATE_SPEED, **speed.args)
            return
        ctx.second_round.append(self.intent)
        if ctx.has_model:
            # the model's memory first (at the format a rented server runs it in), then where that memory rents
            job = workload_args(s)
            # one person's rented server: 8k; a service for many users keeps the serving context workload_args
            # gave (one context per answer: the purchase and memory parts size the same 4k conversations)
            serving = s.serving or s.users or (job.get("batch") or 1) > 1
            if job["mode"] == "inference" and not s.context_tokens and not serving:
                job["context_tokens"] = _context_for(s.model)  # a training job keeps the estimator's sequence length
            cur = s.currency or "USD"
            biggest = largest(parsed.models_mentioned) if parsed.rent_ask == "together" else None
            model = biggest or s.model  # several models on one server: the format chosen for the biggest
            precision = s.precision or best_rent_precision(model, s.params_b, job["mode"], cur, s.rent_provider)
            if precision:
                job["precision"] = precision
            plan_sizes(ctx, self.intent, job)  # "同时跑 7B 和 14B": each model, the rental holds their sum
            return
        self._add(ctx, base | {"need_gib": _FIRST_CARD_GIB}, provider, others)  # then: when owning it pays
        plan_free(ctx, self.intent, base["currency"])  # "有没有免费的GPU": the free tiers' card, for their list

    def _add(self, ctx: PlanContext, args: dict[str, Any], provider: str | None, others: list[str] = ()) -> None:
        if provider:
            for name in [provider, *others]:
                ctx.add(self.intent, ToolName.RENT_PROVIDERS, **args, provider=name)
            args = args | {"limit": 3}  # and the cheaper places elsewhere
        ctx.add(self.intent, ToolName.RENT_PROVIDERS, **args)

    def _tco(self, ctx: PlanContext, gid: str, count: int) -> None:
        s = ctx.scenario
        ctx.add(self.intent, ToolName.CALCULATE_TCO, **_tco_args(s, gid, count, s.currency or "USD"))

    def second_round(self, plan: Plan, outcomes: list[Outcome]) -> list[ToolCall]:
        """Where the model's memory rents (after estimate_vram); for the first card listed when nothing was
        named, the buy-vs-rent threshold."""
        sized = [o for o in outcomes if o.call.serves(self.intent) and isinstance(o.result, VramResult)]
        if sized:
            return self._after_memory(plan, sized)
        jobs = job_calls(plan, outcomes, self.intent)
        if jobs:
            return jobs
        for o in outcomes:
            if o.call.owner == self.intent and isinstance(o.result, RentResult) and o.result.offers:
                first = o.result.offers[0]
                cur = o.result.currency
                if has_purchase_price(first.gpu_id, cur):
                    args = _tco_args(plan.scenario, first.gpu_id, first.num_gpus, cur)
                    return [ToolCall(name=ToolName.CALCULATE_TCO, args=args, owner=self.intent)]
        return []

    def _after_memory(self, plan: Plan, sized: list[Outcome]) -> list[ToolCall]:
        vrams = [o.result for o in sized if isinstance(o.result, VramResult)]
        vram = vrams[0]
        s = plan.scenario
        # several models on one server ("同时跑 7B 和 14B"): each keeps its own weights and cache, the rental their sum
        label = " + ".join(_model_label(v) for v in vrams)
        need = round(sum(v.total_gib for v in vrams), 2)
        args = _base_args(s) | {"need_gib": need, "model": label, "precision": vram.precision}
        calls = []
        if s.rent_provider:
            calls.append(
                ToolCall(name=ToolName.RENT_PROVIDERS, args=args | {"provider": s.rent_provider}, owner=self.intent)
            )
            args = args | {"limit": 3}
        calls.append(ToolCall(name=ToolName.RENT_PROVIDERS, args=args, owner=self.intent))
        # the card that leads (rent_providers is a pure function: ask it now) may be one people buy: from how
        # many hours a month owning it pays
        first = next(iter(rent_providers(RentRequest(**args)).offers), None)
        speed = speed_call(s, first.gpu_id, first.num_gpus, vram, self.intent) if first is not None else None
        if speed is not None:
            calls.append(speed)  # several people at once on it: each one's speed
        # a purchase answered by the recommendation weighs buying and renting itself: a second verdict on another
        # card ("buying 4 x 3090 pays above 265 hours") would tell another story beside its pick
        recommended = any(c.name == ToolName.RECOMMEND_GPUS for c in plan.calls)
        if (
            first is not None
            and not s.rent_provider
            and not recommended
            and has_purchase_price(first.gpu_id, args["currency"])
        ):
            tco = _tco_args(s, first.gpu_id, first.num_gpus, args["currency"])
            calls.append(ToolCall(name=ToolName.CALCULATE_TCO, args=tco, owner=self.intent))
        return calls

    def records(self, tool: ToolName) -> bool:
        return tool == ToolName.RENT_PROVIDERS

    def kept_args(self, tool: str, args: dict[str, Any]) -> dict[str, Any]:
        """A training run priced on cards we chose still is the user's job: its model, method and dataset outlive
        the example cards ("租卡微调 Qwen2.5-7B 要多少钱" then "一张4090能训吗": that fine-tune on a 4090)."""
        if tool != ToolName.ESTIMATE_SPEED or args.get("mode") != "training":
            return {}
        keys = ("model", "params_b", "method", "dataset_samples", "sample_tokens", "epochs")
        return {k: args[k] for k in keys if k in args}

    def phase(self, turn: Turn) -> int:
        """First when the price was asked before the sizing ("what does fine-tuning X cost?": the hourly price of
        the card it needs leads, the memory per method backs it)."""
        if owned_card(turn.parsed):
            return -3  # keep the owned card or rent: the verdict leads, what each card runs follows
        if turn.parsed.asks_time and turn.parsed.rent_providers and job_speeds(turn, self.intent):
            return -2  # "how long on a RunPod A100?": the run's hours at that provider's price answer it
        order = turn.plan.intents
        if "memory" in order and self.intent in order and order.index(self.intent) < order.index("memory"):
            return -2
        return self.render_phase

    def render(self, w: Writer, turn: Turn) -> None:
        if resume_lines(w, turn, self.intent):
            return
        if job_speeds(turn, self.intent):
            free_lead(w, turn, turn.own(self.intent, RentResult))  # asked for free GPUs: the tiers lead the run
            job_lines(w, turn, self.intent)  # a training job priced where it rents
            return
        owned = owned_card(turn.parsed)
        if owned:
            keep_local_lead(w, turn, owned)
        results = free_lead(w, turn, turn.own(self.intent, RentResult))  # free tiers first when asked for
        filtered = [r for r in results if r.provider]
        everywhere = [r for r in results if not r.provider]
        tcos = turn.own(self.intent, TcoResult)
        parsed = turn.parsed
        hours_stated = turn.plan.scenario.utilization is not None
        sized = next(iter(turn.own(self.intent, VramResult)), None)
        job = sized.mode if sized is not None and sized.mode != "inference" else None
        # "buy or rent?" with no hours said (and not "now and then"): the hours decide, so the threshold leads
        weighs = parsed.buy_or_rent == "compare" and not hours_stated and not parsed.occasional_use
        for i, r in enumerate(filtered or everywhere):
            extra = [share_text(w, turn, self.intent, r), quote_text(w, turn, r)] if i == 0 else []
            share = ("" if w.lang == "zh" else " ").join(x for x in extra if x)
            rent_lines(w, r, tcos, hours_stated, weighs, job, share)
        if filtered and everywhere:
            _elsewhere(w, everywhere[0], filtered[0])
        lead = (filtered or everywhere or [None])[0]
        for t in tcos:
            if not (lead and _tco_for(lead, [t])):  # a card the lead did not state the threshold for
                tco_verdict(w, t, hours_stated=False)
        if results:
            r = results[0]
            w.bullets("rent_tips_head", render_all(r.tips, w.lang))
            w.bullets("assumptions_head", render_all(r.assumptions, w.lang), limit=3)
            w.bullets("warnings_head", render_all(r.warnings, w.lang))

    def summary(self, tool: ToolName, result: BaseModel, lang: str) -> str:
        if not isinstance(result, RentResult):
            return str(tool)
        first = (result.offers or result.alternatives or [None])[0]
        if first is None:
            return "no rental on record"
        return f"{first.provider}: {first.num_gpus}x {first.gpu} {first.price_per_hour:g} {result.currency}/h"


def _hosted(ctx: PlanContext) -> Scenario:
    """The scenario, with a service's hours: "the monthly cost to host it" is up every hour of the month."""
    s = ctx.scenario
    if ctx.parsed.hosted_all_month and s.utilization is None:
        s.utilization = 1.0
    return s


def _named_args(ctx: PlanContext, base: dict[str, Any], elsewhere: bool) -> list[str]:
    """What the words around the providers add to every rent call (into `base`), and the other paid providers
    named, each to get its own list ("AutoDL 还是 恒源云")."""
    parsed, s = ctx.parsed, ctx.scenario
    if parsed.measured_hours and "hours" not in base and not s.serving:
        base["hours"] = parsed.measured_hours  # "it takes ~75 hours on one A100": each offer prices that run
    paid = [p for p in parsed.rent_providers if provider_facts()[p].kind != "free_tier"]
    if parsed.rent_ask == "elsewhere" and paid:
        base["exclude"] = paid  # "AutoDL 老是没卡，还有哪些平台": the platform named is left out of the list
    return [] if elsewhere else paid[1:]


def _tco_for(r: RentResult, tcos: list[TcoResult]) -> TcoResult | None:
    """The buy-vs-rent result for the card the rent list leads with, if one was computed."""
    first = (r.offers or r.alternatives or [None])[0]
    if first is None:
        return None
    return next((t for t in tcos if t.gpu == first.gpu and t.num_gpus == first.num_gpus), None)


def _until(w: Writer, tco: TcoResult | None) -> str:
    """The lead's condition: renting wins until the busy hours a month at which owning the card pays."""
    od = next((o for o in tco.rent if o.kind == "on_demand"), None) if tco else None
    if tco is None or od is None:
        return ""
    be = od.break_even_hours_per_month
    if be is None or be > _MONTH_HOURS:
        return w.t("rent_until_never")
    return w.t("rent_until", hours=be, per_day=od.break_even_hours_per_day, upfront=money(tco.upfront, tco.currency))


def _od(tco: TcoResult) -> Any:
    """The on-demand rental the buy-vs-rent result priced, if any."""
    return next((o for o in tco.rent if o.kind == "on_demand"), None)


def _threshold(tco: TcoResult | None) -> dict[str, Any]:
    """The busy hours a month from which owning the card pays, a day's share and the money up front (empty when
    owning never pays)."""
    od = next((o for o in tco.rent if o.kind == "on_demand"), None) if tco else None
    if tco is None or od is None or od.break_even_hours_per_month is None:
        return {}
    if od.break_even_hours_per_month > _MONTH_HOURS:
        return {}
    return {
        "hours": od.break_even_hours_per_month,
        "per_day": od.break_even_hours_per_day,
        "upfront": money(tco.upfront, tco.currency),
    }


def rent_lines(
    w: Writer,
    r: RentResult,
    tcos: list[TcoResult] | None = None,
    hours_stated: bool = False,
    weighs: bool = False,
    job: str | None = None,
    share: str = "",
) -> None:
    """The cheapest offer leads (with its date and, for a card people buy, the hours from which owning pays),
    then the next few, interruptible capacity and free tiers. `weighs`: buying is weighed against renting with no
    hours said, so the hours from which owning pays lead."""
    offers = r.offers or r.alternatives
    if not offers:
        _no_offer(w, r)
        return
    first = offers[0]
    tco = _tco_for(r, tcos or [])
    fields = _fields(w, first, r) | {"until": _until(w, tco)}
    if job and fields["precision"]:  # "what does fine-tuning X cost": the job the memory was sized for
        fields["precision"] = w.t("rent_job_format", format=fields["precision"], method=w.label("method", job))
    if tco is not None and hours_stated and (tco.cheapest == "buy" or (r.offers and _od(tco) is not None)):
        _at_your_hours(w, r, tco, fields)
    elif weighs and r.offers and not r.gpu and _threshold(tco):
        key = "rent_lead_need_depends" if r.model and r.need_gib else "rent_lead_depends"
        w.say(key, need=r.need_gib or 0, **(fields | _threshold(tco)))
    elif r.twins and r.cross_market:
        # "哪里租A100便宜": Chinese platforms rent the same chip as the A800; it leads, the overseas A100s follow
        w.say("rent_lead_twin", asked=r.gpu, **_fields(w, r.twins[0], r))
        offers = [r.twins[0], *offers]
    elif not r.offers:
        w.say("rent_lead_alternative", asked=r.gpu, **fields)
    elif r.provider and r.model and r.need_gib:
        # "what size EC2 instance": the card's memory beside the need, so the reader sees why that instance
        w.say("rent_lead_provider", need=r.need_gib, offering=first.offering, vram=first.memory_gib, **fields)
    elif r.gpu:
        w.say("rent_lead_gpu", **fields)
    else:  # a model's memory, or a first 24 GB card when nothing was named
        w.say("rent_lead_need" if r.model and r.need_gib else "rent_lead_first_card", need=r.need_gib or 0, **fields)
    if share:
        w.add(share)  # each one's speed and month when several use it: what a group decides on
    lines = [w.t("rent_offer_line", **_fields(w, o, r)) for o in offers[1:_SHOWN]]
    lines += [w.t("rent_spot_line", **_fields(w, spot, r)) for spot in [r.spot] if spot]
    lines += [
        w.t("rent_free_line", name=f.name, gpus=", ".join(f.gpus), limits=f.limits.get(w.lang) if f.limits else "")
        for f in r.free_tiers
    ]
    if lines:
        w.add("\n".join(lines))
    facts = [
        w.t("rent_fact_line", provider=o.provider, fact=o.storage.get(w.lang)) for o in _distinct(offers) if o.storage
    ]
    facts += [w.t("rent_connect_line", provider=f.name, fact=f.connect.get(w.lang)) for f in r.named if f.connect]
    if facts:
        w.add("\n".join(facts))


def _no_offer(w: Writer, r: RentResult) -> None:
    """No offer to list: a provider with no dated price says so with what it bills and keeps ("恒源云多少钱一小时";
    the dated offers elsewhere follow), else nothing on record holds it."""
    unpriced = next((f for f in r.named if f.name == r.provider and f.price == "unconfirmed"), None)
    if unpriced is None:
        w.say("rent_none")
        return
    facts = [x.get(w.lang) for x in (unpriced.storage, unpriced.persist, unpriced.connect) if x is not None]
    w.say("rent_unpriced", provider=unpriced.name, facts=("；" if w.lang == "zh" else "; ").join(facts))


def _at_your_hours(w: Writer, r: RentResult, tco: TcoResult, fields: dict[str, Any]) -> None:
    """The lead at the hours the user said: owning wins ("24/7 on a cloud GPU": say so first, then where it rents),
    or renting does ("rent or buy for Llama 3 70B, ~5 h a day"): each way's monthly cost, and from when owning pays.
    With a model, its memory first: it is what decides the card."""
    sized = bool(r.model and r.need_gib)
    od = _od(tco)
    # only interruptible capacity undercuts owning ("租4090一个月": spot at ¥1.31 can be reclaimed mid-month): against
    # the on-demand price a service runs on, owning still wins
    if tco.cheapest == "buy" or (od is not None and od.monthly > tco.buy_monthly_equivalent):
        w.say(
            "rent_lead_need_buy_wins" if sized else "rent_lead_buy_wins",
            need=r.need_gib or 0,
            hours=tco.busy_hours_per_month,
            buy_monthly=money(tco.buy_monthly_equivalent, tco.currency),
            months=tco.horizon_months,
            **fields,
        )
        return
    be = od.break_even_hours_per_month
    w.say(
        "rent_lead_need_rent_wins" if sized else "rent_lead_gpu_rent_wins",
        need=r.need_gib or 0,
        hours=tco.busy_hours_per_month,
        rent_monthly=money(od.monthly, tco.currency),
        buy_monthly=money(tco.buy_monthly_equivalent, tco.currency),
        be=w.t("tco_be_hours", hours=be) if be is not None and be <= _MONTH_HOURS else w.t("tco_be_never"),
        **fields,
    )


def _distinct(offers: list[RentOffer]) -> list[RentOffer]:
    return list({o.provider: o for o in reversed(offers[:_SHOWN])}.values())[::-1]


def _fields(w: Writer, o: RentOffer, r: RentResult) -> dict[str, Any]:
    cur = r.currency
    billing = w.t("rent_billing", billing=w.label("billing", o.billing)) if o.billing else ""
    extra = ""
    if o.job_cost is not None and r.num_gpus and o.job_cost:
        hours = o.job_cost / o.price_per_hour if o.price_per_hour else 0
        key = {_MONTH_HOURS: "rent_monthly", _MONTH_HOURS * 12: "rent_yearly"}.get(round(hours), "rent_job")
        extra = w.t(key, cost=money(o.job_cost, cur), hours=hours)
    listed = "" if o.listed_currency == cur else w.t("rent_listed", price=money(o.listed_price, o.listed_currency))
    return {
        "provider": o.provider,
        "n": o.num_gpus,
        "gpu": o.gpu,
        "price": money(o.price_per_hour, cur),
        "date": o.date,
        "billing": billing,
        "extra": extra,
        "listed": listed,
        "model": r.model or "",
        "precision": w.label("format", r.precision) if r.precision else "",
    }


def _elsewhere(w: Writer, everywhere: RentResult, filtered: RentResult) -> None:
    """A provider the user named (AWS) next to the cheaper places that rent the same memory."""
    best = filtered.offers[0].price_per_hour if filtered.offers else None
    cheaper = [
        o for o in everywhere.offers if o.provider != filtered.provider and (best is None or o.price_per_hour < best)
    ]
    if cheaper:
        items = [w.t("rent_elsewhere_item", **_fields(w, o, everywhere)) for o in cheaper[:3]]
        key = "rent_elsewhere" if filtered.offers else "rent_elsewhere_dated"  # nothing dated to be cheaper than
        w.say(key, offers=("；" if w.lang == "zh" else "; ").join(items))
