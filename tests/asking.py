"""Asking the offline advisor in a test: a fresh session per question, and the lead of an answer."""

import uuid

from assistant.events import FinalEvent


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
