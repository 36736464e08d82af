"""diagnose: why a measured speed or an out-of-memory on named hardware is what it is.

An expert first compares the measured number with the computed ceiling (tools/speed.py on the GPUs, or
tools/offload.py when the model does not fit them; memory from tools/vram.py): within `at_ceiling_gap` the
hardware is the limit, from `software_gap` on it is software (kernel, precision fallback, offload, settings),
not the card. Then the causes of knowledge/data/diagnosis.yaml whose conditions hold, in the file's order, each
with what to change and where maintainers explain it. Every sentence is a note code (knowledge/data/notes.yaml).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cache
from typing import Any, Literal

from pydantic import BaseModel, Field, field_validator, model_validator

from tools._data import load_yaml
from tools.advice import default_context
from tools.catalog import GpuSpec, resolve_gpu_noted
from tools.errors import AdvisorError
from tools.models import ModelArch, registry
from tools.notes import Note, ParamValue, fields, note
from tools.offload import OffloadRequest, OffloadResult, estimate_offload, ram_spec
from tools.precision import resolve_precision
from tools.sizing import engine_for, engine_key, headroom_for, usable_of
from tools.speed import SpeedRequest, SpeedResult, estimate_speed
from tools.vram import VramRequest, VramResult, estimate_vram
from tools.workload import ModelRef

Symptom = Literal["slow", "oom", "memory_high", "multi_gpu_slower", "cpu_fallback", "slow_load"]
Verdict = Literal["at_ceiling", "above", "below", "far_below", "not_measured", "no_ceiling"]
_GGUF_ENGINES = ("llama_cpp", "ollama")
_NO_OFFLOAD = ("vllm", "sglang", "tensorrt_llm", "lmdeploy", "exllamav2")  # a model they run is in GPU memory
_DEFAULT_CONTEXT = 4096
_SPEED_SYMPTOMS = ("slow", "multi_gpu_slower", "cpu_fallback")


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
        "xinference, deepspeed, lmdeploy, tensorrt-llm, ktransformers",
    )
    flags: list[str] = Field(
        default_factory=list,
        description="Settings named: enforce_eager, tensor_parallel, pipeline_parallel, data_parallel, ddp, "
        "device_map_auto, no_torch_dtype, max_batch_size, reference_example, num_ctx, mps, mac, bitsandbytes, "
        "auto_gptq, cpu_only",
    )
    symptom: Symptom = Field(
        default="slow", description="slow, oom, memory_high, multi_gpu_slower, cpu_fallback, slow_load (loading)"
    )
    measured_tokens_per_s: float | None = Field(default=None, gt=0, le=1e6, description="Decode speed measured")
    measured_seconds_per_step: float | None = Field(
        default=None, gt=0, le=1e6, description="Training: seconds per step (s/it) measured"
    )
    target_tokens_per_s: float | None = Field(default=None, gt=0, le=1e6, description="The speed wanted")
    other_gpu: str | None = Field(default=None, description="Another card the same job was measured on")
    other_measured_tokens_per_s: float | None = Field(default=None, gt=0, le=1e6)
    other_num_gpus: int | None = Field(default=None, ge=1, le=64, description="How many of the other card")
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
    fits: bool | None = Field(description="The job as loaded fits the GPUs")
    memory_per_gpu_gib: float | None
    memory_16bit_per_gpu_gib: float | None = Field(
        default=None, description="An fp32 load's need in bf16, when that fits"
    )
    memory_one_gpu_gib: float | None = Field(default=None, description="The job on one of the GPUs (several named)")
    usable_gib_per_gpu: float | None
    measured_memory_gib: float | None
    gpu_bandwidth_gbs: float | None
    other_bandwidth_gbs: float | None
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


@dataclass
class _Run:
    """One diagnosis being computed: the inputs resolved, the estimates, and the values the sentences quote."""

    req: DiagnoseRequest
    engine: str | None
    flags: set[str]
    gpu: GpuSpec | None = None
    arch: ModelArch | None = None
    precision: str | None = None
    vram: VramResult | None = None
    speed: SpeedResult | None = None
    offload: OffloadResult | None = None
    ceiling: float | None = None
    measured: float | None = None
    values: dict[str, Any] = field(default_factory=dict)
    facts: set[str] = field(default_factory=set)
    calculations: list[Calculation] = field(default_factory=list)
    assumptions: list[Note] = field(default_factory=list)
    warnings: list[Note] = field(default_factory=list)

    @property
    def ref(self) -> dict[str, Any]:
        if self.req.model:
            return {"model": self.req.model}
        example = table()["reference_example"]
        size = round(self.req.params_b or 0)
        if self.flags & {"reference_example", "max_batch_size"} and size in example["models"]:
            return {"model": example["models"][size]}  # the example runs Meta's own checkpoints
        return {"params_b": self.req.params_b}

    @property
    def context(self) -> int:
        """As stated, else the default an expert assumes: 4,096 tokens of context, 2,048-token training sequences,
        never more than the model takes (LLaMA-1 and Llama-2 stop at 2,048 and 4,096)."""
        if self.req.context_tokens:
            return self.req.context_tokens
        default = default_context(self.req.mode, personal=False)
        most = self.arch.max_context if self.arch is not None else None
        return min(default, most) if most else default


def diagnose(req: DiagnoseRequest) -> DiagnoseResult:
    """Compute the ceiling, compare the measured number with it, and list the causes that apply."""
    run = _Run(req=req, engine=engine_id(req.engine), flags=set(req.flags))
    if run.engine is None and run.flags & {"enforce_eager", "kv_cache_error"}:
        run.engine = "vllm"  # --enforce-eager is vLLM's setting, the KV-cache error vLLM's message
    if run.engine is None and req.precision and resolve_precision(req.precision).kind == "gguf":
        run.engine = "llama_cpp"  # a GGUF file runs in llama.cpp or one of its front ends (Ollama, LM Studio)
        run.assumptions.append(note("diag_assumed_llamacpp", precision=resolve_precision(req.precision).name))
    if req.gpu:
        run.gpu, read_as = resolve_gpu_noted(req.gpu)
        run.assumptions += [read_as] if read_as else []
    if req.model or req.params_b:
        run.arch, notes = ModelRef(**run.ref).resolve()
        run.assumptions += notes[:2]
    if run.arch is not None:
        run.precision = _precision_as_loaded(run)
        _memory(run)
        _ceiling(run)
        _weights_at(run)
        _other_layouts(run)
        _card(run)
    elif req.precision:
        run.precision = resolve_precision(req.precision).name
    no_gpu_asked = "cpu_only" in run.flags
    if (run.arch is None or (run.gpu is None and not no_gpu_asked)) and req.symptom in _SPEED_SYMPTOMS:
        run.warnings.append(note("diag_no_ceiling"))
    other = _other_card(run)
    verdict, gap = _verdict(run)
    if run.arch is None:
        _gpu_floor(run)
    _values(run, gap)
    _facts(run, verdict)
    target = req.target_tokens_per_s
    return DiagnoseResult(
        symptom=req.symptom,
        model=run.arch.name if run.arch else None,
        gpu=run.gpu.name if run.gpu else None,
        num_gpus=req.num_gpus,
        precision=run.precision,
        engine=run.engine,
        mode=req.mode,
        method=req.method if req.mode == "training" else None,
        verdict=verdict,
        ceiling_tokens_per_s=_round(run.ceiling),
        ceiling_source="offload" if run.offload and run.ceiling else ("gpu" if run.ceiling else "none"),
        bound=_bound(run),
        measured_tokens_per_s=_round(run.measured),
        gap=round(gap, 2) if gap else None,
        target_tokens_per_s=target,
        target_reachable=None if target is None or run.ceiling is None else target <= run.ceiling * 1.1,
        single_gpu_tokens_per_s=_round(run.values.get("single")),
        scaling=round(run.ceiling / run.values["single"], 2) if run.ceiling and run.values.get("single") else None,
        other_gpu=other.gpu if other else None,
        other_num_gpus=run.values.get("other_n") if other else None,
        other_ceiling_tokens_per_s=_round(run.values.get("other_ceiling")),
        other_measured_tokens_per_s=req.other_measured_tokens_per_s,
        bandwidth_ratio=run.values.get("bw_ratio"),
        measured_ratio=_measured_ratio(req),
        fits=_fits(run),
        memory_per_gpu_gib=run.vram.per_gpu_gib if run.vram else None,
        memory_16bit_per_gpu_gib=run.values.get("half_need"),
        memory_one_gpu_gib=run.values.get("need_one"),
        usable_gib_per_gpu=_usable(run),
        measured_memory_gib=req.measured_memory_gib,
        gpu_bandwidth_gbs=run.gpu.bandwidth_gbs if run.gpu else None,
        other_bandwidth_gbs=run.values.get("other_bandwidth"),
        offload_strategy=run.offload.strategy if run.offload else None,
        ram_memory=run.offload.ram.memory.upper() if run.offload else None,
        ram_channels=run.offload.ram.channels if run.offload else None,
        in_ram_gib=run.offload.in_ram_gib if run.offload else None,
        ram_effective_gbs=round(run.offload.ram.effective_gbs, 1) if run.offload else None,
        causes=_causes(run),
        calculations=run.calculations,
        assumptions=run.assumptions,
        warnings=run.warnings,
    )


# ---- the estimates -----------------------------------------------------------------------------------------


def _round(x: float | None) -> float | None:
    return None if x is None else round(x, 2)


def _engine_row(run: _Run) -> dict[str, Any]:
    return table()["engines"].get(run.engine or "", {})


def _speed_engine(run: _Run) -> str | None:
    return _engine_row(run).get("speed_engine")


def _fit_engine(run: _Run) -> str | None:
    """The sizing engine whose headroom the fit verdict assumes (tools/sizing.py)."""
    row = _engine_row(run)
    # the sizing key itself ("llama.cpp" for Ollama, "transformers" for AutoGPTQ): every calculator takes it, so the
    # estimate_vram call the answer shows can carry the engine into the next turn
    return next((key for a in [run.engine or "", *row.get("aliases", [])] if (key := engine_key(a))), None)


def _precision_as_loaded(run: _Run) -> str:
    """The format named, the one the model's name carries, fp32 for a from_pretrained with no dtype, Q4_K_M for
    llama.cpp / Ollama, else bf16."""
    req = run.req
    if req.mode == "training":  # LoRA and full train a 16-bit base, QLoRA a 4-bit one
        given = resolve_precision(req.precision) if req.precision else None
        quantized = given is not None and given.bits < 16
        if req.method == "qlora":
            return given.name if quantized and given is not None else "nf4"
        return given.name if given is not None and not quantized else "bf16"
    if req.precision:
        return resolve_precision(req.precision).name
    named, notes = ModelRef(**run.ref).weight_format("inference")
    if named:
        run.assumptions += notes
        return named
    if "no_torch_dtype" in run.flags and run.engine not in _GGUF_ENGINES:
        run.assumptions.append(note("diag_assumed_fp32"))
        return "fp32"
    if run.engine in _GGUF_ENGINES or "cpu_only" in run.flags:
        return "q4_k_m"  # what llama.cpp / Ollama (and nearly every CPU run) load
    return _runs_so_it_fits(run) or "bf16"


def _runs_so_it_fits(run: _Run) -> str | None:
    """A model that runs in an engine that cannot offload to RAM (vLLM, SGLang ...) fits its GPUs: when 16-bit
    would not, the build it runs is a smaller one (FP8 where the card has it, else 4-bit AWQ), and that is said."""
    req, gpu = run.req, run.gpu
    if run.engine not in _NO_OFFLOAD or req.symptom not in _SPEED_SYMPTOMS or gpu is None or req.mode != "inference":
        return None
    if _vram(run, "bf16", req.num_gpus, gpu=req.gpu).fit.fits:  # type: ignore[union-attr]
        return None
    for precision in ("fp8", "awq") if gpu.fp8_tflops else ("awq",):
        if _vram(run, precision, req.num_gpus, gpu=req.gpu).fit.fits:  # type: ignore[union-attr]
            run.assumptions.append(note("diag_assumed_runs_fits", n=req.num_gpus, gpu=gpu.name, precision=precision))
            return precision
    return None


def _parallel(run: _Run) -> str:
    if run.req.mode == "training":
        return "data"
    if run.flags & {"pipeline_parallel", "device_map_auto"} or run.engine in _GGUF_ENGINES:
        return "pipeline"
    return "tensor"


def _vram(run: _Run, precision: str, num_gpus: int, training: bool | None = None, **extra: Any) -> VramResult:
    return estimate_vram(_vram_request(run, precision, num_gpus, training, **extra))


def _vram_request(run: _Run, precision: str, num_gpus: int, training: bool | None = None, **extra: Any) -> VramRequest:
    req = run.req
    args: dict[str, Any] = dict(run.ref, precision=precision, context_tokens=run.context, num_gpus=num_gpus)
    if req.mode == "training" if training is None else training:
        args.update(mode=req.method, batch=req.batch, grad_checkpointing=True)
    else:
        args.update(batch=req.batch, engine=_fit_engine(run))
        pipeline = _parallel(run) == "pipeline"
        args.update(tp=1 if pipeline else num_gpus, pp=num_gpus if pipeline else 1)
    args.update(extra)
    return VramRequest(**{k: v for k, v in args.items() if v is not None})


def _shown(run: _Run, tool: str, request: BaseModel) -> None:
    """Record a request the answer rests on: only the fields set, as a caller of that tool would pass them."""
    run.calculations.append(Calculation(tool=tool, args=request.model_dump(exclude_unset=True, exclude_none=True)))  # type: ignore[arg-type]


def _memory(run: _Run) -> None:
    assert run.precision is not None
    request = _vram_request(run, run.precision, run.req.num_gpus, gpu=run.req.gpu)
    run.vram = estimate_vram(request)
    _shown(run, "estimate_vram", request)


def _speed_args(run: _Run, gpu: str, num_gpus: int) -> dict[str, Any]:
    req = run.req
    args: dict[str, Any] = dict(run.ref, gpu=gpu, num_gpus=num_gpus, precision=run.precision)
    args.update(context_tokens=run.context, batch=req.batch, parallel=_parallel(run) if num_gpus > 1 else None)
    if req.mode == "training":
        args.update(mode="training", method=req.method, grad_checkpointing=True)
    else:
        args["engine"] = _speed_engine(run)
    return args


def _ceiling(run: _Run) -> None:
    """Decode (or training) tokens/s the hardware allows: on the GPUs, or with the model partly in RAM."""
    req = run.req
    if req.symptom == "slow_load":
        return  # loading is the disk's time, not a decode speed
    if run.gpu is None:
        cpu = "cpu_only" in run.flags or req.ram_gib or req.memory or req.machine or req.channels
        mac = bool(run.flags & {"mac", "mps"})  # a Mac runs on its own GPU from unified memory, not the CPU's RAM
        if req.mode == "inference" and cpu and not mac and req.symptom in _SPEED_SYMPTOMS:
            request = _offload_request(run, gpu=False)
            run.offload = estimate_offload(request)
            run.ceiling = run.offload.decode_tokens_per_s
            _shown(run, "estimate_offload", request)
        return
    fits = run.vram is not None and (run.vram.fit is None or run.vram.fit.fits)
    if not fits and req.mode == "inference" and req.symptom in _SPEED_SYMPTOMS:
        request = _offload_request(run, gpu=True)
        offload = estimate_offload(request)
        if offload.strategy != "gpu_only":
            run.offload, run.ceiling = offload, offload.decode_tokens_per_s
            _shown(run, "estimate_offload", request)
            run.assumptions += [a for a in offload.assumptions if a.code.startswith("offload_")][-2:]
            return
        fits = True  # it fits once the engine keeps less of the card back (llama.cpp 3%)
    if not fits:
        return  # a job that does not fit has no speed on these GPUs to compare with
    assert req.gpu is not None
    speed_request = SpeedRequest(**_speed_args(run, req.gpu, req.num_gpus))
    run.speed = estimate_speed(speed_request)
    _shown(run, "estimate_speed", speed_request)
    training = req.mode == "training"
    run.ceiling = run.speed.training_tokens_per_s if training else run.speed.decode_tokens_per_s
    if req.num_gpus > 1 and _vram(run, run.precision or "bf16", 1, gpu=req.gpu).fit.fits:  # type: ignore[union-attr]
        single = estimate_speed(SpeedRequest(**_speed_args(run, req.gpu, 1)))
        run.values["single"] = single.training_tokens_per_s if training else single.decode_tokens_per_s


def _machine(run: _Run) -> str | None:
    """The machine class: as named, else a server's when the RAM stated is more than a desktop board holds."""
    req, t = run.req, table()
    if req.machine or req.channels or not req.ram_gib or req.ram_gib <= t["server_ram_gib"]:
        return req.machine
    generation = (req.memory or "").lower()[:4]
    machine = t["server_machine"].get(generation, t["server_machine"]["default"])
    run.assumptions.append(note("diag_assumed_server", ram=req.ram_gib, machine=machine))
    return machine


def _offload_request(run: _Run, gpu: bool) -> OffloadRequest:
    req = run.req
    return OffloadRequest(
        **run.ref,
        precision=run.precision,
        context_tokens=run.context,
        gpu=req.gpu if gpu else None,
        num_gpus=req.num_gpus,
        ram_gib=req.ram_gib,
        memory=req.memory,
        channels=req.channels,
        machine=_machine(run),
    )


def _weights_at(run: _Run) -> None:
    """Weights in fp32 and in 16-bit (what a missing dtype costs), and what the reference example reserves."""
    for key, precision in (("fp32_gib", "fp32"), ("half_gib", "bf16")):
        run.values[key] = _vram(run, precision, 1, False, context_tokens=16, batch=1).breakdown_gib["weights"]
    if run.flags & {"reference_example", "max_batch_size"}:
        ex = table()["reference_example"]
        batch = run.req.batch if run.req.batch > 1 else ex["max_batch_size"]
        seq = run.req.context_tokens or ex["max_seq_len"]
        est = _vram(run, "fp16", 1, False, context_tokens=seq, batch=batch, tp=1, pp=1)
        run.values.update(
            example_batch=batch,
            example_seq=seq,
            example_kv=est.breakdown_gib["kv_cache"],
            weights_16=run.values["half_gib"],
        )


def _other_layouts(run: _Run) -> None:
    """The same job laid out otherwise, for the causes that name it: on one of the GPUs (a loader that puts it all
    on GPU 0), in 16-bit (an fp32 load), and at the model's full context (an engine that takes all of it)."""
    req, arch = run.req, run.arch
    if run.vram is None or arch is None or req.gpu is None or req.mode != "inference":
        return
    if req.num_gpus > 1:
        one = _vram(run, run.precision or "bf16", 1, gpu=req.gpu)
        if one.fit is not None:
            run.facts.add("fits_one" if one.fit.fits else "not_fits_one")
            run.values["need_one"] = one.per_gpu_gib
        for n in (2, 4, 8):  # the fewest of the GPUs it fits on, when that is fewer than all of them
            if n >= req.num_gpus or not one.fit or one.fit.fits:
                break
            working = min(run.context, _DEFAULT_CONTEXT)  # the weights plus a working context, not the longest one
            split = _vram(run, run.precision or "bf16", n, gpu=req.gpu, context_tokens=working)
            if split.fit is not None and split.fit.fits:
                run.values["fewest"] = n
                break
    if run.precision == "fp32":
        half = _vram(run, "bf16", req.num_gpus, gpu=req.gpu)
        if half.fit is not None and half.fit.fits:
            run.facts.add("fits_in_16bit")
            run.values["half_need"] = half.per_gpu_gib
    most = arch.max_context
    if most and most > run.context and req.context_tokens is None:
        full = _vram(run, run.precision or "bf16", req.num_gpus, gpu=req.gpu, context_tokens=most)
        run.values.update(max_context=most, kv_max=full.breakdown_gib["kv_cache"], layers=arch.num_layers)
        if full.fit is not None and not full.fit.fits:
            run.facts.add("full_context_not_fits")


def _gpu_floor(run: _Run) -> None:
    """No model named, a speed measured on a named GPU: even a model that fills the GPU's memory decodes at
    bandwidth / memory; a speed well under that means most of the weights are read from system RAM."""
    req, gpu = run.req, run.gpu
    if gpu is None or run.measured is None or req.mode != "inference" or run.flags & {"mac", "mps"}:
        return
    usable = gpu.vram_gib * (1 - table()["floor_headroom"])
    eff = load_yaml("estimator_defaults.yaml")["speed"]["memory_efficiency"]["quantized"]
    floor = gpu.bandwidth_gbs * eff / (usable * 2**30 / 1e9)
    if run.measured * table()["at_ceiling_gap"] > floor:
        return
    machine = _machine(run)
    spec, _ = ram_spec(OffloadRequest.model_construct(machine=machine, memory=req.memory, channels=req.channels))
    run.facts.add("below_gpu_floor")
    run.values.update(floor=floor, floor_usable=usable, memory=spec.memory.upper(), channels=spec.channels)
    run.values.update(ram_gbs=spec.effective_gbs, ram_peak=spec.peak_gbs)


@dataclass
class _Other:
    gpu: str


def _other_card(run: _Run) -> _Other | None:
    """The same job on the other card the user measured: its ceiling and the bandwidth ratio."""
    req = run.req
    if not (req.other_gpu and run.arch is not None and run.gpu is not None and req.mode == "inference"):
        return None
    other, _ = resolve_gpu_noted(req.other_gpu)
    n_other = req.other_num_gpus or req.num_gpus
    speed = estimate_speed(SpeedRequest(**_speed_args(run, req.other_gpu, n_other)))
    run.values.update(
        other_n=n_other,
        other_gpu=other.name,
        other_ceiling=speed.decode_tokens_per_s,
        other_bandwidth=other.bandwidth_gbs,
        bw_ratio=round(other.bandwidth_gbs / run.gpu.bandwidth_gbs, 2),
    )
    if req.other_measured_tokens_per_s:
        run.values["other_gap"] = (speed.decode_tokens_per_s or 0) / req.other_measured_tokens_per_s
    return _Other(gpu=other.name)


def _measured_ratio(req: DiagnoseRequest) -> float | None:
    a, b = req.measured_tokens_per_s, req.other_measured_tokens_per_s
    return round(max(a, b) / min(a, b), 2) if a and b else None


def _measured(run: _Run) -> float | None:
    """Tokens/s measured: decode as stated; training from seconds per step (batch x sequence x GPUs per step)."""
    req = run.req
    if req.mode == "training" and req.measured_seconds_per_step:
        tokens = req.batch * run.context * req.num_gpus
        run.assumptions.append(
            note(
                "diag_training_measured",
                s=req.measured_seconds_per_step,
                tokens=tokens,
                batch=req.batch,
                context=run.context,
                n=req.num_gpus,
            )
        )
        return tokens / req.measured_seconds_per_step
    return req.measured_tokens_per_s


def _verdict(run: _Run) -> tuple[Verdict, float | None]:
    run.measured = _measured(run)
    if run.ceiling is None:
        return "no_ceiling", None
    if run.measured is None:
        return "not_measured", None
    gap = run.ceiling / run.measured
    t = table()
    if gap <= 0.8:
        return "above", gap
    if gap <= t["at_ceiling_gap"]:
        return "at_ceiling", gap
    return ("far_below" if gap >= t["software_gap"] else "below"), gap


def _fits(run: _Run) -> bool | None:
    if run.offload is not None:
        return False
    if run.vram is None or run.vram.fit is None:
        return run.values.get("card_fits")
    return run.vram.fit.fits


def _card(run: _Run) -> None:
    """No GPU named, its memory stated: the job as loaded against that much per GPU, with the engine's headroom."""
    req = run.req
    if run.gpu is not None or req.card_gib is None or run.vram is None or run.precision is None:
        return
    engine = engine_for(_fit_engine(run), "inference" if req.mode == "inference" else "training")
    usable = usable_of(req.card_gib, headroom_for(engine))
    run.values.update(usable=usable, card=req.card_gib, card_fits=run.vram.per_gpu_gib <= usable)


def _usable(run: _Run) -> float | None:
    if run.vram is not None and run.vram.fit is not None:
        return round(run.vram.fit.usable_gib_per_gpu, 1)
    return round(run.values["usable"], 1) if run.values.get("usable") else None


def _bound(run: _Run) -> str | None:
    if run.offload is not None and run.ceiling:
        return "ram-bandwidth"
    return run.speed.bound if run.speed else None


# ---- facts and the values the sentences quote -----------------------------------------------------------


def _facts(run: _Run, verdict: Verdict) -> None:
    req, arch, f = run.req, run.arch, run.facts
    fits = _fits(run)
    f.add("fit_unknown" if fits is None or run.vram is None else ("fits" if fits else "not_fits"))
    if run.offload is not None:
        f.add("moe_offload" if run.offload.strategy == "experts" else "layer_offload")
    f.add(req.mode)
    f |= _int_quant(run)
    if run.engine is None:
        f.add("no_engine")
        if verdict == "far_below" and "int_quant" in f:
            run.assumptions.append(note("diag_assumed_transformers", precision=run.precision))
    if req.num_gpus > 1 or req.symptom == "multi_gpu_slower":
        f.add("multi_gpu")
    f |= _card_facts(run)
    f |= _link_facts(run, f)
    if run.vram is not None and run.vram.breakdown_gib["kv_cache"] >= table()["kv_large_share"] * run.vram.total_gib:
        f.add("kv_large")
    if arch is not None and arch.active_params / 1e9 <= table()["small_model_b"]:
        f.add("small_model")
    f |= {"gguf_engine"} if run.engine in _GGUF_ENGINES else set()
    f |= {"not_measured"} if run.measured is None else set()
    if verdict in ("at_ceiling", "above"):
        f.add("at_ceiling")
    if verdict == "far_below":
        f.add("far_below")
        if _gap_of(run) >= table()["huge_gap"]:
            f.add("huge_gap")
    if run.offload is not None:
        f |= {"ram_short"} if run.offload.fits_in_ram is False else set()
        f |= {"two_sockets"} if run.offload.ram.sockets > 1 else set()
    mem, fp32, half = req.measured_memory_gib, run.values.get("fp32_gib"), run.values.get("half_gib")
    if mem and fp32 and half and mem >= 0.85 * fp32 and mem >= 1.6 * half:
        f.add("memory_matches_fp32")


def _link_facts(run: _Run, f: set[str]) -> set[str]:
    """Whether the link between the cards matters, and another card named that the hardware ranks lower."""
    req, out = run.req, set()
    other_ceiling = run.values.get("other_ceiling")
    if other_ceiling and run.ceiling and req.other_measured_tokens_per_s is None and other_ceiling < run.ceiling:
        out.add("own_card_faster")  # "the other card is several times faster than mine": the hardware says otherwise
    comm, compute = run.values.get("comm_ms"), run.values.get("compute_ms") or run.values.get("step_ms")
    if comm is not None and compute and comm < table()["comm_light_share"] * (comm + compute):
        out.add("comm_light")  # the link's share of a step is too small to be what holds it back
    split_compute = req.mode == "training" or (run.engine not in _GGUF_ENGINES and run.offload is None)
    if {"multi_gpu", "pcie_link"} <= f and "comm_light" not in out and split_compute:
        out.add("link_bound")  # the cards exchange every layer's (or step's) results over PCIe, and it shows
    return out


def _card_facts(run: _Run) -> set[str]:
    """What the card's generation and link decide: PCIe only, below the fast kernels' sm_80, Pascal, Apple."""
    gpu, out = run.gpu, set()
    if gpu is not None and (not gpu.nvlink or gpu.segment == "consumer"):
        out.add("pcie_link")  # GeForce pairs talk over PCIe unless bridged (3090) or at all (40 series)
    cc = _cc(gpu) if gpu is not None and gpu.vendor == "nvidia" else None
    if cc is not None and cc < table()["fast_kernel_cc"]:
        out.add("cc_below_fast")
    if gpu is not None and gpu.architecture.startswith("Pascal"):
        out.add("pascal")
    if (gpu is not None and gpu.vendor == "apple") or run.flags & {"mac", "mps"}:
        out.add("apple")
    if gpu is not None and run.precision == "fp8" and not gpu.fp8_tflops:
        out.add("fp8_unsupported")  # no FP8 tensor cores (before Ada / Hopper): FP8 weights are converted or emulated
    return out


def _gap_of(run: _Run) -> float:
    return (run.ceiling or 0) / run.measured if run.measured else 0.0


def _int_quant(run: _Run) -> set[str]:
    return {"int_quant"} if run.precision and resolve_precision(run.precision).kind == "int" else set()


def _cc(gpu: GpuSpec) -> float | None:
    try:
        return float(gpu.compute_capability or "")
    except ValueError:
        return None


def _note_param(notes: list[Note], code: str, key: str) -> Any:
    return next((n.params.get(key) for n in notes if n.code == code), None)


def _values(run: _Run, gap: float | None) -> None:
    """Every number a cause's sentence may quote; a sentence whose numbers are unknown falls back to its plain form."""
    req, v, gpu = run.req, run.values, run.gpu
    v.update(n=req.num_gpus, context=run.context, util=table()["vllm_gpu_memory_utilization"], batch=req.batch)
    v.update(measured=run.measured, ceiling=run.ceiling, gap=gap, measured_mem=req.measured_memory_gib)
    if run.arch is not None:
        v.update(model=run.arch.name, active_b=round(run.arch.active_params / 1e9, 1), precision=run.precision)
    if gpu is not None:
        v.update(gpu=gpu.name, cc=gpu.compute_capability, bandwidth=gpu.bandwidth_gbs, capacity=gpu.vram_gib)
        v["architecture"] = gpu.architecture
        v["reserved"] = v["util"] * gpu.vram_gib
    if run.vram is not None:
        v.update(need=run.vram.per_gpu_gib, need_total=run.vram.total_gib, kv_gib=run.vram.breakdown_gib["kv_cache"])
        v["weights_total"] = run.vram.breakdown_gib["weights"]
        _load_times(v, run.vram.breakdown_gib["weights"])
        v["weights"] = run.vram.per_gpu_breakdown_gib.get("weights")
        if run.vram.fit is not None:
            v.update(
                usable=run.vram.fit.usable_gib_per_gpu, total_usable=run.vram.fit.usable_gib_per_gpu * req.num_gpus
            )
    if run.offload is not None:
        o = run.offload
        v.update(in_ram=o.in_ram_gib, ram_gbs=o.ram.effective_gbs, memory=o.ram.memory.upper(), channels=o.ram.channels)
        v.update(gpu_only=o.gpu_only_tokens_per_s, ram_needed=o.ram_needed_gib, ram=o.ram_gib)
    if run.speed is not None:
        _speed_values(run, run.speed)
    v["detail"] = [note("diag_detail_vllm", **_pick("diag_detail_vllm", v))] if _has("diag_detail_vllm", v) else []
    v["options"] = _fit_options(run) or None  # no way found: the plain fix names the usual ones
    v["fp16"] = _fp16_fits(run)


def _load_times(v: dict[str, Any], weights_gib: float) -> None:
    """Seconds to read the weights once from each kind of disk (a model loads at least its file once)."""
    size_gb = weights_gib * 2**30 / 1e9
    for key, gbs in table()["disk_read_gbs"].items():
        v[f"load_{key}"] = size_gb / gbs


def _speed_values(run: _Run, s: SpeedResult) -> None:
    v = run.values
    v["step_ms"] = s.time_per_output_token_ms
    v["comm_ms"] = _note_param(s.warnings, "speed_tp_no_nvlink", "ms")
    v["link"] = _note_param(s.assumptions, "speed_multi_gpu", "link") or _note_param(
        s.assumptions, "speed_training_comm", "link"
    )
    if run.req.mode == "training" and not str(v["link"] or "").startswith("NVLink"):
        # a GeForce pair the catalog lists with an NVLink connector: the bridge is not assumed, so no figure
        v["comm_ms"] = _note_param(s.assumptions, "speed_training_comm", "comm_ms")
        v["compute_ms"] = _note_param(s.assumptions, "speed_training_comm", "compute_ms")
    elif run.req.mode == "training":
        v["comm_ms"] = None
    read = [_note_param(s.assumptions, "speed_decode", k) for k in ("weights_gb", "kv_gb")]
    if all(x is not None for x in read) and run.gpu is not None:
        v["read_gb"] = sum(read)
        v["mem_ms"] = v["read_gb"] / run.gpu.bandwidth_gbs * 1000 / max(1, run.req.num_gpus)


def _fit_options(run: _Run) -> list[Note]:
    """Ways to make a job that does not fit fit: a smaller format, more GPUs, a shorter context."""
    if run.vram is None or run.vram.fit is None or run.vram.fit.fits or run.precision is None:
        return []
    out: list[Note] = []
    bits = resolve_precision(run.precision).bits
    kind = "gguf" if resolve_precision(run.precision).kind == "gguf" or run.engine in _GGUF_ENGINES else "other"
    formats = [*run.req.other_precisions, *table()["smaller_formats"][kind]]  # the user's own build first
    for name in formats if run.req.mode == "inference" else []:  # training: QLoRA, not another weight format
        if resolve_precision(name).bits >= bits:
            continue
        est = _vram(run, name, run.req.num_gpus, gpu=run.req.gpu)
        if est.fit is not None and est.fit.fits:
            out.append(note("diag_opt_format", precision=name, need=est.per_gpu_gib))
            break
    needed, need = run.vram.fit.gpus_needed, run.vram.fit.per_gpu_gib_needed
    if needed and needed > run.req.num_gpus and need is not None and needed <= 16:
        out.append(note("diag_opt_gpus", n=needed, need=need))
    if run.context > _DEFAULT_CONTEXT:
        out.append(note("diag_opt_context", context=_DEFAULT_CONTEXT))
    smaller = _smaller_sibling(run) if run.req.mode == "inference" else None
    if smaller is not None:
        out.append(smaller)
    if run.req.mode == "inference" and run.offload is None:
        out.append(note("diag_opt_offload"))
    return out


def _smaller_sibling(run: _Run) -> Note | None:
    """The largest smaller model of the same series that fits the GPUs in the same format ("llama2:7b fits")."""
    arch, req = run.arch, run.req
    if arch is None or not arch.series or req.gpu is None or run.precision is None:
        return None
    same = [a for a in registry().values() if a.series == arch.series and not a.moe and a.params < arch.params]
    for sibling in sorted(same, key=lambda a: a.params, reverse=True)[:3]:
        args = dict(model=sibling.id, precision=run.precision, context_tokens=run.context, num_gpus=req.num_gpus)
        est = estimate_vram(VramRequest(**args, gpu=req.gpu, engine=_fit_engine(run)))
        if est.fit is not None and est.fit.fits:
            return note("diag_opt_smaller_model", model=sibling.name, need=est.per_gpu_gib)
    return None


def _fp16_fits(run: _Run) -> list[Note]:
    """For a quantized model that is slow in Transformers: plain fp16, when it fits the GPUs."""
    if run.precision is None or resolve_precision(run.precision).kind != "int" or run.req.gpu is None:
        return []
    if run.req.mode != "inference":
        return []  # a QLoRA base is 4-bit by design
    est = _vram(run, "fp16", run.req.num_gpus, gpu=run.req.gpu)
    if est.fit is None or not est.fit.fits:
        return []
    return [note("diag_opt_fp16_fits", need=est.per_gpu_gib, usable=est.fit.usable_gib_per_gpu)]


# ---- the causes ------------------------------------------------------------------------------------------


def _holds(cond: dict[str, list[str]], run: _Run) -> bool:
    """One condition of diagnosis.yaml: symptom / engine / flags any-of, facts all-of, not_* none-of."""
    named = {"symptom": {run.req.symptom}, "engine": {run.engine} - {None}, "flags": run.flags}
    for key, have in named.items():
        if key in cond and not have & set(cond[key]):
            return False
    if not set(cond.get("facts", [])) <= run.facts:
        return False
    if run.engine in cond.get("not_engine", []) or run.flags & set(cond.get("not_flags", [])):
        return False
    return not set(cond.get("not_facts", [])) & run.facts


def _applies(cause: dict[str, Any], run: _Run) -> bool:
    when = cause["when"]
    return any(_holds(c, run) for c in (when if isinstance(when, list) else [when]))


def _has(code: str, values: dict[str, Any]) -> bool:
    return all(values.get(k) is not None for k in fields(code))


def _pick(code: str, values: dict[str, Any]) -> dict[str, ParamValue | list[Note]]:
    return {k: values[k] for k in fields(code)}


def _sentence(cause: dict[str, Any], key: str, values: dict[str, Any]) -> Note | None:
    for code in (cause.get(key), cause.get(f"{key}_plain")):
        if code and _has(code, values):
            return note(code, **_pick(code, values))
    return None


def _causes(run: _Run) -> list[DiagnoseCause]:
    sources = table()["sources"]
    out: list[DiagnoseCause] = []
    for level in (0, 1, 2):
        if out:
            break  # a fallback cause applies only when nothing before it does
        for cause in table()["causes"]:
            if int(cause.get("fallback", 0)) != level or not _applies(cause, run):
                continue
            why, fix = _sentence(cause, "why", run.values), _sentence(cause, "fix", run.values)
            if why is None or fix is None:
                continue  # a number it needs is unknown and it has no plain form
            cited = [DiagnoseSource(**sources[s]) for s in cause["sources"]]
            head = _sentence(cause, "head", run.values)
            out.append(DiagnoseCause(id=cause["id"], head=head, why=why, fix=fix, sources=cited))
    return out
