"""Names read as one thing (round 5 of the wild set, issue 19): a version of a family newer than the registry is read
as the family's newest model and said so; "how many" of two named cards gives each card's count; a chip before its
Mac is one machine."""

from __future__ import annotations

import uuid

import pytest

from assistant.events import FinalEvent
from tools.model_match import newer_version_of


def _ask(advisor, text: str) -> FinalEvent:
    final = advisor.ask(f"t-{uuid.uuid4().hex[:8]}", text)
    assert isinstance(final, FinalEvent)
    return final


@pytest.mark.parametrize(
    ("typed", "family", "nearest"),
    [("Kimi K3", "kimi", "kimi-k2.5"), ("DeepSeek V5", "deepseek", "deepseek-v3.2")],
)
def test_a_newer_version_of_a_family_is_its_newest_model(typed: str, family: str, nearest: str) -> None:
    assert newer_version_of(typed, family) == nearest


@pytest.mark.parametrize(("typed", "family"), [("kimi", "kimi"), ("qwen3", "series:qwen3")])
def test_a_family_word_or_a_known_series_is_no_newer_version(typed: str, family: str) -> None:
    assert newer_version_of(typed, family) is None


@pytest.mark.parametrize(
    ("text", "said"),
    [
        ("Kimi K3 needs how much VRAM?", "'Kimi K3' is not in the model data"),
        ("Kimi K3 能在8张H200上跑吗", "还没有“Kimi K3”"),
    ],
)
def test_a_newer_version_says_which_model_it_was_read_as(advisor, text: str, said: str) -> None:
    answer = _ask(advisor, text).answer
    assert said in answer and "Kimi-K2.5" in answer and "Kimi-Dev" not in answer


@pytest.mark.parametrize(
    ("text", "cards"),
    [
        ("Kimi K2 on H100s or H20s, how many?", ("H100", "H20")),
        ("deepseek r1 用H20还是H800，分别需要多少？", ("H20", "H800")),
    ],
)
def test_how_many_of_two_named_cards_gives_each_count(advisor, text: str, cards: tuple[str, str]) -> None:
    lead = _ask(advisor, text).answer.split("\n")[0]
    assert all(c in lead for c in cards) and ("×" in lead or "张" in lead)
