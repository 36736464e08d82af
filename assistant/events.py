"""What a turn yields: tool calls, tool results, text, the final answer — one event stream for CLI, UI, evals."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, Field

from assistant.grounding import GroundingReport
from assistant.planner.compose import Citation
from assistant.scenario import Scenario


class ToolCallEvent(BaseModel):
    type: Literal["tool_call"] = "tool_call"
    id: str
    name: str
    args: dict[str, Any]


class ToolResultEvent(BaseModel):
    type: Literal["tool_result"] = "tool_result"
    id: str
    name: str
    ok: bool
    result: Any = None
    error: str | None = None
    summary: str
    duration_ms: float


class TextEvent(BaseModel):
    type: Literal["text"] = "text"
    delta: str


class ErrorEvent(BaseModel):
    type: Literal["error"] = "error"
    message: str
    kind: str = "unknown"


class ToolCallRecord(BaseModel):
    name: str
    args: dict[str, Any]
    result: Any = None
    error: str | None = None


class FinalEvent(BaseModel):
    type: Literal["final"] = "final"
    answer: str
    language: Literal["zh", "en"]
    provider: str
    tool_calls: list[ToolCallRecord]
    citations: list[Citation]
    grounding: GroundingReport
    scenario: Scenario
    latency_ms: float
    fell_back: bool = False


Event = Annotated[ToolCallEvent | ToolResultEvent | TextEvent | ErrorEvent | FinalEvent, Field(discriminator="type")]
