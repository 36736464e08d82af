"""The conversation's current scenario, derived from the tool calls made so far in a session."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel

# Which request fields of which tool set which scenario slot.
_FIELD_MAP: dict[str, dict[str, str]] = {
    "estimate_vram": {
        "model": "model",
        "params_b": "params_b",
        "mode": "mode",
        "precision": "precision",
        "kv_dtype": "kv_dtype",
        "context_tokens": "context_tokens",
        "batch": "batch",
        "num_gpus": "num_gpus",
        "lora_rank": "lora_rank",
        "optimizer": "optimizer",
    },
    "estimate_speed": {
        "model": "model",
        "params_b": "params_b",
        "gpu": "gpu",
        "num_gpus": "num_gpus",
        "precision": "precision",
        "context_tokens": "context_tokens",
        "batch": "batch",
    },
    "fit_on_gpu": {
        "model": "model",
        "params_b": "params_b",
        "gpu": "gpu",
        "num_gpus": "num_gpus",
        "precision": "precision",
        "context_tokens": "context_tokens",
    },
    "calculate_tco": {
        "gpu": "gpu",
        "num_gpus": "num_gpus",
        "currency": "currency",
        "horizon_years": "horizon_years",
        "utilization": "utilization",
        "electricity_price_per_kwh": "electricity_price",
        "gpu_price": "gpu_price",
    },
    "plan_workstation": {"gpu": "gpu", "num_gpus": "num_gpus"},
    "recommend_gpus": {
        "budget": "budget",
        "monthly_budget": "monthly_budget",
        "currency": "currency",
        "deployment": "deployment",
        "preference": "preference",
    },
}
_TOOL_INTENT = {
    "estimate_vram": "memory",
    "estimate_speed": "speed",
    "recommend_gpus": "recommend",
    "calculate_tco": "cost",
    "plan_workstation": "build",
    "fit_on_gpu": "fit",
    "gpu_specs": "gpu_info",
    "find_gpus": "catalog",
    "search_guides": "concept",
}


class Scenario(BaseModel):
    """What the user is sizing; follow-up questions change only what they mention."""

    model: str | None = None
    params_b: float | None = None
    mode: str | None = None
    precision: str | None = None
    kv_dtype: str | None = None
    context_tokens: int | None = None
    batch: int | None = None
    gpu: str | None = None
    num_gpus: int | None = None
    budget: float | None = None
    monthly_budget: float | None = None
    currency: str | None = None
    electricity_price: float | None = None
    utilization: float | None = None
    horizon_years: float | None = None
    deployment: str | None = None
    preference: str | None = None
    gpus: list[str] = []
    lora_rank: int | None = None
    optimizer: str | None = None
    gpu_price: float | None = None
    last_intents: list[str] = []

    def apply_tool_call(self, name: str, args: dict[str, Any]) -> None:
        """Update the slots a tool call fixed."""
        if name == "recommend_gpus" and isinstance(args.get("workload"), dict):
            self.apply_tool_call("estimate_vram", args["workload"])
        if name == "gpu_specs" and args.get("names") and len(args["names"]) == 1:
            self.gpu = args["names"][0]
        if name == "gpu_specs" and args.get("names") and len(args["names"]) > 1:
            self.gpus = list(args["names"])  # the cards being compared: "which one is faster?" refers to them
        for arg, slot in _FIELD_MAP.get(name, {}).items():
            if args.get(arg) is not None:
                setattr(self, slot, args[arg])
        if args.get("model") is not None:
            self.params_b = args.get("params_b")
        elif args.get("params_b") is not None:
            self.model = None

    def summary(self) -> dict[str, Any]:
        """The slots that are set, for display."""
        return {k: v for k, v in self.model_dump(exclude={"last_intents"}).items() if v is not None}


def scenario_from_messages(messages: list[Any]) -> Scenario:
    """Replay every tool call of a conversation (LangChain messages) into a Scenario."""
    scenario = Scenario()
    turn_tools: list[str] = []
    for msg in messages:
        if getattr(msg, "type", "") == "human":
            if turn_tools:
                scenario.last_intents = _intents(turn_tools)
            turn_tools = []
        for call in getattr(msg, "tool_calls", None) or []:
            scenario.apply_tool_call(call["name"], call.get("args") or {})
            turn_tools.append(call["name"])
    if turn_tools:
        scenario.last_intents = _intents(turn_tools)
    return scenario


def _intents(tool_names: list[str]) -> list[str]:
    out: list[str] = []
    for name in tool_names:
        intent = _TOOL_INTENT.get(name)
        if intent and intent not in out and not (intent == "concept" and len(tool_names) > 1):
            out.append(intent)
    return out or ["concept"]
