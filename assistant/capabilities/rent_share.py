"""A rented server that several people use at once: each one's speed when they all ask together, and - when they
split the bill - each one's share of the month ("10人合伙租一台跑 GLM-130B", "three of us split a rented server for
Llama-3.3-70B", "租 4 张 3090 给 10 个人同时用 GLM-130B").

The rental answer otherwise names a card and its price only; what a group decides on is whether each of them gets
a usable speed and what each pays. The speed is estimate_speed on the offer that leads (its card, count and
format, the group as concurrent sequences); the share is rent_providers' own month_each (shared_by people).
"""

from __future__ import annotations

from typing import Any

from assistant.capabilities.base import PlanContext, ToolCall, Turn
from assistant.scenario import Scenario
from assistant.strings import Writer
from assistant.toolset import ToolName
from tools.notes import money
from tools.rent import RentResult, rent_precision
from tools.speed import SpeedResult
from tools.vram import VramResult


def sharers(ctx: PlanContext) -> None:
    """People who split one server ("10人合伙", "three of us split it"): the scenario's shared_by, for the price."""
    parsed, s = ctx.parsed, ctx.scenario
    if parsed.shared and (parsed.batch or parsed.users):
        s.shared_by = parsed.batch or parsed.users


def speed_call(s: Scenario, gpu: str, count: int, sized: VramResult | None, owner: str) -> ToolCall | None:
    """Decode speed on the leading offer with everyone asking at once (None for one user or a training job)."""
    at_once = sized.batch if sized is not None else (s.batch or 1)
    if at_once < 2 or (sized is not None and sized.mode != "inference"):
        return None
    args: dict[str, Any] = {"model": s.model} if s.model else {"params_b": s.params_b}
    if not (s.model or s.params_b):
        return None
    args |= {"gpu": gpu, "num_gpus": count, "batch": at_once}
    # a card named without a format: the format a rented server runs the model in (4-bit above 14B)
    precision = sized.precision if sized is not None else s.precision or rent_precision(s.model, s.params_b)
    if precision:
        args["precision"] = precision
    if sized is not None:
        args["context_tokens"] = sized.context_tokens
    return ToolCall(name=ToolName.ESTIMATE_SPEED, args=args, owner=owner)


def _rate(x: float) -> str:
    return f"{x:.0f}" if x >= 10 else f"{x:.1f}"


def share_text(w: Writer, turn: Turn, intent: str, r: RentResult) -> str:
    """Each one's speed with all asking together, and each one's month when they split it (empty if neither)."""
    first = (r.offers or [None])[0]
    if first is None:
        return ""
    parts: list[str] = []
    speed = next(
        (
            sp
            for sp in turn.own(intent, SpeedResult)
            if sp.batch > 1 and sp.num_gpus == first.num_gpus and sp.decode_tokens_per_s
        ),
        None,
    )
    if speed is not None and speed.decode_tokens_per_s and speed.decode_tokens_per_s_total:
        parts.append(
            w.t(
                "rent_share_speed",
                n=speed.batch,
                per=_rate(speed.decode_tokens_per_s),
                total=_rate(speed.decode_tokens_per_s_total),
                count=first.num_gpus,
                gpu=first.gpu,
            )
        )
    shared_by = turn.plan.scenario.shared_by
    if first.month_each is not None and first.job_cost is not None and shared_by:
        parts.append(
            w.t(
                "rent_share_month",
                n=shared_by,
                monthly=money(first.job_cost, r.currency),
                each=money(first.month_each, r.currency),
            )
        )
    return ("" if w.lang == "zh" else " ").join(parts)
