"""The rest of the machine around the pick (the workstation planner's plan), or the cloud instance when renting.

The plan is the turn's own plan_workstation result for the pick's card and count; when the answer did not plan
the machine, the same tool is run here with the arguments the planner's second round uses
(assistant/capabilities/workstation.py), and the section says so.
"""

from __future__ import annotations

from assistant.proposal.labels import say
from assistant.proposal.model import PartLine, Section
from assistant.strings import label as catalog_label
from assistant.strings import text as catalog_text
from tools.notes import label, money, render_all
from tools.prices import Market
from tools.recommend import Pick
from tools.workstation import WorkstationPlan, WorkstationRequest, plan_workstation


def plan_for(pick: Pick, plans: list[WorkstationPlan]) -> tuple[WorkstationPlan, bool]:
    """The turn's plan for the pick's machine, else one planned now; True when planned now."""
    for plan in plans:
        if plan.gpu_id == pick.gpu_id and plan.num_gpus == pick.count:
            return plan, False
    use = "inference" if pick.mode == "inference" else "training"
    return plan_workstation(WorkstationRequest(gpu=pick.gpu_id, num_gpus=pick.count, use=use)), True


def machine_section(lang: str, plan: WorkstationPlan, planned_here: bool) -> Section:
    """PSU with its transient margin, CPU and board, RAM, case, cooling: one line each."""
    lines: list[str] = []
    if plan.psu_w:
        layout = plan.psu_layout.render(lang)
        lines.append(
            catalog_text("build_psu_layout", lang, layout=layout)
            if layout
            else catalog_text("build_psu", lang, w=plan.psu_w)
        )
    if plan.transient_peaks_w and plan.steady_load_w:
        window, peak = max(plan.transient_peaks_w.items(), key=lambda item: item[1])
        lines.append(say("machine.transient", lang, w=peak, window=window, steady=plan.steady_load_w))
    if plan.wall_power_w:
        lines.append(catalog_text("build_wall_power", lang, w=plan.wall_power_w))
    if plan.platform is not None:
        platform = label("platform", plan.platform.id, lang, plan.platform.name)
        if lang == "en":  # the platform's examples are English data: named in the English proposal only
            lines.append(say("machine.board", lang, platform=platform, examples="; ".join(plan.platform.examples)))
        else:
            lines.append(say("machine.board_only", lang, platform=platform))
    if plan.cpu_cores:
        lines.append(catalog_text("build_cpu_cores", lang, cores=plan.cpu_cores))
    if plan.system_ram_gib:
        lines.append(say("machine.ram", lang, gib=plan.system_ram_gib, min=plan.system_ram_min_gib or 0))
    if plan.pcie_lanes_needed:
        lines.append(catalog_text("build_pcie_lanes", lang, lanes=plan.pcie_lanes_needed))
    kind = catalog_label("build_kind", plan.build_kind, lang)
    if plan.gpu_slots and plan.slots_needed:
        slots = say("machine.slots", lang, n=plan.slots_needed, width=plan.gpu_slots)
        lines.append(say("machine.case", lang, kind=kind, slots=slots))
    else:
        lines.append(say("machine.case_kind", lang, kind=kind))
    if plan.power_connectors:
        items = ", ".join(f"{n} × {plug}" for plug, n in plan.power_connectors.items())
        lines.append(say("machine.connectors", lang, items=items))
    lines += [say("machine.cooling", lang, text=t) for t in render_all(plan.cooling_notes, lang)]
    lines.append(plan.nvlink_note.render(lang))
    head = catalog_text("build_head", lang, n=plan.num_gpus, gpu=plan.gpu).replace("**", "")
    paragraphs = [head] + ([say("machine.planned_here", lang)] if planned_here else [])
    return Section(key="machine", title=say("section.machine", lang), lead=paragraphs, bullets=lines)


def cloud_section(lang: str, pick: Pick, market: Market, hours: float) -> Section:
    """The rented instance and the dated offers its hourly price is the median of."""
    from assistant.proposal.costs import rental_rows

    cur = pick.currency
    head = say(
        "cloud.instance",
        lang,
        count=pick.count,
        gpu=pick.gpu,
        hourly=money(pick.hourly or 0, cur),
        monthly=money(pick.monthly, cur),
        hours=hours,
    )
    offers = [
        say(
            "cloud.offer",
            lang,
            provider=row.provider,
            offering=row.offering,
            price=money(row.on_demand_per_gpu_hour or 0, row.currency),
            date=row.date,
        )
        for row in rental_rows(pick, market)
    ]
    return Section(key="cloud", title=say("section.cloud", lang), lead=[head], bullets=offers)


def component_lines(lang: str, plan: WorkstationPlan, currency: str, date: str) -> list[PartLine]:
    """The machine's parts with quantities; their price is the estimate on the rest-of-the-machine line."""
    included = say("parts.included", lang)
    base = dict(unit_price=None, currency=currency, source=included, date=date, line_total=None)
    lines: list[PartLine] = []
    for watts in plan.psu_units_w:
        lines.append(PartLine(item=say("parts.psu", lang, w=watts), quantity=1, **base))  # type: ignore[arg-type]
    if plan.system_ram_gib:
        lines.append(PartLine(item=say("parts.ram", lang, gib=plan.system_ram_gib), quantity=1, **base))  # type: ignore[arg-type]
    if plan.platform is not None and plan.cpu_cores:
        platform = label("platform", plan.platform.id, lang, plan.platform.name)
        item = say("parts.cpu", lang, platform=platform, cores=plan.cpu_cores)
        lines.append(PartLine(item=item, quantity=1, **base))  # type: ignore[arg-type]
    kind = catalog_label("build_kind", plan.build_kind, lang)
    lines.append(PartLine(item=say("parts.case", lang, kind=kind), quantity=1, **base))  # type: ignore[arg-type]
    return lines
