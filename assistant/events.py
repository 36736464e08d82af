"""What a turn yields: tool calls, tool results, text, the final answer — one event stream for CLI, UI, evals."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, Field, SerializeAsAny, model_validator

from assistant.citations import Citation
from assistant.consistency import ConsistencyReport
from assistant.grounding import GroundingReport
from assistant.quick_replies import QuickReply
from assistant.scenario import Scenario


class ToolCallEvent(BaseModel):
    type: Literal["tool_call"] = "tool_call"
    id: str
    name: str
    args: dict[str, Any]


def _typed(data: Any) -> Any:
    """Validate `result` as the named tool's result model (also after a JSON round trip)."""
    if isinstance(data, dict) and isinstance(data.get("result"), dict) and data.get("name"):
        from assistant.toolset import typed_result

        data = {**data, "result": typed_result(data["name"], data["result"])}
    return data


class ToolResultEvent(BaseModel):
    type: Literal["tool_result"] = "tool_result"
    id: str
    name: str
    ok: bool
    result: SerializeAsAny[BaseModel] | None = Field(default=None, description="The tool's own result model")
    error: str | None = None
    summary: str
    duration_ms: float

    _typed = model_validator(mode="before")(_typed)


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
    result: SerializeAsAny[BaseModel] | None = Field(default=None, description="The tool's own result model")
    error: str | None = None

    _typed = model_validator(mode="before")(_typed)


class FinalEvent(BaseModel):
    type: Literal["final"] = "final"
    answer: str
    language: Literal["zh", "en"]
    provider: str
    tool_calls: list[ToolCallRecord]
    citations: list[Citation]
    grounding: GroundingReport
    consistency: ConsistencyReport = Field(
        default_factory=ConsistencyReport, description="What in the answer contradicts its lead or its numbers"
    )
    scenario: Scenario
    latency_ms: float
    fell_back: bool = False
    quick_replies: list[QuickReply] = Field(
        default_factory=list, description="One-click replies the answer offers (the usual answers to its question)"
    )


Event = Annotated[ToolCallEvent | ToolResultEvent | TextEvent | ErrorEvent | FinalEvent, Field(discriminator="type")]


class ProposalFiles(BaseModel):
    """A session's purchase proposal as written files (Advisor.proposal), or why none could be written."""

    files: dict[str, str] = Field(default_factory=dict, description="File suffix (.md, .pdf, .xlsx, .csv) -> path")
    error: str | None = None
