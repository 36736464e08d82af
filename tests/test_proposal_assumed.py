"""A proposal written from an answer that had to assume the job (no model or purpose named) says so where the answer
does: its verdict line calls the job an assumption, and the assumption heads the defaults (assistant/turns.py reads it
from the answer's message; assistant/planner/model.py stores it)."""

import uuid

import pytest

from assistant.proposal import build_proposal
from assistant.turns import turns


@pytest.mark.parametrize(
    ("question", "lead"),
    [
        ("课题组经费 10 万买服务器", "没说用途，按"),
        ("Our lab has $15k for GPUs, what should we buy?", "No job named, so sized for"),
        ("预算 2 万买什么显卡", "没说用途，按"),
    ],
)
def test_an_assumed_job_is_said_in_the_answer_and_the_proposal(advisor, question: str, lead: str) -> None:
    session = f"t-{uuid.uuid4().hex[:8]}"
    final = advisor.ask(session, question)
    assert final.answer.lstrip("*").startswith(lead), final.answer[:200]
    messages = advisor.sessions().messages(session)
    assumed = turns(messages)[-1].assumed_job
    assert assumed is not None and assumed.code.startswith("assumed_")
    proposal = build_proposal(messages, session)
    assert proposal.summary.startswith(lead), proposal.summary
    need = next(s for s in proposal.sections if s.key == "need")
    assert need.bullets[0] == assumed.render(proposal.language)


def test_a_named_job_is_not_called_an_assumption(advisor) -> None:
    session = f"t-{uuid.uuid4().hex[:8]}"
    advisor.ask(session, "预算 1.5 万，在家用一张卡微调 Qwen2.5-14B")
    messages = advisor.sessions().messages(session)
    assert turns(messages)[-1].assumed_job is None
    assert not build_proposal(messages, session).summary.startswith("没说用途")
