"""A session's saved messages as turns: each question, its answer, its language and its tool calls with typed results.

The session store keeps LangChain messages (human, AI with tool calls, tool messages whose content is the tool's
JSON). Whatever reads a past conversation by its results — the purchase proposal (assistant/proposal/), and
`Advisor._final` could reuse `turns` for its records too — goes through here, so a tool's JSON enters once,
through `toolset.typed_result`.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import Any, TypeVar

from pydantic import BaseModel, Field

from assistant.events import ToolCallRecord
from assistant.language import Language, detect_language
from tools.notes import Note

R = TypeVar("R", bound=BaseModel)


class SessionTurn(BaseModel):
    """One question and everything the assistant did to answer it."""

    index: int = Field(description="0 for the session's first question")
    question: str
    answer: str = Field(description="The last AI message with text; empty when the turn failed")
    language: Language
    records: list[ToolCallRecord] = Field(default_factory=list, description="Tool calls in order, typed results")
    cited: list[list[str]] = Field(
        default_factory=list, description="The offline planner's numbered sources: [doc_id, section] in order"
    )
    assumed_job: Note | None = Field(
        default=None, description="The offline planner's note when no model or purpose was named (the job it sized)"
    )

    def results(self, kind: type[R]) -> list[R]:
        """The turn's successful results of one result model, in call order."""
        return [r.result for r in self.records if isinstance(r.result, kind)]

    def records_of(self, kind: type[BaseModel]) -> list[ToolCallRecord]:
        return [r for r in self.records if isinstance(r.result, kind)]


def tool_payload(name: str, content: str) -> tuple[bool, BaseModel | None, str | None]:
    """A tool message as (ok, the tool's typed result, error): where results enter the assistant."""
    from assistant.toolset import typed_result

    try:
        data = json.loads(content)
    except json.JSONDecodeError:
        return False, None, content[:500]
    if isinstance(data, dict) and set(data) == {"error"}:
        return False, None, str(data["error"])
    return True, typed_result(name, data), None


def tool_records(messages: Iterable[Any]) -> list[ToolCallRecord]:
    """Each tool call among `messages` (one turn's), in order, paired with its tool message's typed result."""
    calls: dict[str, ToolCallRecord] = {}
    for m in messages:
        for c in getattr(m, "tool_calls", None) or []:
            calls[c["id"]] = ToolCallRecord(name=c["name"], args=c.get("args") or {})
        if m.type == "tool" and m.tool_call_id in calls:
            record = calls[m.tool_call_id]
            _ok, record.result, record.error = tool_payload(record.name, str(m.content))
    return list(calls.values())


def turns(messages: Iterable[Any]) -> list[SessionTurn]:
    """Split saved messages at each human message; a turn's records pair each tool call with its tool message."""
    groups: list[list[Any]] = []
    for m in messages:
        if m.type == "human":
            groups.append([m])
        elif groups:
            groups[-1].append(m)
    return [_turn(i, group) for i, group in enumerate(groups)]


def _turn(index: int, group: list[Any]) -> SessionTurn:
    question = str(group[0].content)
    last = next((m for m in reversed(group) if m.type == "ai" and m.content), None)
    extra = getattr(last, "additional_kwargs", None) or {}
    cited = extra.get("cited") or []
    return SessionTurn(
        index=index,
        question=question,
        answer=str(last.content) if last is not None else "",
        language=detect_language(question),
        records=tool_records(group),
        cited=[list(c) for c in cited],
        assumed_job=extra.get("assumed_job"),
    )
