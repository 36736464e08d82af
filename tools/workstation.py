"""plan_workstation: PSU, wall power, RAM, CPU cores, PCIe lanes, slot spacing, NVLink and cooling for N GPUs."""

from __future__ import annotations

import math
from functools import cache
from typing import Literal

from pydantic import BaseModel, Field, field_validator

from tools._data import load_yaml
from tools.catalog import GpuSpec, resolve_gpu_noted
from tools.errors import AdvisorError
from tools.notes import Note, note

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
    psu_layout: Note = Field(description="The power supplies, as a catalog note (one line of the plan)")
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
    nvlink_note: Note
    cooling_notes: list[Note]
    assumptions: list[Note]
    warnings: list[Note]


def plan_workstation(req: WorkstationRequest) -> WorkstationPlan:
    """Plan the machine around N GPUs of one kind."""
    gpu, read_as = resolve_gpu_noted(req.gpu)
    assumptions: list[Note] = [read_as] if read_as else []
    warnings: list[Note] = []
    if req.budget_usd is not None:
        assumptions.append(note("ws_budget_recorded", budget=req.budget_usd, currency="USD"))
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
        assumptions.append(note("ws_pcie_unknown"))
    storage_lanes = rules()["storage_lanes"]
    lanes_needed = n * lanes_per_gpu + storage_lanes
    ram_min = rules()["system_ram"]["vram_multiple"] * n * gpu.vram_gib
    platform = _choose_platform(gpu, n, lanes_per_gpu, ram_min, vendor_system, assumptions, warnings)
    kind: BuildKind = "vendor_system" if vendor_system else ("gpu_server" if platform.id == "server" else "workstation")

    cpu_w = req.cpu_tdp_w if req.cpu_tdp_w is not None else platform.default_cpu_w
    host_w = cpu_w + platform.platform_w
    steady = n * gpu_w + host_w
    load = dict(n=n, gpu_w=gpu_w, cpu_w=cpu_w, platform_w=platform.platform_w, steady=steady)
    if req.cpu_tdp_w is not None:
        assumptions.append(note("ws_steady", **load))
    else:
        assumptions.append(note("ws_steady_typical", **load, platform=platform.name, platform_id=platform.id))
    peaks = _transient_peaks(n, gpu_w, host_w, assumptions)
    psu = _size_psu(req, kind, n, gpu_w, host_w, assumptions, warnings)

    wall = _wall_power(req.use, steady, assumptions)
    circuit_w = _circuit_load(gpu, n, wall, vendor_system, assumptions)
    heat_btu = circuit_w * BTU_PER_HOUR_PER_W
    assumptions.append(note("ws_heat", watts=circuit_w, factor=BTU_PER_HOUR_PER_W, btu=heat_btu))
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


def _wall_power(use: Use, steady: float, assumptions: list[Note]) -> float:
    """Return the AC draw at the socket: the DC load divided by the PSU's efficiency."""
    efficiency = rules()["psu"]["efficiency"]
    wall = steady / efficiency
    about = rules()["psu"]["efficiency_why"]
    code = "ws_wall_training" if use == "training" else "ws_wall_inference"
    assumptions.append(note(code, steady=steady, efficiency=efficiency, wall=wall, about=about))
    return wall


def _circuit_load(gpu: GpuSpec, n: int, wall: float, vendor_system: bool, assumptions: list[Note]) -> float:
    """Return the draw to check circuits against: the estimate, or a vendor system's rating when that is higher."""
    anchor = rules()["vendor_systems"]["systems"].get(gpu.id) if vendor_system else None
    if not anchor:
        return wall
    systems = math.ceil(n / 8)
    circuit_w = max(wall, anchor["max_w"] * systems)
    total = anchor["max_w"] * systems
    reference = dict(system=anchor["name"], max_w=anchor["max_w"], systems=systems, total_w=total, wall=wall)
    assumptions.append(note("ws_vendor_reference", **reference))
    return circuit_w


def _lane_warnings(gpu: GpuSpec, platform: Platform, lanes_per_gpu: int, width: int, vendor_system: bool) -> list[Note]:
    """Warn when the platform narrows each GPU's link, or when the card itself is narrower than x16."""
    warnings = []
    if width < lanes_per_gpu and not vendor_system:
        where = dict(platform=platform.name, platform_id=platform.id)
        warnings.append(note("ws_lanes_narrowed", **where, width=width, lanes=lanes_per_gpu))
    if lanes_per_gpu < 16:
        warnings.append(note("ws_narrow_card", gpu=gpu.name, lanes=lanes_per_gpu, gen=str(gpu.pcie_gen or "?")))
    return warnings


def _gpu_power(req: WorkstationRequest, gpu: GpuSpec, assumptions: list[Note], warnings: list[Note]) -> float:
    if req.gpu_power_limit_w is not None:
        limit = req.gpu_power_limit_w
        if gpu.tdp_w and limit > gpu.tdp_w:
            warnings.append(note("ws_limit_above_rated", limit=limit, gpu=gpu.name, tdp=gpu.tdp_w))
        assumptions.append(
            note("ws_capped_rated", limit=limit, tdp=gpu.tdp_w) if gpu.tdp_w else note("ws_capped", limit=limit)
        )
        return float(req.gpu_power_limit_w)
    if not gpu.tdp_w:
        raise AdvisorError(
            f"the board power of {gpu.name} is unknown, so the power supply cannot be sized; "
            "pass gpu_power_limit_w (the card's TDP/TGP in watts)"
        )
    assumptions.append(note("ws_board_power", gpu=gpu.name, tdp=gpu.tdp_w))
    return float(gpu.tdp_w)


def _choose_platform(
    gpu: GpuSpec,
    n: int,
    lanes_per_gpu: int,
    ram_min: float,
    vendor_system: bool,
    assumptions: list[Note],
    warnings: list[Note],
) -> Platform:
    """Pick the smallest platform class that carries the GPUs, their lanes and the RAM."""
    table = platforms()
    server = table[-1]
    if vendor_system:
        assumptions.append(note("ws_platform_vendor", platform=server.name, platform_id=server.id))
        return server
    passive = (gpu.cooling or "").lower() == "passive"
    min_link = min(8, lanes_per_gpu)  # x8 per GPU is the least a plan accepts (desktop x8/x8)
    for platform in table:
        reasons = []
        if n > platform.max_gpus:
            reasons.append(note("ws_over_gpus", n=n, max=platform.max_gpus))
        if n * min_link > platform.gpu_lanes:
            reasons.append(note("ws_over_lanes", n=n, link=min_link, lanes=platform.gpu_lanes))
        if ram_min > platform.max_ram_gib:
            reasons.append(note("ws_over_ram", ram=ram_min, max=platform.max_ram_gib))
        if passive and platform.id != "server":
            reasons.append(note("ws_over_passive"))
        where = dict(platform=platform.name, platform_id=platform.id)
        if not reasons:
            room = dict(n=n, link=min_link, lanes=platform.cpu_lanes_usable, about=platform.lane_note)
            assumptions.append(note("ws_platform", **where, **room))
            return platform
        if platform is server:
            warnings.append(note("ws_too_many_gpus", n=n, reasons=reasons))
            assumptions.append(note("ws_platform_over", **where, reasons=reasons))
            return server
    raise AssertionError("platform table is empty")  # pragma: no cover


def _transient_peaks(n: int, gpu_w: float, host_w: float, assumptions: list[Note]) -> dict[str, float]:
    """Whole-system power in each short window, with measured GPU spike factors for high-power cards."""
    cfg = rules()["psu"]
    high_power = gpu_w >= cfg["high_power_gpu_w"]
    peaks = {}
    for window in cfg["excursion_windows"]:
        factor = window["gpu_spike_factor"] if high_power else 1.0
        peaks[window["window"]] = n * gpu_w * factor + host_w
    if high_power:
        worst = max(cfg["excursion_windows"], key=lambda w: w["gpu_spike_factor"])
        factors = [
            note("ws_spike_factor", window=w["window"], factor=w["gpu_spike_factor"], about=w["gpu_spike_why"])
            for w in cfg["excursion_windows"]
        ]
        case = dict(n=n, gpu_w=gpu_w, worst=worst["gpu_spike_factor"], host_w=host_w, window=worst["window"])
        threshold = dict(threshold=cfg["high_power_gpu_w"], about=cfg["high_power_why"])
        assumptions.append(note("ws_transients", **threshold, factors=factors, **case, peak=peaks[worst["window"]]))
    else:
        assumptions.append(note("ws_transients_none", gpu_w=gpu_w, threshold=cfg["high_power_gpu_w"]))
    return peaks


def _unit_requirement(
    gpus_on_unit: int, gpu_w: float, host_w: float, legacy: bool, high_power: bool
) -> tuple[float, Note]:
    """Size one PSU for the GPUs (and optionally the host) it feeds: margin vs transient rules."""
    cfg = rules()["psu"]
    steady = gpus_on_unit * gpu_w + host_w
    need, why = steady * cfg["margin"], note("ws_set_by_margin", steady=steady, margin=cfg["margin"])
    for window in cfg["excursion_windows"]:
        factor = window["gpu_spike_factor"] if high_power else 1.0
        allowance = 1.0 if legacy else window["psu_allowance_atx3"]
        peak = gpus_on_unit * gpu_w * factor + host_w
        if peak / allowance > need:
            need = peak / allowance
            why = note("ws_set_by_spike", window=window["window"], peak=peak, allowance=allowance)
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
    assumptions: list[Note],
    warnings: list[Note],
) -> dict:
    """Round the requirement to PSU sizes; split over several units when one is not enough."""
    cfg = rules()["psu"]
    high_power = gpu_w >= cfg["high_power_gpu_w"]
    legacy = req.legacy_psu
    required, why = _unit_requirement(n, gpu_w, host_w, legacy, high_power)
    rule = dict(margin=cfg["margin"], about=cfg["margin_why"], required=required, reason=[why])
    if legacy:
        assumptions.append(note("ws_psu_rule_legacy", **rule))
    else:
        allowances = [
            note("ws_allowance", share=w["psu_allowance_atx3"], window=w["window"])
            for w in reversed(cfg["excursion_windows"])
        ]
        assumptions.append(note("ws_psu_rule", **rule, allowances=allowances))
    if legacy and high_power:
        modern, _ = _unit_requirement(n, gpu_w, host_w, False, high_power)
        warnings.append(note("ws_legacy_psu", required=required, modern=modern))
    if kind == "vendor_system":
        return {
            "required": round(required, 1),
            "unit_w": None,
            "count": None,
            "units": [],
            "layout": note("ws_layout_vendor"),
        }
    if kind == "gpu_server":
        largest = cfg["server_psu_unit_w"]
        count = math.ceil(required / largest)
        unit = next(s for s in cfg["server_psu_steps_w"] if s >= required / count - 1e-9)
        servers = dict(required=required, largest=largest, count=count, unit=unit)
        assumptions.append(note("ws_server_psus", **servers))
        return {
            "required": round(required, 1),
            "unit_w": unit,
            "count": count,
            "units": [unit] * count,
            "layout": note("ws_layout_server", count=count, unit=unit),
        }
    if required <= cfg["max_single_atx_w_230v"]:
        unit = _step(required)
        layout = note("ws_layout_legacy" if legacy else "ws_layout_atx", unit=unit)
        if unit > cfg["max_single_atx_w"]:
            dual = _split_units(n, gpu_w, host_w, legacy, high_power, 2)
            warnings.append(note("ws_atx_needs_230v", unit=unit, dual=" + ".join(f"{u:,} W" for u, _ in dual)))
        return {"required": round(required, 1), "unit_w": unit, "count": 1, "units": [unit], "layout": layout}
    for count in range(2, n + 2):
        units = _split_units(n, gpu_w, host_w, legacy, high_power, count)
        if max(u for u, _ in units) <= cfg["max_single_atx_w"]:
            break
    sizes = [u for u, _ in units]
    parts = [feeds for _, feeds in units]
    limits = dict(max_120v=cfg["max_single_atx_w"], max_230v=cfg["max_single_atx_w_230v"])
    warnings.append(note("ws_multi_psu", required=required, **limits, count=count, layout=parts))
    assumptions.append(note("ws_psu_split", host_w=host_w))
    layout = note("ws_layout_units", units=parts)
    return {"required": round(required, 1), "unit_w": max(sizes), "count": count, "units": sizes, "layout": layout}


def _split_units(
    n: int, gpu_w: float, host_w: float, legacy: bool, high_power: bool, count: int
) -> list[tuple[int, Note]]:
    """Assign GPUs to PSUs (least-loaded first) and size each unit: (watts, what it feeds)."""
    gpus = [0] * count
    loads = [host_w] + [0.0] * (count - 1)
    for _ in range(n):
        i = loads.index(min(loads))
        gpus[i] += 1
        loads[i] += gpu_w
    units = []
    for i in range(count):
        need, _ = _unit_requirement(gpus[i], gpu_w, host_w if i == 0 else 0.0, legacy, high_power)
        unit = _step(need)
        units.append((unit, note("ws_psu_host" if i == 0 else "ws_psu_gpus", i=i + 1, unit=unit, gpus=gpus[i])))
    return units


def _check_circuits(
    req: WorkstationRequest, wall_w: float, assumptions: list[Note], warnings: list[Note], rack: bool = False
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
    assumptions.append(note("ws_circuit_rule", factor=factor, about=cfg["continuous_why"]))
    chosen = [c for c in checks if c.id == req.circuit] if req.circuit else checks
    failing = [
        note("ws_circuit_continuous", label=c.label, circuit=c.id, watts=c.continuous_w) for c in chosen if not c.fits
    ]
    if failing:
        fitting = [note("ws_circuit", label=c.label, circuit=c.id) for c in checks if c.fits]
        remedy = [note("ws_remedy_rack" if rack else "ws_remedy_home")]
        code = "ws_circuit_over" if fitting else "ws_circuit_over_all"
        warnings.append(note(code, wall=wall_w, failing=failing, fitting=fitting, remedy=remedy))
    near = [note("ws_circuit", label=c.label, circuit=c.id) for c in chosen if c.fits and wall_w > 0.9 * c.continuous_w]
    if near:
        warnings.append(note("ws_circuit_near", wall=wall_w, near=near))
    return checks


def _ram_kit(
    platform: Platform,
    ram_min: float,
    use: Use,
    n: int,
    gpu: GpuSpec,
    assumptions: list[Note],
    warnings: list[Note],
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
    where = dict(platform=platform.name, platform_id=platform.id)
    sizing = dict(multiple=multiple, n=n, vram=gpu.vram_gib, ram_min=ram_min, about=rules()["system_ram"]["why"])
    kit_parts = dict(kit=kit, dimms=dimms, channels=platform.memory_channels)
    assumptions.append(note("ws_ram", **sizing, **kit_parts, **where))
    if kit < ram_min:
        warnings.append(note("ws_ram_over", ram_min=ram_min, max=platform.max_ram_gib, **where))
    if use == "training":
        assumptions.append(note("ws_ram_offload"))
    return kit


def _cpu_cores(use: Use, n: int, platform: Platform, assumptions: list[Note], warnings: list[Note]) -> int:
    cfg = rules()["cpu_cores"]
    per_gpu = cfg["per_gpu"][use]
    raw = max(cfg["minimum"], cfg["base"] + per_gpu * n)
    cores = next((s for s in cfg["steps"] if s >= raw), cfg["steps"][-1])
    sizing = dict(base=cfg["base"], per_gpu=per_gpu, use=use, n=n, raw=cfg["base"] + per_gpu * n)
    assumptions.append(note("ws_cpu_cores", **sizing, minimum=cfg["minimum"], cores=cores, about=cfg["why"]))
    if cores > platform.max_cores:
        where = dict(platform=platform.name, platform_id=platform.id)
        warnings.append(note("ws_cores_over", cores=cores, max=platform.max_cores, **where))
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
    assumptions: list[Note],
) -> None:
    classes = [note("ws_class_lanes", platform_id=p.id, lanes=p.cpu_lanes_usable) for p in platforms()]
    need = dict(n=n, lanes=lanes_per_gpu, storage=storage_lanes, about=rules()["storage_why"], needed=lanes_needed)
    where = dict(platform=platform.name, platform_id=platform.id, width=width)
    code = "ws_lanes_baseboard" if vendor_system else "ws_lanes"
    assumptions.append(note(code, **need, classes=classes, **where))


def _connectors(
    gpu: GpuSpec, n: int, gpu_w: float, assumptions: list[Note], warnings: list[Note], kind: BuildKind
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
        assumptions.append(_connectors_note(per_card, row.get("note")))
    else:
        rated = gpu.tdp_w or gpu_w
        if rated <= 75:
            per_card = {}
        elif rated > 300 and (gpu.pcie_gen or 0) >= 5:
            per_card = {"16pin": 1}
        else:
            per_card = {"pcie8": math.ceil((rated - 75) / 150)}
        assumptions.append(note("ws_connectors_estimated"))
    total = {labels[k]: v * n for k, v in per_card.items() if v}
    if per_card.get("16pin", 0) * n > 2 and kind == "workstation":
        warnings.append(note("ws_16pin_cables", count=per_card["16pin"] * n))
    elif per_card.get("16pin"):
        warnings.append(note("ws_16pin_care"))
    if per_card.get("eps8"):
        warnings.append(note("ws_eps8"))
    warnings += [n for n in install_notes(gpu) if n.code != "ws_eps8"]  # its EPS12V plug is said just above
    return total


def install_notes(gpu: GpuSpec) -> list[Note]:
    """What a data-center PCIe card needs before it starts in a machine: its EPS12V plug (the table says which cards
    take one) and, for one that maps all its memory through a 64-bit BAR, Above 4G decoding in the BIOS (an old or
    desktop board without it cannot place the card: Windows Code 10 / not enough resources; Linux BAR errors)."""
    out = [note("ws_eps8")] if rules()["gpu_power_connectors"]["cards"].get(gpu.id, {}).get("eps8") else []
    # the full-height boards (150 W and up: K80 ... A100/H100 PCIe) expose a BAR the size of their memory; the slot-
    # powered inference cards (T4, L4, A2, P4) keep a 256 MB window and start on any board
    big_bar = gpu.vram_gib >= 16 and (gpu.tdp_w or 0) >= 150
    if gpu.vendor == "nvidia" and gpu.segment == "datacenter" and gpu.form_factor == "pcie" and big_bar:
        out.append(note("ws_above_4g", gpu=gpu.name, vram=gpu.vram_gib))
    return out


def _connectors_note(per_card: dict[str, int], about: str | None) -> Note:
    """The power connectors one card takes, as the table lists them."""
    kinds = [note("ws_connector", count=v, kind=k) for k, v in per_card.items()]
    if not kinds:
        return note("ws_connectors_none_about", about=about) if about else note("ws_connectors_none")
    return (
        note("ws_connectors_about", connectors=kinds, about=about) if about else note("ws_connectors", connectors=kinds)
    )


def _slots(gpu: GpuSpec, n: int, platform: Platform, assumptions: list[Note], warnings: list[Note]) -> tuple[int, int]:
    """Compare card thickness x N with the board's x16 slot layout; count cards that fit without risers."""
    slots = gpu.slots or 2
    if gpu.slots is None:
        assumptions.append(note("ws_slots_unknown"))
    open_air = (gpu.cooling or "").lower() == "open-air"
    if platform.x16_slot_positions is None:
        fit = platform.max_gpus if slots <= 2 else 0
        code = "ws_server_slots_fit" if fit else "ws_server_slots_no_fit"
        assumptions.append(note(code, max=platform.max_gpus, slots=slots))
        if not fit:
            warnings.append(note("ws_server_thick_cards", slots=slots))
        elif open_air:
            warnings.append(note("ws_server_open_air"))
        return slots, fit
    fit, gaps, end = 0, [], 0
    for position in platform.x16_slot_positions:
        if position > end and position + slots - 1 <= (platform.case_expansion_slots or 99):
            if 0 < fit < n:
                gaps.append(position - end - 1)
            fit += 1
            end = position + slots - 1
    where = dict(platform=platform.name, platform_id=platform.id)
    layout = dict(
        n=n,
        slots=slots,
        positions=n * slots,
        layout=[note("item", value=p) for p in platform.x16_slot_positions or []],
        fit=fit,
    )
    case = platform.case_expansion_slots
    if gaps:
        assumptions.append(note("ws_slots_gap", **layout, **where, case=case, gap=min(gaps)))
    else:
        assumptions.append(note("ws_slots", **layout, **where, case=case))
    if fit < n:
        warnings.append(note("ws_slots_short", fit=fit, n=n, slots=slots, **where))
    if open_air and n >= 2 and gaps and min(gaps) == 0:
        warnings.append(note("ws_no_air_gap", slots=slots))
    if open_air and n > 2:
        warnings.append(note("ws_open_air_many", n=n))
    return slots, fit


def _nvlink(gpu: GpuSpec, n: int, vendor_system: bool) -> tuple[bool, int, Note]:
    """NVLink bridge availability and how many bridges N cards take."""
    if vendor_system:
        link = gpu.interconnect_note or ("NVLink" if gpu.nvlink else "the vendor's GPU fabric")
        return False, 0, note("ws_nvlink_baseboard", link=link)
    if not gpu.nvlink:
        about = gpu.interconnect_note
        return (
            False,
            0,
            note("ws_no_nvlink_about", gpu=gpu.name, about=about) if about else note("ws_no_nvlink", gpu=gpu.name),
        )
    bridge = rules()["nvlink_bridges"]["cards"].get(gpu.id, {})
    group = bridge.get("max_gpus", 2)
    spacing = bridge.get("spacing", "check the bridge width against the slot spacing")
    if n < 2:
        return True, 0, note("ws_nvlink_one_card", group=group, spacing=spacing)
    bridges = n // group
    more = []
    if n > group:
        more.append(note("ws_nvlink_cross_pairs" if group == 2 else "ws_nvlink_cross_groups"))
    if n % group:
        more.append(note("ws_nvlink_unbridged", rest=n % group))
    detail = [note("about_en", about=gpu.interconnect_note)] if gpu.interconnect_note else []
    joined = dict(bridges=bridges, joined=bridges * group, n=n)
    return True, bridges, note("ws_nvlink_bridges", group=group, spacing=spacing, **joined, more=more, detail=detail)


def _vendor_system_warnings(gpu: GpuSpec, n: int, form: str, warnings: list[Note]) -> None:
    if form == "superchip":
        warnings.append(note("ws_superchip", gpu=gpu.name))
        return
    board = "HGX" if form == "sxm" else "OAM/UBB"
    warnings.append(note("ws_module_not_pcie", gpu=gpu.name, form=form.upper(), board=board))
    if n % 4:
        warnings.append(note("ws_baseboard_count", board=board, n=n, systems=math.ceil(n / 8)))


def _cooling_notes(gpu: GpuSpec, n: int, kind: BuildKind, wall_w: float, use: Use) -> list[Note]:
    cooling = (gpu.cooling or "unknown").lower()
    known = ("open-air", "blower", "passive", "liquid")
    out = [
        note(f"ws_cooling_{cooling.replace('-', '_')}") if cooling in known else note("ws_cooling_other", kind=cooling)
    ]
    if kind in ("gpu_server", "vendor_system"):
        out.append(note("ws_server_fans_loud"))
    elif cooling == "blower" and n >= 2:
        out.append(note("ws_blowers_loud"))
    if wall_w >= 1000:
        heat = dict(wall=wall_w, btu=wall_w * BTU_PER_HOUR_PER_W, tons=wall_w / W_PER_AC_TON, ton_w=W_PER_AC_TON)
        out.append(note("ws_heat_big_training" if use == "training" else "ws_heat_big", **heat))
    else:
        out.append(note("ws_heat_small", wall=wall_w))
    extra = rules()["cooling_notes_by_gpu"]["cards"].get(gpu.id)
    if extra:
        out.append(note("ws_cooling_card", gpu_id=gpu.id, about=extra))
    return out


def _whole_machine(
    req: WorkstationRequest, gpu: GpuSpec, assumptions: list[Note], warnings: list[Note]
) -> WorkstationPlan:
    """Apple silicon: the GPU is part of a complete computer, so there is nothing to build."""
    n = req.num_gpus
    warnings.append(note("ws_mac_soc", gpu=gpu.name, memory=gpu.vram_gib))
    if n > 1:
        warnings.append(note("ws_mac_cluster", n=n))
    wall = gpu.tdp_w * n if gpu.tdp_w else None
    if wall:
        assumptions.append(note("ws_mac_wall", n=n, tdp=gpu.tdp_w, wall=wall))
    assumptions.append(note("ws_mac_memory", memory=gpu.vram_gib, usable=gpu.usable_memory_gib))
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
        psu_layout=note("ws_layout_mac"),
        wall_power_w=wall,
        heat_btu_per_hour=round(wall * BTU_PER_HOUR_PER_W) if wall else None,
        circuits=circuits,
        nvlink_bridge_available=False,
        nvlink_bridges=0,
        nvlink_note=note("ws_mac_nvlink"),
        cooling_notes=[note("ws_mac_cooling")],
        assumptions=assumptions,
        warnings=warnings,
    )


def _rack_system(
    req: WorkstationRequest, gpu: GpuSpec, assumptions: list[Note], warnings: list[Note]
) -> WorkstationPlan:
    """Superchip parts (GB200): sold as liquid-cooled racks, so only power and heat are estimated."""
    n = req.num_gpus
    _vendor_system_warnings(gpu, n, "superchip", warnings)
    gpu_w = _gpu_power(req, gpu, assumptions, warnings)
    efficiency = rules()["psu"]["efficiency"]
    steady = n * gpu_w
    wall = steady / efficiency
    assumptions.append(note("ws_rack_power", n=n, gpu_w=gpu_w, steady=steady, efficiency=efficiency, wall=wall))
    heat = wall * BTU_PER_HOUR_PER_W
    assumptions.append(note("ws_rack_heat", wall=wall, factor=BTU_PER_HOUR_PER_W, btu=heat))
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
        psu_layout=note("ws_layout_rack"),
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
