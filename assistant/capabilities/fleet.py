"""Fleet: a request rate ("5000 requests per second", "每秒 200 个请求") sized as GPUs, not as one server.

`size_fleet` (tools/fleet.py) does the arithmetic; this module plans it beside the question when the message
states a rate of at least one request a second for an inference job on a model, and leads with it: at such a rate
the number of GPUs is the answer, run as independent replicas behind a load balancer.
"""

from __future__ import annotations

from pydantic import BaseModel

from assistant.capabilities.base import Capability, PlanContext, Turn
from assistant.strings import Writer
from assistant.toolset import ToolName
from tools.advice import policy
from tools.fleet import FleetResult
from tools.notes import render_all

_SECONDS_PER_DAY = 86_400
_PRICED_ELSEWHERE = ("api", "cost")  # an API-versus-self-hosting answer already sizes the servers for its volume


class Fleet(Capability):
    intent = "fleet"
    owns = (ToolName.SIZE_FLEET,)
    cites_guides = False

    def plan(self, ctx: PlanContext) -> None:
        """Planned beside the question when it states a request rate for an inference job on a model."""
        s, rate = ctx.scenario, ctx.parsed.requests_per_day
        if not rate or rate / _SECONDS_PER_DAY < policy()["fleet"]["min_requests_per_s"]:
            return
        if not ctx.has_model or (s.mode or "inference") != "inference" or ctx.parsed.owns_hardware:
            return
        if set(ctx.intents) & set(_PRICED_ELSEWHERE):
            return
        ref = {"model": s.model} if s.model else {"params_b": s.params_b}
        stated = (("gpu", s.gpu), ("precision", s.precision), ("prompt_tokens", s.context_tokens))
        extra = {k: v for k, v in stated if v}
        ctx.add(self.intent, ToolName.SIZE_FLEET, **ref, requests_per_s=round(rate / _SECONDS_PER_DAY, 3), **extra)

    def records(self, tool: ToolName) -> bool:
        return False  # a reference replica, not the user's hardware

    def phase(self, turn: Turn) -> int:
        return -1  # the rate decides the answer: the fleet leads

    def render(self, w: Writer, turn: Turn) -> None:
        for r in turn.own(self.intent, FleetResult):
            assumed = "" if turn.plan.scenario.context_tokens else w.t("fleet_assumed")
            w.say(
                "fleet_lead" if r.gpus > 8 else "fleet_small",
                rate=r.requests_per_s,
                prompt=r.prompt_tokens,
                tokens=r.prefill_tokens_per_s_needed,
                gpu=r.gpu,
                prefill=r.prefill_tokens_per_s,
                decode=r.decode_tokens_per_s,
                batch=r.batch,
                out=r.output_tokens,
                n=r.gpus,
                assumed=assumed,
                replica=w.t("fleet_replica", k=r.gpus_per_replica, gpu=r.gpu),
                layout=w.t("fleet_tp", k=r.gpus_per_replica) if r.gpus_per_replica > 1 else w.t("fleet_one_gpu"),
            )
            w.bullets("assumptions_head", render_all(r.assumptions[:1], w.lang), limit=1)

    def summary(self, tool: ToolName, result: BaseModel, lang: str) -> str:
        if isinstance(result, FleetResult):
            return f"{result.gpus}x {result.gpu} for {result.requests_per_s:g} requests/s"
        return str(tool)
