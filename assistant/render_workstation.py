"""Human-readable table for a plan_workstation result (rich)."""

from __future__ import annotations

from rich.console import Console

from assistant.render import _notes, print_table
from tools.workstation import WorkstationPlan

_KIND = {
    "workstation": "DIY workstation",
    "gpu_server": "rack GPU server",
    "vendor_system": "vendor system (not a DIY build)",
    "whole_machine": "complete computer (nothing to build)",
}


def _w(value: float | None) -> str | None:
    return None if value is None else f"{value:,.0f} W"


def workstation(console: Console, plan: WorkstationPlan) -> None:
    platform = plan.platform
    layout = plan.psu_layout.text
    psu = layout if plan.psu_required_w is None else f"{layout} (needs {plan.psu_required_w:,.0f} W)"
    spikes = ", ".join(f"{window}: {watts:,.0f} W" for window, watts in plan.transient_peaks_w.items())
    circuits_ok = ", ".join(c.label for c in plan.circuits if c.fits) or "none of the listed circuits"
    lanes = (
        f"{plan.pcie_lanes_needed} needed (x{plan.pcie_lanes_per_gpu} per GPU + NVMe); "
        f"x{plan.pcie_link_width} per GPU on this platform"
        if plan.pcie_lanes_needed is not None
        else None
    )
    slots = (
        f"{plan.gpu_slots}-slot cards, {plan.slots_needed} positions; "
        f"{plan.cards_fit_without_risers} fit without risers"
        if plan.gpu_slots is not None
        else None
    )
    rows = [
        ("build", _KIND[plan.build_kind]),
        ("platform", platform and f"{platform.name} ({platform.cpu_lanes_usable} usable CPU lanes)"),
        ("GPU power", plan.gpu_power_w and f"{plan.num_gpus} x {plan.gpu_power_w:,.0f} W = {plan.gpu_total_w:,.0f} W"),
        ("CPU + platform", plan.cpu_w is not None and f"{plan.cpu_w:,.0f} W + {plan.platform_w:,.0f} W"),
        ("steady load", _w(plan.steady_load_w)),
        ("short spikes", spikes or None),
        ("power supply", psu),
        ("wall power at load", _w(plan.wall_power_w)),
        ("heat", plan.heat_btu_per_hour and f"{plan.heat_btu_per_hour:,.0f} BTU/h"),
        ("circuits that carry it", circuits_ok if plan.circuits else None),
        ("GPU power connectors", ", ".join(f"{n} x {kind}" for kind, n in plan.power_connectors.items()) or None),
        (
            "system RAM",
            plan.system_ram_gib and f"{plan.system_ram_gib} GiB (at least {plan.system_ram_min_gib:,.0f} GiB)",
        ),
        ("CPU cores", plan.cpu_cores and str(plan.cpu_cores)),
        ("PCIe lanes", lanes),
        ("slots", slots),
        ("NVLink", plan.nvlink_note.text),
    ]
    title = f"{plan.num_gpus}x {plan.gpu} — {plan.use} build plan"
    shown = [[label, str(value)] for label, value in rows if value]
    print_table(console, title, [("item", "left"), ("plan", "left")], shown)
    if platform:
        console.print(f"[dim]platform examples: {'; '.join(platform.examples)} (as of {platform.as_of})[/]")
    for note in plan.cooling_notes:
        console.print(f"cooling: {note.text}")
    _notes(console, plan.assumptions, plan.warnings)
