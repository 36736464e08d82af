"""The card each job is asked on, when a message names one per job: "微调8卡a800够吗，推理8卡4090够吗", "fine-tune on
2x A100, then serve it on 4x 4090". The cards are each job's hardware, not options to compare: the planner sizes each
job on its own cards (planner/plan.py other_parts).

A card belongs to the job named next to it in its clause with no other card between (before it first: "fine-tune on
8x A100"; then after it: "用4张A100微调"), else to the job named last before it ("推理至少需要什么显卡呢，8卡4090够吗").
Read only when two jobs land on two different cards, each given a count.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from pydantic import BaseModel, Field

from assistant.understanding.rate_per_minute import RateUnit

if TYPE_CHECKING:
    from assistant.understanding.text import _State

_CLAUSE_BREAK = re.compile(r"[。！？!?；;\n,，]")


class JobCards(RateUnit, BaseModel):
    """The slot of the cards per job (a base of ParsedQuery: query.py is at its size limit)."""

    job_cards: dict[str, str] = Field(
        default_factory=dict,
        description="The card each job is asked on ('微调8卡a800够吗，推理8卡4090够吗' -> lora: a800, "
        "inference: 4090); counts are in gpu_counts. Empty unless two jobs are each named with their own card",
    )
    job_models: dict[str, str] = Field(
        default_factory=dict,
        description="The model each job is asked of ('推理Qwen2.5-72B，LoRA微调Qwen2.5-14B' -> inference: qwen2.5-72b, "
        "lora: qwen2.5-14b). Empty unless two jobs are each named with their own model",
    )


def _job_marks(st: _State) -> list[tuple[int, str]]:
    """Where each job is named, in the message's order."""
    from assistant.understanding.lexicon import _lex

    q, rx = st.q, _lex().rx
    text = st.words_text or st.t.text
    training = next((j for j in q.jobs if j != "inference"), None)
    marks = [(m.start(), "inference") for m in rx["mode_inference"].finditer(text)]
    if training:
        marks += [(m.start(), training) for m in rx["mode_fine_tune"].finditer(text)]
        for mode in ("qlora", "lora", "full"):
            marks += [(m.start(), mode if mode in q.jobs else training) for m in rx[f"mode_{mode}"].finditer(text)]
    return sorted(marks)


def _clause(text: str, at: int) -> tuple[int, int]:
    start = max((m.end() for m in _CLAUSE_BREAK.finditer(text, 0, at)), default=0)
    after = _CLAUSE_BREAK.search(text, at)
    return start, after.start() if after else len(text)


def _job_for(
    card_at: int, clause: tuple[int, int], marks: list[tuple[int, str]], cards: list[int], taken: set
) -> str | None:
    """The job named next to the card with no other card between: before it first ("fine-tune on 8x A100"), then
    after it ("用4张A100微调"); with none in its clause, the last job named before it."""

    def free(a: int, b: int) -> bool:
        return not any(a < c < b for c in cards if c != card_at)

    start, end = clause
    before = [job for pos, job in reversed(marks) if start <= pos < card_at and free(pos, card_at)]
    after = [job for pos, job in marks if card_at < pos < end and free(card_at, pos)]
    earlier = [job for pos, job in reversed(marks) if pos < start]
    in_clause = [j for j in before + after if j not in taken]
    if in_clause or before or after:
        return in_clause[0] if in_clause else None
    return next((j for j in earlier if j not in taken), None)


def _job_cards(st: _State) -> None:
    _job_models(st)
    q = st.q
    # only cards given a count ("8卡a800", "2x 3090"): a card named in passing ("QLora也不支持V100") is no job's rig
    cards = [g for g in st.gpus if g.value and g.value in q.gpu_counts]
    if len(q.jobs) < 2 or len({g.value for g in cards}) < 2:
        return
    marks = _job_marks(st)
    found: dict[str, str] = {}
    for card in cards:
        if card.value in found.values():
            continue
        job = _job_for(card.start, _clause(st.t.text, card.start), marks, [c.start for c in cards], set(found))
        if job:
            found[job] = card.value  # type: ignore[assignment]
    if len(found) < 2:
        return
    q.job_cards = found
    main = q.mode or (next((j for j in q.jobs if j != "inference"), None) if q.fine_tune_unspecified else None)
    main = main or q.jobs[0]
    if main in found:  # the scenario is the main job's, on its own cards; the other job is a part (other_parts)
        q.gpu, q.num_gpus = found[main], q.gpu_counts.get(found[main])
    # each job on its own cards: a fit per job, not one card against the other
    q.intents = list(dict.fromkeys("fit" if i == "compare" else i for i in q.intents))


def _job_models(st: _State) -> None:
    """ "两张3090能推理Qwen2.5-72B吗，能LoRA微调Qwen2.5-14B吗": each model with the job named next to it; the model
    asked first is the scenario's, with its own job (planner/plan.py other_parts pairs the rest)."""
    q = st.q
    ends = list(st.model_ends)
    if len(q.jobs) < 2 or len({m for _, m in ends}) < 2:
        return
    marks = _job_marks(st)
    found: dict[str, str] = {}
    for end, model in ends:
        if model in found.values():
            continue
        job = _job_for(end, _clause(st.t.text, max(0, end - 1)), marks, [e for e, _ in ends], set(found))
        if job:
            found[job] = model
    if len(found) < 2:
        return
    q.job_models = found
    q.mode = next((j for j, m in found.items() if m == q.model), q.mode)  # type: ignore[assignment]
