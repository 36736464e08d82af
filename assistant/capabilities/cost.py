"""Buy vs rent: what owning GPUs costs over a horizon against renting them, and where they break even."""

from __future__ import annotations

from typing import Any, ClassVar

from pydantic import BaseModel

from assistant.capabilities.base import Capability, PlanContext, Turn
from assistant.strings import Writer
from assistant.toolset import ToolName
from tools.tco import TcoResult


def tco_lines(w: Writer, r: TcoResult) -> None:
    cur = r.currency
    w.say(
        "cost_line",
        n=r.num_gpus,
        gpu=r.gpu,
        months=r.horizon_months,
        hours=r.busy_hours_per_month,
        upfront=r.upfront,
        cur=cur,
        buy_total=r.buy_total,
        power=r.power_monthly,
        resale=r.resale_value,
    )
    lines = []
    for o in r.rent:
        be = o.break_even_hours_per_month
        be_text = w.t("break_even", hours=be) if be is not None and be <= 730 else w.t("never")
        lines.append(
            w.t(
                "rent_line",
                kind=w.label("kind_label", o.kind),
                rate=o.price_per_gpu_hour,
                cur=cur,
                monthly=o.monthly,
                total=o.total,
                be=be_text,
            )
        )
    if lines:
        w.add("\n".join(lines))
    w.say("cheapest", option=w.label("option_label", r.cheapest))
    w.bullets("assumptions_head", r.assumptions, limit=5)
    w.bullets("warnings_head", r.warnings)


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
        }
    }
    guides_topic = "cloud cost buy vs rent break-even"

    def plan(self, ctx: PlanContext) -> None:
        s, parsed = ctx.scenario, ctx.parsed
        names = parsed.gpu_mentions or ([s.gpu] if s.gpu else [])
        if not names:
            if ctx.has_model:
                ctx.delegate("recommend")  # "is it cheaper to rent for Qwen2.5-72B?": which GPUs first
            else:
                ctx.need("need_gpu")
            return
        for gid in names:
            count = parsed.gpu_counts.get(gid) or (s.num_gpus if gid == s.gpu and s.num_gpus else 1)
            ctx.add(self.intent, ToolName.CALCULATE_TCO, **self._args(ctx, gid, count, len(names)))

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
        return tco

    def render(self, w: Writer, turn: Turn) -> None:
        for r in turn.own(self.intent, TcoResult):
            tco_lines(w, r)

    def summary(self, tool: ToolName, result: BaseModel, lang: str) -> str:
        if not isinstance(result, TcoResult):
            return str(tool)
        return f"buy {result.buy_total} {result.currency} vs rent; cheapest: {result.cheapest}"
