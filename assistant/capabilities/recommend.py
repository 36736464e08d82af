"""Recommend: what to buy or rent for a workload and a budget, answered the way an expert advises.

The policy (budget truth, one card before a rig, the cheapest way that works, renting priced for the
user's hours) lives in tools/recommend.py and tools/advice.py; this module turns the question into the
tool's arguments and writes the verdict first, then the alternatives and what each gives up.
"""

from __future__ import annotations

from typing import Any, ClassVar

from pydantic import BaseModel

from assistant.capabilities.base import Capability, PlanContext, Turn
from assistant.capabilities.memory import TOPICS as MEMORY_TOPICS
from assistant.capabilities.workload import workload_args
from assistant.scenario import Scenario
from assistant.strings import Writer
from assistant.toolset import ToolName
from tools.advice import (
    batch_precision,
    default_purpose,
    is_batch_job,
    local_chat_model,
    persona_from_budget,
    team_shared_people,
    unstated_budget,
)
from tools.models import registry
from tools.notes import Note, money, note
from tools.prices import other_currency_rate, tco_defaults
from tools.recommend import Pick, RecommendResult

_MAX_REASONS = 5  # the verdict's reasons: the way, its cost, the budget, the condition, the stated limit


def recommend_args(ctx: PlanContext) -> dict[str, Any]:
    """The question as the policy's inputs: who asks, the budget and what it covers, where it runs, how
    many cards, the hours rented, the users served."""
    s, parsed = ctx.scenario, ctx.parsed
    rec: dict[str, Any] = {"workload": _workload(ctx), "currency": s.currency, "limit": 5}
    for slot in ("budget", "monthly_budget", "preference", "persona", "users", "horizon_years"):
        if getattr(s, slot) is not None:
            rec[slot] = getattr(s, slot)
    flags = {
        "deployment": s.deployment,
        "rent_alternative": False if s.cloud_excluded else None,
        # users to serve: 16-bit weights, a service that runs around the clock
        # ("100 concurrent users": many conversations at once are a service too, as understanding/focus.py reads it)
        "serving": True if (s.serving or s.users or (s.mode in (None, "inference") and (s.batch or 0) > 2)) else None,
        "min_card_gib": s.min_card_gib or None,
        "budget_includes_host": True if s.budget is not None and s.budget_scope == "machine" else None,
        "require_nvlink": True if parsed.require_nvlink else None,
        "require_ecc": True if parsed.require_ecc else None,
        # a model trained from scratch trains every weight: LoRA / QLoRA adapt one that exists, no cheaper way of it
        "method_flexible": False if parsed.pretrain and s.mode == "full" else None,
    }
    rec |= {key: value for key, value in flags.items() if value is not None}
    if s.utilization is not None:
        rec["hours_per_month"] = round(s.utilization * tco_defaults()["hours_per_month"], 1)
    if parsed.target_tokens_per_s and parsed.measured_tokens_per_s is None and (s.mode or "inference") == "inference":
        rec["min_tokens_per_s"] = parsed.target_tokens_per_s  # "5 tokens/s or more": a requirement of the purchase
    cards = parsed.num_gpus if parsed.num_gpus and not parsed.gpu else s.max_gpus
    if cards:
        rec["max_gpus"] = min(cards, 16)  # "一张卡": a hard limit on the number of cards
    count = parsed.gpu_counts.get(parsed.gpu) if parsed.gpu else parsed.num_gpus
    if parsed.is_followup and count and count > 1:  # "如果用 2 张卡呢": on exactly that many cards, this turn
        rec["num_gpus"] = min(count, 16)  # ("one card" stays the hard limit above: one is also the fewest)
        rec.pop("max_gpus", None)
    if parsed.vendor and not parsed.gpu_mentions:
        rec["vendors"] = [parsed.vendor]  # "which Mac should I buy": among Macs
    if len(parsed.gpu_mentions) > 1:
        rec["gpus"] = parsed.gpu_mentions[:4]  # "买一张4090D还是两张3090": the choice is among the cards named
    elif parsed.gpu and parsed.is_followup:
        rec["gpus"] = [parsed.gpu]  # "如果换成 4090 呢": the same question, constrained to that card
    return rec


def _shared_by(ctx: PlanContext, assumed: bool) -> dict[str, int]:
    """A team's budget with no one job named ("实验室 5 个人共用，预算 5 万", "our lab of 6 has $15k"), or a team's
    fine-tune for its N people: one shared machine for the group, not one person's card. A team that names one
    job ("小团队预算 5 万 LoRA 微调 14B") buys the machine for that job; a service's users are already its load."""
    s, parsed = ctx.scenario, ctx.parsed
    if parsed.shared and (parsed.batch or parsed.users):  # "10人合伙租一台": the rent split between them
        return {"shared_by": parsed.batch or parsed.users}
    if s.persona != "team" or s.budget is None:
        return {}
    if s.shared_by:  # "如果预算 8 万呢": the same group's machine
        return {"shared_by": s.shared_by}
    if not assumed and not (s.users and s.mode not in (None, "inference")):
        return {}
    return {"shared_by": s.users or team_shared_people()}


def _workload(ctx: PlanContext) -> dict[str, Any]:
    """The job to buy for: the context another answer of this turn sized, and no engine set for another card."""
    s = ctx.scenario
    workload = workload_args(s)
    if s.context_tokens is None:
        workload.pop("context_tokens")  # not stated: the policy knows what this job assumes
        sized = _sized_context(ctx, workload)
        if sized:
            workload["context_tokens"] = sized  # one story: the context the memory figure above was sized at
    if workload.get("engine") and not ctx.parsed.engine and ctx.previous.engine != s.engine:
        workload.pop("engine")  # the engine an old card needs (set this turn for it) is not the new card's
    if workload.get("mode", "inference") == "inference" and is_batch_job(s.dataset_samples) and not s.precision:
        # "3万张图片用 8B 多模态模型推理": a batch job over a dataset runs at a service's 16-bit, not a chat's 4-bit
        workload["precision"] = batch_precision()
    return workload


def _sized_context(ctx: PlanContext, workload: dict[str, Any]) -> int | None:
    """The context another answer of this turn already sized the same job at ("33B 要多大显存？推荐配置？")."""
    for call in ctx.calls:
        a = call.args
        same = a.get("model") == workload.get("model") and a.get("params_b") == workload.get("params_b")
        if call.name == ToolName.ESTIMATE_VRAM and same and a.get("mode") == workload.get("mode") and not a.get("gpu"):
            return a.get("context_tokens")
    return None


def _reason_text(w: Writer, notes: list[Note]) -> str:
    stop = "。" if w.lang == "zh" else "."
    sentences = [n.render(w.lang) for n in notes[:_MAX_REASONS]]  # a gives-up fragment may lead a reason too
    sentences = [t if t.endswith(("。", ".", "！", "？", "!", "?")) else t + stop for t in sentences]
    return ("" if w.lang == "zh" else " ").join(sentences)


def _pick_line(w: Writer, p: Pick, verdict: bool = False) -> str:
    """'1 × used RTX 3090 (QLoRA, nf4_dq): 15.3 of 21.6 GiB, ~387 training tokens/s, ¥5,250'. In the verdict a
    rental is not called rented again ("Rent 1 × MI300X", not "Rent 1 × rented MI300X")."""
    cost = pick_cost(w, p)
    speed = ""
    if p.tokens_per_s:
        unit = "rec_speed_training" if p.mode != "inference" else "rec_speed"
        per_user = p.tokens_per_s_per_user if p.tokens_per_s != p.tokens_per_s_per_user else None
        speed = w.t(unit, tps=p.tokens_per_s) + (w.t("rec_per_user", tps=per_user) if per_user else "")
    return w.t("rec_pick", **pick_fields(w, p, verdict), speed=speed, cost=cost)


def pick_cost(w: Writer, p: Pick) -> str:
    """What an option costs as its line says it: the rent by the hour and month, or the cards' price."""
    if p.deployment == "cloud":
        return w.t("rec_cost_rent", hourly=money(p.hourly or 0, p.currency), monthly=money(p.monthly, p.currency))
    return money(p.spend, p.currency)


def pick_fields(w: Writer, p: Pick, verdict: bool = False) -> dict[str, Any]:
    """The card, count, method, format and memory of an option, as every line that names a pick fills them (the
    answer's `rec_pick`, the proposal's comparison line)."""
    return {
        "count": p.count,
        "condition": w.label("rec_condition", "rent_verdict" if verdict and p.deployment == "cloud" else p.condition),
        "gpu": p.gpu,
        "method": w.label("method", p.mode),
        "precision": p.precision,
        "need": p.memory_per_gpu_gib,
        "usable": p.usable_gib_per_gpu,
    }


def parts_lead(w: Writer, results: list[RecommendResult]) -> None:
    """Several models or jobs in one question: every part's pick in the first lines, then each part in full."""
    items = []
    for r in results:
        p = r.primary or r.stretch
        method = w.label("method", (p.mode if p else r.sized_workload.mode))
        if p is None:
            items.append(w.t("rec_part_none", model=r.model, method=method))
            continue
        gpu = w.t("rec_part_pick", count=p.count, condition=w.label("rec_condition", p.condition), gpu=p.gpu)
        items.append(w.t("rec_part_item", model=r.model, method=method, precision=p.precision, pick=gpu))
    w.say("parts_summary", items=("；" if w.lang == "zh" else "; ").join(items))


# The notes that say the job sized was assumed (no model or purpose named): the lead says so before its pick
ASSUMED_JOB = ("assumed_purpose", "assumed_local_chat_model", "assumed_team_model")


def _lead_for(w: Writer, r: RecommendResult, mode: str, size_range: list[float] | None, assumed: bool = False) -> str:
    """'For inference of Qwen2.5-14B: '; a range of sizes asked ("7B-14B models") names the range and its top; a
    job nobody named is called an assumption ("No job named, so sized for ...")."""
    method = w.label("method", mode)
    if not size_range:
        return w.t("rec_for_assumed" if assumed else "rec_for", model=r.model, method=method)
    top = f"{size_range[1]:g}B" if r.model.startswith("Generic-") else r.model
    return w.t("rec_for_range", top=top, low=size_range[0], high=size_range[1], method=method)


def recommend_lines(
    w: Writer,
    r: RecommendResult,
    assumptions: bool = True,
    size_range: list[float] | None = None,
    assumed: bool = False,
) -> None:
    """The verdict first (what to buy or rent, and why), then the alternatives, the stretch, the caveats."""
    p = r.primary
    if p is None:
        _nothing_fits(w, r, assumptions, size_range)
        return
    verdict = "rec_verdict_rent" if p.deployment == "cloud" else "rec_verdict_buy"
    w.add(_lead_for(w, r, p.mode, size_range, assumed) + w.t(verdict, pick=_pick_line(w, p, verdict=True)))
    w.add(_reason_text(w, p.reasons[1:] if len(p.reasons) > 1 else p.reasons))
    _needs_line(w, r)  # after the reasons: the way asked comes first, the other ways' needs after it
    lines = []
    for alt in [*r.alternatives, *([r.stretch] if r.stretch else [])]:
        gives = ("；" if w.lang == "zh" else "; ").join(n.render(w.lang) for n in alt.gives_up)
        stretch = alt.label == "stretch"
        label = w.t("rec_stretch", amount=money(alt.over_budget_by or 0, alt.currency)) if stretch else None
        lines.append(
            w.t(
                "rec_alternative",
                label=label or w.label("rec_label", alt.label or "cheaper"),
                pick=_pick_line(w, alt),
                gives=gives or "-",
            )
        )
    if lines:
        w.add(w.t("rec_alternatives_head") + "\n" + "\n".join(lines))
    w.bullets("warnings_head", [n.render(w.lang) for n in p.warnings], limit=3)
    if assumptions:
        w.bullets("assumptions_head", [n.render(w.lang) for n in r.assumptions], limit=8)


def _needs_line(w: Writer, r: RecommendResult) -> None:
    """What the job needs on one GPU, each way considered: the figure the choice of card follows from."""
    if not r.needs:
        return
    items = [
        w.t(
            "rec_need_item",
            method=w.label("method", n.mode),
            precision=n.precision,
            gib=n.gib,
            load=w.t("rec_need_load", batch=n.batch, tokens=n.context_tokens) if n.batch > 1 else "",
        )
        + (w.t("rec_need_card", n=n.cards, gpu=n.card) if n.card and n.cards else "")
        for n in r.needs
    ]
    w.say("rec_needs", items=("；" if w.lang == "zh" else "; ").join(items))


def _nothing_fits(
    w: Writer, r: RecommendResult, assumptions: bool = True, size_range: list[float] | None = None
) -> None:
    """Nothing within the limits: the nearest option over budget as the verdict when there is one, else
    what was asked for; then the needs and the single changes that would make something fit."""
    budget = money(r.budget, r.currency) if r.budget else None
    if r.stretch is not None and budget:
        lead = _lead_for(w, r, r.stretch.mode, size_range)
        amount = money(r.stretch.over_budget_by or 0, r.currency)
        w.add(lead + w.t("rec_over_budget_verdict", pick=_pick_line(w, r.stretch), budget=budget, amount=amount))
        w.add(_reason_text(w, r.stretch.reasons[1:]))
    else:
        w.say("rec_none_budget" if budget else "rec_none", workload=_workload_text(w, r), budget=budget or "")
    _needs_line(w, r)
    hints = [n.render(w.lang) for n in r.suggestions]
    if hints:
        w.add(w.t("rec_changes_head") + "\n" + "\n".join(f"- {h}" for h in hints))
    if assumptions:
        w.bullets("assumptions_head", [n.render(w.lang) for n in r.assumptions], limit=8)


def _workload_text(w: Writer, r: RecommendResult) -> str:
    """'Llama-3.1-70B full fine-tuning (bf16, 2,048 tokens, batch 1)' in the answer's language."""
    sized = r.sized_workload  # the way asked, as sized: its need, not a cheaper way's or the 16-bit reference's
    asked = [n for n in r.needs if n.mode == sized.mode and sized.precision in (None, n.precision)]
    if not asked:
        return r.model
    n = asked[0]
    method = w.label("method", n.mode)
    return w.t(
        "rec_workload", model=r.model, method=method, precision=n.precision, tokens=n.context_tokens, batch=n.batch
    )


class Recommend(Capability):
    intent = "recommend"
    owns = (ToolName.RECOMMEND_GPUS,)
    scenario_fields: ClassVar[dict[ToolName, dict[str, str]]] = {
        ToolName.RECOMMEND_GPUS: {
            "budget": "budget",
            "monthly_budget": "monthly_budget",
            "currency": "currency",
            "deployment": "deployment",
            "preference": "preference",
            "persona": "persona",
            "users": "users",
            "shared_by": "shared_by",
            "max_gpus": "max_gpus",
            "horizon_years": "horizon_years",
            "serving": "serving",
            "min_card_gib": "min_card_gib",
        }
    }
    guides_topic = "which GPU to buy scenario budget"
    _PERSONA_TOPICS: ClassVar[dict[str, str]] = {  # the playbook section each kind of buyer reads
        "individual": "student individual developer one local card small budget 个人开发者 学生 一张强卡",
        "team": "small team lab local cards and cloud 小团队 实验室",
        "company": "enterprise production inference fleet training cluster 企业 生产",
    }

    def topic(self, ctx: PlanContext) -> str | None:
        """The buyer's playbook section, and what the workload needs of the card (the memory topics)."""
        s = ctx.scenario
        persona = s.persona or (persona_from_budget(s.budget, s.currency or "USD") if s.budget else None)
        workload = MEMORY_TOPICS.get(s.mode or "") if s.model or s.params_b else None
        return " ".join(filter(None, [self.guides_topic, self._PERSONA_TOPICS.get(persona or ""), workload]))

    def plan(self, ctx: PlanContext) -> None:
        # no job named: the persona's usual purpose, or the typical model of a service (planner/plan.py)
        assumed = not ctx.has_model or any(isinstance(n, Note) and n.code == "serving_model_default" for n in ctx.notes)
        if not ctx.has_model and not self._assume_purpose(ctx):
            ctx.need("need_purpose")
            return
        ctx.add(self.intent, ToolName.RECOMMEND_GPUS, **recommend_args(ctx), **_shared_by(ctx, assumed))
        parsed = ctx.parsed
        rate = other_currency_rate(parsed.budget_as_said_currency) if parsed.budget_as_said_currency else None
        if rate and parsed.budget is not None and parsed.budget_as_said is not None:  # "1000€": said how it was read
            said = dict(said=parsed.budget_as_said, unit=parsed.budget_as_said_currency, rate=rate[0], date=rate[1])
            ctx.notes.append(note("budget_other_currency", budget=parsed.budget, currency="USD", **said))

    @staticmethod
    def _assume_purpose(ctx: PlanContext) -> bool:
        """A budget and no model: size for the persona's usual purpose, say so, offer to change it. Without
        a budget the question is not yet a purchase ("which engine should we use?"): ask or explain."""
        s = ctx.scenario
        buying = ctx.parsed.buy_or_rent == "buy" and s.persona == "individual"  # said who, and that they buy
        # "我想配置一台跑大模型的个人电脑，推荐一份配置": one person building a machine is buying its first card
        building = "build" in ctx.intents and s.persona in (None, "individual") and not ctx.parsed.gpu_mentions
        if s.budget is None and s.monthly_budget is None and not (buying or building):
            return False  # "I'm looking to buy a GPU to experiment with LLMs" is a purchase: a person's first card
        persona = s.persona or persona_from_budget(s.budget, s.currency or "USD")
        budget = s.budget
        if budget is None and (building or buying):
            budget = unstated_budget("individual", s.currency or "USD")  # what one person usually spends on the card
        if s.mode == "inference" and budget is not None and not s.serving and persona != "company":
            # "本地跑大模型": the purpose is said, the model is not: the biggest one the budget runs at 4-bit
            s.model, s.params_b = local_chat_model(budget, s.currency or "USD"), None
            code = "assumed_local_chat_model" if persona == "individual" else "assumed_team_model"
            ctx.notes.append(note(code, model=registry()[s.model].name))
            ctx.quick_replies.append("purpose")
            return True
        purpose = default_purpose(persona)  # type: ignore[arg-type]
        if purpose is None:
            return False
        s.model, s.params_b, s.mode = purpose["model"], None, purpose["mode"]
        ctx.notes.append(note("assumed_purpose", model=registry()[s.model].name, mode=s.mode))
        ctx.quick_replies.append("purpose")
        return True

    def phase(self, turn: Turn) -> int:
        """A purchase asked: the pick leads, before the memory figures and the warnings about a card the user had
        ("which GPU for 7B and 70B? my K80 struggled"). "Does it support RTX 40? Should I buy one?": the support
        verdict asked first answers first, the purchase after."""
        from assistant.capabilities.support import supported_before_purchase
        from tools.support import SupportResult

        if turn.results(SupportResult) and not supported_before_purchase(turn):
            return 1
        # it leads with a pick of its own choosing: not "nothing fits", nor a choice among the cards the user named
        # ("两张 M40 能微调吗": the verdict on their cards leads)
        own = [o for o in turn.outcomes if o.call.owner == self.intent and isinstance(o.result, RecommendResult)]
        chosen = own and all(o.result.primary is not None and not o.call.args.get("gpus") for o in own)  # type: ignore[union-attr]
        # "什么规格的服务器" (a machine to buy: build delegated the pick to this capability) is a purchase asked too
        asked = "recommend" in turn.plan.intents or "build" in turn.plan.intents
        return -1 if asked and chosen else self.render_phase

    def render(self, w: Writer, turn: Turn) -> None:
        from assistant.capabilities.support import supported_before_purchase, supported_line

        results = turn.own(self.intent, RecommendResult)
        if supported_before_purchase(turn):
            supported_line(w, turn)  # "does it support RTX 40? should I buy one?": yes, then what to buy
        if len(results) > 1:
            parts_lead(w, results)
        # "7B-14B models": one part, sized for the top of the range, which the lead names
        size_range = turn.parsed.size_range if len(results) == 1 else None
        assumed = any(isinstance(n, Note) and n.code in ASSUMED_JOB for n in turn.plan.notes)
        for r in results:
            recommend_lines(w, r, assumptions=False, size_range=size_range, assumed=assumed)
        if results and results[0].sized_workload.mode == "inference" and is_batch_job(turn.parsed.dataset_samples):
            w.say("batch_job_weights")  # "3万张图片": why 16-bit, and what sets a batch job's pace
        if results:  # the parts share the buyer, the fit rule and the prices: their assumptions are said once
            notes = list(dict.fromkeys(n.render(w.lang) for r in results for n in r.assumptions))
            w.bullets("assumptions_head", notes, limit=8 + 2 * (len(results) - 1))

    def apply(self, scenario: Scenario, tool: ToolName, args: dict[str, Any]) -> None:
        if isinstance(args.get("workload"), dict):  # the workload is the memory capability's to record
            from assistant.capabilities import capability

            capability("memory").apply(scenario, ToolName.ESTIMATE_VRAM, args["workload"])
        super().apply(scenario, tool, args)
        if args.get("budget_includes_host"):
            scenario.budget_scope = "machine"
        if args.get("rent_alternative") is False:
            scenario.cloud_excluded = True
        if args.get("hours_per_month"):
            scenario.utilization = min(1.0, float(args["hours_per_month"]) / tco_defaults()["hours_per_month"])

    def summary(self, tool: ToolName, result: BaseModel, lang: str) -> str:
        if not isinstance(result, RecommendResult) or result.primary is None:
            return str(tool)
        p = result.primary
        return f"{p.count}x {p.gpu} ({p.condition}), {len(result.alternatives)} alternatives"
