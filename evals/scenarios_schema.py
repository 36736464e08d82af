"""The golden-scenario format (evals/scenarios/*.yaml): what must hold after each user turn."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

RubricCheck = Literal["budget", "names", "stated", "constraints", "verdict"]
RUBRIC_CHECKS: tuple[RubricCheck, ...] = ("budget", "names", "stated", "constraints", "verdict")


class ExpectedCall(BaseModel):
    """A tool the assistant must call; `args` lists key arguments that must match (subset, case-insensitive).

    `name` may list several tools when any of them answers the turn ("sized on 8 x A10G" by estimate_vram or
    fit_on_gpu)."""

    name: str | list[str]
    args: dict[str, Any] = Field(default_factory=dict)

    @property
    def names(self) -> list[str]:
        return [self.name] if isinstance(self.name, str) else list(self.name)


class NumberCheck(BaseModel):
    """A number the answer must state: computed here by running `tool` on `args`, read at `path`.

    The expected value is never copied into the YAML: it is what the calculator says for the stated scenario.
    """

    tool: str
    args: dict[str, Any]
    path: str = Field(description="Dotted path into the tool result, e.g. per_gpu_gib or options.0.count")
    tolerance: float = Field(default=0.02, ge=0, description="Relative tolerance")
    label: str | None = None


class Stated(BaseModel):
    """Quantities the user stated in the turn, each of which must reach the arguments of the turn's tool calls.

    Written by the scenario author from the question ("1.5w" -> budget 15000, "一个月 100 个小时" ->
    hours_per_month 100). Equivalent forms are accepted: hours a month as `utilization` x 730, "N 人" as
    `users` N (or the concurrency the policy derives from it), a budget only in the stated currency.
    """

    model_config = ConfigDict(extra="forbid")

    budget: float | None = Field(default=None, gt=0, description="Up-front budget (recommend_gpus `budget`)")
    monthly_budget: float | None = Field(default=None, gt=0, description="Monthly rent budget")
    currency: Literal["CNY", "USD"] | None = Field(default=None, description="The budget's / prices' currency")
    hours_per_month: float | None = Field(default=None, gt=0, le=744, description="Busy hours a month")
    hours_per_day: float | None = Field(default=None, gt=0, le=24, description="Busy hours a day (x 730 / 24)")
    users: int | None = Field(default=None, ge=1, description="Named users ('公司 300 人')")
    concurrent: int | None = Field(default=None, ge=1, description="Concurrent sequences ('50 concurrent users')")
    context_tokens: int | None = Field(default=None, ge=1, description="Context / sequence length ('8k')")
    horizon_years: float | None = Field(default=None, gt=0, description="Period of the cost comparison")
    max_gpus: int | None = Field(default=None, ge=1, description="'一张卡' = 1: recommend `max_gpus`, else `num_gpus`")
    num_gpus: int | None = Field(default=None, ge=1, description="A GPU count the user named ('8 张 H100')")
    batch: int | None = Field(default=None, ge=1)
    electricity_price_per_kwh: float | None = Field(default=None, ge=0)
    gpu_price: float | None = Field(default=None, gt=0, description="A purchase price the user quoted")
    cloud_price_per_gpu_hour: float | None = Field(default=None, gt=0, description="An hourly rent the user quoted")
    lora_rank: int | None = Field(default=None, ge=1)


class Constraints(BaseModel):
    """Hard constraints the user set, checked against the typed tool results (recommend picks, fits, memory)."""

    model_config = ConfigDict(extra="forbid")

    max_gpus: int | None = Field(default=None, ge=1, description="Cards of the pick and alternatives (not stretch)")
    deployment: Literal["local", "cloud"] | None = Field(default=None, description="Where the primary pick runs")
    vendor: list[Literal["nvidia", "amd", "intel", "apple"]] | None = Field(
        default=None, description="Vendors allowed for every option shown"
    )
    ecc: bool | None = Field(default=None, description="true: every option shown has ECC memory")
    nvlink: bool | None = Field(default=None, description="true: every multi-card option shown has NVLink")

    @field_validator("vendor", mode="before")
    @classmethod
    def _one_vendor(cls, value: Any) -> Any:
        return [value] if isinstance(value, str) else value


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
    lead: list[list[str]] = Field(
        default_factory=list,
        description="One of each group must appear in the answer's first two sentences ('re:' prefix: a regex)",
    )
    lead_not: list[str] = Field(
        default_factory=list, description="Must not appear in the first two sentences ('re:' prefix: a regex)"
    )
    names: list[str | list[str]] = Field(
        default_factory=list,
        description="Names the user mentions that the rubric cannot detect (a list: any one of them)",
    )
    stated: Stated | None = Field(default=None, description="Stated quantities that must reach the tool arguments")
    constraints: Constraints | None = Field(default=None, description="Hard constraints checked on the results")
    skip_rubric: list[RubricCheck] = Field(
        default_factory=list, description="Rubric checks that do not apply to this turn (say why in a comment)"
    )


class Source(BaseModel):
    """Where a real question was asked (the wild set, evals/wild/)."""

    model_config = ConfigDict(extra="forbid")

    url: str = Field(min_length=8, description="The thread, issue or post")
    title: str = Field(default="", description="Its title as published")
    kind: Literal["github_issue", "github_discussion", "forum", "qa", "blog", "reddit", "other"]
    date: str | None = Field(default=None, description="When it was asked, YYYY or YYYY-MM, where known")


class Scenario(BaseModel):
    id: str
    category: str
    language: Literal["zh", "en"]
    description: str = ""
    turns: list[Turn] = Field(min_length=1)
    source: Source | None = Field(default=None, description="A real question's origin (required in evals/wild)")
    held_out: bool = Field(
        default=False, description="Wild set: kept aside while fixing, reported on its own (generalisation)"
    )


class ScenarioFile(BaseModel):
    scenarios: list[Scenario]
