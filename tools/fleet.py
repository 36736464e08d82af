"""size_fleet: a request rate ("5000 requests per second") as GPUs, run as independent replicas.

Each request costs its prompt's prefill and its answer's decode. One replica (the fewest GPUs that hold the model
with its batch's KV cache) prefills and decodes at `estimate_speed`'s rates at that batch, so the GPUs a rate keeps
busy are rate x (prompt / prefill rate + answer / batched decode rate) replicas. Replicas beat tensor parallel when
one GPU holds the model (shared/reference/advice.md §5). The answer length, the batch and the reference card are
stated defaults (knowledge/data/advice.yaml `fleet`).
"""

from __future__ import annotations

import math

from pydantic import BaseModel, Field

from tools import advice
from tools.errors import AdvisorError
from tools.notes import Note, note
from tools.speed import SpeedRequest, estimate_speed
from tools.vram import VramRequest, estimate_vram
from tools.workload import ModelRef


class FleetRequest(ModelRef):
    """A model served at a request rate."""

    requests_per_s: float = Field(gt=0, le=10_000_000, description="Requests arriving per second")
    prompt_tokens: int | None = Field(
        default=None, ge=1, le=2_000_000, description="Prompt tokens per request (default: the serving context)"
    )
    output_tokens: int | None = Field(
        default=None, ge=1, le=200_000, description="Answer tokens per request (default: advice.yaml fleet)"
    )
    gpu: str | None = Field(default=None, description="GPU each replica runs on (default: the data-center workhorse)")
    precision: str | None = Field(default=None, description="Weight format (default bf16)")
    batch_per_gpu: int | None = Field(default=None, ge=1, le=4096, description="Sequences each replica batches")


class FleetResult(BaseModel):
    model: str
    gpu: str
    precision: str
    requests_per_s: float
    prompt_tokens: int
    output_tokens: int
    batch: int = Field(description="Sequences one replica runs at once")
    gpus_per_replica: int
    prefill_tokens_per_s: float = Field(description="One replica")
    decode_tokens_per_s: float = Field(description="One replica, all its sequences together")
    prefill_tokens_per_s_needed: float
    decode_tokens_per_s_needed: float
    replicas: int
    gpus: int
    assumptions: list[Note]
    warnings: list[Note]


def size_fleet(req: FleetRequest) -> FleetResult:
    """How many GPUs serve a request rate, as replicas of the fewest GPUs that hold the model."""
    rules = advice.policy()["fleet"]
    ref = req.model_dump(include={"model", "params_b", "config_path", "arch"}, exclude_none=True)
    gpu = req.gpu or str(rules["gpu"])
    prompt = req.prompt_tokens or advice.default_context("inference", personal=False)
    out = req.output_tokens or int(rules["output_tokens"])
    batch = req.batch_per_gpu or int(rules["batch_per_gpu"])
    precision = req.precision or "bf16"
    sized = estimate_vram(
        VramRequest(**ref, mode="inference", precision=precision, context_tokens=prompt + out, batch=batch, gpu=gpu)
    )
    per_replica = sized.fit.gpus_needed if sized.fit else None
    if not per_replica:
        raise AdvisorError(f"{sized.model} at batch {batch} does not fit any count of {gpu}: lower the batch")
    speed = estimate_speed(
        SpeedRequest(**ref, gpu=gpu, num_gpus=per_replica, precision=precision, context_tokens=prompt, batch=batch)
    )
    prefill, decode = speed.prefill_tokens_per_s or 0.0, speed.decode_tokens_per_s_total or 0.0
    if prefill <= 0 or decode <= 0:
        raise AdvisorError("no throughput estimate for this model on this GPU")
    busy = req.requests_per_s * (prompt / prefill + out / decode)  # replica-seconds each second
    replicas = max(1, math.ceil(busy))
    assumptions = [
        note("fleet_basis", prompt=prompt, out=out, batch=batch, gpu=speed.gpu, n=per_replica),
        *speed.assumptions[:2],
    ]
    return FleetResult(
        model=speed.model,
        gpu=speed.gpu,
        precision=speed.precision,
        requests_per_s=req.requests_per_s,
        prompt_tokens=prompt,
        output_tokens=out,
        batch=batch,
        gpus_per_replica=per_replica,
        prefill_tokens_per_s=round(prefill, 1),
        decode_tokens_per_s=round(decode, 1),
        prefill_tokens_per_s_needed=round(req.requests_per_s * prompt, 1),
        decode_tokens_per_s_needed=round(req.requests_per_s * out, 1),
        replicas=replicas,
        gpus=replicas * per_replica,
        assumptions=assumptions,
        warnings=list(speed.warnings),
    )
