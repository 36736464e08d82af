"""Speed: decode / prefill tokens per second, or training throughput, on named GPUs."""

from __future__ import annotations

from typing import ClassVar

from pydantic import BaseModel

from assistant.capabilities.base import Capability, Outcome, Plan, PlanContext, ToolCall, Turn
from assistant.capabilities.memory import first_vram, sized_lines, sizing_calls
from assistant.capabilities.workload import specs_args, speed_args, vram_args
from assistant.strings import Writer
from assistant.toolset import ToolName
from tools.notes import render_all
from tools.speed import SpeedResult
from tools.vram import VramResult


def speed_lines(w: Writer, r: SpeedResult) -> None:
    bound = w.label("bound", r.bound)
    if r.training_tokens_per_s is not None:
        hours = r.time_to_train_hours
        time_part = w.t("train_time_part", hours=hours) if hours is not None else ""
        w.say(
            "train_speed_line",
            model=r.model,
            method=w.label("method", r.method),
            precision=r.precision,
            n=r.num_gpus,
            gpu=r.gpu,
            tps=r.training_tokens_per_s,
            time_part=time_part,
            bound=bound,
        )
    else:
        w.say(
            "speed_line",
            model=r.model,
            n=r.num_gpus,
            gpu=r.gpu,
            precision=r.precision,
            decode=r.decode_tokens_per_s,
            total=r.decode_tokens_per_s_total,
            batch=r.batch,
            context=r.context_tokens,
            ttft=r.ttft_s or 0,
            prefill=r.prefill_tokens_per_s or 0,
            bound=bound,
        )
    w.bullets("assumptions_head", render_all(r.assumptions, w.lang), limit=5)
    w.bullets("warnings_head", render_all(r.warnings, w.lang))


class Speed(Capability):
    intent = "speed"
    owns = (ToolName.ESTIMATE_SPEED,)
    scenario_fields: ClassVar[dict[ToolName, dict[str, str]]] = {
        ToolName.ESTIMATE_SPEED: {
            "model": "model",
            "params_b": "params_b",
            "gpu": "gpu",
            "num_gpus": "num_gpus",
            "precision": "precision",
            "context_tokens": "context_tokens",
            "batch": "batch",
        }
    }
    needs_model = True
    guides_topic = "memory bandwidth decode speed tokens per second"

    def topic(self, ctx: PlanContext) -> str | None:
        """Several users at once read like batching and KV cache, not one stream's bandwidth ceiling."""
        if (ctx.scenario.batch or 1) > 1:
            return "concurrent users batch throughput KV cache 并发"
        return self.guides_topic

    def plan(self, ctx: PlanContext) -> None:
        if not ctx.parsed.gpu_mentions and len(ctx.previous.gpus) > 1:
            ctx.hand_over(self.intent, "compare")  # "which one runs it faster?" after comparing cards
            return
        s = ctx.scenario
        if not s.gpu:
            ctx.need("need_gpu")
        elif s.num_gpus is None:  # size the count first, then estimate speed on it
            ctx.add(self.intent, ToolName.ESTIMATE_VRAM, **vram_args(s, 1))
            ctx.add(self.intent, ToolName.GPU_SPECS, **specs_args(s, [s.gpu]))
            ctx.second_round.append(self.intent)
        else:
            ctx.add(self.intent, ToolName.ESTIMATE_SPEED, **speed_args(s))

    def second_round(self, plan: Plan, outcomes: list[Outcome]) -> list[ToolCall]:
        return sizing_calls(plan, first_vram(outcomes), self.intent, then_speed=True)

    def render(self, w: Writer, turn: Turn) -> None:
        sized_lines(w, turn.own(self.intent, VramResult))
        for r in turn.own(self.intent, SpeedResult):
            speed_lines(w, r)

    def summary(self, tool: ToolName, result: BaseModel, lang: str) -> str:
        if not isinstance(result, SpeedResult):
            return str(tool)
        if result.training_tokens_per_s is not None:
            return f"{result.training_tokens_per_s} training tokens/s on {result.gpu}"
        return f"{result.decode_tokens_per_s} tokens/s per sequence on {result.gpu}"
