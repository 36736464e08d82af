"""The causes of knowledge/data/diagnosis.yaml whose conditions hold, each with its sentences and sources."""

from __future__ import annotations

from typing import Any

from tools.diagnose.schema import DiagnoseCause, DiagnoseSource, table
from tools.diagnose.state import Run
from tools.notes import Note, ParamValue, fields, note


def _holds(cond: dict[str, list[str]], run: Run) -> bool:
    """One condition of diagnosis.yaml: symptom / engine / flags any-of, facts all-of, not_* none-of."""
    symptoms = {run.req.symptom}
    if run.req.symptom == "low_util" and "far_below" in run.facts:
        symptoms.add("slow")  # "2 tokens/s and the GPU is barely used": several times under the ceiling is slowness
    named = {"symptom": symptoms, "engine": {run.engine} - {None}, "flags": run.flags}
    for key, have in named.items():
        if key in cond and not have & set(cond[key]):
            return False
    if not set(cond.get("facts", [])) <= run.facts:
        return False
    if run.engine in cond.get("not_engine", []) or run.flags & set(cond.get("not_flags", [])):
        return False
    return not set(cond.get("not_facts", [])) & run.facts


def _applies(cause: dict[str, Any], run: Run) -> bool:
    when = cause["when"]
    return any(_holds(c, run) for c in (when if isinstance(when, list) else [when]))


def has_fields(code: str, values: dict[str, Any]) -> bool:
    return all(values.get(k) is not None for k in fields(code))


def pick_fields(code: str, values: dict[str, Any]) -> dict[str, ParamValue | list[Note]]:
    return {k: values[k] for k in fields(code)}


def _sentence(cause: dict[str, Any], key: str, values: dict[str, Any]) -> Note | None:
    for code in (cause.get(key), cause.get(f"{key}_plain")):
        if code and has_fields(code, values):
            return note(code, **pick_fields(code, values))
    return None


def causes_of(run: Run) -> list[DiagnoseCause]:
    sources = table()["sources"]
    out: list[DiagnoseCause] = []
    for level in (0, 1, 2):
        if out:
            break  # a fallback cause applies only when nothing before it does
        for cause in table()["causes"]:
            if int(cause.get("fallback", 0)) != level or not _applies(cause, run):
                continue
            why, fix = _sentence(cause, "why", run.values), _sentence(cause, "fix", run.values)
            if why is None or fix is None:
                continue  # a number it needs is unknown and it has no plain form
            cited = [DiagnoseSource(**sources[s]) for s in cause["sources"]]
            head = _sentence(cause, "head", run.values)
            out.append(DiagnoseCause(id=cause["id"], head=head, why=why, fix=fix, sources=cited))
    return out
