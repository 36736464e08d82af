"""plan_workstation: PSU, wall power, RAM, CPU cores, PCIe lanes, slot spacing, NVLink and cooling for N GPUs."""

from __future__ import annotations

import math
from functools import cache
from typing import Literal

from pydantic import BaseModel, Field, field_validator

from tools._data import load_yaml
from tools.catalog import GpuSpec, resolve_gpu
from tools.errors import AdvisorError

BTU_PER_HOUR_PER_W = 3.412  # 1 W of heat = 3.412 BTU/h
W_PER_AC_TON = 3517  # one "ton" (12,000 BTU/h) of air conditioning removes about 3.5 kW
Use = Literal["inference", "training"]
BuildKind = Literal["workstation", "gpu_server", "vendor_system", "whole_machine"]


class Platform(BaseModel):
    """A host platform class from platforms.yaml."""

    id: str
    name: str
    examples: list[str]
    cpu_lanes_usable: int
    gpu_lanes: int
    max_gpus: int
    x16_slot_positions: list[int] | None
    case_expansion_slots: int | None
    memory_channels: int
    dimm_counts: list[int]
    dimm_sizes_gib: list[int]
    max_ram_gib: int
    max_cores: int
    default_cpu_w: float
    platform_w: float
    sockets: int
    lane_note: str
    sources: list[str] = Field(min_length=1)
    as_of: str
    verified: str
    notes: str | None = None


@cache
def rules() -> dict:
    """The build rules and platform table (knowledge/data/platforms.yaml)."""
    return load_yaml("platforms.yaml")


@cache
def platforms() -> list[Platform]:
    """Platform classes, smallest first."""
    return [Platform(**{**row, "as_of": str(row["as_of"])}) for row in rules()["platforms"]]


def _circuit_ids() -> list[str]:
    return [c["id"] for c in rules()["circuits"]["list"]]


class WorkstationRequest(BaseModel):
    """An N-GPU machine to plan: power supply, memory, CPU, lanes, slots, NVLink and cooling."""

    gpu: str = Field(
        min_length=1, max_length=100, description="GPU name, fuzzy: '4090', 'RTX 3090', 'A6000', 'L40S', 'A100 SXM'"
    )
    num_gpus: int = Field(default=1, ge=1, le=16, description="Number of GPUs in the machine (1-16)")
    use: Use = Field(default="inference", description="Main workload: inference or training (sets CPU cores)")
    cpu_tdp_w: float | None = Field(
        default=None,
        ge=15,
        le=1000,
        description="CPU power in W (package power limit / TDP; both sockets for dual-socket). "
        "Default: typical for the platform class chosen",
    )
    gpu_power_limit_w: float | None = Field(
        default=None,
        ge=50,
        le=1200,
        description="Per-GPU power cap in W set with `nvidia-smi -pl` (default: the card's rated TDP/TGP)",
    )
    legacy_psu: bool = Field(
        default=False,
        description="True for a pre-ATX-3.0 PSU without a native 12VHPWR/12V-2x6 connector: it has no transient "
        "allowance, so it must be sized for the GPUs' power spikes",
    )
    circuit: str | None = Field(
        default=None,
        description="Wall circuit to check: us_120v_15a us_120v_20a us_240v_20a cn_220v_10a cn_220v_16a eu_230v_16a "
        "(default: report all)",
    )
    budget_usd: float | None = Field(
        default=None, ge=0, description="Target budget in USD for the whole machine (recorded; not used yet)"
    )

    @field_validator("circuit")
    @classmethod
    def _known_circuit(cls, value: str | None) -> str | None:
        if value is None:
            return None
        key = value.strip().lower()
        if key not in _circuit_ids():
            raise ValueError(f"unknown circuit '{value}'; choose one of: {', '.join(_circuit_ids())}")
        return key


class PlatformChoice(BaseModel):
    """The platform class recommended for the build, with its sources."""

    id: str
    name: str
    examples: list[str]
    cpu_lanes_usable: int
    max_gpus: int
    max_ram_gib: int
    max_cores: int
    sources: list[str]
    as_of: str


class CircuitCheck(BaseModel):
    """Whether the machine's wall power fits a circuit's continuous rating."""

    id: str
    label: str
    peak_w: float = Field(description="volts x amps")
    continuous_w: float = Field(description="80% of peak: the limit for a load that runs for hours")
    fits: bool


class WorkstationPlan(BaseModel):
    """A build plan for N GPUs; every number is explained in `assumptions`."""

    gpu: str
    gpu_id: str
    num_gpus: int
    use: Use
    build_kind: BuildKind = Field(
        description="workstation (DIY tower), gpu_server (rack chassis), vendor_system (SXM/OAM/superchip: buy the "
        "vendor's server), whole_machine (Apple silicon: nothing to build)"
    )
    gpu_power_w: float | None = Field(description="Per GPU, sustained (TDP/TGP or the power cap)")
    gpu_total_w: float | None
    cpu_w: float | None
    platform_w: float | None = Field(description="Motherboard, RAM, drives, fans, NICs")
    steady_load_w: float | None = Field(description="DC load at full GPU and CPU power")
    transient_peaks_w: dict[str, float] = Field(description="Estimated whole-system spikes by duration window")
    psu_required_w: float | None = Field(description="Before rounding to a PSU size")
    psu_w: int | None = Field(description="Recommended PSU size (the largest unit when there are several)")
    psu_count: int | None
    psu_units_w: list[int]
    psu_layout: str
    wall_power_w: float | None = Field(description="AC draw at the socket at full load")
    heat_btu_per_hour: float | None
    circuits: list[CircuitCheck]
    power_connectors: dict[str, int] = Field(
        default_factory=dict, description="Auxiliary GPU power connectors, by kind"
    )
    system_ram_min_gib: float | None = None  # None: not a DIY build (a Mac, a vendor server)
    system_ram_gib: int | None = None
    cpu_cores: int | None = None
    pcie_lanes_per_gpu: int | None = Field(
        default=None, description="Lanes the card uses (x16, or x8 for cards like the 4060 Ti)"
    )
    pcie_link_width: int | None = Field(default=None, description="Lanes each GPU gets on the recommended platform")
    pcie_lanes_needed: int | None = Field(default=None, description="All GPUs at their full width plus NVMe storage")
    platform: PlatformChoice | None = None
    lanes_by_platform: dict[str, int] = Field(default_factory=dict)
    gpu_slots: int | None = Field(default=None, description="Expansion-slot positions one card occupies")
    slots_needed: int | None = None
    cards_fit_without_risers: int | None = None
    nvlink_bridge_available: bool
    nvlink_bridges: int
    nvlink_note: str
    cooling_notes: list[str]
    assumptions: list[str]
    warnings: list[str]


def plan_workstation(req: WorkstationRequest) -> WorkstationPlan:
    """Plan the machine around N GPUs of one kind."""
    gpu, note = resolve_gpu(req.gpu)
    assumptions: list[str] = [note] if note else []
    warnings: list[str] = []
    if req.budget_usd is not None:
        assumptions.append(f"budget ${req.budget_usd:,.0f} recorded; this planner does not price the build yet")
    form = (gpu.form_factor or "pcie").lower()
    if form in rules()["form_factors"]["whole_machine"] or gpu.vendor == "apple":
        return _whole_machine(req, gpu, assumptions, warnings)
    if form == "superchip":
        return _rack_system(req, gpu, assumptions, warnings)
    vendor_system = form in rules()["form_factors"]["vendor_system"]

    n = req.num_gpus
    gpu_w = _gpu_power(req, gpu, assumptions, warnings)
    lanes_per_gpu = gpu.pcie_lanes or 16
    if gpu.pcie_lanes is None:
        assumptions.append("PCIe width unknown for this card: x16 assumed")
    storage_lanes = rules()["storage_lanes"]
    lanes_needed = n * lanes_per_gpu + storage_lanes
    ram_min = rules()["system_ram"]["vram_multiple"] * n * gpu.vram_gib
    platform = _choose_platform(gpu, n, lanes_per_gpu, ram_min, vendor_system, assumptions, warnings)
    kind: BuildKind = "vendor_system" if vendor_system else ("gpu_server" if platform.id == "server" else "workstation")

    cpu_w = req.cpu_tdp_w if req.cpu_tdp_w is not None else platform.default_cpu_w
    host_w = cpu_w + platform.platform_w
    steady = n * gpu_w + host_w
    assumptions.append(
        f"steady DC load = {n} x {gpu_w:g} W GPU + {cpu_w:g} W CPU"
        + ("" if req.cpu_tdp_w is not None else f" (typical for {platform.name})")
        + f" + {platform.platform_w:g} W board/RAM/drives/fans = {steady:,.0f} W"
    )
    peaks = _transient_peaks(n, gpu_w, host_w, assumptions)
    psu = _size_psu(req, kind, n, gpu_w, host_w, assumptions, warnings)

    wall = _wall_power(req.use, steady, assumptions)
    circuit_w = _circuit_load(gpu, n, wall, vendor_system, assumptions)
    heat_btu = circuit_w * BTU_PER_HOUR_PER_W
    assumptions.append(
        f"heat: every watt drawn ends up in the room: {circuit_w:,.0f} W x {BTU_PER_HOUR_PER_W} = {heat_btu:,.0f} BTU/h"
    )
    circuits = _check_circuits(req, circuit_w, assumptions, warnings, rack=kind != "workstation")

    ram_gib = _ram_kit(platform, ram_min, req.use, n, gpu, assumptions, warnings)
    cores = _cpu_cores(req.use, n, platform, assumptions, warnings)
    width = _link_width(platform, n, lanes_per_gpu)
    _explain_lanes(gpu, n, lanes_per_gpu, width, lanes_needed, storage_lanes, platform, vendor_system, assumptions)
    warnings.extend(_lane_warnings(gpu, platform, lanes_per_gpu, width, vendor_system))

    connectors = {} if vendor_system else _connectors(gpu, n, gpu_w, assumptions, warnings, kind)
    slots, fit = (None, None) if vendor_system else _slots(gpu, n, platform, assumptions, warnings)
    available, bridges, nvlink_note = _nvlink(gpu, n, vendor_system)
    if vendor_system:
        _vendor_system_warnings(gpu, n, form, warnings)
    cooling = _cooling_notes(gpu, n, kind, circuit_w, req.use)

    return WorkstationPlan(
        gpu=gpu.name,
        gpu_id=gpu.id,
        num_gpus=n,
        use=req.use,
        build_kind=kind,
        gpu_power_w=gpu_w,
        gpu_total_w=n * gpu_w,
        cpu_w=cpu_w,
        platform_w=platform.platform_w,
        steady_load_w=round(steady, 1),
        transient_peaks_w={k: round(v, 1) for k, v in peaks.items()},
        psu_required_w=psu["required"],
        psu_w=psu["unit_w"],
        psu_count=psu["count"],
        psu_units_w=psu["units"],
        psu_layout=psu["layout"],
        wall_power_w=round(wall, 1),
        heat_btu_per_hour=round(heat_btu),
        circuits=circuits,
        power_connectors=connectors,
        system_ram_min_gib=ram_min,
        system_ram_gib=ram_gib,
        cpu_cores=cores,
        pcie_lanes_per_gpu=lanes_per_gpu,
        pcie_link_width=width,
        pcie_lanes_needed=lanes_needed,
        platform=PlatformChoice(**platform.model_dump(include=set(PlatformChoice.model_fields))),
        lanes_by_platform={p.id: p.cpu_lanes_usable for p in platforms()},
        gpu_slots=slots,
        slots_needed=None if slots is None else slots * n,
        cards_fit_without_risers=fit,
        nvlink_bridge_available=available,
        nvlink_bridges=bridges,
        nvlink_note=nvlink_note,
        cooling_notes=cooling,
        assumptions=assumptions,
        warnings=warnings,
    )


def _wall_power(use: Use, steady: float, assumptions: list[str]) -> float:
    """Return the AC draw at the socket: the DC load divided by the PSU's efficiency."""
    efficiency = rules()["psu"]["efficiency"]
    wall = steady / efficiency
    assumptions.append(
        f"wall power at full load = {steady:,.0f} W / {efficiency:.0%} PSU efficiency = {wall:,.0f} W "
        f"({rules()['psu']['efficiency_why']}); "
        + (
            "training keeps GPUs near their limit for hours"
            if use == "training"
            else "inference decode often draws less than TDP, but prefill bursts reach it, so plan for full load"
        )
    )
    return wall


def _circuit_load(gpu: GpuSpec, n: int, wall: float, vendor_system: bool, assumptions: list[str]) -> float:
    """Return the draw to check circuits against: the estimate, or a vendor system's rating when that is higher."""
    anchor = rules()["vendor_systems"]["systems"].get(gpu.id) if vendor_system else None
    if not anchor:
        return wall
    systems = math.ceil(n / 8)
    circuit_w = max(wall, anchor["max_w"] * systems)
    assumptions.append(
        f"vendor reference: {anchor['name']} is rated {anchor['max_w']:,} W maximum "
        f"({systems} system(s) = {anchor['max_w'] * systems:,} W); circuits are checked against the larger of that "
        f"and the {wall:,.0f} W estimate (switches, NICs and fans make the real system draw more)"
    )
    return circuit_w


def _lane_warnings(gpu: GpuSpec, platform: Platform, lanes_per_gpu: int, width: int, vendor_system: bool) -> list[str]:
    """Warn when the platform narrows each GPU's link, or when the card itself is narrower than x16."""
    warnings = []
    if width < lanes_per_gpu and not vendor_system:
        warnings.append(
            f"on {platform.name} each GPU gets x{width} instead of x{lanes_per_gpu}: fine for inference and LoRA, but "
            "host transfers and GPU-to-GPU traffic over PCIe run at half rate or less"
        )
    if lanes_per_gpu < 16:
        warnings.append(
            f"{gpu.name} is an x{lanes_per_gpu} card: PCIe {gpu.pcie_gen or '?'}.0 x{lanes_per_gpu} gives half the "
            "host bandwidth of an x16 card, and in an older PCIe 3.0 slot it falls further; model loading and offload "
            "are slower, token generation itself is not affected"
        )
    return warnings


def _gpu_power(req: WorkstationRequest, gpu: GpuSpec, assumptions: list[str], warnings: list[str]) -> float:
    if req.gpu_power_limit_w is not None:
        if gpu.tdp_w and req.gpu_power_limit_w > gpu.tdp_w:
            warnings.append(
                f"power limit {req.gpu_power_limit_w:g} W is above {gpu.name}'s rated {gpu.tdp_w:g} W; only some "
                "partner cards allow raising the limit"
            )
        assumptions.append(
            f"GPUs capped at {req.gpu_power_limit_w:g} W each (`nvidia-smi -pl`, reapplied at boot)"
            + (f"; rated {gpu.tdp_w:g} W" if gpu.tdp_w else "")
        )
        return float(req.gpu_power_limit_w)
    if not gpu.tdp_w:
        raise AdvisorError(
            f"the board power of {gpu.name} is unknown, so the power supply cannot be sized; "
            "pass gpu_power_limit_w (the card's TDP/TGP in watts)"
        )
    assumptions.append(f"{gpu.name}: {gpu.tdp_w:g} W rated board power (TDP/TGP) per GPU")
    return float(gpu.tdp_w)


def _choose_platform(
    gpu: GpuSpec,
    n: int,
    lanes_per_gpu: int,
    ram_min: float,
    vendor_system: bool,
    assumptions: list[str],
    warnings: list[str],
) -> Platform:
    """Pick the smallest platform class that carries the GPUs, their lanes and the RAM."""
    table = platforms()
    server = table[-1]
    if vendor_system:
        assumptions.append(f"platform: {server.name} (the SXM/OAM baseboard sits in the vendor's server)")
        return server
    passive = (gpu.cooling or "").lower() == "passive"
    min_link = min(8, lanes_per_gpu)  # x8 per GPU is the least a plan accepts (desktop x8/x8)
    for platform in table:
        reasons = []
        if n > platform.max_gpus:
            reasons.append(f"{n} GPUs > {platform.max_gpus}")
        if n * min_link > platform.gpu_lanes:
            reasons.append(f"{n} x x{min_link} lanes > {platform.gpu_lanes}")
        if ram_min > platform.max_ram_gib:
            reasons.append(f"{ram_min:g} GiB RAM > {platform.max_ram_gib} GiB")
        if passive and platform.id != "server":
            reasons.append("passive cards need server airflow")
        if not reasons:
            assumptions.append(
                f"platform: {platform.name} — the smallest class with room for {n} GPU(s) at x{min_link} or wider, "
                f"{platform.cpu_lanes_usable} usable CPU lanes ({platform.lane_note})"
            )
            return platform
        if platform is server:
            warnings.append(
                f"{n} GPUs exceed a single GPU server ({'; '.join(reasons)}): split the work over two nodes or use a "
                "chassis with PCIe switches built for that many cards"
            )
            assumptions.append(f"platform: {server.name} (over its limits: {'; '.join(reasons)})")
            return server
    raise AssertionError("platform table is empty")  # pragma: no cover


def _transient_peaks(n: int, gpu_w: float, host_w: float, assumptions: list[str]) -> dict[str, float]:
    """Whole-system power in each short window, with measured GPU spike factors for high-power cards."""
    cfg = rules()["psu"]
    high_power = gpu_w >= cfg["high_power_gpu_w"]
    peaks = {}
    for window in cfg["excursion_windows"]:
        factor = window["gpu_spike_factor"] if high_power else 1.0
        peaks[window["window"]] = n * gpu_w * factor + host_w
    if high_power:
        worst = max(cfg["excursion_windows"], key=lambda w: w["gpu_spike_factor"])
        assumptions.append(
            f"transients: cards of {cfg['high_power_gpu_w']} W and more spike above their rating "
            f"({cfg['high_power_why']}); spike factors measured on the RTX 5090 and applied here: "
            + "; ".join(
                f"{w['window']}: x{w['gpu_spike_factor']} ({w['gpu_spike_why']})" for w in cfg["excursion_windows"]
            )
            + f"; worst case {n} x {gpu_w:g} W x {worst['gpu_spike_factor']} + {host_w:g} W host = "
            f"{peaks[worst['window']]:,.0f} W for under {worst['window']}"
        )
    else:
        assumptions.append(
            f"transients: {gpu_w:g} W cards are below the {cfg['high_power_gpu_w']} W excursion class, so no spike "
            "allowance is added"
        )
    return peaks


def _unit_requirement(
    gpus_on_unit: int, gpu_w: float, host_w: float, legacy: bool, high_power: bool
) -> tuple[float, str]:
    """Size one PSU for the GPUs (and optionally the host) it feeds: margin vs transient rules."""
    cfg = rules()["psu"]
    steady = gpus_on_unit * gpu_w + host_w
    need, why = steady * cfg["margin"], f"{steady:,.0f} W x {cfg['margin']} margin"
    for window in cfg["excursion_windows"]:
        factor = window["gpu_spike_factor"] if high_power else 1.0
        allowance = 1.0 if legacy else window["psu_allowance_atx3"]
        peak = gpus_on_unit * gpu_w * factor + host_w
        if peak / allowance > need:
            need = peak / allowance
            why = f"{window['window']} spike {peak:,.0f} W / {allowance:.0%} allowance"
    return need, why


def _step(watts: float) -> int:
    steps = rules()["psu"]["steps_w"]
    return next((s for s in steps if s >= watts - 1e-9), steps[-1])


def _size_psu(
    req: WorkstationRequest,
    kind: BuildKind,
    n: int,
    gpu_w: float,
    host_w: float,
    assumptions: list[str],
    warnings: list[str],
) -> dict:
    """Round the requirement to PSU sizes; split over several units when one is not enough."""
    cfg = rules()["psu"]
    high_power = gpu_w >= cfg["high_power_gpu_w"]
    legacy = req.legacy_psu
    required, why = _unit_requirement(n, gpu_w, host_w, legacy, high_power)
    allowances = ", ".join(
        f"{w['psu_allowance_atx3']:.0%} for {w['window']}" for w in reversed(cfg["excursion_windows"])
    )
    assumptions.append(
        f"PSU requirement = the larger of steady load x {cfg['margin']} ({cfg['margin_why']}) and each spike divided "
        + (
            "by 100% (a pre-ATX-3.0 PSU has no excursion allowance)"
            if legacy
            else f"by the ATX 3.x excursion allowance ({allowances}; Intel ATX 3.0/3.1 design guide)"
        )
        + f" = {required:,.0f} W, set by the {why}"
    )
    if legacy and high_power:
        modern, _ = _unit_requirement(n, gpu_w, host_w, False, high_power)
        warnings.append(
            f"a pre-ATX-3.0 PSU must be sized for the spikes ({required:,.0f} W vs {modern:,.0f} W for an ATX 3.x unit "
            "with a native 12V-2x6 cable); older units may trip over-current protection and shut down under load"
        )
    if kind == "vendor_system":
        return {
            "required": round(required, 1),
            "unit_w": None,
            "count": None,
            "units": [],
            "layout": "vendor power supplies (redundant CRPS modules on 200-240 V), chosen by the system vendor",
        }
    if kind == "gpu_server":
        largest = cfg["server_psu_unit_w"]
        count = math.ceil(required / largest)
        unit = next(s for s in cfg["server_psu_steps_w"] if s >= required / count - 1e-9)
        assumptions.append(
            f"server PSUs: {required:,.0f} W over CRPS modules of up to {largest:,} W = {count} x {unit:,} W, plus "
            f"{count} more for N+N redundancy (or 1 more for N+1); these modules deliver full power only on 200-240 V"
        )
        return {
            "required": round(required, 1),
            "unit_w": unit,
            "count": count,
            "units": [unit] * count,
            "layout": f"{count} x {unit:,} W server PSUs (+{count} for N+N redundancy), 200-240 V input",
        }
    if required <= cfg["max_single_atx_w_230v"]:
        unit = _step(required)
        layout = (
            f"1 x {unit:,} W PSU (pre-ATX-3.0, sized for the spikes; an ATX 3.1 unit could be smaller)"
            if legacy
            else f"1 x {unit:,} W ATX 3.1 PSU"
        )
        if unit > cfg["max_single_atx_w"]:
            dual = _split_units(n, gpu_w, host_w, legacy, high_power, 2)
            warnings.append(
                f"{unit:,} W ATX PSUs reach their rating only on 200-240 V input; on a 120 V circuit use two PSUs "
                f"({' + '.join(f'{u:,} W' for u, _ in dual)}), or cap the GPUs with `nvidia-smi -pl`"
            )
        return {"required": round(required, 1), "unit_w": unit, "count": 1, "units": [unit], "layout": layout}
    for count in range(2, n + 2):
        units = _split_units(n, gpu_w, host_w, legacy, high_power, count)
        if max(u for u, _ in units) <= cfg["max_single_atx_w"]:
            break
    sizes = [u for u, _ in units]
    layout = "; ".join(f"PSU {i + 1}: {u:,} W for {feeds}" for i, (u, feeds) in enumerate(units))
    warnings.append(
        f"{required:,.0f} W is more than one ATX PSU delivers ({cfg['max_single_atx_w']:,} W at 120 V, "
        f"{cfg['max_single_atx_w_230v']:,} W at 230 V): use {count} PSUs ({layout}) joined by an add2psu/sync board "
        "with a common ground, each GPU's power cables from one PSU only; or a server chassis with CRPS supplies"
    )
    assumptions.append(
        f"dual-PSU split: GPUs go to the least-loaded unit; the motherboard PSU also carries {host_w:g} W of CPU and "
        "platform; each unit is sized with the same margin and transient rules"
    )
    return {"required": round(required, 1), "unit_w": max(sizes), "count": count, "units": sizes, "layout": layout}


def _split_units(
    n: int, gpu_w: float, host_w: float, legacy: bool, high_power: bool, count: int
) -> list[tuple[int, str]]:
    """Assign GPUs to PSUs (least-loaded first) and size each unit."""
    gpus = [0] * count
    loads = [host_w] + [0.0] * (count - 1)
    for _ in range(n):
        i = loads.index(min(loads))
        gpus[i] += 1
        loads[i] += gpu_w
    units = []
    for i in range(count):
        need, _ = _unit_requirement(gpus[i], gpu_w, host_w if i == 0 else 0.0, legacy, high_power)
        feeds = ("motherboard, CPU and " if i == 0 else "") + f"{gpus[i]} GPU(s)"
        units.append((_step(need), feeds))
    return units


def _check_circuits(
    req: WorkstationRequest, wall_w: float, assumptions: list[str], warnings: list[str], rack: bool = False
) -> list[CircuitCheck]:
    cfg = rules()["circuits"]
    factor = cfg["continuous_factor"]
    checks = [
        CircuitCheck(
            id=c["id"],
            label=c["label"],
            peak_w=c["volts"] * c["amps"],
            continuous_w=c["volts"] * c["amps"] * factor,
            fits=wall_w <= c["volts"] * c["amps"] * factor,
        )
        for c in cfg["list"]
    ]
    assumptions.append(f"circuits: continuous limit = volts x amps x {factor} ({cfg['continuous_why']})")
    chosen = [c for c in checks if c.id == req.circuit] if req.circuit else checks
    failing = [c for c in chosen if not c.fits]
    if failing:
        fitting = [c.label for c in checks if c.fits]
        remedy = (
            "feed it from rack PDUs on 200-240 V (single- or three-phase), one feed per PSU"
            if rack
            else "split the PSUs over separate circuits, or cap the GPUs with `nvidia-smi -pl`"
        )
        warnings.append(
            f"~{wall_w:,.0f} W from the wall is more than "
            + ", ".join(f"{c.label} ({c.continuous_w:,.0f} W continuous)" for c in failing)
            + (
                f": use {' or '.join(fitting)}, or {remedy}"
                if fitting
                else f": no household circuit carries it; {remedy}"
            )
        )
    near = [c for c in chosen if c.fits and wall_w > 0.9 * c.continuous_w]
    if near:
        warnings.append(
            f"~{wall_w:,.0f} W uses over 90% of {', '.join(c.label for c in near)}: keep other loads (monitors, "
            "heaters) off that circuit"
        )
    return checks


def _ram_kit(
    platform: Platform,
    ram_min: float,
    use: Use,
    n: int,
    gpu: GpuSpec,
    assumptions: list[str],
    warnings: list[str],
) -> int:
    """Round 2x total VRAM up to a kit that populates the platform's memory channels."""
    kits = sorted(
        {count * size for count in platform.dimm_counts for size in platform.dimm_sizes_gib}
        & set(range(platform.max_ram_gib + 1))
    )
    kit = next((k for k in kits if k >= ram_min), kits[-1])
    dimms = next(
        f"{count} x {size} GB"
        for count in platform.dimm_counts
        for size in platform.dimm_sizes_gib
        if count * size == kit
    )
    multiple = rules()["system_ram"]["vram_multiple"]
    assumptions.append(
        f"system RAM >= {multiple:g} x total GPU memory = {multiple:g} x {n} x {gpu.vram_gib:g} GiB = {ram_min:g} GiB "
        f"({rules()['system_ram']['why']}); rounded up to {kit} GiB ({dimms}, filling "
        f"{platform.memory_channels} memory channels on {platform.name})"
    )
    if kit < ram_min:
        warnings.append(f"{ram_min:g} GiB of RAM is beyond {platform.name}'s {platform.max_ram_gib} GiB maximum")
    if use == "training":
        assumptions.append(
            "DeepSpeed/FSDP CPU offload needs much more RAM: offloaded AdamW state is about 12 bytes or more per "
            "parameter (a 7B model's optimizer alone is ~84 GB)"
        )
    return kit


def _cpu_cores(use: Use, n: int, platform: Platform, assumptions: list[str], warnings: list[str]) -> int:
    cfg = rules()["cpu_cores"]
    per_gpu = cfg["per_gpu"][use]
    raw = max(cfg["minimum"], cfg["base"] + per_gpu * n)
    cores = next((s for s in cfg["steps"] if s >= raw), cfg["steps"][-1])
    assumptions.append(
        f"CPU cores = {cfg['base']} + {per_gpu} per GPU for {use} x {n} = {cfg['base'] + per_gpu * n} "
        f"(at least {cfg['minimum']}), rounded up to a common core count: {cores} ({cfg['why']})"
    )
    if cores > platform.max_cores:
        warnings.append(
            f"{cores} cores is more than {platform.name} offers ({platform.max_cores}); the top part of the class "
            "will do, or move up a platform class if data loading becomes the bottleneck"
        )
    return cores


def _link_width(platform: Platform, n: int, lanes_per_gpu: int) -> int:
    share = platform.gpu_lanes // n
    width = 16
    while width > share and width > 1:
        width //= 2
    return min(lanes_per_gpu, width)


def _explain_lanes(
    gpu: GpuSpec,
    n: int,
    lanes_per_gpu: int,
    width: int,
    lanes_needed: int,
    storage_lanes: int,
    platform: Platform,
    vendor_system: bool,
    assumptions: list[str],
) -> None:
    others = ", ".join(f"{p.id} {p.cpu_lanes_usable}" for p in platforms())
    assumptions.append(
        f"PCIe lanes needed = {n} x x{lanes_per_gpu} + {storage_lanes} for NVMe ({rules()['storage_why']}) = "
        f"{lanes_needed}; usable CPU lanes by class: {others}; {platform.name} gives each GPU x{width}"
        + (" (the baseboard's PCIe switches fan the host lanes out to the GPUs and NICs)" if vendor_system else "")
    )


def _connectors(
    gpu: GpuSpec, n: int, gpu_w: float, assumptions: list[str], warnings: list[str], kind: BuildKind
) -> dict[str, int]:
    """Auxiliary power connectors for all cards, from the table or estimated from board power."""
    table = rules()["gpu_power_connectors"]["cards"]
    labels = {
        "16pin": "16-pin 12V-2x6/12VHPWR",
        "pcie8": "8-pin PCIe",
        "pcie6": "6-pin PCIe",
        "eps8": "8-pin EPS12V (CPU-style)",
    }
    row = table.get(gpu.id)
    if row is not None:
        per_card = {k: int(v) for k, v in row.items() if k in labels}
        assumptions.append(
            "power connectors per card: "
            + (", ".join(f"{v} x {labels[k]}" for k, v in per_card.items()) or "none")
            + (f" ({row['note']})" if row.get("note") else "")
        )
    else:
        rated = gpu.tdp_w or gpu_w
        if rated <= 75:
            per_card = {}
        elif rated > 300 and (gpu.pcie_gen or 0) >= 5:
            per_card = {"16pin": 1}
        else:
            per_card = {"pcie8": math.ceil((rated - 75) / 150)}
        assumptions.append(
            "power connectors not listed for this card: estimated from board power (75 W from the slot, 150 W per "
            "8-pin, one 16-pin for 300-600 W PCIe 5.0 cards); check the card's manual"
        )
    total = {labels[k]: v * n for k, v in per_card.items() if v}
    if per_card.get("16pin", 0) * n > 2 and kind == "workstation":
        warnings.append(
            f"{per_card['16pin'] * n} x 16-pin cables needed: most ATX 3.x PSUs have one or two native 12V-2x6 cables; "
            "choose units with enough native cables rather than 4 x 8-pin adapters, push each plug in until it clicks, "
            "and do not bend the cable sharply at the plug"
        )
    elif per_card.get("16pin"):
        warnings.append(
            "16-pin 12VHPWR/12V-2x6: use the PSU's native cable, seat the plug fully (no gap), avoid sharp bends near "
            "the plug and check it after the first weeks of heavy load; melted connectors have been reported on "
            "4090/5090 cards"
        )
    if per_card.get("eps8"):
        warnings.append(
            "these cards take an 8-pin EPS12V (CPU) connector, not a PCIe 8-pin: use a CPU/EPS cable or the vendor's "
            "adapter; the two plugs are keyed differently and must not be forced"
        )
    return total


def _slots(gpu: GpuSpec, n: int, platform: Platform, assumptions: list[str], warnings: list[str]) -> tuple[int, int]:
    """Compare card thickness x N with the board's x16 slot layout; count cards that fit without risers."""
    slots = gpu.slots or 2
    if gpu.slots is None:
        assumptions.append("card thickness unknown: 2 slots assumed")
    open_air = (gpu.cooling or "").lower() == "open-air"
    if platform.x16_slot_positions is None:
        fit = platform.max_gpus if slots <= 2 else 0
        assumptions.append(
            f"slots: a GPU server chassis holds up to {platform.max_gpus} double-width cards; {slots}-slot cards "
            + ("fit" if fit else "do not fit its card cages")
        )
        if not fit:
            warnings.append(
                f"{slots}-slot consumer cards do not fit standard GPU-server card cages: use 2-slot blower or "
                "passive versions"
            )
        elif open_air:
            warnings.append(
                "open-air cards in a server chassis fight the front-to-back airflow: use blower or passive versions"
            )
        return slots, fit
    fit, gaps, end = 0, [], 0
    for position in platform.x16_slot_positions:
        if position > end and position + slots - 1 <= (platform.case_expansion_slots or 99):
            if 0 < fit < n:
                gaps.append(position - end - 1)
            fit += 1
            end = position + slots - 1
    assumptions.append(
        f"slots: {n} x {slots}-slot card(s) need {n * slots} slot positions; {platform.name} boards put x16 slots at "
        f"positions {platform.x16_slot_positions} in a {platform.case_expansion_slots}-slot case, so up to {fit} fit "
        f"without risers" + (f", with {min(gaps)} empty slot(s) between adjacent cards" if gaps else "")
    )
    if fit < n:
        warnings.append(
            f"only {fit} of {n} {slots}-slot cards fit on a {platform.name} board: use PCIe 4.0/5.0-rated riser "
            "cables in an open frame or large chassis, 2-slot blower versions, or water blocks"
        )
    if open_air and n >= 2 and gaps and min(gaps) == 0:
        warnings.append(
            f"{slots}-slot spacing: with x16 slots {slots} positions apart the {slots}-slot open-air cards sit with no "
            "air gap and the upper card chokes; many partner cards are 3.5-4 slots and will not fit at all. Use a "
            "board with x16 slots 4 apart, risers, or blower/water-cooled cards"
        )
    if open_air and n > 2:
        warnings.append(
            f"{n} open-air cards: they dump heat into the case and starve each other; prefer blower or water-cooled "
            "versions, or risers in an open frame with space between cards"
        )
    return slots, fit


def _nvlink(gpu: GpuSpec, n: int, vendor_system: bool) -> tuple[bool, int, str]:
    """NVLink bridge availability and how many bridges N cards take."""
    if vendor_system:
        link = gpu.interconnect_note or ("NVLink" if gpu.nvlink else "the vendor's GPU fabric")
        return False, 0, f"no bridges: the GPUs are linked on the baseboard ({link})"
    if not gpu.nvlink:
        return False, 0, gpu.interconnect_note or f"{gpu.name} has no NVLink; multi-GPU traffic goes over PCIe"
    bridge = rules()["nvlink_bridges"]["cards"].get(gpu.id, {})
    group = bridge.get("max_gpus", 2)
    spacing = bridge.get("spacing", "check the bridge width against the slot spacing")
    if n < 2:
        return True, 0, f"NVLink bridge available ({group}-way, {spacing}); it needs a second card"
    bridges = n // group
    note = f"{group}-way NVLink bridges only ({spacing}): {bridges} bridge(s) join {bridges * group} of {n} GPUs"
    if n > group:
        note += f"; traffic between {'pairs' if group == 2 else 'groups'} crosses PCIe"
    if n % group:
        note += f"; {n % group} GPU(s) stay unbridged"
    return True, bridges, note + (f" ({gpu.interconnect_note})" if gpu.interconnect_note else "")


def _vendor_system_warnings(gpu: GpuSpec, n: int, form: str, warnings: list[str]) -> None:
    if form == "superchip":
        warnings.append(
            f"{gpu.name} is a superchip module sold only inside complete liquid-cooled racks from the vendor; "
            "there is nothing to build: plan rack power, cooling and networking with the vendor"
        )
        return
    board = "HGX" if form == "sxm" else "OAM/UBB"
    warnings.append(
        f"{gpu.name} is an {form.upper()} module, not a PCIe card: it mounts on an {board} baseboard with its own "
        f"power, cooling and interconnect. Buy a vendor {board} server (4- or 8-GPU baseboards); a DIY workstation "
        "is not possible"
    )
    if n % 4:
        warnings.append(f"{board} baseboards hold 4 or 8 GPUs; {n} GPUs means {math.ceil(n / 8)} 8-GPU system(s)")


def _cooling_notes(gpu: GpuSpec, n: int, kind: BuildKind, wall_w: float, use: Use) -> list[str]:
    cooling = (gpu.cooling or "unknown").lower()
    notes = {
        "open-air": "open-air cooler: quiet for one card, but it exhausts into the case; give the case strong "
        "front-to-back airflow and leave a free slot between cards",
        "blower": "blower cooler: exhausts out of the back of the case, so cards can sit side by side; loud under load",
        "passive": "passive card with no fans: needs ducted server airflow (a GPU server rated for this card); in a "
        "tower it overheats within minutes",
        "liquid": "liquid-cooled: needs facility water / a coolant distribution unit; a data-center install, not a "
        "workstation",
    }
    out = [notes.get(cooling, f"cooling type '{cooling}': follow the vendor's chassis requirements")]
    if kind in ("gpu_server", "vendor_system"):
        out.append(
            "server fans are loud (a jet-engine whine at full speed): put the machine in a rack room, not an office"
        )
    elif cooling == "blower" and n >= 2:
        out.append("several blower cards are loud: place the box away from desks or use it remotely")
    if wall_w >= 1000:
        out.append(
            f"~{wall_w:,.0f} W of heat is like a space heater running nonstop"
            + (" during training" if use == "training" else "")
            + f": a small room needs ventilation or air conditioning that removes {wall_w * BTU_PER_HOUR_PER_W:,.0f} "
            f"BTU/h ({wall_w / W_PER_AC_TON:.1f} ton of cooling; 1 ton = 12,000 BTU/h = {W_PER_AC_TON:,} W)"
        )
    else:
        out.append(f"~{wall_w:,.0f} W of heat: ordinary room ventilation is enough")
    extra = rules()["cooling_notes_by_gpu"]["cards"].get(gpu.id)
    if extra:
        out.append(extra)
    return out


def _whole_machine(
    req: WorkstationRequest, gpu: GpuSpec, assumptions: list[str], warnings: list[str]
) -> WorkstationPlan:
    """Apple silicon: the GPU is part of a complete computer, so there is nothing to build."""
    n = req.num_gpus
    warnings.append(
        f"{gpu.name} is a system-on-chip inside a complete Mac: CPU, GPU and {gpu.vram_gib:g} GB unified memory come "
        "as one machine, so there is no PSU, motherboard or RAM to choose"
    )
    if n > 1:
        warnings.append(
            f"{n} Macs can be clustered over Thunderbolt or Ethernet (llama.cpp RPC, exo, MLX distributed), but each "
            "is a separate computer and the link is far slower than NVLink or PCIe"
        )
    wall = gpu.tdp_w * n if gpu.tdp_w else None
    if wall:
        assumptions.append(f"wall power: {n} x {gpu.tdp_w:g} W maximum continuous per machine = {wall:,.0f} W")
    usable = gpu.usable_memory_gib
    assumptions.append(
        f"memory: {gpu.vram_gib:g} GB unified, of which about {usable:g} GB can be wired for the GPU by default"
    )
    circuits = _check_circuits(req, wall, assumptions, warnings) if wall else []
    return WorkstationPlan(
        gpu=gpu.name,
        gpu_id=gpu.id,
        num_gpus=n,
        use=req.use,
        build_kind="whole_machine",
        gpu_power_w=gpu.tdp_w,
        gpu_total_w=wall,
        cpu_w=None,
        platform_w=None,
        steady_load_w=wall,
        transient_peaks_w={},
        psu_required_w=None,
        psu_w=None,
        psu_count=None,
        psu_units_w=[],
        psu_layout="built into the Mac",
        wall_power_w=wall,
        heat_btu_per_hour=round(wall * BTU_PER_HOUR_PER_W) if wall else None,
        circuits=circuits,
        nvlink_bridge_available=False,
        nvlink_bridges=0,
        nvlink_note="Apple silicon has no NVLink; Macs cluster over Thunderbolt or Ethernet",
        cooling_notes=["built-in cooling; keep the vents clear"],
        assumptions=assumptions,
        warnings=warnings,
    )


def _rack_system(req: WorkstationRequest, gpu: GpuSpec, assumptions: list[str], warnings: list[str]) -> WorkstationPlan:
    """Superchip parts (GB200): sold as liquid-cooled racks, so only power and heat are estimated."""
    n = req.num_gpus
    _vendor_system_warnings(gpu, n, "superchip", warnings)
    gpu_w = _gpu_power(req, gpu, assumptions, warnings)
    efficiency = rules()["psu"]["efficiency"]
    steady = n * gpu_w
    wall = steady / efficiency
    assumptions.append(
        f"power: {n} x {gpu_w:g} W per GPU (its share of the superchip, CPU included) = {steady:,.0f} W, "
        f"/ {efficiency:.0%} conversion = {wall:,.0f} W at the wall, before switches, NICs and cooling"
    )
    heat = wall * BTU_PER_HOUR_PER_W
    assumptions.append(f"heat: {wall:,.0f} W x {BTU_PER_HOUR_PER_W} = {heat:,.0f} BTU/h")
    circuits = _check_circuits(req, wall, assumptions, warnings, rack=True)
    available, bridges, nvlink_note = _nvlink(gpu, n, True)
    return WorkstationPlan(
        gpu=gpu.name,
        gpu_id=gpu.id,
        num_gpus=n,
        use=req.use,
        build_kind="vendor_system",
        gpu_power_w=gpu_w,
        gpu_total_w=steady,
        cpu_w=None,
        platform_w=None,
        steady_load_w=steady,
        transient_peaks_w={},
        psu_required_w=None,
        psu_w=None,
        psu_count=None,
        psu_units_w=[],
        psu_layout="rack power shelves chosen by the vendor",
        wall_power_w=round(wall, 1),
        heat_btu_per_hour=round(heat),
        circuits=circuits,
        nvlink_bridge_available=available,
        nvlink_bridges=bridges,
        nvlink_note=nvlink_note,
        cooling_notes=_cooling_notes(gpu, n, "vendor_system", wall, req.use),
        assumptions=assumptions,
        warnings=warnings,
    )
