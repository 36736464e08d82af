"""Citation precision on the hand-labelled sample (`evals/citation_labels.yaml`).

Each labelled answer is replayed (the scenario's turns up to the labelled one) through the offline planner;
every citation it now gives is matched to its label. Precision counts labelled citations only; a citation
nobody has labelled yet is listed so a person can judge it and add it to the YAML, never guessed.

    python -m evals.citation_precision            # summary, false and unlabelled citations
    python -m evals.citation_precision --json     # the same as JSON
    python -m evals.citation_precision --labels evals/citation_labels_heldout.yaml   # the held-out sample
"""

from __future__ import annotations

import argparse
import json
import sys
import uuid
from pathlib import Path
from typing import Any

import yaml
from pydantic import BaseModel

LABELS = Path(__file__).with_name("citation_labels.yaml")
# Labels were written with long section names cut; match on the same prefix.
_KEY_CHARS = 120


class Label(BaseModel):
    n: int
    section: str
    supports: bool
    why: str | None = None  # the judge's reason, where one was written


class LabelledAnswer(BaseModel):
    scenario: str
    user: str
    citations: list[Label]


class Cited(BaseModel):
    scenario: str
    user: str
    section: str
    supports: bool | None  # None: not labelled yet


class PrecisionReport(BaseModel):
    answers: int
    labelled: int
    supporting: int
    precision: float
    answers_all_supporting: int
    off_topic: list[Cited]
    unlabelled: list[Cited]
    missing: list[str]  # labelled answers whose scenario or turn no longer exists


def section_key(title: str, section: str, doc_id: str) -> str:
    return f"{title} — {section} ({doc_id})"


def _norm(key: str) -> str:
    return key[:_KEY_CHARS]


def load_labels(path: Path = LABELS) -> list[LabelledAnswer]:
    data = yaml.safe_load(path.read_text(encoding="utf-8")) or {}
    return [LabelledAnswer(**a) for a in data.get("answers", [])]


def _turns_until(scenario: Any, user: str) -> list[str] | None:
    # Labels keep a long question's first 100 characters; a prefix names the turn.
    users = [t.user for t in scenario.turns]
    at = next((i for i, u in enumerate(users) if u.startswith(user.rstrip())), None)
    return None if at is None else users[: at + 1]


def measure(advisor: Any = None, labels: list[LabelledAnswer] | None = None) -> PrecisionReport:
    from evals.runner import load_scenarios

    if advisor is None:
        from assistant.advisor import Advisor

        advisor = Advisor()
    scenarios = {s.id: s for s, _ in load_scenarios()}
    labelled_answers = labels if labels is not None else load_labels()
    cited: list[Cited] = []
    missing: list[str] = []
    all_ok = 0
    for ans in labelled_answers:
        turns = _turns_until(scenarios[ans.scenario], ans.user) if ans.scenario in scenarios else None
        if turns is None:
            missing.append(f"{ans.scenario}: {ans.user}")
            continue
        session = f"cite-{uuid.uuid4().hex[:8]}"
        final = None
        for text in turns:
            final = advisor.ask(session, text)
        known = {_norm(c.section): c.supports for c in ans.citations}
        rows = [
            Cited(
                scenario=ans.scenario,
                user=ans.user,
                section=section_key(c.title, c.section, c.doc_id),
                supports=known.get(_norm(section_key(c.title, c.section, c.doc_id))),
            )
            for c in (final.citations if final is not None else [])
        ]
        all_ok += all(r.supports is not False for r in rows)
        cited += rows
    judged = [c for c in cited if c.supports is not None]
    good = sum(c.supports is True for c in judged)
    return PrecisionReport(
        answers=len(labelled_answers) - len(missing),
        labelled=len(judged),
        supporting=good,
        precision=round(good / len(judged), 4) if judged else 0.0,
        answers_all_supporting=all_ok,
        off_topic=[c for c in judged if c.supports is False],
        unlabelled=[c for c in cited if c.supports is None],
        missing=missing,
    )


def _text(report: PrecisionReport) -> str:
    lines = [
        f"citation precision: {report.supporting}/{report.labelled} = {report.precision:.1%} "
        f"over {report.answers} answers; every citation fits in {report.answers_all_supporting}",
    ]
    for title, rows in (("off-topic", report.off_topic), ("not labelled yet", report.unlabelled)):
        if rows:
            lines.append(f"\n{title} ({len(rows)}):")
            lines += [f"- [{c.scenario}] {c.user}\n    {c.section}" for c in rows]
    if report.missing:
        lines.append(f"\nlabelled turns no longer in the scenarios ({len(report.missing)}):")
        lines += [f"- {m}" for m in report.missing]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", action="store_true", help="print the report as JSON")
    parser.add_argument("--labels", type=Path, default=LABELS, help="the labelled sample (YAML)")
    args = parser.parse_args(argv)
    report = measure(labels=load_labels(args.labels))
    print(json.dumps(report.model_dump(), ensure_ascii=False, indent=1) if args.json else _text(report))
    return 0


if __name__ == "__main__":
    sys.exit(main())
