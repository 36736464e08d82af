"""Recommend: which GPUs (type x count, bought or rented) fit a workload and a budget."""

from __future__ import annotations

from typing import Any, ClassVar

from pydantic import BaseModel

from assistant.capabilities.base import Capability, PlanContext, Turn
from assistant.capabilities.workload import workload_args
from assistant.scenario import Scenario
from assistant.strings import Writer
from assistant.toolset import ToolName
from tools.recommend import RecommendResult


def recommend_args(ctx: PlanContext) -> dict[str, Any]:
    s, parsed = ctx.scenario, ctx.parsed
    rec: dict[str, Any] = {"workload": workload_args(s), "currency": s.currency, "limit": 5}
    for slot in ("budget", "monthly_budget", "deployment", "preference", "utilization"):
        if getattr(s, slot) is not None:
            rec[slot] = getattr(s, slot)
    if parsed.require_nvlink:
        rec["require_nvlink"] = True
    if parsed.require_ecc:
        rec["require_ecc"] = True
    return rec


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
        }
    }
    needs_model = True
    guides_topic = "which GPU to buy scenario budget"

    def plan(self, ctx: PlanContext) -> None:
        ctx.add(self.intent, ToolName.RECOMMEND_GPUS, **recommend_args(ctx))

    def render(self, w: Writer, turn: Turn) -> None:
        s = turn.plan.scenario
        budget_part = w.t("budget_part", budget=s.budget, currency=s.currency) if s.budget else ""
        for r in turn.own(self.intent, RecommendResult):
            if r.nothing_fits:
                w.say("recommend_none", workload=r.workload, budget_part=budget_part)
                w.add("\n".join(f"- {x}" for x in r.suggestions))
                continue
            w.say("recommend_head", workload=r.workload, budget_part=budget_part)
            w.add("\n".join(f"{i}. {o.why}" for i, o in enumerate(r.options, 1)))
            w.bullets("assumptions_head", r.assumptions, limit=4)

    def apply(self, scenario: Scenario, tool: ToolName, args: dict[str, Any]) -> None:
        if isinstance(args.get("workload"), dict):  # the workload is the memory capability's to record
            from assistant.capabilities import capability

            capability("memory").apply(scenario, ToolName.ESTIMATE_VRAM, args["workload"])
        super().apply(scenario, tool, args)

    def summary(self, tool: ToolName, result: BaseModel, lang: str) -> str:
        if not isinstance(result, RecommendResult):
            return str(tool)
        return f"{len(result.options)} options" + (" (nothing fits)" if result.nothing_fits else "")
