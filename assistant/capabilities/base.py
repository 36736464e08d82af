"""What a capability is: one question type, from the parsed question to its part of the answer.

A capability declares its intent, the tools it is the home of (their one-line summaries and the scenario
fields their arguments set), how it plans tool calls from the parsed question and the scenario, and how
it renders its typed results through the string catalog. The planner, the composer, the scenario and
the tool-bubble summaries loop over the registry in `assistant.capabilities`.
"""

from __future__ import annotations

import re
import uuid
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, ClassVar, TypeVar

from pydantic import BaseModel, Field, SerializeAsAny

from assistant.scenario import Scenario
from assistant.strings import Writer
from assistant.toolset import ToolName
from assistant.understanding import ParsedQuery
from tools.notes import Note

if TYPE_CHECKING:
    from assistant.citations import Citation

# Offline tool-call ids carry the intent that planned the call, so a replayed conversation knows which
# question each call answered (an LLM's calls fall back to the tool's home capability).
R = TypeVar("R", bound=BaseModel)
_CALL_ID = re.compile(r"^call_(?P<owner>[a-z_]+)_[0-9a-f]{12}$")


def call_id(owner: str) -> str:
    return f"call_{owner}_{uuid.uuid4().hex[:12]}"


def owner_from_id(call_id: str) -> str | None:
    m = _CALL_ID.match(call_id or "")
    return m.group("owner") if m else None


class ToolCall(BaseModel):
    """A tool call the planner wants, and the intent of the capability that planned it."""

    name: ToolName
    args: dict[str, Any]
    owner: str = ""
    shared_with: list[str] = Field(default_factory=list, description="Other intents that planned the same call")

    def same_call(self, other: ToolCall) -> bool:
        return self.name == other.name and self.args == other.args

    def serves(self, intent: str) -> bool:
        """Planned by this intent, or by another first and shared (one estimate for the memory and the rent part)."""
        return self.owner == intent or intent in self.shared_with


class Outcome(BaseModel):
    """A finished tool call: its typed result (the tool's own pydantic model) or an error."""

    call: ToolCall
    ok: bool
    result: SerializeAsAny[BaseModel] | None = None
    error: str | None = None


class Plan(BaseModel):
    """What the planner does this turn."""

    intents: list[str]
    scenario: Scenario
    calls: list[ToolCall]
    ask: str | None = Field(default=None, description="The one missing input to ask for (a catalog.yaml key)")
    notes: list[str | Note] = Field(
        default_factory=list, description="Defaults the answer states: catalog.yaml keys, or tool notes with values"
    )
    second_round: list[str] = Field(
        default_factory=list, description="Intents whose capability plans more calls from the first results"
    )
    quick_replies: list[str] = Field(
        default_factory=list, description="catalog.yaml quick_replies groups: defaults the user can pick in one click"
    )


@dataclass
class PlanContext:
    """A plan being made: capabilities add calls, ask for a missing input or hand over to another."""

    parsed: ParsedQuery
    previous: Scenario
    scenario: Scenario
    intents: list[str]
    calls: list[ToolCall] = field(default_factory=list)
    missing: str | None = None  # an input one intent lacks; asked only if nothing else could be computed
    second_round: list[str] = field(default_factory=list)
    notes: list[str | Note] = field(default_factory=list)  # defaults the answer states
    quick_replies: list[str] = field(default_factory=list)  # catalog.yaml quick_replies groups to offer

    @property
    def has_model(self) -> bool:
        return bool(self.scenario.model or self.scenario.params_b)

    def add(self, owner: str, name: ToolName, **args: Any) -> None:
        """Plan a call once: a call another capability already planned is shared, not repeated."""
        call = ToolCall(name=name, args=args, owner=owner)
        same = next((c for c in self.calls if c.same_call(call)), None)
        if same is None:
            self.calls.append(call)
        elif owner != same.owner and owner not in same.shared_with:
            same.shared_with.append(owner)

    def need(self, key: str) -> None:
        self.missing = self.missing or key

    def hand_over(self, from_intent: str, to_intent: str) -> None:
        """Let another capability answer: "which one is faster?" after a comparison is a comparison."""
        from assistant.capabilities import capability

        self.intents = [to_intent if i == from_intent else i for i in self.intents]
        capability(to_intent).plan(self)

    def delegate(self, to_intent: str) -> None:
        """Plan another capability's calls as well ("a home rig for Qwen2.5-32B": pick the card first)."""
        from assistant.capabilities import capability

        capability(to_intent).plan(self)


@dataclass
class Turn:
    """A finished turn as the composer sees it: the plan, the question and every typed outcome."""

    plan: Plan
    parsed: ParsedQuery
    outcomes: list[Outcome]
    shown: set[int] = field(default_factory=set)  # outcomes already presented by a capability
    citations: list[Citation] = field(default_factory=list)

    def own(self, intent: str, kind: type[R]) -> list[R]:
        """The results of type `kind` (one tool's result model) of the calls `intent` planned, in call order."""
        return [o.result for o in self.outcomes if o.call.owner == intent and isinstance(o.result, kind)]

    def owns_any(self, intent: str) -> bool:
        return any(o.call.owner == intent for o in self.outcomes)

    def results(self, kind: type[R]) -> list[tuple[int, R]]:
        """Every result of type `kind` this turn, with the index of its outcome."""
        return [(i, o.result) for i, o in enumerate(self.outcomes) if isinstance(o.result, kind)]

    def own_indexed(self, intent: str, kind: type[R]) -> list[tuple[int, R]]:
        """The results of type `kind` of the calls `intent` planned, with their outcome index (for `shown`)."""
        return [(i, r) for i, r in self.results(kind) if self.outcomes[i].call.owner == intent]


class Capability:
    """One question type. Subclasses set the class variables and override what they do."""

    intent: ClassVar[str]
    owns: ClassVar[tuple[ToolName, ...]] = ()  # tools this capability is the home of
    scenario_fields: ClassVar[dict[ToolName, dict[str, str]]] = {}  # tool -> {argument: scenario slot}
    needs_model: ClassVar[bool] = False  # asks "which model?" when the scenario has none
    cites_guides: ClassVar[bool] = True  # its answers come with guide passages
    guides_topic: ClassVar[str | None] = None  # words added to the retrieval query
    # Where its part of the answer goes: computed numbers (0), comparisons (1), spec facts (2), sources (3)
    render_phase: ClassVar[int] = 0

    def plan(self, ctx: PlanContext) -> None:
        """Add the tool calls this question needs, or `ctx.need(...)` the missing input."""

    def second_round(self, plan: Plan, outcomes: list[Outcome]) -> list[ToolCall]:
        """Calls that depend on the first round's results (e.g. the GPU count a job needs)."""
        return []

    def render(self, w: Writer, turn: Turn) -> None:
        """Write this capability's part of the answer from its typed results."""

    def active(self, turn: Turn) -> bool:
        return self.intent in turn.plan.intents or turn.owns_any(self.intent)

    def phase(self, turn: Turn) -> int:
        """Where this turn's part goes (`render_phase` unless the capability's place depends on the question)."""
        return self.render_phase

    def topic(self, ctx: PlanContext) -> str | None:
        """Words that steer the guide search toward what this capability computed."""
        return self.guides_topic

    def summary(self, tool: ToolName, result: BaseModel, lang: str) -> str:
        """One line for the tool bubble."""
        return str(tool)

    def records(self, tool: ToolName) -> bool:
        """Whether this capability's calls of `tool` describe the user's workload (a reference figure does not)."""
        return True

    def kept_args(self, tool: str, args: dict[str, Any]) -> dict[str, Any]:
        """The arguments of a call `records` marks as an example that still describe the user's workload."""
        return {}

    def apply(self, scenario: Scenario, tool: ToolName, args: dict[str, Any]) -> None:
        """Update the scenario slots a call of one of this capability's tools fixed."""
        for arg, slot in self.scenario_fields.get(tool, {}).items():
            if args.get(arg) is not None:
                setattr(scenario, slot, args[arg])
        if args.get("model") is not None:
            scenario.params_b = args.get("params_b")
        elif args.get("params_b") is not None:
            scenario.model = None
