"""The capability registry: one module per question type, looped over by the planner, the composer, the
scenario and the tool-bubble summaries.

Adding a question type = one module here (a `Capability` subclass) + its entry in REGISTRY + its intent
keywords in knowledge/data/lexicon.yaml + its sentences in the string catalog.
"""

from __future__ import annotations

from functools import cache

from assistant.capabilities.base import Capability
from assistant.capabilities.catalog import Catalog
from assistant.capabilities.cheaper import CheaperWay
from assistant.capabilities.compare import Compare
from assistant.capabilities.cost import Cost
from assistant.capabilities.fit import Fit
from assistant.capabilities.guides import Guides
from assistant.capabilities.memory import Memory
from assistant.capabilities.recommend import Recommend
from assistant.capabilities.smalltalk import Help, OutOfScope
from assistant.capabilities.specs import Specs
from assistant.capabilities.speed import Speed
from assistant.capabilities.workstation import Workstation
from assistant.toolset import ToolName

REGISTRY: tuple[Capability, ...] = (
    Memory(),
    Speed(),
    Fit(),
    Recommend(),
    Cost(),
    Workstation(),
    Catalog(),
    Compare(),
    Specs(),
    CheaperWay(),
    Guides(),
    Help(),
    OutOfScope(),
)


@cache
def _by_intent() -> dict[str, Capability]:
    return {c.intent: c for c in REGISTRY}


@cache
def _by_tool() -> dict[ToolName, Capability]:
    return {tool: c for c in REGISTRY for tool in c.owns}


def capability(intent: str) -> Capability:
    """The capability answering `intent` (KeyError names the known intents)."""
    try:
        return _by_intent()[intent]
    except KeyError:
        raise KeyError(f"no capability for intent {intent!r}; known: {', '.join(_by_intent())}") from None


def intents() -> list[str]:
    return list(_by_intent())


def home_of(tool: str) -> Capability | None:
    """The capability a tool belongs to (its summary and scenario fields), None for an unknown tool."""
    try:
        return _by_tool().get(ToolName(tool))
    except ValueError:
        return None


__all__ = ["REGISTRY", "Capability", "capability", "home_of", "intents"]
