"""The diagnose tool's request and result, the engines and flags it tells apart, and its data table."""

from __future__ import annotations

from functools import cache
from typing import Any, Literal

from pydantic import BaseModel, Field, field_validator, model_validator

from tools._data import load_yaml
from tools.errors import AdvisorError
from tools.notes import Note

# the symptoms a problem report is read as (assistant/understanding/symptoms.py reads them from the message)
Symptom = Literal[
    "slow",
    "oom",
    "memory_high",
    "multi_gpu_slower",
    "cpu_fallback",
    "slow_load",
    "low_util",
    "killed",
    "crash",
    "one_gpu_used",  # several GPUs, the run on one of them ("only one GPU is used", "只能在一张卡上运行")
]


Verdict = Literal["at_ceiling", "above", "below", "far_below", "not_measured", "no_ceiling"]


GGUF_ENGINES = ("llama_cpp", "ollama")
NO_OFFLOAD = ("vllm", "sglang", "tensorrt_llm", "lmdeploy", "exllamav2")  # a model they run is in GPU memory
# Engines that split a model over GPUs by tensor parallel, and only when told (--tensor-parallel-size): their
# attention heads must divide by the GPU count, and without the setting they run on one GPU
TP_ENGINES = ("vllm", "sglang", "tensorrt_llm", "lmdeploy")
DEFAULT_CONTEXT = 4096
SPEED_SYMPTOMS = ("slow", "multi_gpu_slower", "cpu_fallback", "low_util")


@cache
def table() -> dict[str, Any]:
    return load_yaml("diagnosis.yaml")


def engine_id(name: str | None) -> str | None:
    """The diagnosis engine id a typed name means ("Ollama" -> ollama, "auto-gptq" -> auto_gptq), or None."""
    if not name:
        return None
    text = name.strip().lower()
    engines = table()["engines"]
    for key, row in engines.items():
        names = [key, *row["aliases"]]
        if text in names or any(text.startswith(a + " ") for a in names):
            return key
    known = ", ".join(engines)
    raise AdvisorError(f"unknown engine '{name}' — use one of: {known}")


class DiagnoseRequest(BaseModel):
    """A measured speed or an out-of-memory on named hardware: what explains it, and what to change."""

    model: str | None = Field(default=None, description="Model name, fuzzy: 'llama3-70b', 'Qwen/Qwen2.5-7B-Instruct'")
    params_b: float | None = Field(default=None, gt=0, le=20000, description="Parameter count in billions")
    gpu: str | None = Field(default=None, description="GPU name, fuzzy: 'RTX 4090', 'T4', 'A100 80GB'")
    num_gpus: int = Field(default=1, ge=1, le=64, description="GPUs the job runs on")
    precision: str | None = Field(default=None, description="Weight format as run: bf16, awq, gptq, int8, q4_k_m ...")
    context_tokens: int | None = Field(
        default=None, ge=1, le=10_000_000, description="Context tokens (default 4096; training sequence 2048)"
    )
    batch: int = Field(default=1, ge=1, le=100_000, description="Concurrent sequences, or the training micro-batch")
    mode: Literal["inference", "training"] = "inference"
    method: Literal["full", "lora", "qlora"] = Field(default="lora", description="Training method (training only)")
    engine: str | None = Field(
        default=None,
        description="Engine or framework: vllm, sglang, llama.cpp, ollama, transformers, auto-gptq, exllama, mlx, "
        "xinference, deepspeed, lmdeploy, tensorrt-llm, ktransformers, tgi",
    )
    flags: list[str] = Field(
        default_factory=list,
        description="Settings named: enforce_eager, tensor_parallel, pipeline_parallel, data_parallel, ddp, "
        "device_map_auto, no_torch_dtype, max_batch_size, reference_example, num_ctx, mps, mac, bitsandbytes, "
        "auto_gptq, cpu_only",
    )
    symptom: Symptom = Field(
        default="slow",
        description="slow, oom, memory_high, multi_gpu_slower, cpu_fallback, slow_load (loading), low_util (GPU "
        "utilization low), killed (the process killed with no traceback, while loading), crash (a segfault, an "
        "illegal memory access, no kernel image, the machine rebooting under load), one_gpu_used (several GPUs, "
        "only one of them used)",
    )
    measured_tokens_per_s: float | None = Field(default=None, gt=0, le=1e6, description="Decode speed measured")
    measured_seconds_per_step: float | None = Field(
        default=None, gt=0, le=1e6, description="Training: seconds per step (s/it) measured"
    )
    measured_tokens_per_min: float | None = Field(
        default=None, gt=0, le=6e7, description="The decode speed as stated, per minute (its tokens/s is measured_...)"
    )
    target_tokens_per_s: float | None = Field(default=None, gt=0, le=1e6, description="The speed wanted")
    measured_prefill_tokens_per_s: float | None = Field(
        default=None, gt=0, le=1e7, description="Prompt processing speed measured (a llama.cpp log's prompt eval)"
    )
    measured_hours: float | None = Field(
        default=None, gt=0, le=1e5, description="Training: the whole run's time measured or estimated, hours"
    )
    epochs: float | None = Field(default=None, gt=0, le=1000, description="Training: epochs the run makes")
    train_tokens: float | None = Field(
        default=None, gt=0, le=1e13, description="Training: tokens in one epoch of the dataset, when known"
    )
    dataset_samples: int | None = Field(
        default=None, ge=1, le=10_000_000_000, description="Training: examples in the dataset (no token count known)"
    )
    sample_tokens: int | None = Field(default=None, ge=1, le=1_000_000, description="Training: tokens per example")
    gpu_layers_loaded: int | None = Field(
        default=None, ge=0, le=1000, description="Layers the run's log put on the GPU ('offloaded 0/83 layers')"
    )
    oom_gpu: int | None = Field(default=None, ge=0, le=63, description="The GPU an out-of-memory message names")
    other_process_gib: float | None = Field(
        default=None, gt=0, le=4096, description="Memory on that GPU held by other processes (from the message)"
    )
    other_gpu: str | None = Field(default=None, description="Another card the same job was measured on")
    other_measured_tokens_per_s: float | None = Field(default=None, gt=0, le=1e6)
    other_num_gpus: int | None = Field(default=None, ge=1, le=64, description="How many of the other card")
    stated_ratio: float | None = Field(
        default=None,
        gt=1,
        le=1000,
        description="How many times slower the run on gpu was than on other_gpu, as the user stated it with no speeds "
        "('5x slower than the A100', '慢一倍' -> 2), or from two run times",
    )
    other_run_tokens_per_s: float | None = Field(
        default=None,
        gt=0,
        le=1e6,
        description="The same job measured in another run on the same hardware (another engine, app or build)",
    )
    other_precisions: list[str] = Field(
        default_factory=list,
        description="Other formats the user has or named: the first smaller one that fits is the fix",
    )
    measured_memory_gib: float | None = Field(default=None, gt=0, le=100_000, description="Memory seen in use, GiB")
    card_gib: float | None = Field(
        default=None,
        gt=0,
        le=4096,
        description="Memory per GPU when no GPU is named ('a 24G card', an OOM log's capacity)",
    )
    ram_gib: float | None = Field(default=None, gt=0, le=65536, description="System RAM the machine has")
    memory: str | None = Field(default=None, description="RAM type: ddr4, ddr5, ddr5-6000 ...")
    channels: int | None = Field(default=None, ge=1, le=48, description="Memory channels populated")
    machine: str | None = Field(default=None, description="desktop, hedt, workstation, server, server_2s, old_server")

    @field_validator("flags")
    @classmethod
    def _known_flags(cls, flags: list[str]) -> list[str]:
        known = table()["flags"]
        bad = [f for f in flags if f not in known]
        if bad:
            raise ValueError(f"unknown flag(s) {', '.join(bad)} — use: {', '.join(known)}")
        return list(dict.fromkeys(flags))

    @model_validator(mode="after")
    def _one_model(self) -> DiagnoseRequest:
        if self.model and self.params_b:
            raise ValueError("give the model by name or by params_b, not both")
        return self


class DiagnoseSource(BaseModel):
    title: str
    url: str
    date: str


class DiagnoseCause(BaseModel):
    """One cause that applies: why, what to change, and where it is explained."""

    id: str = Field(description="A cause id of knowledge/data/diagnosis.yaml")
    head: Note | None = Field(default=None, description="The cause in one clause, for the answer's lead")
    why: Note
    fix: Note
    sources: list[DiagnoseSource]


class Calculation(BaseModel):
    """One calculator request the diagnosis rests on (the memory as loaded, the ceiling), as that tool takes it:
    an answer can show the same calculation as its own tool call, with the same numbers."""

    tool: Literal["estimate_vram", "estimate_speed", "estimate_offload"]
    args: dict[str, Any]


class DiagnoseResult(BaseModel):
    """The computed ceiling against what was measured, then the causes that apply, most likely first."""

    symptom: Symptom
    model: str | None
    gpu: str | None
    num_gpus: int
    precision: str | None = Field(description="The weight format as loaded")
    engine: str | None
    mode: Literal["inference", "training"]
    method: Literal["full", "lora", "qlora"] | None = Field(description="The training method (training only)")
    verdict: Verdict
    ceiling_tokens_per_s: float | None = Field(description="What the hardware allows (training: tokens/s in total)")
    ceiling_source: Literal["gpu", "offload", "none"]
    peak_tokens_per_s: float | None = Field(
        default=None, description="Decode at the GPUs' full memory bandwidth: the bound the typical ceiling sits under"
    )
    peak_share_pct: int | None = Field(default=None, description="The measured speed as % of that bound (the MBU)")
    bound: str | None = Field(description="What limits the ceiling: memory-bandwidth, ram-bandwidth, interconnect ...")
    measured_tokens_per_s: float | None
    gap: float | None = Field(description="Ceiling / measured: 1 = at the ceiling, 5 = five times below")
    target_tokens_per_s: float | None
    target_reachable: bool | None
    single_gpu_tokens_per_s: float | None = Field(description="The same job on one of the GPUs, when it fits one")
    scaling: float | None = Field(description="Ceiling on all the GPUs / on one of them")
    other_gpu: str | None
    other_num_gpus: int | None = None
    other_ceiling_tokens_per_s: float | None
    other_measured_tokens_per_s: float | None
    bandwidth_ratio: float | None = Field(description="Other card's memory bandwidth / this card's")
    measured_ratio: float | None = Field(description="The faster measurement / the slower one, two cards measured")
    stated_ratio: float | None = Field(default=None, description="The factor the user stated between the two cards")
    hardware_ratio: float | None = Field(
        default=None,
        description="How many times faster other_gpu should run the job than gpu: memory bandwidth for decode, "
        "dense 16-bit tensor TFLOPS (FP32 where the card has no fast 16-bit math) for training",
    )
    hardware_basis: Literal["bandwidth", "tensor_tflops"] | None = Field(
        default=None, description="What hardware_ratio compares"
    )
    hardware_values: tuple[float, float] | None = Field(
        default=None, description="What hardware_ratio divides: (gpu's, other_gpu's) GB/s or TFLOPS, GPU counts in"
    )
    other_run_tokens_per_s: float | None = Field(
        default=None, description="Another run of the same job on the same hardware, as measured"
    )
    fits: bool | None = Field(description="The job as loaded fits the GPUs")
    measured_hours: float | None = Field(default=None, description="Training: the run's time as stated, hours")
    epochs: float | None = Field(default=None, description="Training: the epochs the run makes")
    hours_at_ceiling: float | None = Field(
        default=None, description="Training: the hours the data takes at the ceiling (dataset size known)"
    )
    tokens_to_train: float | None = Field(default=None, description="Training: tokens in all epochs, when known")
    hours_per_epoch: float | None = Field(default=None, description="Training: the stated hours over the epochs")
    implied_tokens_per_epoch: float | None = Field(
        default=None, description="Training, data size unknown: the tokens an epoch covers at the ceiling"
    )
    implied_tokens: float | None = Field(
        default=None, description="Training, data size unknown: the tokens the stated hours cover at the ceiling"
    )
    memory_per_gpu_gib: float | None
    memory_16bit_per_gpu_gib: float | None = Field(
        default=None, description="An fp32 load's need in bf16, when that fits"
    )
    memory_one_gpu_gib: float | None = Field(default=None, description="The job on one of the GPUs (several named)")
    usable_gib_per_gpu: float | None
    measured_memory_gib: float | None
    gpu_bandwidth_gbs: float | None
    other_bandwidth_gbs: float | None
    gpu_tensor_tflops: float | None = Field(default=None, description="Dense 16-bit tensor TFLOPS (training's limit)")
    other_tensor_tflops: float | None = Field(default=None, description="The other card's dense 16-bit tensor TFLOPS")
    offload_strategy: str | None
    in_ram_gib: float | None
    ram_memory: str | None = Field(description="RAM type the offload estimate used: DDR4-3200, DDR5-5600 ...")
    ram_channels: int | None
    ram_effective_gbs: float | None
    causes: list[DiagnoseCause]
    calculations: list[Calculation] = Field(
        default_factory=list, description="The memory and ceiling estimates this diagnosis computed, as requests"
    )
    assumptions: list[Note]
    warnings: list[Note]
