"""Two or three models on one rented server ("租一台服务器同时跑 Qwen2.5-7B 和 Qwen2.5-14B", "rent one GPU to serve both
Llama-3.1-8B and Mistral-7B at the same time", rent_ask "together", understanding/rent_together.py): each model is
sized at the same format and context, and the rental holds their sum (each serving process keeps its own weights,
KV cache and CUDA context)."""

from __future__ import annotations

from typing import Any

from assistant.capabilities.base import PlanContext
from assistant.toolset import ToolName
from tools.errors import AdvisorError

_MAX_MODELS = 3


def plan_sizes(ctx: PlanContext, owner: str, job: dict[str, Any]) -> None:
    """The model's memory, or each model's when several run together on the rented server."""
    parsed = ctx.parsed
    models = list(dict.fromkeys(parsed.models_mentioned))[:_MAX_MODELS]
    if parsed.rent_ask != "together" or len(models) < 2 or job.get("mode") != "inference":
        ctx.add(owner, ToolName.ESTIMATE_VRAM, **job)
        return
    for model in models:
        ctx.add(owner, ToolName.ESTIMATE_VRAM, **(job | {"model": model}))


def largest(models: list[str]) -> str | None:
    """The biggest of the models named: the format a shared server runs them in is chosen for it."""
    from tools.models import resolve_model

    sized: list[tuple[float, str]] = []
    for m in models:
        try:
            sized.append((resolve_model(m)[0].params, m))
        except AdvisorError:
            continue
    return max(sized)[1] if sized else None
