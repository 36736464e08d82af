"""Tool arguments from the scenario: the workload every sizing tool shares, with the defaults an expert
assumes (and the answer states): 4,096 tokens for inference, 2,048 for training, gradient checkpointing
for every fine-tune, micro-batch 1. Multi-GPU training defaults to ZeRO-3 inside the estimator itself."""

from __future__ import annotations

from typing import Any

from assistant.scenario import Scenario
from tools.advice import concurrent_from_users, default_context
from tools.offload import layers_only_engines


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
    # not stated: the defaults in advice.yaml (a personal chat's 8k is applied where the persona is known), never
    # past the context the model was trained for (Baichuan-13B: 4k)
    # a training sample's stated length is the sequence a micro-batch of one trains on
    stated = s.context_tokens or (s.sample_tokens if training else None)
    args["context_tokens"] = stated or capped_context(s, default_context(mode, personal=False))
    args["batch"] = s.batch or (concurrent_from_users(s.users) if s.users and not training else 1)
    if training:
        args["grad_checkpointing"] = True  # what fine-tuning recipes turn on; the answer states it
    if mode in ("lora", "qlora") and s.lora_rank:
        args["lora_rank"] = s.lora_rank
    if training and s.cpu_offload:
        args["cpu_offload"] = s.cpu_offload  # "ZeRO-3 with CPU offload": optimizer states in system RAM
    if mode in ("lora", "qlora") and s.lora_targets:
        args["lora_targets"] = s.lora_targets  # "--lora_target q_proj,v_proj": adapters on attention only
    if training and s.optimizer:
        args["optimizer"] = s.optimizer
    if s.engine and not training:
        args["engine"] = s.engine  # its headroom decides "fits" (llama.cpp keeps 3% back, vLLM 10%)
    if training and s.fused_loss:
        args["chunked_cross_entropy"] = True  # Unsloth / Liger: the logits never materialise in fp32
    if training and s.zero_stage is not None:
        args["zero_stage"] = s.zero_stage  # stated by the user; otherwise the estimator's default applies
    return args


def vram_args(s: Scenario, num_gpus: int | None = None, sized: bool = True) -> dict[str, Any]:
    """estimate_vram arguments on `num_gpus` (default: the scenario's count, else one) of the scenario's GPU."""
    args = workload_args(s) | {"num_gpus": num_gpus or s.num_gpus or 1}
    if s.gpu and sized:
        args["gpu"] = s.gpu
        args |= mix_args(s, args["num_gpus"])
    return args


def mix_args(s: Scenario, num_gpus: int) -> dict[str, Any]:
    """The different cards of one machine, when the scenario is still sized on exactly them."""
    mixed = len(s.gpu_mix) == num_gpus and s.gpu in s.gpu_mix
    return {"gpu_mix": list(s.gpu_mix)} if mixed else {}


def speed_args(s: Scenario) -> dict[str, Any]:
    """estimate_speed arguments for the scenario's workload on its GPUs."""
    w = workload_args(s)
    args: dict[str, Any] = {k: w[k] for k in ("model", "params_b", "context_tokens", "batch") if k in w}
    args["gpu"] = s.gpu
    args["num_gpus"] = s.num_gpus or 1
    if w.get("precision"):
        args["precision"] = w["precision"]
    if w.get("engine"):
        args["engine"] = w["engine"]
    if w["mode"] != "inference":
        args.update(mode="training", method=w["mode"], grad_checkpointing=w.get("grad_checkpointing", False))
        args |= dataset_args(s)
    return args


def dataset_args(s: Scenario) -> dict[str, Any]:
    """estimate_speed's data arguments, for the hours to train: tokens, or samples x tokens per sample; epochs."""
    args: dict[str, Any] = {}
    if s.dataset_tokens:
        args["training_tokens"] = s.dataset_tokens
    elif s.dataset_samples:
        args["dataset_samples"] = s.dataset_samples
        if s.sample_tokens:
            args["sample_tokens"] = s.sample_tokens
    if args and s.epochs:
        args["epochs"] = s.epochs
    return args


def specs_args(s: Scenario, names: list[str]) -> dict[str, Any]:
    """gpu_specs arguments: prices in the conversation's currency (CNY for a Chinese question)."""
    return {"names": names, "currency": s.currency or "USD"}


def offload_args(s: Scenario, precision: str | None = None, gpu: bool = True) -> dict[str, Any]:
    """estimate_offload arguments: the scenario's model and context on its GPUs (none: CPU only) plus the RAM
    the user described; the format asked, else the 4-bit GGUF llama.cpp runs."""
    w = workload_args(s.model_copy(update={"mode": "inference"}))
    args: dict[str, Any] = {k: w[k] for k in ("model", "params_b", "context_tokens") if k in w}
    args["precision"] = precision or s.precision or "q4_k_m"
    if gpu and s.gpu:
        args |= {"gpu": s.gpu, "num_gpus": s.num_gpus or 1} | mix_args(s, s.num_gpus or 1)
    if s.ram_gib:
        args["ram_gib"] = s.ram_gib
    if s.ram_type:
        args["memory"] = s.ram_type
    if s.machine:
        args["machine"] = s.machine
    if s.engine_name and s.engine_name in layers_only_engines():
        args["strategy"] = "layers"  # Ollama offloads whole layers: no MoE experts-in-RAM split
    return args


def capped_context(s: Scenario, default: int) -> int:
    """A default context no longer than the model's own maximum."""
    if not s.model:
        return default
    from tools.errors import AdvisorError
    from tools.model_match import match_model

    try:
        longest = match_model(s.model).arch.max_context
    except AdvisorError:
        return default
    return min(default, longest) if longest else default
