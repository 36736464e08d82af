"""Compare the estimators with published reference figures (evals/references.yaml).

Tolerances follow the foundation issue: inference memory within 10%, training memory within 20%,
speed within a factor of 1.5. An entry outside its tolerance must carry a written `gap_explanation`;
the report prints it next to the error, and the test fails on any unexplained miss.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any, Literal

import yaml
from pydantic import BaseModel

from tools.errors import AdvisorError

REFERENCES = Path(__file__).with_name("references.yaml")
UNIT_BYTES = {"GiB": 2**30, "GB": 1e9, "MiB": 2**20, "MB": 1e6}
Status = Literal["pass", "explained", "fail", "error"]


class ReferenceCheck(BaseModel):
    """One published figure against our estimate."""

    id: str
    kind: str
    title: str
    published: float
    unit: str
    estimate: float | None
    relative_error: float | None
    tolerance: str
    status: Status
    source: str
    gap_explanation: str | None = None
    error: str | None = None


def tolerance(kind: str) -> tuple[str, float]:
    """('relative', 0.10) or ('factor', 1.5) for a reference kind."""
    if kind in ("weights", "kv_cache", "vram_inference"):
        return "relative", 0.10
    if kind == "vram_training":
        return "relative", 0.20
    return "factor", 1.5


def _metric(result: dict[str, Any], path: str) -> float:
    total = 0.0
    for part in path.split("+"):
        value: Any = result
        for key in part.strip().split("."):
            value = value[key]
        if value is None:
            raise AdvisorError(f"the estimate has no value for {part}")
        total += float(value)
    return total


def _estimate(entry: dict[str, Any]) -> float:
    from tools.speed import SpeedRequest, estimate_speed
    from tools.vram import VramRequest, estimate_vram

    request = dict(entry["request"])
    if request.get("arch"):
        request.pop("params_b", None)  # the inline architecture already fixes the size
    if entry["tool"] == "estimate_vram":
        request.pop("engine", None)
        result = estimate_vram(VramRequest(**request)).model_dump()
    else:
        result = estimate_speed(SpeedRequest(**request)).model_dump()
    value = _metric(result, entry["metric"])
    unit = entry["unit"]
    if entry["metric"].endswith("_gib") or "_gib." in entry["metric"]:
        value = value * 2**30 / UNIT_BYTES[unit]  # results are GiB; convert to the source's unit
    return value


def check(entry: dict[str, Any]) -> ReferenceCheck:
    """Run one reference through its estimator."""
    how, tol = tolerance(entry["kind"])
    published = float(entry["published"])
    base = dict(
        id=entry["id"],
        kind=entry["kind"],
        title=entry["title"],
        published=published,
        unit=entry["unit"],
        source=entry["source"],
        gap_explanation=entry.get("gap_explanation"),
        tolerance=f"±{tol:.0%}" if how == "relative" else f"x{tol:g}",
    )
    try:
        est = _estimate(entry)
    except Exception as exc:  # a reference the estimator cannot run is itself a finding to report
        return ReferenceCheck(**base, estimate=None, relative_error=None, status="error", error=str(exc))
    rel = (est - published) / published
    if entry.get("published_is") == "upper_bound":
        ok = est <= published  # a bound ("fits in <48 GB") holds or it does not: no tolerance above it
    elif how == "relative":
        ok = abs(rel) <= tol
    else:
        ok = max(est, published) / max(min(est, published), 1e-12) <= tol
    status: Status = "pass" if ok else ("explained" if entry.get("gap_explanation") else "fail")
    return ReferenceCheck(**base, estimate=round(est, 4), relative_error=round(rel, 4), status=status)


def run(path: Path = REFERENCES) -> list[ReferenceCheck]:
    """Check every reference in the file."""
    entries = yaml.safe_load(path.read_text(encoding="utf-8"))["references"]
    return [check(e) for e in entries]


def summary(checks: list[ReferenceCheck]) -> dict[str, Any]:
    """Counts and mean absolute error per kind."""
    out: dict[str, Any] = {}
    for kind in sorted({c.kind for c in checks}):
        rows = [c for c in checks if c.kind == kind]
        errs = [abs(c.relative_error) for c in rows if c.relative_error is not None]
        out[kind] = {
            "n": len(rows),
            "pass": sum(c.status == "pass" for c in rows),
            "explained": sum(c.status == "explained" for c in rows),
            "fail": sum(c.status in ("fail", "error") for c in rows),
            "median_abs_error": round(sorted(errs)[len(errs) // 2], 3) if errs else None,
            "geo_mean_ratio": round(
                math.exp(
                    sum(math.log(1 + c.relative_error) for c in rows if c.relative_error is not None)
                    / max(1, len(errs))
                ),
                3,
            ),
        }
    return out


def report_markdown(checks: list[ReferenceCheck]) -> str:
    """A markdown table of every check, then the explanations of the gaps."""
    lines = ["| id | kind | published | estimate | error | tolerance | status |", "|---|---|---|---|---|---|---|"]
    for c in checks:
        est = f"{c.estimate:g}" if c.estimate is not None else "—"
        err = f"{c.relative_error:+.1%}" if c.relative_error is not None else (c.error or "")
        lines.append(f"| {c.id} | {c.kind} | {c.published:g} {c.unit} | {est} | {err} | {c.tolerance} | {c.status} |")
    gaps = [c for c in checks if c.status == "explained"]
    if gaps:
        lines += ["", "Gaps outside tolerance, explained:"]
        lines += [f"- {c.id} ({c.relative_error:+.1%}): {c.gap_explanation}" for c in gaps]
    return "\n".join(lines)


if __name__ == "__main__":
    results = run()
    print(report_markdown(results))
    print(yaml.safe_dump(summary(results), sort_keys=False))
