"""GPU and model names as the app shows them, and the cards a memory estimate is drawn against.

Lookups never raise: an unknown name shows as typed (or not at all), the calculators report the error.
"""

from __future__ import annotations

from dataclasses import dataclass

from tools.errors import AdvisorError
from tools.gpu_search import FindGpusRequest, GpuRow, find_gpus
from tools.sizing import fits_capacity, usable_of
from tools.vram import VramResult

VENDOR_PREFIXES = ("NVIDIA GeForce ", "NVIDIA Tesla ", "NVIDIA ", "AMD Instinct ", "AMD Radeon ", "AMD ", "Intel ")
# Drawn next to a memory estimate that names no GPU: the cards people compare against first.
REFERENCE_CARDS = (("RTX 4090", 24.0), ("RTX 5090", 32.0), ("RTX 6000 Ada", 48.0), ("H100 80GB", 80.0), ("H200", 141.0))
DATACENTER_GIB = 80.0


@dataclass(frozen=True)
class Card:
    """A GPU drawn next to a memory estimate: its memory, and the share kept free when judging fit."""

    name: str
    capacity_gib: float
    headroom: float | None = None  # None: tools/sizing.py's default

    @property
    def usable_gib(self) -> float:
        return usable_of(self.capacity_gib, self.headroom)


def short_gpu_name(name: str) -> str:
    """'NVIDIA GeForce RTX 4090' -> 'RTX 4090': what people type and what the chat understands."""
    for prefix in VENDOR_PREFIXES:
        # "NVIDIA A2" keeps its vendor: a bare "A2" is a word fragment, not a card, to people and to the parser
        if name.startswith(prefix) and len(name) - len(prefix) > 2:
            return name[len(prefix) :]
    return name


def gpu_card(name: str | None) -> Card | None:
    """The catalog GPU `name` (fuzzy) as a Card, or None when nothing is named or it is unknown."""
    if not name or not name.strip():
        return None
    from tools.catalog import resolve_gpu

    try:
        gpu, _ = resolve_gpu(name.strip())
    except (AdvisorError, ValueError):
        return None
    return Card(short_gpu_name(gpu.name), gpu.usable_memory_gib)


def row_card(row: GpuRow) -> Card:
    return Card(short_gpu_name(row.name), row.usable_gib)


def fit_card(vram: VramResult) -> Card | None:
    """The GPU an estimate was sized for (estimate_vram with `gpu`), with the headroom it was judged at."""
    fit = vram.fit
    return None if fit is None else Card(short_gpu_name(fit.gpu), fit.capacity_gib, fit.headroom)


def reference_cards(per_gpu_gib: float) -> list[Card]:
    """Cards to draw when no GPU was named: the smallest common card that fits, and an 80 GB one."""
    cards = [Card(name, gib) for name, gib in REFERENCE_CARDS]
    fitting = [c for c in cards if fits_capacity(per_gpu_gib, c.capacity_gib)]
    picks = [cards[0]] if not fitting or fitting[0] == cards[0] else [cards[0], fitting[0]]
    if fitting and fitting[0].capacity_gib < DATACENTER_GIB:
        picks.append(next(c for c in cards if c.capacity_gib == DATACENTER_GIB))
    return list(dict.fromkeys(picks))


def model_display(name: str | None) -> str | None:
    """The registry's spelling of a model ('qwen2.5-7b' -> 'Qwen2.5-7B'), or None when unknown."""
    if not name or not name.strip():
        return None
    from tools.models import resolve_model

    try:
        return resolve_model(name.strip())[0].name
    except (AdvisorError, ValueError):
        return None


def gpu_choices() -> list[str]:
    from tools.catalog import catalog

    return [short_gpu_name(g.name) for g in catalog().values()]


def model_choices() -> list[str]:
    from tools.models import registry

    return [m.name for m in registry().values()]


def catalog_rows(currency: str = "USD") -> list[GpuRow]:
    """Every GPU of the catalog as find_gpus rows, for the default comparison charts."""
    return find_gpus(FindGpusRequest(currency=currency, limit=100, sort_by="bf16_tflops")).gpus
