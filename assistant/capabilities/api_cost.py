"""API or your own GPU: a token volume through a hosted API against running an open model on rented or
bought GPUs, verdict first with the break-even volume ("is it cheaper to use the API than to host Llama
70B", "租 GPU 会不会比直接调用 GPT 还贵", "self-hosting vs OpenAI for 10k requests a day").

compare_api (tools/api_cost.py) prices both sides from dated list prices and rentals; the answer then says
what the self-hosted model is next to the API's, and when privacy, offline use or fine-tuning is the reason.
"""

from __future__ import annotations

from typing import Any, ClassVar

from pydantic import BaseModel

from assistant.capabilities.base import Capability, PlanContext, Turn
from assistant.scenario import Scenario
from assistant.strings import Writer
from assistant.toolset import ToolName
from tools.api_cost import ApiCostResult, SelfHost
from tools.notes import money, render_all

# Two monthly bills within 10% of each other are "about the same": list prices and the usage assumed (1,000 prompt +
# 500 output tokens a request) move either side by more than that
_EVEN = 0.10
_MAX_MODELS = 3  # open models priced in one answer ("Qwen3-32B 和 Qwen3-8B 两个模型")


def _tokens(n: float, lang: str) -> str:
    """A token count as people write it: 3.2 亿 / 45 万 in Chinese, digits with separators in English."""
    if lang == "zh":
        if n >= 1e8:
            return f"{n / 1e8:.1f} 亿"
        if n >= 1e4:
            return f"{n / 1e4:,.0f} 万"
    return f"{n:,.0f}"


def _setup(w: Writer, h: SelfHost) -> str:
    servers = w.t("api_servers", servers=h.servers) if h.servers > 1 else ""
    return w.t("api_setup", servers=servers, n=h.num_gpus, gpu=h.gpu)


class ApiCost(Capability):
    intent = "api"
    owns = (ToolName.COMPARE_API,)
    scenario_fields: ClassVar[dict[ToolName, dict[str, str]]] = {
        ToolName.COMPARE_API: {
            "requests_per_day": "requests_per_day",
            "tokens_per_month": "tokens_per_month",
            "api": "api",
            "model": "model",
            "gpu": "gpu",
            "num_gpus": "num_gpus",
            "currency": "currency",
        }
    }
    guides_topic = "API versus self-hosting cost per million tokens break-even"

    def plan(self, ctx: PlanContext) -> None:
        s, parsed = ctx.scenario, ctx.parsed
        args: dict[str, Any] = {"currency": s.currency or "USD", **_usage_args(ctx)}
        api = parsed.api_mentions[0] if parsed.api_mentions else s.api
        if api:
            args["api"] = api
        if s.model:
            args["model"] = s.model
        elif s.params_b:
            args["params_b"] = s.params_b
        if parsed.gpu or (s.gpu and ctx.previous.gpu == s.gpu):
            args["gpu"] = parsed.gpu or s.gpu  # the user's own card: what it costs to run there
            if s.num_gpus:
                args["num_gpus"] = s.num_gpus
        if s.precision:
            args["precision"] = s.precision
        price = s.gpu_price or (s.budget if s.budget_scope == "gpus" and len(parsed.gpu_mentions) == 1 else None)
        if "gpu" in args and price:
            args["gpu_price"] = price / (s.num_gpus or 1) if s.gpu_price is None else price  # "花 2 万买 4090"
        args.update(_request_shape_args(ctx))
        args.update(_self_host_way(ctx, "gpu_price" in args))
        models = list(dict.fromkeys(parsed.models_mentioned))
        if len(models) > 1 and args.get("model") in models:
            # "DeepSeek API 还是自己部署 Qwen3-32B 和 Qwen3-8B": each model the user would host, priced in turn
            for model in models[:_MAX_MODELS]:
                ctx.add(self.intent, ToolName.COMPARE_API, **{**args, "model": model})
            return
        ctx.add(self.intent, ToolName.COMPARE_API, **args)

    def apply(self, scenario: Scenario, tool: ToolName, args: dict[str, Any]) -> None:
        super().apply(scenario, tool, args)
        way = args.get("self_host")  # "租 GPU": the follow-ups keep pricing rentals
        if way in ("rent", "buy"):
            scenario.deployment = "cloud" if way == "rent" else "local"

    def render(self, w: Writer, turn: Turn) -> None:
        for i, r in enumerate(turn.own(self.intent, ApiCostResult)):
            api_lines(w, r, turn.parsed.privacy, reasons=i == 0)  # the reasons to own are said once

    def summary(self, tool: ToolName, result: BaseModel, lang: str) -> str:
        if not isinstance(result, ApiCostResult):
            return str(tool)
        return (
            f"{result.verdict}: API {result.api_cost_per_million:g}/1M vs self-host "
            f"{result.cheapest_self_host.monthly_cost:g} {result.currency}/month"
        )


def _request_shape_args(ctx: PlanContext) -> dict[str, Any]:
    """One request's prompt and reply ("Input:2,000 tokens Output:500 tokens") and the hours a day it is served."""
    parsed = ctx.parsed
    out: dict[str, Any] = {}
    for side in ("input", "output"):
        tokens_each = getattr(parsed, f"{side}_tokens_per_request")
        if tokens_each:
            out[f"{side}_tokens_per_request"] = tokens_each
    if parsed.hours_per_day:
        out["hours_per_day"] = parsed.hours_per_day
    return out


def _self_host_way(ctx: PlanContext, priced: bool) -> dict[str, Any]:
    """Renting or buying as the user said it (and in follow-ups), and a card the user already has."""
    s, parsed = ctx.scenario, ctx.parsed
    out: dict[str, Any] = {}
    way = parsed.buy_or_rent or {"cloud": "rent", "local": "buy"}.get(s.deployment or "")
    if way in ("buy", "rent"):
        out["self_host"] = way  # "租 GPU 会不会比调用 GPT 贵": price renting, not buying (and in follow-ups)
    if parsed.owns_hardware and parsed.gpu and not priced and parsed.buy_or_rent != "buy":
        out["owned"] = True  # "我有一张 3090，API 还是本地跑": the card is paid for, running it costs power
    return out


def _usage_args(ctx: PlanContext) -> dict[str, Any]:
    """The usage to price: requests a day, else tokens a month, else the monthly bill the user pays now."""
    s, parsed = ctx.scenario, ctx.parsed
    if parsed.requests_per_day:
        return {"requests_per_day": parsed.requests_per_day}
    if parsed.tokens_per_month:
        return {"tokens_per_month": parsed.tokens_per_month}
    if parsed.monthly_budget:
        return {"monthly_bill": parsed.monthly_budget}  # "we spend $2,000 a month on OpenAI" (this turn's usage wins)
    if s.requests_per_day:
        return {"requests_per_day": s.requests_per_day}
    if s.tokens_per_month:
        return {"tokens_per_month": s.tokens_per_month}
    return {}


def api_lines(w: Writer, r: ApiCostResult, privacy: bool = False, reasons: bool = True) -> None:
    """Verdict first (with the break-even volume), then each API and self-hosting option with its date; when the
    user named privacy, what keeping the data in house costs comes right after the verdict."""
    cur = r.currency
    h = r.cheapest_self_host
    api = (
        f"{r.reference.provider} {r.reference.model}"
        if r.reference.provider not in r.reference.model
        else r.reference.model
    )
    common = {
        "api": api,
        "model": r.model,
        "kind": w.label("api_kind", h.kind),
        "setup": _setup(w, h),
        "self_monthly": money(h.monthly_cost, cur),
        "api_per_m": money(r.api_cost_per_million, cur),
        "self_per_m": money(r.self_cost_per_million_at_capacity, cur),
    }
    be = r.break_even_tokens_per_month
    be_fields = {
        "be_tokens": _tokens(be, w.lang) if be else "",
        "be_requests": f"{r.break_even_requests_per_day:,.0f}" if r.break_even_requests_per_day else "",
    }
    be_text = w.t("api_be", **be_fields) if be else w.t("api_be_never", **common)
    if r.verdict == "depends":
        w.say("api_lead_depends", **common, **be_fields) if be else w.say("api_lead_never", **common)
    else:
        tokens = r.tokens_per_month or 0
        key = "api_lead_api" if r.verdict == "api" else "api_lead_self"
        api_monthly = r.reference.monthly_cost or 0
        if api_monthly and abs(api_monthly - h.monthly_cost) <= _EVEN * max(api_monthly, h.monthly_cost):
            key = "api_lead_even"  # "$122 against $122": at the break-even, no side is "cheaper"
        w.say(
            key,
            **common,
            tokens=_tokens(tokens, w.lang),
            api_monthly=money(r.reference.monthly_cost or 0, cur),
            be=be_text,
        )
    warnings = _quality_first(w, r)
    if privacy and r.verdict != "self_host":
        w.say("api_privacy", **common)
    lines = []
    for a in r.apis:
        monthly = w.t("api_line_monthly", cost=money(a.monthly_cost, cur)) if a.monthly_cost is not None else ""
        lines.append(
            w.t(
                "api_line",
                provider=a.provider,
                model=a.model,
                input=money(a.input_per_million, cur),
                output=money(a.output_per_million, cur),
                monthly=monthly,
                date=a.date,
            )
        )
    for s in r.self_host:
        fields = {"setup": _setup(w, s), "monthly": money(s.monthly_cost, cur)}
        if s.kind == "rent":
            lines.append(
                w.t(
                    "api_self_line_rent",
                    **fields,
                    provider=s.provider,
                    hourly=money(s.hourly_per_server or 0, cur),
                    date=s.date,
                )
            )
        else:
            lines.append(w.t("api_self_line_own" if s.kind == "own" else "api_self_line_buy", **fields))
    w.add("\n".join(lines))
    if r.busy_share is not None:
        busy = f"{r.busy_share:.0%}" if r.busy_share >= 0.01 else "<1%"  # a light volume: not "0% of the time"
        w.say("api_capacity", capacity=_tokens(r.capacity_tokens_per_month, w.lang), busy=busy)
    why = [n for n in r.assumptions if n.code == "api_other_reasons"]  # privacy, offline, fine-tuning: always said
    if why and reasons and not privacy:
        w.add(why[0].render(w.lang))
    w.bullets("warnings_head", render_all(warnings, w.lang))
    # the sums behind every figure (volume, API price at this mix, each option's month, the break-even) are shown
    w.bullets("assumptions_head", render_all([n for n in r.assumptions if n not in why], w.lang), limit=14)


def _quality_first(w: Writer, r: ApiCostResult) -> list:
    """A self-hosted model a class below the API's (a 7B against GPT-4o) is the first thing an expert says after the
    price: the caveat joins the lead paragraph right after its bold verdict, and leaves the warnings."""
    below = [n for n in r.warnings if n.code == "api_quality_below"]
    if not below or not w.lines:
        return list(r.warnings)
    lead = w.lines[-1]
    end = lead.find("**", 2)
    if not lead.startswith("**") or end < 0:
        return list(r.warnings)
    sep = "" if w.lang == "zh" else " "
    w.lines[-1] = f"{lead[: end + 2]}{sep}{below[0].render(w.lang)}{lead[end + 2 :]}"
    return [n for n in r.warnings if n.code != "api_quality_below"]
