"""The one rule for "does it fit?" and "how many GPUs?": memory per GPU against usable memory minus headroom.

The headroom depends on the engine the job runs under (llama.cpp / Ollama allocate what they need; vLLM
keeps 10% of the card back by default; training loses some to fragmentation): `engine_for` names the engine
a verdict assumes and `headroom_for` what it keeps free (knowledge/data/estimator_defaults.yaml).

Every answer that says fits / does not fit or N GPUs — the chat, `fit_on_gpu`, `recommend_gpus`, the
calculators tab, `estimate_vram` with a GPU — uses these functions, so they can never disagree.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import cache

from pydantic import BaseModel, Field

from tools._data import load_yaml
from tools.catalog import GpuSpec

# GPU counts tried when sizing a job: powers of two, as tensor parallel and data-parallel layouts come.
COUNTS = (1, 2, 4, 8, 16, 32, 64, 128, 256, 512)


@cache
def default_headroom() -> float:
    """Share of GPU memory kept free (estimator_defaults.yaml: memory.fit_headroom)."""
    return float(load_yaml("estimator_defaults.yaml")["memory"]["fit_headroom"])


def headroom_or_default(headroom: float | None) -> float:
    return default_headroom() if headroom is None else headroom


@cache
def _engines() -> dict[str, dict]:
    return dict(load_yaml("estimator_defaults.yaml")["memory"]["headroom_by_engine"])


def engine_aliases() -> list[tuple[str, list[str]]]:
    """Every engine and the names people use for it (the parser reads engine mentions with these)."""
    return [(k, [k, *e["aliases"]]) for k, e in _engines().items() if k != "training"]


def engine_key(name: str | None) -> str | None:
    """The engine a typed name means ("Ollama" -> llama.cpp, "trt-llm" -> tensorrt-llm), or None."""
    if not name:
        return None
    key = name.strip().lower()
    return next((k for k, e in _engines().items() if key == k or key in e["aliases"]), None)


def engine_for(
    engine: str | None, mode: str = "inference", precision_kind: str | None = None, gpu: GpuSpec | None = None
) -> str:
    """The engine a fit verdict assumes: the one named, else llama.cpp for a GGUF file or on Apple silicon (vLLM,
    SGLang and TensorRT-LLM need CUDA or ROCm: a Mac runs llama.cpp / Ollama / LM Studio or MLX, which allocate
    what they need), the training loop for training, vLLM for any other inference."""
    named = engine_key(engine)
    if named:
        return named
    if mode != "inference":
        return "training"
    return "llama.cpp" if precision_kind == "gguf" or (gpu is not None and gpu.vendor == "apple") else "vllm"


def headroom_for(engine: str) -> float:
    """Share of each GPU `engine` keeps free beyond what the estimate counts."""
    row = _engines().get(engine_key(engine) or "")
    return float(row["headroom"]) if row else default_headroom()


def usable_of(capacity_gib: float, headroom: float | None = None) -> float:
    """GiB a workload may use on a card of `capacity_gib`."""
    return capacity_gib * (1 - headroom_or_default(headroom))


def usable_gib(gpu: GpuSpec, headroom: float | None = None) -> float:
    """GiB a workload may use on one `gpu` (Apple: of the wired share of unified memory)."""
    return usable_of(gpu.usable_memory_gib, headroom)


def mixed_usable(cards: list[GpuSpec], headroom: float | None = None) -> tuple[float, float]:
    """Different cards in one machine split by layers in proportion to their memory (llama.cpp --tensor-split,
    Transformers device_map max_memory): each card then carries the same share of its own memory, so the job
    fits when the even per-card need is within the cards' average usable memory. (average capacity, average
    usable) of `cards`."""
    n = len(cards)
    return sum(g.usable_memory_gib for g in cards) / n, sum(usable_gib(g, headroom) for g in cards) / n


def fits(per_gpu_gib: float, gpu: GpuSpec, headroom: float | None = None) -> bool:
    return per_gpu_gib <= usable_gib(gpu, headroom) + 1e-9


def fits_capacity(per_gpu_gib: float, capacity_gib: float, headroom: float | None = None) -> bool:
    """The same rule for a card the user names by its size ("a 24 GB card")."""
    return per_gpu_gib <= usable_of(capacity_gib, headroom) + 1e-9


def counts_for(engine: str) -> tuple[int, ...]:
    """GPU counts a job may take under `engine`: llama.cpp / Ollama split a model's layers over any number of cards
    (five 80 GB cards hold a 380 GiB GGUF); tensor-parallel engines and training layouts come in powers of two."""
    if engine_key(engine) == "llama.cpp":
        return (*range(1, 16), *(n for n in COUNTS if n >= 16))
    return COUNTS


def smallest_count(
    per_gpu_at: Callable[[int], float | None],
    usable: float,
    max_gpus: int = COUNTS[-1],
    counts: tuple[int, ...] = COUNTS,
) -> tuple[int, float] | None:
    """The smallest count in `counts` (up to max_gpus) whose per-GPU memory fits `usable`, with that memory.

    `per_gpu_at(n)` gives the per-GPU memory on n GPUs, or None where n is not a valid layout."""
    for n in counts:
        if n > max_gpus:
            break
        need = per_gpu_at(n)
        if need is not None and need <= usable + 1e-9:
            return n, need
    return None


class GpuFit(BaseModel):
    """A workload against one GPU model: does it fit on the count asked, and how many it needs."""

    gpu: str = Field(description="GPU name")
    gpu_id: str
    capacity_gib: float = Field(description="Memory of one GPU the workload may use before headroom")
    usable_gib_per_gpu: float = Field(description="Capacity minus headroom: what 'fits' is measured against")
    headroom: float = Field(description="Share of memory kept free")
    engine: str = Field(default="vllm", description="The engine whose headroom the verdict assumes")
    num_gpus: int = Field(description="GPUs asked about")
    per_gpu_gib: float = Field(description="Memory per GPU on num_gpus")
    fits: bool = Field(description="per_gpu_gib <= usable_gib_per_gpu")
    gpus_needed: int | None = Field(description="Smallest GPU count (1, 2, 4, 8 ...) that fits; None: none up to 512")
    per_gpu_gib_needed: float | None = Field(default=None, description="Memory per GPU on gpus_needed")
    mixed_gpus: list[str] = Field(
        default=[],
        description="Different cards in one machine (gpu_mix), by name: a layer split gives each a share of the model "
        "proportional to its memory, so capacity_gib and usable_gib_per_gpu are their averages",
    )
    usable_gib_total: float | None = Field(default=None, description="Mixed cards: their usable memory summed")
    unified_memory_gib: float | None = Field(
        default=None,
        description="A Mac: its whole unified memory; capacity_gib is the share macOS lets the GPU wire by default "
        "(Metal's recommendedMaxWorkingSetSize, apple_silicon.yaml), which `sysctl iogpu.wired_limit_mb` raises",
    )
    capacity_gib_total: float | None = Field(
        default=None, description="The memory of all num_gpus cards together (capacity_gib x num_gpus), before headroom"
    )
