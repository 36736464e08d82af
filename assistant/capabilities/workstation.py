"""Workstation: power supply, RAM, CPU, PCIe lanes, slots and cooling for an N-GPU machine."""

from __future__ import annotations

from typing import ClassVar

from pydantic import BaseModel

from assistant.capabilities.base import Capability, PlanContext, Turn
from assistant.strings import Writer
from assistant.toolset import ToolName
from tools.notes import label, render_all
from tools.workstation import WorkstationPlan


def build_lines(w: Writer, r: WorkstationPlan) -> None:
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
    w.bullets("warnings_head", render_all([*r.warnings, r.nvlink_note, *r.cooling_notes], w.lang), limit=5)
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
            ctx.delegate("recommend")  # "a home rig for Qwen2.5-32B": pick the card first
        elif not s.gpu:
            ctx.need("need_gpu")
        else:
            ctx.add(self.intent, ToolName.PLAN_WORKSTATION, gpu=s.gpu, num_gpus=s.num_gpus or 1)

    def render(self, w: Writer, turn: Turn) -> None:
        for r in turn.own(self.intent, WorkstationPlan):
            build_lines(w, r)

    def summary(self, tool: ToolName, result: BaseModel, lang: str) -> str:
        if not isinstance(result, WorkstationPlan):
            return str(tool)
        return f"PSU {result.psu_w} W, RAM {result.system_ram_gib} GiB"
