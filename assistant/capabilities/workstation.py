"""Workstation: power supply, RAM, CPU, PCIe lanes, slots and cooling for an N-GPU machine."""

from __future__ import annotations

from typing import ClassVar

from pydantic import BaseModel

from assistant.capabilities.base import Capability, Outcome, Plan, PlanContext, ToolCall, Turn
from assistant.strings import Writer
from assistant.toolset import ToolName
from tools.notes import label, render_all
from tools.recommend import RecommendResult
from tools.workstation import WorkstationPlan


def build_lines(w: Writer, r: WorkstationPlan, brief: bool = False) -> None:
    """The machine: PSU, wall power, RAM, CPU, lanes, platform; then warnings and assumptions (fewer when `brief`:
    the machine around a card the answer already chose)."""
    w.say("build_head", n=r.num_gpus, gpu=r.gpu)
    facts = []
    if r.psu_w:
        layout = r.psu_layout.render(w.lang)
        facts.append(w.t("build_psu_layout", layout=layout) if layout else w.t("build_psu", w=r.psu_w))
    if r.wall_power_w:
        facts.append(w.t("build_wall_power", w=r.wall_power_w))
    if r.system_ram_gib:
        facts.append(w.t("build_ram", gib=r.system_ram_gib))
    if r.cpu_cores:
        facts.append(w.t("build_cpu_cores", cores=r.cpu_cores))
    if r.pcie_lanes_needed:
        facts.append(w.t("build_pcie_lanes", lanes=r.pcie_lanes_needed))
    if r.platform is not None and r.platform.name:
        facts.append(label("platform", r.platform.id, w.lang, r.platform.name))
    if facts:
        w.add("\n".join(f"- {f}" for f in facts))
    warnings = render_all([*r.warnings, r.nvlink_note, *r.cooling_notes], w.lang)
    w.bullets("warnings_head", warnings, limit=2 if brief else 5)
    if not brief:
        w.bullets("assumptions_head", render_all(r.assumptions, w.lang), limit=4)


class Workstation(Capability):
    intent = "build"
    owns = (ToolName.PLAN_WORKSTATION,)
    scenario_fields: ClassVar[dict[ToolName, dict[str, str]]] = {
        ToolName.PLAN_WORKSTATION: {"gpu": "gpu", "num_gpus": "num_gpus"}
    }
    guides_topic = "workstation PSU power supply build"

    def plan(self, ctx: PlanContext) -> None:
        s = ctx.scenario
        if not s.gpu and (ctx.has_model or s.budget):
            ctx.delegate("recommend")  # "a home rig for Qwen2.5-32B": pick the card first,
            ctx.second_round.append(self.intent)  # then the rest of the machine around the pick
        elif not s.gpu and "recommend" in ctx.intents:
            ctx.second_round.append(self.intent)  # "推荐一份跑大模型的电脑配置": the machine around the card it picks
        elif not s.gpu:
            ctx.need("need_gpu")
        else:
            use = {"use": "training"} if (s.mode or "inference") != "inference" else {}
            ctx.add(self.intent, ToolName.PLAN_WORKSTATION, gpu=s.gpu, num_gpus=s.num_gpus or 1, **use)

    def second_round(self, plan: Plan, outcomes: list[Outcome]) -> list[ToolCall]:
        """ "What GPU, RAM and CPU": the machine around each card the recommendation bought (not a rental)."""
        picks = []
        for o in outcomes:
            r = o.result
            if isinstance(r, RecommendResult) and r.primary is not None:
                picks += [p for p in [r.primary, *r.alternatives] if p.deployment == "local"][:1]
        if not picks:
            return []
        # several parts ("13B and 70B"): one machine, the one the heaviest part needs
        pick = max(picks, key=lambda p: p.gpu_memory_gib * p.count)
        use = "inference" if pick.mode == "inference" else "training"
        args = {"gpu": pick.gpu_id, "num_gpus": pick.count, "use": use}
        return [ToolCall(name=ToolName.PLAN_WORKSTATION, args=args, owner=self.intent)]

    def phase(self, turn: Turn) -> int:
        """Around a recommended card, or beside what the cards can do ("2×4090 能跑 72b 的微调吗？配置要调整吗"),
        the machine comes after the cards' verdict."""
        sized = turn.results(RecommendResult) or any(turn.owns_any(i) for i in ("fit", "memory", "big_model"))
        return 2 if sized else self.render_phase

    def render(self, w: Writer, turn: Turn) -> None:
        companion = self.phase(turn) != self.render_phase  # the rest of the machine around the cards: briefly
        for r in turn.own(self.intent, WorkstationPlan):
            build_lines(w, r, brief=companion)

    def summary(self, tool: ToolName, result: BaseModel, lang: str) -> str:
        if not isinstance(result, WorkstationPlan):
            return str(tool)
        return f"PSU {result.psu_w} W, RAM {result.system_ram_gib} GiB"
