"""Fuzz the offline planner's parser and plan with arbitrary text: a reply, never a crash."""

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from assistant.planner.plan import make_plan
from assistant.scenario import Scenario
from assistant.understanding import parse

DOMAIN = st.sampled_from(
    [
        "70B",
        "4090",
        "QLoRA",
        "预算",
        "万",
        "$",
        "8k",
        "张",
        "x",
        "H100",
        "显存",
        "1e309",
        "-5",
        "0",
        "NaN",
        "∞",
        "推理",
        "fine-tune",
        "如果",
        "what about",
        "¥",
        "999999999999",
    ]
)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.one_of(st.text(max_size=30), DOMAIN), max_size=12).map(" ".join))
def test_parse_and_plan_never_crash(text):
    parsed = parse(text)
    plan = make_plan(parsed, Scenario())
    assert plan.calls or plan.ask or plan.intents


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.text(max_size=200))
def test_advisor_turn_on_arbitrary_text(advisor, text):
    final = advisor.ask("fuzz", text)
    assert isinstance(final.answer, str)
    assert "Traceback" not in final.answer
