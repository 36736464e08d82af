"""Tool arguments from the scenario: the workload every sizing tool shares, with the defaults an expert
assumes (and the answer states): 4,096 tokens for inference, 2,048 for training, gradient checkpointing
for every fine-tune, micro-batch 1. Multi-GPU training defaults to ZeRO-3 inside the estimator itself."""

from __future__ import annotations

from typing import Any

from assistant.scenario import Scenario
from tools.advice import concurrent_from_users, default_context


def workload_args(s: Scenario) -> dict[str, Any]:
    """estimate_vram arguments for the scenario's workload (no GPU count)."""
    args: dict[str, Any] = {"model": s.model} if s.model else {"params_b": s.params_b}
    mode = s.mode or "inference"
    training = mode != "inference"
    args["mode"] = mode
    if s.precision:
        args["precision"] = s.precision
    if s.kv_dtype and not training:
        args["kv_dtype"] = s.kv_dtype
    # not stated: the defaults in advice.yaml (a personal chat's 8k is applied where the persona is known)
    args["context_tokens"] = s.context_tokens or default_context(mode, personal=False)
    args["batch"] = s.batch or (concurrent_from_users(s.users) if s.users and not training else 1)
    if training:
        args["grad_checkpointing"] = True  # what fine-tuning recipes turn on; the answer states it
    if mode in ("lora", "qlora") and s.lora_rank:
        args["lora_rank"] = s.lora_rank
    if training and s.optimizer:
        args["optimizer"] = s.optimizer
    if training and s.zero_stage is not None:
        args["zero_stage"] = s.zero_stage  # stated by the user; otherwise the estimator's default applies
    return args


def vram_args(s: Scenario, num_gpus: int | None = None, sized: bool = True) -> dict[str, Any]:
    """estimate_vram arguments on `num_gpus` (default: the scenario's count, else one) of the scenario's GPU."""
    args = workload_args(s) | {"num_gpus": num_gpus or s.num_gpus or 1}
    if s.gpu and sized:
        args["gpu"] = s.gpu
    return args


def speed_args(s: Scenario) -> dict[str, Any]:
    """estimate_speed arguments for the scenario's workload on its GPUs."""
    w = workload_args(s)
    args: dict[str, Any] = {k: w[k] for k in ("model", "params_b", "context_tokens", "batch") if k in w}
    args["gpu"] = s.gpu
    args["num_gpus"] = s.num_gpus or 1
    if w.get("precision"):
        args["precision"] = w["precision"]
    if w["mode"] != "inference":
        args.update(mode="training", method=w["mode"], grad_checkpointing=w.get("grad_checkpointing", False))
    return args


def specs_args(s: Scenario, names: list[str]) -> dict[str, Any]:
    """gpu_specs arguments: prices in the conversation's currency (CNY for a Chinese question)."""
    return {"names": names, "currency": s.currency or "USD"}
