"""Asking the offline advisor in a test: a fresh session per question, and the lead of an answer."""

import uuid

from assistant.capabilities.base import Outcome, Plan
from assistant.events import FinalEvent
from assistant.grounding import check_grounding
from assistant.planner.compose import compose
from assistant.planner.plan import make_plan
from assistant.scenario import Scenario
from assistant.toolset import ToolName, run_tool, tool_spec, typed_result
from assistant.understanding import parse


def ask_checked(advisor, text: str, consistent: bool = False) -> FinalEvent:
    """One question in a new session; every number traceable (and, when asked, one story)."""
    final = advisor.ask(f"t-{uuid.uuid4().hex[:8]}", text)
    assert isinstance(final, FinalEvent)
    assert not final.grounding.untraceable, (text, final.grounding.untraceable, final.answer)
    if consistent:
        assert not final.consistency.contradictions, final.answer
    return final


def lead_of(answer: str, paragraphs: int = 1) -> str:
    """The answer's first paragraph (or first few): where its verdict must stand."""
    return " ".join(answer.split("\n\n")[:paragraphs])


def planned_turn(question: str, previous: Scenario | None = None, traceable: bool = True) -> tuple[Plan, str]:
    """Plan, run the calculators (not the guide search) and compose, as the offline planner does; every number in
    the answer traceable to a result unless told otherwise."""
    parsed = parse(question)
    plan = make_plan(parsed, previous or Scenario())
    outcomes = []
    for call in plan.calls:
        if call.name == ToolName.SEARCH_GUIDES:
            continue
        spec = tool_spec(call.name)
        assert spec is not None
        done = run_tool(spec, call.args)
        outcomes.append(Outcome(call=call, ok=done.ok, result=typed_result(call.name, done.result), error=done.error))
    answer = compose(plan, parsed, outcomes).answer
    if traceable:
        grounding = check_grounding(answer, [o.result.model_dump() for o in outcomes if o.result], [], [question])
        assert not grounding.untraceable, (grounding.untraceable, answer)
    return plan, answer
