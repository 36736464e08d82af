"""One diagnosis being computed (`Run`), and the calculator requests it builds: memory, speed, offload."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from pydantic import BaseModel

from tools.advice import default_context
from tools.catalog import GpuSpec
from tools.diagnose.schema import GGUF_ENGINES, TP_ENGINES, Calculation, DiagnoseRequest, table
from tools.models import ModelArch
from tools.notes import Note, note
from tools.offload import OffloadRequest, OffloadResult
from tools.sizing import engine_key
from tools.speed import SpeedResult
from tools.vram import VramRequest, VramResult, estimate_vram


@dataclass
class Run:
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


def rounded(x: float | None) -> float | None:
    """Two decimals, or three significant digits under 1 (0.0011 tokens/s is "6 words in 2 hours", not 0)."""
    if x is None:
        return None
    return round(x, 2) if abs(x) >= 1 else float(f"{x:.3g}")


def _engine_row(run: Run) -> dict[str, Any]:
    return table()["engines"].get(run.engine or "", {})


def engine_gpus(run: Run) -> int:
    """The GPUs the engine itself puts the model on: vLLM, SGLang and the like run on one unless told to split it
    (--tensor-parallel-size / --pipeline-parallel-size), however many are visible."""
    req = run.req
    told = run.flags & {"tensor_parallel", "pipeline_parallel"}
    if req.mode == "inference" and run.engine in TP_ENGINES and req.num_gpus > 1 and not told:
        return 1
    return req.num_gpus


def speed_engine(run: Run) -> str | None:
    return _engine_row(run).get("speed_engine")


def fit_engine(run: Run) -> str | None:
    """The sizing engine whose headroom the fit verdict assumes (tools/sizing.py)."""
    row = _engine_row(run)
    # the sizing key itself ("llama.cpp" for Ollama, "transformers" for AutoGPTQ): every calculator takes it, so the
    # estimate_vram call the answer shows can carry the engine into the next turn
    return next((key for a in [run.engine or "", *row.get("aliases", [])] if (key := engine_key(a))), None)


def parallel_kind(run: Run) -> str:
    """How the GPUs share the job: data parallel in training; layers one card after another under llama.cpp,
    `device_map`, pipeline parallel, or Transformers with nothing named when more cards run slower (its
    `device_map="auto"` is the model cards' multi-GPU recipe); else tensor parallel."""
    req = run.req
    if req.mode == "training":
        return "data"
    if run.flags & {"pipeline_parallel", "device_map_auto"} or run.engine in GGUF_ENGINES:
        return "pipeline"
    if req.symptom == "multi_gpu_slower" and run.engine in (None, "transformers"):
        return "pipeline"
    if run.arch is not None and req.num_gpus > 1 and run.arch.num_attention_heads % req.num_gpus:
        return "pipeline"  # 3 cards cannot split 52 attention heads evenly: the engines split the model by layers
    return "tensor"


def vram_of(run: Run, precision: str, num_gpus: int, training: bool | None = None, **extra: Any) -> VramResult:
    return estimate_vram(vram_request(run, precision, num_gpus, training, **extra))


def vram_request(run: Run, precision: str, num_gpus: int, training: bool | None = None, **extra: Any) -> VramRequest:
    req = run.req
    args: dict[str, Any] = dict(run.ref, precision=precision, context_tokens=run.context, num_gpus=num_gpus)
    if req.mode == "training" if training is None else training:
        args.update(mode=req.method, batch=req.batch, grad_checkpointing=True)
    else:
        args.update(batch=req.batch, engine=fit_engine(run))
        pipeline = parallel_kind(run) == "pipeline"
        args.update(tp=1 if pipeline else num_gpus, pp=num_gpus if pipeline else 1)
    args.update(extra)
    return VramRequest(**{k: v for k, v in args.items() if v is not None})


def record_call(run: Run, tool: str, request: BaseModel) -> None:
    """Record a request the answer rests on: only the fields set, as a caller of that tool would pass them."""
    run.calculations.append(Calculation(tool=tool, args=request.model_dump(exclude_unset=True, exclude_none=True)))  # type: ignore[arg-type]


def speed_args(run: Run, gpu: str, num_gpus: int) -> dict[str, Any]:
    req = run.req
    args: dict[str, Any] = dict(run.ref, gpu=gpu, num_gpus=num_gpus, precision=run.precision)
    args.update(context_tokens=run.context, batch=req.batch, parallel=parallel_kind(run) if num_gpus > 1 else None)
    if req.mode == "training":
        args.update(mode="training", method=req.method, grad_checkpointing=True)
        data = dict(training_tokens=req.train_tokens, dataset_samples=req.dataset_samples, epochs=req.epochs)
        if req.dataset_samples and not req.train_tokens:
            data["sample_tokens"] = req.sample_tokens
        args |= {k: v for k, v in data.items() if v}  # the hours the data takes, for a run time stated
    else:
        args["engine"] = speed_engine(run)
    return args


def machine_class(run: Run) -> str | None:
    """The machine class: as named, else a server's when the RAM stated is more than a desktop board holds."""
    req, t = run.req, table()
    if req.machine or req.channels or not req.ram_gib or req.ram_gib <= t["server_ram_gib"]:
        return req.machine
    generation = (req.memory or "").lower()[:4]
    machine = t["server_machine"].get(generation, t["server_machine"]["default"])
    run.assumptions.append(note("diag_assumed_server", ram=req.ram_gib, machine=machine))
    return machine


def offload_request(run: Run, gpu: bool) -> OffloadRequest:
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
        machine=machine_class(run),
        # Ollama splits a model between GPU and CPU by whole layers; it has no setting that keeps a MoE's experts
        # alone in RAM (llama.cpp's --n-cpu-moe / -ot, ktransformers), so its ceiling is the layer split's
        strategy="layers" if run.engine == "ollama" else "auto",
    )


def note_param(notes: list[Note], code: str, key: str) -> Any:
    return next((n.params.get(key) for n in notes if n.code == code), None)


def gpu_cc(gpu: GpuSpec) -> float | None:
    try:
        return float(gpu.compute_capability or "")
    except ValueError:
        return None
