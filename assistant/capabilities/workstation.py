"""Workstation: power supply, RAM, CPU, PCIe lanes, slots and cooling for an N-GPU machine."""

from __future__ import annotations

from typing import ClassVar

from pydantic import BaseModel

from assistant.capabilities.base import Capability, Outcome, Plan, PlanContext, ToolCall, Turn
from assistant.strings import Writer
from assistant.toolset import ToolName
from tools.notes import Note, label, render_all
from tools.recommend import RecommendResult
from tools.workstation import WorkstationPlan

# What decides whether a card the user already has starts in their machine: the power plug it takes and the BIOS
# setting its memory window needs (a server card on an EPS12V plug; Above 4G decoding; tools/workstation.install_notes)
INSTALL = frozenset({"ws_eps8", "ws_above_4g"})


def install_block(w: Writer, gpu: str, notes: list[Note]) -> bool:
    """For a card the user has ("装的M40计算卡…亮红", "P40 won't boot"): its plug and BIOS setting, under one head,
    before anything else about it (the machine plan, the card's risk); False when the notes hold neither."""
    first = [n for n in notes if n.code in INSTALL]
    if not first:
        return False
    w.add(w.t("build_install_head", gpu=gpu) + "\n" + "\n".join(f"- {s}" for s in render_all(first, w.lang)))
    return True


def build_lines(w: Writer, r: WorkstationPlan, brief: bool = False, said: frozenset[str] = frozenset()) -> None:
    """The machine: PSU, wall power, RAM, CPU, lanes, platform; then warnings and assumptions (fewer when `brief`:
    the machine around a card the answer already chose; none of the warnings `said` already)."""
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
    warnings = render_all([*(n for n in r.warnings if n.code not in said), r.nvlink_note, *r.cooling_notes], w.lang)
    w.bullets("warnings_head", warnings, limit=2 if brief else 5)
    if not brief:
        w.bullets("assumptions_head", render_all(r.assumptions, w.lang), limit=4)


# Capped for a unit the user names: 80% of the rated board power costs little inference speed (memory-bound decode)
_CAP_SHARE = 0.8


def _cap_w(gpu_id: str) -> float | None:
    """The per-card power cap tried against a stated PSU: 80% of the card's rated power, to 10 W."""
    from tools.catalog import catalog

    spec = catalog().get(gpu_id)
    return round(spec.tdp_w * _CAP_SHARE / 10) * 10 if spec is not None and spec.tdp_w else None


def _capped(r: WorkstationPlan) -> bool:
    """A plan computed with the cards power-capped below their rating (the second plan of a stated-PSU question)."""
    from tools.catalog import catalog

    spec = catalog().get(r.gpu_id)
    return bool(spec and spec.tdp_w and r.gpu_power_w and r.gpu_power_w < spec.tdp_w - 1e-6)


def psu_verdict(w: Writer, r: WorkstationPlan, capped: WorkstationPlan | None, psu: float) -> None:
    """The unit the user named against what the machine needs: carries it, carries it with the cards capped, or
    too small (and the size that is not)."""
    need, steady = r.psu_required_w or 0.0, r.steady_load_w or 0.0
    base = dict(psu=psu, n=r.num_gpus, gpu=r.gpu, need=need, steady=steady)
    if psu >= need:
        w.say("build_psu_enough", **base)
    elif capped is not None and capped.psu_required_w and psu >= capped.psu_required_w:
        w.say("build_psu_short_capped", **base, cap=capped.gpu_power_w, need_cap=capped.psu_required_w)
    else:
        need_cap = capped.psu_required_w if capped is not None and capped.psu_required_w else need
        cap = capped.gpu_power_w if capped is not None and capped.gpu_power_w else r.gpu_power_w or 0.0
        layout = r.psu_layout.render(w.lang) if (r.psu_count or 1) > 1 else ""
        if layout:  # several units ("PSU 1: 1,200 W, board, CPU and 1 card; PSU 2: ...")
            w.say("build_psu_short_layout", **base, cap=cap, need_cap=need_cap, layout=layout)
        else:
            w.say("build_psu_short", **base, cap=cap, need_cap=need_cap, rec=r.psu_w or 0)


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
            cap = _cap_w(s.gpu) if ctx.parsed.psu_w else None
            if cap:  # "is a 1200 W PSU enough?": the same machine with the cards capped, should stock power not fit
                args = dict(gpu=s.gpu, num_gpus=s.num_gpus or 1, gpu_power_limit_w=cap, **use)
                ctx.add(self.intent, ToolName.PLAN_WORKSTATION, **args)

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
        plans = turn.own(self.intent, WorkstationPlan)
        stock = [r for r in plans if not _capped(r)]
        psu = turn.parsed.psu_w
        said: frozenset[str] = frozenset()
        # a card (or a power supply) the user already has, or a card that will not start
        owned = turn.parsed.owns_hardware or bool(psu) or turn.parsed.asks_install
        if owned and stock and not companion and install_block(w, stock[0].gpu, stock[0].warnings):
            said = INSTALL
        if psu and stock and stock[0].build_kind == "workstation" and stock[0].psu_required_w:
            capped = next((r for r in plans if _capped(r) and r.gpu_id == stock[0].gpu_id), None)
            psu_verdict(w, stock[0], capped, psu)
        for r in stock or plans:
            build_lines(w, r, brief=companion, said=said)

    def summary(self, tool: ToolName, result: BaseModel, lang: str) -> str:
        if not isinstance(result, WorkstationPlan):
            return str(tool)
        return f"PSU {result.psu_w} W, RAM {result.system_ram_gib} GiB"
