"""Run golden scenarios through the Advisor facade and score every check.

Numbers are checked against what the calculators compute for the stated scenario (run here), never
against literals in the YAML. A report gives pass rates overall, per category and per language, failed
checks with transcripts, grounding (untraceable numbers) and latency per turn.
"""

from __future__ import annotations

import re
import statistics
import time
import uuid
from collections import defaultdict
from pathlib import Path
from typing import Any

import yaml
from pydantic import BaseModel, ValidationError

from evals.scenarios_schema import NumberCheck, Scenario, ScenarioFile, Turn

SCENARIO_DIR = Path(__file__).with_name("scenarios")


class CheckResult(BaseModel):
    check: str
    passed: bool
    detail: str = ""


class TurnResult(BaseModel):
    user: str
    answer: str
    language: str
    tool_calls: list[dict[str, Any]]
    checks: list[CheckResult]
    untraceable: list[str]
    latency_ms: float

    @property
    def passed(self) -> bool:
        return all(c.passed for c in self.checks)


class ScenarioResult(BaseModel):
    id: str
    category: str
    language: str
    file: str
    turns: list[TurnResult]
    passed: bool
    error: str | None = None


class EvalReport(BaseModel):
    provider: str
    passed: int
    total: int
    pass_rate: float
    checks_passed: int
    checks_total: int
    by_category: dict[str, dict[str, float]]
    by_language: dict[str, dict[str, float]]
    untraceable_numbers: int
    answers_with_untraceable: int
    latency_ms_p50: float
    latency_ms_p95: float
    results: list[ScenarioResult]


def load_scenarios(paths: list[str | Path] | None = None) -> list[tuple[Scenario, str]]:
    """Scenarios from files or folders (default: evals/scenarios); errors name the file and field."""
    files: list[Path] = []
    for p in [Path(x) for x in (paths or [SCENARIO_DIR])]:
        if p.is_dir():
            files += sorted(p.glob("*.yaml")) + sorted(p.glob("*.yml"))
        elif p.is_file():
            files.append(p)
        else:
            raise FileNotFoundError(f"scenario path '{p}' does not exist")
    out = []
    for f in files:
        try:
            data = ScenarioFile(**(yaml.safe_load(f.read_text(encoding="utf-8")) or {}))
        except (ValidationError, yaml.YAMLError) as exc:
            raise ValueError(f"{f}: not a valid scenario file: {exc}") from exc
        out += [(s, f.name) for s in data.scenarios]
    ids = [s.id for s, _ in out]
    dupes = {i for i in ids if ids.count(i) > 1}
    if dupes:
        raise ValueError(f"duplicate scenario ids: {', '.join(sorted(dupes))}")
    return out


# ---- checks ------------------------------------------------------------------------------------------


def _norm(value: Any) -> Any:
    return value.lower().replace(" ", "") if isinstance(value, str) else value


def _args_match(expected: dict[str, Any], actual: dict[str, Any]) -> bool:
    for key, want in expected.items():
        got = actual.get(key)
        if isinstance(want, dict):
            if not isinstance(got, dict) or not _args_match(want, got):
                return False
        elif isinstance(want, list):
            if not isinstance(got, list) or [_norm(x) for x in want] != [_norm(x) for x in got]:
                return False
        elif isinstance(want, float | int) and not isinstance(want, bool) and isinstance(got, float | int):
            if abs(float(want) - float(got)) > 1e-6 * max(1.0, abs(float(want))):
                return False
        elif _norm(want) != _norm(got):
            return False
    return True


def _dig(obj: Any, path: str) -> Any:
    for part in path.split("."):
        obj = obj[int(part)] if isinstance(obj, list) else obj[part]
    return obj


def expected_number(check: NumberCheck) -> float:
    """Run the calculator for the stated scenario and read the value."""
    from assistant.toolset import run_tool, tool_specs

    spec = next((s for s in tool_specs() if s.name == check.tool), None)
    if spec is None:
        raise ValueError(f"unknown tool {check.tool}")
    outcome = run_tool(spec, check.args)
    if not outcome.ok:
        raise ValueError(f"{check.tool} failed for the stated scenario: {outcome.error}")
    return float(_dig(outcome.result, check.path))


_NUM = re.compile(r"\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?")


def numbers_in(text: str) -> list[float]:
    return [float(m.replace(",", "")) for m in _NUM.findall(text)]


def _number_present(value: float, text: str, tol: float) -> bool:
    for n in numbers_in(text):
        if value == 0:
            if n == 0:
                return True
        elif abs(n - value) <= max(tol * abs(value), 0.051 if abs(value) < 100 else 0.5):
            return True
    return False


def score_turn(turn: Turn, final: Any) -> list[CheckResult]:
    """Every check of one turn against the Advisor's final event."""
    checks: list[CheckResult] = []
    calls = [{"name": c.name, "args": c.args} for c in final.tool_calls]
    answer = final.answer
    low = answer.lower()
    for exp in turn.tools:
        ok = any(c["name"] == exp.name and _args_match(exp.args, c["args"]) for c in calls)
        checks.append(
            CheckResult(
                check=f"tool {exp.name} {exp.args}",
                passed=ok,
                detail="" if ok else f"calls were {[(c['name'], c['args']) for c in calls]}",
            )
        )
    for name in turn.forbid_tools:
        checks.append(CheckResult(check=f"no tool {name}", passed=all(c["name"] != name for c in calls)))
    if turn.no_tools:
        calc = [c["name"] for c in calls if c["name"] != "search_guides"]
        checks.append(CheckResult(check="no calculator called", passed=not calc, detail=str(calc)))
    for num in turn.numbers:
        try:
            value = expected_number(num)
            ok = _number_present(value, answer, num.tolerance)
            detail = f"expected {value:g} (±{num.tolerance:.0%}) from {num.tool}.{num.path}"
        except (ValueError, KeyError, IndexError, TypeError) as exc:
            ok, detail = False, f"could not compute the expected value: {exc}"
        checks.append(CheckResult(check=f"number {num.label or num.path}", passed=ok, detail=detail))
    for phrase in turn.must_contain:
        checks.append(CheckResult(check=f"contains '{phrase}'", passed=phrase.lower() in low))
    for group in turn.must_contain_any:
        checks.append(CheckResult(check=f"contains one of {group}", passed=any(p.lower() in low for p in group)))
    for phrase in turn.must_not_contain:
        checks.append(CheckResult(check=f"does not contain '{phrase}'", passed=phrase.lower() not in low))
    if turn.citations:
        n = len(final.citations)
        cited = all(f"[{c.n}]" in answer for c in final.citations[: turn.citations])
        checks.append(
            CheckResult(
                check=f">= {turn.citations} citations", passed=n >= turn.citations and cited, detail=f"{n} citations"
            )
        )
    if turn.language:
        checks.append(
            CheckResult(
                check=f"answers in {turn.language}",
                passed=final.language == turn.language and _answer_language(answer) == turn.language,
            )
        )
    checks.append(
        CheckResult(
            check="every number traceable",
            passed=not final.grounding.untraceable,
            detail=", ".join(final.grounding.untraceable),
        )
    )
    return checks


def _answer_language(text: str) -> str:
    cjk = len(re.findall(r"[\u4e00-\u9fff]", text))
    return "zh" if cjk >= 10 else "en"


def run_scenario(advisor: Any, scenario: Scenario, file: str, provider: str | None = None) -> ScenarioResult:
    session = f"eval-{scenario.id}-{uuid.uuid4().hex[:8]}"
    turns: list[TurnResult] = []
    try:
        for turn in scenario.turns:
            start = time.perf_counter()
            final = advisor.ask(session, turn.user, provider=provider)
            latency = (time.perf_counter() - start) * 1000
            turns.append(
                TurnResult(
                    user=turn.user,
                    answer=final.answer,
                    language=final.language,
                    tool_calls=[{"name": c.name, "args": c.args} for c in final.tool_calls],
                    checks=score_turn(turn, final),
                    untraceable=final.grounding.untraceable,
                    latency_ms=round(latency, 1),
                )
            )
    except Exception as exc:  # a crashing scenario is a failed scenario with its error, not a crashed run
        return ScenarioResult(
            id=scenario.id,
            category=scenario.category,
            language=scenario.language,
            file=file,
            turns=turns,
            passed=False,
            error=f"{type(exc).__name__}: {exc}",
        )
    return ScenarioResult(
        id=scenario.id,
        category=scenario.category,
        language=scenario.language,
        file=file,
        turns=turns,
        passed=all(t.passed for t in turns),
    )


def run_eval(paths: list[str | Path] | None = None, provider: str | None = None, advisor: Any = None) -> EvalReport:
    from assistant.advisor import Advisor

    advisor = advisor or Advisor()
    scenarios = load_scenarios(paths)
    results = [run_scenario(advisor, s, f, provider) for s, f in scenarios]
    return build_report(results, provider or advisor.settings.provider)


def _rate(rows: list[ScenarioResult]) -> dict[str, float]:
    passed = sum(r.passed for r in rows)
    return {"passed": passed, "total": len(rows), "pass_rate": round(passed / len(rows), 3) if rows else 0.0}


def build_report(results: list[ScenarioResult], provider: str) -> EvalReport:
    by_cat: dict[str, list[ScenarioResult]] = defaultdict(list)
    by_lang: dict[str, list[ScenarioResult]] = defaultdict(list)
    for r in results:
        by_cat[r.category].append(r)
        by_lang[r.language].append(r)
    turns = [t for r in results for t in r.turns]
    latencies = sorted(t.latency_ms for t in turns) or [0.0]
    checks = [c for t in turns for c in t.checks]
    passed = sum(r.passed for r in results)
    return EvalReport(
        provider=provider,
        passed=passed,
        total=len(results),
        pass_rate=round(passed / len(results), 4) if results else 0.0,
        checks_passed=sum(c.passed for c in checks),
        checks_total=len(checks),
        by_category={k: _rate(v) for k, v in sorted(by_cat.items())},
        by_language={k: _rate(v) for k, v in sorted(by_lang.items())},
        untraceable_numbers=sum(len(t.untraceable) for t in turns),
        answers_with_untraceable=sum(bool(t.untraceable) for t in turns),
        latency_ms_p50=round(statistics.median(latencies), 1),
        latency_ms_p95=round(latencies[min(len(latencies) - 1, round(0.95 * (len(latencies) - 1)))], 1),
        results=results,
    )


def report_markdown(report: EvalReport, extra: dict[str, str] | None = None) -> str:
    """Human report: rates, per category/language, failures with transcripts, grounding, latency."""
    lines = [
        f"# GPU Advisor eval — provider `{report.provider}`",
        "",
        f"- scenarios passed: **{report.passed}/{report.total}** ({report.pass_rate:.1%})",
        f"- checks passed: {report.checks_passed}/{report.checks_total}",
        f"- untraceable numbers: {report.untraceable_numbers} in {report.answers_with_untraceable} answers",
        f"- turn latency: p50 {report.latency_ms_p50:.0f} ms, p95 {report.latency_ms_p95:.0f} ms",
        "",
        "## By category",
        "",
        "| category | passed | total | rate |",
        "|---|---|---|---|",
    ]
    lines += [
        f"| {k} | {v['passed']:g} | {v['total']:g} | {v['pass_rate']:.0%} |" for k, v in report.by_category.items()
    ]
    lines += ["", "## By language", "", "| language | passed | total | rate |", "|---|---|---|---|"]
    lines += [
        f"| {k} | {v['passed']:g} | {v['total']:g} | {v['pass_rate']:.0%} |" for k, v in report.by_language.items()
    ]
    failed = [r for r in report.results if not r.passed]
    if failed:
        lines += ["", "## Failures", ""]
        for r in failed:
            lines.append(f"### {r.id} ({r.category}, {r.language}, {r.file})")
            if r.error:
                lines.append(f"- error: `{r.error}`")
            for t in r.turns:
                lines.append(f"- **user:** {t.user}")
                lines.append(f"  - tools: {', '.join(c['name'] for c in t.tool_calls) or 'none'}")
                for c in t.checks:
                    if not c.passed:
                        lines.append(f"  - FAILED {c.check}" + (f" — {c.detail}" if c.detail else ""))
                lines.append("  - answer: " + t.answer.replace("\n", " ")[:600])
    for title, body in (extra or {}).items():
        lines += ["", f"## {title}", "", body]
    return "\n".join(lines) + "\n"
