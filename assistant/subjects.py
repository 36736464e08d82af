"""What a turn and a guide section are about, so a passage is cited only where it fits the answer.

A section is about the subjects its heading names (a MoE decode passage, a Mac, the RTX 4090D, a small
team) and the one its guide is wholly about (`citation_subjects` in knowledge/data/lexicon.yaml). It fits
a turn when it names no subject (general background) or shares one with the turn: a MoE passage under
a dense model's speed, a student playbook under a company's purchase or the H20 section under an
H200 question do not. The turn's subjects come from the user's words, the workload's slots and the
tools called, never from the retrieval query (which adds topic words on purpose).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from functools import cache
from typing import Any

from pydantic import BaseModel, ConfigDict

from knowledge.passage import Passage

# A GPU family: "a100-80gb-sxm" and "a100-40gb-pcie" are one A100; the 4090 D stays its own card.
_VARIANT = re.compile(r"^(?:\d+gb|sxm\d?|pcie|nvl|mod)$")
# Names in brackets are examples ("只有 PCIe 的消费级多卡（RTX 4090 等）"), not what the section is about.
_BRACKETS = re.compile(r"[（(][^）)]*[）)]")
_KV_PLAIN = {"auto", "bf16", "fp16", "float16", "bfloat16"}
_INFERENCE = {"inference", "serving"}


class _Subject(BaseModel):
    model_config = ConfigDict(arbitrary_types_allowed=True)

    name: str
    pattern: re.Pattern[str] | None
    guides: list[str]
    tools: list[str]
    narrows: list[str]  # broader subjects a heading naming this one is not about as well
    implies: list[str]  # subjects a turn about this one is about as well
    in_headings: bool  # False: a heading's mention does not make a section about it, only its guide


@cache
def _subjects() -> list[_Subject]:
    from assistant.understanding import lexicon_pattern, lexicon_raw

    raw = lexicon_raw()
    out = []
    for name, entry in raw["citation_subjects"].items():
        words = list(entry.get("words", []))
        for key in entry.get("lexicon", []):  # another list of the lexicon, or one pattern string
            words += [raw[key]] if isinstance(raw[key], str) else raw[key]
        out.append(
            _Subject(
                name=name,
                pattern=lexicon_pattern(words) if words else None,
                guides=entry.get("guides", []),
                tools=entry.get("tools", []),
                narrows=entry.get("narrows", []),
                implies=entry.get("implies", []),
                in_headings=entry.get("in_headings", True),
            )
        )
    return out


def gpu_family(gpu_id: str) -> str:
    return "-".join(p for p in gpu_id.split("-") if not _VARIANT.match(p))


class _Reading(BaseModel):
    """What one text names, read once: listed subjects and GPU families; a claim it makes; who it is."""

    named: frozenset[str]
    claims: bool
    persona: str | None


@cache
def _read(text: str) -> _Reading:
    from assistant.understanding import parse

    parsed = parse(text)
    found = {s.name for s in _subjects() if s.pattern is not None and s.pattern.search(text)}
    found |= {f"gpu:{gpu_family(g)}" for g in parsed.gpu_mentions}
    return _Reading(named=frozenset(found), claims=bool(parsed.claims), persona=parsed.persona)


def section_subjects(p: Passage) -> frozenset[str]:
    """What a guide section is about: what its heading names (every kind of user it names), and the
    subject of a guide wholly about one."""
    return _heading_subjects(p.doc_id, p.section or "") | _guide_subjects(p.doc_id)


@cache
def _guide_subjects(doc_id: str) -> frozenset[str]:
    topic = doc_id.rsplit(".", 1)[0]
    return frozenset(s.name for s in _subjects() if topic in s.guides)


@cache
def _heading_subjects(doc_id: str, section: str) -> frozenset[str]:
    from assistant.understanding import persona_in

    heading = _BRACKETS.sub(" ", section)
    subjects = _subjects()
    named = (_read(heading).named | {f"persona:{w}" for w in persona_in(heading)}) - {
        s.name for s in subjects if not s.in_headings
    }
    if _guide_subjects(doc_id):  # a single-subject guide's misconceptions are about its subject
        named -= {"misconceptions"}
    broader = {b for s in subjects if s.name in named for b in s.narrows}
    return frozenset(named - broader)


def turn_subjects(
    texts: Iterable[str], calls: Iterable[tuple[str, dict[str, Any]]], results: Iterable[Any]
) -> set[str]:
    """What a turn is about: the user's words and the claims in them, the arguments of the tools it
    called (method, precision, GPUs, model, users, cards), the tools themselves (a buy-vs-rent sum is about
    cloud prices), and the kind of user it was sized for."""
    calls = list(calls)
    readings = [_read(t) for t in texts if t]
    found: set[str] = set().union(*(r.named for r in readings))
    for _, args in calls:
        found |= _read(" ".join(_words(args))).named
    if any(r.claims for r in readings):
        found.add("misconceptions")
    personas = [r.persona for r in readings if r.persona] + [p for p in (_persona(r) for r in results) if p]
    found |= {f"persona:{p}" for p in personas}
    found |= {s.name for s in _subjects() for name, _ in calls if name in s.tools}
    found |= {fact for _, args in calls for fact in _facts(args)}
    return found | {i for s in _subjects() if s.name in found for i in s.implies}


def fits(p: Passage, turn: set[str]) -> bool:
    """A section of a single-subject guide needs its subject in the turn; a heading that names subjects
    needs one of them there, and one of its GPUs when both name GPUs (the H20 section under an H200
    question, an A100 bridge under a 4090 question)."""
    if not _guide_subjects(p.doc_id) <= turn:
        return False
    heading = _heading_subjects(p.doc_id, p.section or "")
    if not heading:
        return True
    gpus, turn_gpus = _gpus(heading), _gpus(turn)
    return bool(heading & turn) and (not gpus or not turn_gpus or bool(gpus & turn_gpus))


def _gpus(subjects: Iterable[str]) -> set[str]:
    return {s for s in subjects if s.startswith("gpu:")}


def _facts(args: dict[str, Any]) -> Iterator[str]:
    """Subjects a workload's numbers make it about: a MoE model, several users at once, sharded training
    on several cards, a quantized KV cache."""
    from tools.models import registry

    for d in _dicts(args):
        model = registry().get(d["model"]) if isinstance(d.get("model"), str) else None
        if model is not None and model.moe is not None:
            yield "moe"
        if _more_than_one(d.get("batch")) or _more_than_one(d.get("users")):
            yield "concurrency"
        if d.get("zero_stage") or (_more_than_one(d.get("num_gpus")) and d.get("mode") not in (None, *_INFERENCE)):
            yield "zero"
        if isinstance(d.get("kv_dtype"), str) and d["kv_dtype"].lower() not in _KV_PLAIN:
            yield "kv_quant"


def _more_than_one(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool) and value > 1


def _dicts(args: dict[str, Any]) -> Iterator[dict[str, Any]]:
    """The arguments and every workload nested in them ({"workload": {"model": ..., "mode": ...}})."""
    yield args
    for value in args.values():
        if isinstance(value, dict):
            yield from _dicts(value)


def _words(args: dict[str, Any]) -> Iterator[str]:
    """Argument values as words ("rtx-4090 qlora nf4_dq"), nested lists and dicts included."""
    for value in args.values():
        if isinstance(value, str):
            yield value
        elif isinstance(value, list | tuple):
            yield from (v for v in value if isinstance(v, str))
        elif isinstance(value, dict):
            yield from _words(value)


def _persona(result: Any) -> str | None:
    """The kind of user a result was made for: a recommendation says it; a buy-vs-rent sum's purchase
    size does (eight H100s are a company's, one used 3090 a person's)."""
    from tools.advice import persona_from_budget

    persona = getattr(result, "persona", None)
    if isinstance(persona, str):
        return persona
    upfront, currency = getattr(result, "upfront", None), getattr(result, "currency", None)
    if isinstance(upfront, int | float) and isinstance(currency, str):
        return persona_from_budget(upfront, currency)
    return None
