"""Reinforcement-learning fine-tuning (GRPO, PPO / RLHF, DPO): the policy being trained is only part of the memory.

estimate_rl (tools/rl.py) sizes the models the algorithm holds on the user's cards. With no method named the
answer gives full-parameter RL, what the published recipes run, and LoRA, what makes small rigs work: "not enough
for full-parameter GRPO of a 7B on 4 x 3090; with LoRA it works, the rollout copy on a card of its own".
"""

from __future__ import annotations

from typing import Any, ClassVar

from pydantic import BaseModel

from assistant.capabilities.base import Capability, PlanContext, Turn
from assistant.capabilities.memory import memory_lines
from assistant.capabilities.workload import specs_args, vram_args
from assistant.strings import Writer
from assistant.toolset import ToolName
from tools.notes import render_all
from tools.rl import RlResult, recipes
from tools.vram import VramResult


class RL(Capability):
    intent = "rl"
    owns = (ToolName.ESTIMATE_RL,)
    scenario_fields: ClassVar[dict[ToolName, dict[str, str]]] = {
        ToolName.ESTIMATE_RL: {
            "model": "model",
            "params_b": "params_b",
            "gpu": "gpu",
            "num_gpus": "num_gpus",
            "context_tokens": "context_tokens",
            "algorithm": "rl",  # the algorithm sized carries to a follow-up that changes the cards
        }
    }
    needs_model = True
    guides_topic = "reinforcement learning GRPO PPO DPO rollout reference model vLLM memory 强化学习"

    def plan(self, ctx: PlanContext) -> None:
        s, q = ctx.scenario, ctx.parsed
        methods = [q.mode] if q.mode in ("full", "lora", "qlora") else ["full", "lora"]
        base: dict[str, Any] = {"model": s.model} if s.model else {"params_b": s.params_b}
        base["algorithm"] = q.rl or s.rl or "rl"  # a follow-up ("8 x 4090 then?") keeps the algorithm named
        if s.context_tokens:
            base["context_tokens"] = s.context_tokens
        if s.gpu:
            base |= {"gpu": s.gpu, "num_gpus": s.num_gpus or 1}
        for method in methods:
            ctx.add(self.intent, ToolName.ESTIMATE_RL, **base, method=method)
        # the policy's own estimate on the cards, with its breakdown (what the algorithm adds is beside it)
        policy = s.model_copy(update={"mode": methods[0], "precision": None})
        ctx.add(self.intent, ToolName.ESTIMATE_VRAM, **vram_args(policy))
        if s.gpu:
            ctx.add(self.intent, ToolName.GPU_SPECS, **specs_args(s, [s.gpu]))

    def render(self, w: Writer, turn: Turn) -> None:
        results = turn.own(self.intent, RlResult)
        for r in results:
            _verdict(w, r)
        for v in turn.own(self.intent, VramResult)[:1]:
            w.say("rl_policy_head" if v.fit is not None else "rl_policy_head_plain")
            memory_lines(w, v, detail=False, lead=False)
        if results:
            notes = [a for r in results for a in r.assumptions]
            unique = list({n.model_dump_json(): n for n in notes}.values())
            w.bullets("assumptions_head", render_all(unique, w.lang), limit=6)

    def summary(self, tool: ToolName, result: BaseModel, lang: str) -> str:
        if isinstance(result, RlResult):
            return f"{result.per_gpu_gib} GiB per GPU ({result.model}, {result.algorithm}, {result.method})"
        return str(tool)


def _verdict(w: Writer, r: RlResult) -> None:
    """One line per method: fits or not on the cards, with the parts per GPU."""
    algo = recipes()["algorithms"][r.algorithm]["label"][w.lang]
    items = ", ".join(w.t(f"rl_part_{k}", gib=v) for k, v in r.parts_gib.items())
    shared: dict[str, Any] = dict(
        algo=algo,
        model=r.model,
        method=w.label("method", r.method),
        items=items,
        need=r.per_gpu_gib,
        total=r.total_gib,
        policy=r.policy_gib,
        rollout=r.rollout_gib or 0.0,
    )
    if r.fits is None:
        w.say("rl_total_full" if r.method == "full" else "rl_total_adapters", **shared)
        return
    hw = dict(n=r.num_gpus, gpu=r.gpu, usable=r.usable_gib_per_gpu or 0)
    shared["sharded"] = w.t("rl_sharded") if r.num_gpus > 1 else ""
    if r.method == "full":
        w.say("rl_full_fits" if r.fits else "rl_full_not", **shared, **hw)
    elif r.layout == "separate_rollout":
        w.say("rl_adapters_separate_fits" if r.fits else "rl_adapters_separate_not", **shared, **hw)
    else:
        w.say("rl_adapters_fits" if r.fits else "rl_adapters_not", **shared, **hw)
