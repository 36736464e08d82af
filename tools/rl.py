"""estimate_rl: GPU memory for reinforcement-learning fine-tuning (GRPO, PPO / RLHF, DPO).

The policy being trained is only part of it. The algorithm decides what else sits on the GPUs
(knowledge/data/rl.yaml): a frozen reference model for the KL term, a critic (PPO), a reward model (PPO), and a
rollout engine (vLLM) generating completions. Each part is sized with estimate_vram and the parts are added up
the way RL trainers hold them:

- colocated (verl, OpenRLHF's hybrid engine; every full-parameter run here): every model sharded over all the
  cards (ZeRO-3 / FSDP for the trained ones, tensor parallel for the frozen and rollout copies), their per-GPU
  shares added;
- separate rollout card (LoRA / QLoRA on two or more cards: TRL's vLLM server mode): the policy trains on the other
  cards and the rollout copy gets a card of its own; the busiest card decides.

With LoRA the reference model is the base with the adapters switched off (TRL and PEFT do this when no reference
model is given), so it takes no memory of its own.
"""

from __future__ import annotations

from functools import cache
from typing import Any, Literal

from pydantic import BaseModel, Field

from tools._data import load_yaml
from tools.notes import Note, note
from tools.vram import VramRequest, VramResult, defaults, estimate_vram
from tools.workload import ModelRef

Algorithm = Literal["grpo", "ppo", "dpo", "rl"]


@cache
def recipes() -> dict[str, Any]:
    """knowledge/data/rl.yaml: the models each algorithm keeps in memory, and the rollout defaults."""
    return dict(load_yaml("rl.yaml"))


class RlRequest(ModelRef):
    """An RL fine-tuning run whose GPU memory to estimate."""

    algorithm: Algorithm = Field(
        default="grpo", description="grpo, ppo (RLHF: actor, critic, reward, reference), dpo, or rl (GRPO-style)"
    )
    method: Literal["full", "lora", "qlora"] = Field(default="full", description="How the policy is trained")
    gpu: str | None = Field(default=None, description="GPU name (fuzzy): the result says whether the run fits")
    num_gpus: int = Field(default=1, ge=1, le=4096, description="GPUs in total")
    context_tokens: int = Field(default=2048, ge=16, le=1_000_000, description="Training sequence (prompt + answer)")
    batch: int = Field(default=1, ge=1, le=4096, description="Micro-batch per GPU (DPO trains a pair per example)")
    rollout_sequences: int | None = Field(
        default=None, ge=1, le=4096, description="Completions generated at once per rollout (default 8)"
    )
    rollout_tokens: int | None = Field(
        default=None, ge=16, le=1_000_000, description="Tokens per completion incl. prompt (default 2048)"
    )


class RlResult(BaseModel):
    """Per-GPU memory of an RL run, by part, against the cards named (GiB = 2^30 bytes)."""

    model: str
    algorithm: Algorithm
    method: Literal["full", "lora", "qlora"]
    gpu: str | None
    num_gpus: int
    layout: Literal["colocated", "separate_rollout"]
    parts_gib: dict[str, float] = Field(
        description="Per GPU: policy, critic, reference, reward, rollout (a part absent takes no memory)"
    )
    policy_gpus: int = Field(description="Cards the policy trains on")
    policy_gib: float = Field(description="The policy's training memory per GPU (what the algorithm adds aside)")
    rollout_gib: float | None = Field(default=None, description="The rollout copy per GPU it runs on")
    per_gpu_gib: float = Field(description="On the busiest card")
    total_gib: float = Field(description="Sum over all the cards")
    usable_gib_per_gpu: float | None = None
    fits: bool | None = None
    assumptions: list[Note]
    warnings: list[Note]


def estimate_rl(req: RlRequest) -> RlResult:
    """Size each model an RL run holds on the cards and add them up."""
    recipe = recipes()["algorithms"][req.algorithm]
    roll = recipes()["rollout"]
    n, full = req.num_gpus, req.method == "full"
    separate = not full and n > 1 and bool(recipe["rollout"])
    policy_gpus = n - 1 if separate else n
    ref = req.model_dump(include={"model", "params_b", "config_path", "arch"}, exclude_none=True)
    pair = 2 if recipe.get("pair") else 1
    policy = estimate_vram(
        VramRequest(
            **ref,
            mode=req.method,
            context_tokens=req.context_tokens,
            batch=req.batch * pair,
            num_gpus=policy_gpus,
            grad_checkpointing=True,
            gpu=req.gpu,
        )
    )
    overhead = float(defaults()["memory"]["overhead_gib_per_gpu"])
    parts: dict[str, float] = {"policy": policy.per_gpu_gib}
    if recipe["critic"]:
        parts["critic"] = policy.per_gpu_gib - overhead  # the value model: the policy's size, trained the same way
    frozen_needed = (recipe["reference"] and full) or recipe["reward_model"]
    frozen = _inference(ref, policy_gpus, 1, 1) if frozen_needed else None
    if frozen is not None and recipe["reference"] and full:
        parts["reference"] = frozen.per_gpu_gib - overhead
    if frozen is not None and recipe["reward_model"]:
        parts["reward"] = frozen.per_gpu_gib - overhead
    rollout = None
    if recipe["rollout"]:
        seqs, tokens = req.rollout_sequences or roll["sequences"], req.rollout_tokens or roll["sequence_tokens"]
        rollout = _inference(ref, 1 if separate else n, tokens, seqs)
        parts["rollout"] = rollout.per_gpu_gib - (0 if separate else overhead)
    policy_card = sum(v for k, v in parts.items() if k != "rollout" or not separate)
    per_gpu = max(policy_card, parts.get("rollout", 0.0)) if separate else policy_card
    total = policy_card * policy_gpus + (parts["rollout"] if separate else 0.0)
    fit = policy.fit
    usable = fit.usable_gib_per_gpu if fit is not None else None
    return RlResult(
        model=policy.model,
        algorithm=req.algorithm,
        method=req.method,
        gpu=fit.gpu if fit is not None else None,
        num_gpus=n,
        layout="separate_rollout" if separate else "colocated",
        parts_gib={k: round(v, 2) for k, v in parts.items()},
        policy_gpus=policy_gpus,
        policy_gib=policy.per_gpu_gib,
        rollout_gib=round(parts["rollout"], 2) if "rollout" in parts else None,
        per_gpu_gib=round(per_gpu, 2),
        total_gib=round(total, 2),
        usable_gib_per_gpu=usable,
        fits=None if usable is None else per_gpu <= usable + 1e-9,
        assumptions=_assumptions(req, recipe, separate, policy, rollout),
        warnings=list(policy.warnings),
    )


def _inference(ref: dict[str, Any], n: int, tokens: int, seqs: int) -> VramResult:
    """A frozen copy in bf16 over `n` cards (tensor parallel): the reference / reward model, or the rollout engine."""
    return estimate_vram(
        VramRequest(**ref, mode="inference", precision="bf16", context_tokens=tokens, batch=seqs, num_gpus=n)
    )


def _assumptions(
    req: RlRequest, recipe: dict[str, Any], separate: bool, policy: VramResult, rollout: VramResult | None
) -> list[Note]:
    roll = recipes()["rollout"]
    out = [note(f"rl_models_{req.algorithm}")]
    if req.method != "full" and recipe["reference"]:
        out.append(note("rl_reference_lora"))
    if rollout is not None:
        seqs, tokens = req.rollout_sequences or roll["sequences"], req.rollout_tokens or roll["sequence_tokens"]
        out.append(note("rl_rollout", sequences=seqs, tokens=tokens))
    if separate:
        out.append(note("rl_separate", policy=req.num_gpus - 1))
    elif req.num_gpus > 1:
        out.append(note("rl_colocated", n=req.num_gpus))
    return out + [a for a in policy.assumptions if a.code in ("vram_adapter_states", "vram_full_states")]
