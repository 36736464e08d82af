"""The parser takes its wording from lexicon.yaml: a new question type or phrasing is data, not code."""

from __future__ import annotations

import copy
from collections.abc import Iterator

import pytest

from assistant.understanding import ParsedQuery, _parse
from assistant.understanding import lexicon as lexicon_module
from tools._data import load_yaml


@pytest.fixture
def lexicon(monkeypatch: pytest.MonkeyPatch) -> Iterator[dict]:
    """A private copy of lexicon.yaml that the parser compiles instead of the bundled one."""
    raw = copy.deepcopy(load_yaml("lexicon.yaml"))
    monkeypatch.setattr(lexicon_module, "load_yaml", lambda name: raw)
    lexicon_module._lex.cache_clear()
    yield raw
    lexicon_module._lex.cache_clear()  # the next parse recompiles the bundled lexicon


def test_a_new_intent_is_a_lexicon_entry(lexicon: dict) -> None:
    lexicon["intents"]["warranty"] = {"zh": ["保修"], "en": ["warranty"]}
    assert _parse("Does the 4090 warranty cover mining?").intents[0] == "warranty"
    assert "warranty" in _parse("4090 保修几年").intents


def test_a_new_intent_with_strong_and_weak_words_counts_its_strong_words(lexicon: dict) -> None:
    lexicon["intents"]["resale"] = {"strong": {"en": ["resale value"]}, "weak": {"en": ["resell"]}}
    assert "resale" in _parse("what is the resale value of a 3090?").intents
    assert "resale" not in _parse("should I resell my 3090?").intents


def test_lexicon_intents_without_a_rule_are_all_detected_generically() -> None:
    generic = {name for _, name in lexicon_module._lex().generic_intents}
    ruled = set(lexicon_module._RULED_INTENTS)
    assert generic | ruled == set(load_yaml("lexicon.yaml")["intents"])
    assert {"speed", "recommend", "cost", "build", "catalog"} <= generic


def test_has_slots_counts_an_explicit_not_wanted() -> None:
    empty = ParsedQuery(text="", language="en")
    assert not empty.has_slots()
    assert ParsedQuery(text="", language="en", require_nvlink=False).has_slots()
    assert ParsedQuery(text="", language="en", budget=5000.0).has_slots()
    assert not _parse("不用云").unparsed
