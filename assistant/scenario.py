"""The conversation's current scenario, derived from the tool calls made so far in a session."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel


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
    zero_stage: int | None = None
    persona: str | None = None
    max_gpus: int | None = None
    cloud_excluded: bool = False
    serving: bool = False
    min_card_gib: float | None = None
    users: int | None = None
    budget_scope: str | None = None
    gpu_price: float | None = None
    cloud_price: float | None = None
    last_intents: list[str] = []

    def apply_tool_call(self, name: str, args: dict[str, Any]) -> None:
        """Update the slots a tool call fixed (each tool's home capability knows which)."""
        from assistant.capabilities import home_of

        home = home_of(name)
        if home is not None:
            home.apply(self, name, args)  # type: ignore[arg-type]  # home_of only finds known ToolNames

    def summary(self) -> dict[str, Any]:
        """The slots that are set, for display."""
        return {k: v for k, v in self.model_dump(exclude={"last_intents"}).items() if v is not None}


def scenario_from_messages(messages: list[Any]) -> Scenario:
    """Replay every tool call of a conversation (LangChain messages) into a Scenario."""
    scenario = Scenario()
    turn_calls: list[dict[str, Any]] = []
    for msg in messages:
        if getattr(msg, "type", "") == "human":
            if turn_calls:
                scenario.last_intents = _intents(turn_calls)
            turn_calls = []
        for call in getattr(msg, "tool_calls", None) or []:
            if _describes_workload(call):
                scenario.apply_tool_call(call["name"], call.get("args") or {})
            turn_calls.append(call)
    if turn_calls:
        scenario.last_intents = _intents(turn_calls)
    return scenario


def _describes_workload(call: dict[str, Any]) -> bool:
    """A call the planning capability marks as a reference figure does not change the scenario."""
    from assistant.capabilities import REGISTRY
    from assistant.capabilities.base import owner_from_id
    from assistant.toolset import ToolName

    owner = owner_from_id(call.get("id") or "")
    planner = next((c for c in REGISTRY if c.intent == owner), None)
    if planner is None or call["name"] not in ToolName.__members__.values():
        return True
    return planner.records(ToolName(call["name"]))


def _intents(calls: list[dict[str, Any]]) -> list[str]:
    """The question types a turn answered: the planning capability of each call (its id says, for the
    offline planner), else the tool's home capability; the guide search alone means a concept question."""
    from assistant.capabilities import home_of
    from assistant.capabilities.base import owner_from_id

    out: list[str] = []
    for call in calls:
        home = home_of(call["name"])
        intent = owner_from_id(call.get("id") or "") or (home.intent if home else None)
        if intent and intent not in out and not (intent == "concept" and len(calls) > 1):
            out.append(intent)
    return out or ["concept"]
