"""Two cards set against each other by a factor the user stated with no speeds ("5x slower than the A100", "10 hours
an epoch against under 1 on the 3090"): the factor the hardware predicts for the same job, with its arithmetic as an
assumption. Decode reads every weight for each token, so it follows memory bandwidth; training follows the dense
16-bit tensor math (FP32 on a card whose 16-bit math is no faster, as Pascal's). A stated factor past the predicted one
by `software_gap` means the slower card runs at least that far under its ceiling."""

from __future__ import annotations

from tools.catalog import GpuSpec, resolve_gpu
from tools.diagnose.schema import table
from tools.diagnose.state import Run
from tools.notes import note


def training_tflops(gpu: GpuSpec) -> float:
    """The math a mixed-precision training step runs at: dense 16-bit tensor TFLOPS with FP32 accumulate (GeForce
    halves it), or FP32 where 16-bit is no faster (Pascal)."""
    sixteen = gpu.bf16_tflops or gpu.fp16_fp32acc_tflops or gpu.fp16_tflops or 0.0
    return max(sixteen, gpu.fp32_tflops or 0.0)


def hardware_ratio(run: Run) -> tuple[float | None, str | None]:
    """How many times faster the other card should run this job (memory bandwidth for decode, tensor math for
    training), with the arithmetic said (the two values in run.values["hw_values"]); (None, None) without both
    cards."""
    req = run.req
    if run.gpu is None or not req.other_gpu or not req.stated_ratio:
        return None, None
    other, _ = resolve_gpu(req.other_gpu)
    n, n_other = req.num_gpus, req.other_num_gpus or req.num_gpus
    if req.mode == "training":
        mine, theirs, basis = training_tflops(run.gpu) * n, training_tflops(other) * n_other, "tensor_tflops"
    else:
        mine, theirs, basis = run.gpu.bandwidth_gbs * n, other.bandwidth_gbs * n_other, "bandwidth"
    if not mine or not theirs:
        return None, None
    ratio = round(theirs / mine, 2)
    run.values["hw_values"] = (round(mine, 1), round(theirs, 1))
    run.assumptions.append(
        note(
            f"diag_ratio_{basis}",
            stated=req.stated_ratio,
            ratio=ratio,
            gpu=run.gpu.name,
            other=other.name,
            mine=round(mine, 1),
            theirs=round(theirs, 1),
        )
    )
    run.warnings = [w for w in run.warnings if w.code != "diag_no_ceiling"]  # the cards are compared, model or not
    if req.stated_ratio >= ratio * table()["software_gap"]:
        run.facts.add("far_below")  # the slower card runs at least that far under what it allows
    return ratio, basis
