"""The golden-scenario format (evals/scenarios/*.yaml): what must hold after each user turn."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, Field


class ExpectedCall(BaseModel):
    """A tool the assistant must call; `args` lists key arguments that must match (subset, case-insensitive)."""

    name: str
    args: dict[str, Any] = Field(default_factory=dict)


class NumberCheck(BaseModel):
    """A number the answer must state: computed here by running `tool` on `args`, read at `path`.

    The expected value is never copied into the YAML: it is what the calculator says for the stated scenario.
    """

    tool: str
    args: dict[str, Any]
    path: str = Field(description="Dotted path into the tool result, e.g. per_gpu_gib or options.0.count")
    tolerance: float = Field(default=0.02, ge=0, description="Relative tolerance")
    label: str | None = None


class Turn(BaseModel):
    user: str
    tools: list[ExpectedCall] = Field(default_factory=list, description="Calls that must happen this turn")
    forbid_tools: list[str] = Field(default_factory=list, description="Tools that must NOT be called")
    no_tools: bool = Field(default=False, description="The turn must not call any calculator (asks / declines)")
    numbers: list[NumberCheck] = Field(default_factory=list)
    must_contain: list[str] = Field(default_factory=list, description="Each must appear (case-insensitive)")
    must_contain_any: list[list[str]] = Field(default_factory=list, description="One of each group must appear")
    must_not_contain: list[str] = Field(default_factory=list)
    citations: int = Field(default=0, ge=0, description="Minimum number of cited passages")
    language: Literal["zh", "en"] | None = None


class Scenario(BaseModel):
    id: str
    category: str
    language: Literal["zh", "en"]
    description: str = ""
    turns: list[Turn] = Field(min_length=1)


class ScenarioFile(BaseModel):
    scenarios: list[Scenario]
