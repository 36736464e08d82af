"""Run golden scenarios through the Advisor facade and score every check.

Numbers are checked against what the calculators compute for the stated scenario (run here), never
against literals in the YAML. A report gives pass rates overall, per category and per language, failed
checks with transcripts, grounding (untraceable numbers) and latency per turn.
"""

from __future__ import annotations

import itertools
import re
import statistics
import time
import uuid
from collections import defaultdict
from functools import cache
from pathlib import Path
from typing import Any

import yaml
from pydantic import BaseModel, Field, ValidationError

from evals.scenarios_schema import RUBRIC_CHECKS, Constraints, NumberCheck, Scenario, ScenarioFile, Stated, Turn
from tools.errors import AdvisorError

SCENARIO_DIR = Path(__file__).with_name("scenarios")
WILD_DIR = Path(__file__).with_name("wild")  # real questions from public threads (evals/wild/README.md)


class CheckResult(BaseModel):
    check: str
    passed: bool
    detail: str = ""
    rubric: str | None = Field(default=None, description="The rubric check this row comes from, if any")


class TurnResult(BaseModel):
    user: str
    answer: str
    language: str
    tool_calls: list[dict[str, Any]]
    checks: list[CheckResult]
    untraceable: list[str]
    language_violations: list[str] = Field(
        default_factory=list, description="Stretches of the answer not in the user's language (language check)"
    )
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
    wild: bool = Field(default=False, description="A real question from a public thread (it has a source)")
    held_out: bool = Field(default=False, description="Wild set: kept aside while fixing")

    @property
    def language_violations(self) -> int:
        return sum(len(t.language_violations) for t in self.turns)


class WildReport(BaseModel):
    """The real questions on their own: overall, per category, per language, and the held-aside quarter."""

    passed: int
    total: int
    pass_rate: float
    by_category: dict[str, dict[str, float]]
    by_language: dict[str, dict[str, float]]
    held_out: dict[str, float] = Field(description="The quarter kept aside while fixing: the generalisation figure")
    worked_on: dict[str, float] = Field(description="The other three quarters")
    held_out_by_language: dict[str, dict[str, float]]


class EvalReport(BaseModel):
    provider: str
    passed: int
    total: int
    pass_rate: float
    checks_passed: int
    checks_total: int
    by_category: dict[str, dict[str, float]]
    by_language: dict[str, dict[str, float]]
    by_rubric: dict[str, dict[str, float]] = Field(
        default_factory=dict,
        description="Per rubric check: turns it applied to, turns that passed it, pass rate, scenarios it failed",
    )
    untraceable_numbers: int
    answers_with_untraceable: int
    language_violations: int = Field(default=0, description="Language-check violations over all answers")
    answers_with_language_violations: int = 0
    language_violations_by_scenario: dict[str, int] = Field(
        default_factory=dict, description="Scenario id -> violations, for the scenarios that have any"
    )
    inconsistent_answers: int = Field(default=0, description="Answers the consistency check flags")
    wild: WildReport | None = Field(default=None, description="The wild set's own table, when it ran")
    latency_ms_p50: float
    latency_ms_p95: float
    results: list[ScenarioResult]


def load_scenarios(paths: list[str | Path] | None = None) -> list[tuple[Scenario, str]]:
    """Scenarios from files or folders (default: evals/scenarios and the wild set); errors name the file and
    field."""
    files: list[Path] = []
    for p in [Path(x) for x in (paths or [SCENARIO_DIR, WILD_DIR])]:
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
        # recommend / compare carry the scenario in `workload`: {model: X} means the model sized, wherever it sits
        nested = actual.get("workload") if isinstance(actual.get("workload"), dict) else {}
        got = actual[key] if key in actual else nested.get(key)
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
    for exp in turn.tools:
        ok = any(c["name"] in exp.names and _args_match(exp.args, c["args"]) for c in calls)
        checks.append(
            CheckResult(
                check=f"tool {'|'.join(exp.names)} {exp.args}",
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
        checks.append(CheckResult(check=f"contains '{phrase}'", passed=_in_text(phrase, answer)))
    for group in turn.must_contain_any:
        checks.append(CheckResult(check=f"contains one of {group}", passed=any(_in_text(p, answer) for p in group)))
    for phrase in turn.must_not_contain:
        checks.append(CheckResult(check=f"does not contain '{phrase}'", passed=not _in_text(phrase, answer)))
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
    violations = language_violations(answer, final.language)
    checks.append(
        CheckResult(
            check=f"language check: entirely in {final.language}",
            passed=not violations,
            detail="; ".join(violations)[:600],
        )
    )
    checks += _lead_checks(turn, answer)
    checks += rubric_checks(turn, final)
    checks.append(
        CheckResult(
            check="every number traceable",
            passed=not final.grounding.untraceable,
            detail=", ".join(final.grounding.untraceable),
        )
    )
    consistency = getattr(final, "consistency", None)  # an older Advisor's final event has no consistency report
    contradictions = list(consistency.contradictions) if consistency is not None else []
    checks.append(
        CheckResult(check="one story (consistency check)", passed=not contradictions, detail="; ".join(contradictions))
    )
    return checks


def language_violations(answer: str, lang: str) -> list[str]:
    """English sentences in a Chinese answer, Chinese in an English one (assistant/language_check.py)."""
    from assistant.language_check import check

    return [v.text for v in check(answer, lang)]


def _answer_language(text: str) -> str:
    cjk = len(re.findall(r"[\u4e00-\u9fff]", text))
    return "zh" if cjk >= 10 else "en"


# ---- the rubric: what every turn of every scenario is held to ------------------------------------------
#
# Five checks an expert's answer always passes, applied to every turn without the scenario author asking:
# budget truth, the names the user used, stated quantities reaching the tools, hard constraints on the
# typed results, and a verdict that leads. Mentions are found by scanning the user's text against the GPU
# catalog's aliases and the model registry's names (never through the assistant's own parser).

_SEP = r"[\s\-_]*"
_GPU_BRANDS = ("NVIDIA ", "GeForce ", "AMD ", "Radeon ", "Instinct ", "Intel ", "Apple ")
_NAME_BOUNDARY_BEFORE = r"(?:(?<=\dx)|(?<=\d×)|(?<![a-z0-9]))"


def _key(text: str) -> str:
    """A name as a comparison key: lowercase, no spaces, hyphens or underscores."""
    return re.sub(r"[\s\-_]+", "", text.lower())


def _alias_pattern(alias: str, plural: bool) -> str | None:
    """A regex for a name as people type it: any case, optional separators between its parts."""
    low = alias.lower().strip()
    if re.search(r"[^\x00-\x7f]", low):  # "魔改4090": the words as written, spaces optional
        return r"\s*".join(re.escape(part) for part in low.split())
    runs = re.findall(r"[a-z]+|\d+(?:\.\d+)?", low)
    if not runs or len("".join(runs)) < 2:
        return None
    body = re.escape(runs[0])
    for i, (prev, run) in enumerate(itertools.pairwise(runs)):  # "a 10" is not an A10: no gap after a lone
        body += ("" if i == 0 and len(prev) == 1 and prev.isalpha() else _SEP) + re.escape(run)  # first letter
    return _NAME_BOUNDARY_BEFORE + body + ("s?" if plural else "") + r"(?![a-z0-9])"


class _Mention(BaseModel):
    kind: str
    spelling: str
    accepted: list[str]


@cache
def _name_patterns() -> list[tuple[re.Pattern[str], str, str]]:
    """(pattern, kind, id) for every GPU alias and model name, longest first."""
    from tools.catalog import catalog
    from tools.models import registry

    rows: list[tuple[int, str, str, str]] = []
    for gpu in catalog().values():
        for alias in {gpu.id, gpu.name, *gpu.aliases}:
            pattern = _alias_pattern(alias, plural=True)
            if pattern:
                rows.append((len(_key(alias)), pattern, "gpu", gpu.id))
    for arch in registry().values():
        for alias in {arch.id, arch.name, *arch.aliases}:
            pattern = _alias_pattern(alias, plural=False)
            if pattern:
                rows.append((len(_key(alias)), pattern, "model", arch.id))
    rows.sort(key=lambda r: -r[0])
    return [(re.compile(p, re.IGNORECASE), kind, ident) for _, p, kind, ident in rows]


def _accepted_gpu(gpu_id: str, spelling: str) -> list[str]:
    from tools.catalog import catalog, resolve_gpu

    try:
        spec = resolve_gpu(spelling)[0]
    except AdvisorError:  # the scan found it by alias, so the catalog row is the answer
        spec = catalog()[gpu_id]
    short = spec.name
    for brand in _GPU_BRANDS:
        short = short.replace(brand, "")
    return [spelling, spec.name, short, spec.id, *spec.aliases]


def _accepted_model(model_id: str, spelling: str) -> list[str]:
    from tools.models import registry, resolve_model

    try:
        arch = resolve_model(spelling)[0]
    except AdvisorError:
        arch = registry()[model_id]
    return [spelling, arch.name, arch.id, *arch.aliases]


def _mentions(user: str) -> list[_Mention]:
    """GPUs and models the user names, longest names first so "4090 D" is not also a "4090"."""
    taken: list[tuple[int, int]] = []
    out: dict[str, _Mention] = {}
    for pattern, kind, ident in _name_patterns():
        for m in pattern.finditer(user):
            if any(m.start() < end and start < m.end() for start, end in taken):
                continue
            taken.append((m.start(), m.end()))
            accepted = _accepted_gpu(ident, m.group(0)) if kind == "gpu" else _accepted_model(ident, m.group(0))
            out.setdefault(f"{kind}:{ident}", _Mention(kind=kind, spelling=m.group(0), accepted=accepted))
    return list(out.values())


_METHODS = (
    ("QLoRA", re.compile(r"qlora", re.I), re.compile(r"qlora", re.I)),
    ("LoRA", re.compile(r"(?<![a-z])lora", re.I), re.compile(r"(?<![a-z])lora", re.I)),
    (
        "full fine-tune",
        re.compile(r"全参|全量|full[\s\-]*(?:fine|ft\b|param|weight|train)", re.I),
        re.compile(r"全参|全量|full", re.I),
    ),
)


def _names_check(turn: Turn, answer: str) -> CheckResult | None:
    """Every GPU, model and method the user names appears in the answer (catalog spelling or theirs)."""
    have = _key(answer)
    missing: list[str] = []
    wanted = 0
    for mention in _mentions(turn.user):
        wanted += 1
        if not any(_key(a) and _key(a) in have for a in mention.accepted):
            missing.append(f"{mention.kind} '{mention.spelling}'")
    for label, asked, said in _METHODS:
        if asked.search(turn.user):
            wanted += 1
            if not said.search(answer):
                missing.append(f"method {label}")
    for entry in turn.names:
        wanted += 1
        options = [entry] if isinstance(entry, str) else entry
        if not any(_key(o) in have for o in options):
            missing.append(" / ".join(options))
    if not wanted:
        return None
    return CheckResult(
        check="rubric names: the user's GPUs, models and methods are named",
        passed=not missing,
        detail=("missing " + ", ".join(missing)) if missing else "",
        rubric="names",
    )


# -- budget truth


_WITHIN_HEADING = re.compile(
    r"预算[^\n。；;]{0,24}?(?:以内|之内|内)|不超(?:过|出)?预算|within\s+(?:the\s+|your\s+)?(?:\S+\s+){0,2}budget|"
    r"under\s+(?:the\s+|your\s+)?budget|in[\s\-]budget|under\s+[$¥]",
    re.IGNORECASE,
)
_STRETCH_ITEM = re.compile(r"如果预算能加|超出预算|加预算|stretch|over (?:the |your )?budget|over-budget", re.I)
_MONEY = re.compile(
    r"(?P<pre>[$¥￥])\s?(?P<a>\d[\d,]*(?:\.\d+)?)(?:\s?(?P<m1>万|[wkK](?![a-zA-Z])))?|"
    r"(?P<b>\d[\d,]*(?:\.\d+)?)\s?(?P<m2>万|[wkK](?![a-zA-Z]))?\s?(?P<post>元|CNY|RMB|USD|块)",
)


def money_in(text: str) -> list[tuple[float, str]]:
    """Amounts with a currency ("¥26,500", "1.5 万元", "$1,500", "2.4k USD") as (value, CNY|USD)."""
    out = []
    for m in _MONEY.finditer(text):
        number = float((m.group("a") or m.group("b")).replace(",", ""))
        scale = {"万": 1e4, "w": 1e4, "k": 1e3, "K": 1e3}.get(m.group("m1") or m.group("m2") or "", 1.0)
        mark = m.group("pre") or m.group("post")
        out.append((number * scale, "USD" if mark in ("$", "USD") else "CNY"))
    return out


def _is_heading(line: str) -> bool:
    bare = line.strip().strip("*").strip()
    if not bare or re.match(r"^\s*([-*+]|\d+[.)])\s", line):
        return False
    return line.lstrip().startswith("#") or line.strip().startswith("**") or bare.endswith((":", "："))


def _is_item(line: str) -> bool:
    return bool(re.match(r"^\s*([-*+]|\d+[.)]|\|)\s?", line))


def within_budget_listings(answer: str) -> list[str]:
    """Lines listed under a "within budget" heading (the heading itself included)."""
    lines = answer.splitlines()
    out: list[str] = []
    for i, line in enumerate(lines):
        if not (_is_heading(line) and _WITHIN_HEADING.search(line)):
            continue
        out.append(line)
        for item in lines[i + 1 :]:
            if item.strip() and not _is_item(item):
                break
            if item.strip() and not _STRETCH_ITEM.search(item):
                out.append(item)
    return out


def _over_budget_in_text(answer: str, budget: float, currency: str) -> list[str]:
    over = []
    for line in within_budget_listings(answer):
        for value, unit in money_in(line):
            if unit == currency and value > budget * 1.0001:
                over.append(f"{value:,.0f} {unit} under a within-budget heading")
    return over


def _over_budget_picks(result: Any) -> list[str]:
    """The primary, or an alternative other than the stretch, over the budget."""
    bad = []
    primary = getattr(result, "primary", None)
    if primary is not None and (primary.within_budget is False or (primary.over_budget_by or 0) > 0):
        bad.append(
            f"primary {primary.count}x {primary.gpu} spends {primary.spend:,.0f}, over by {primary.over_budget_by}"
        )
    for alt in getattr(result, "alternatives", None) or []:
        if alt.label != "stretch" and (alt.within_budget is False or (alt.over_budget_by or 0) > 0):
            bad.append(f"{alt.label} {alt.count}x {alt.gpu} is over budget by {alt.over_budget_by}")
    return bad


def _budget_check(calls: list[Any], answer: str) -> CheckResult | None:
    """Budget truth for every recommend_gpus call that had a budget: picks and the answer's listings."""
    applied, problems = False, []
    for call in calls:
        if call.name != "recommend_gpus" or not (call.args.get("budget") or call.args.get("monthly_budget")):
            continue
        applied = True
        if call.result is not None:
            problems += _over_budget_picks(call.result)
        if call.args.get("budget"):
            currency = str(call.args.get("currency") or "CNY").upper()
            problems += _over_budget_in_text(answer, float(call.args["budget"]), currency)
    if not applied:
        return None
    return CheckResult(
        check="rubric budget: nothing over budget is presented as within it",
        passed=not problems,
        detail="; ".join(dict.fromkeys(problems)),
        rubric="budget",
    )


# -- stated quantities reach the tool arguments


def _values(args: Any, key: str) -> list[Any]:
    """Every value of `key` in nested arguments."""
    out = []
    if isinstance(args, dict):
        for k, v in args.items():
            if k == key:
                out.append(v)
            out += _values(v, key)
    elif isinstance(args, list):
        for v in args:
            out += _values(v, key)
    return out


def _request_default(tool: str, key: str) -> Any:
    from assistant.toolset import tool_specs

    spec = next((s for s in tool_specs() if s.name == tool), None)
    field = spec.request.model_fields.get(key) if spec else None
    return None if field is None or field.is_required() else field.default


def _call_values(call: Any, key: str) -> list[Any]:
    """Values of `key` in one call, or the tool's own default when the call leaves a top-level field out."""
    found = _values(call.args, key)
    if not found:
        default = _request_default(call.name, key)
        if default is not None:
            found = [default]
    return found


def _close(a: Any, b: float, rel: float = 0.01) -> bool:
    if isinstance(a, bool) or not isinstance(a, int | float):
        return False
    return abs(float(a) - b) <= max(rel * abs(b), 1e-6)


def _stated_hours(calls: list[Any], hours: float) -> bool:
    from tools.prices import tco_defaults

    month = float(tco_defaults()["hours_per_month"])
    for call in calls:
        if any(_close(v, hours, 0.02) for v in _values(call.args, "hours_per_month")):
            return True
        shares = [v for v in _values(call.args, "utilization") if isinstance(v, int | float)]
        if any(_close(v * month, hours, 0.02) for v in shares):
            return True
    return False


def _stated_users(calls: list[Any], users: int) -> bool:
    from tools.advice import concurrent_from_users

    seen = {users, concurrent_from_users(users)}
    for call in calls:
        if any(_close(v, users) for v in _values(call.args, "users")):
            return True
        if any(_close(v, n) for v in _values(call.args, "batch") for n in seen):
            return True
    return False


def _stated_money(calls: list[Any], key: str, value: float, currency: str | None) -> bool:
    for call in calls:
        if not any(_close(v, value) for v in _values(call.args, key)):
            continue
        used = call.args.get("currency") or _request_default(call.name, "currency")
        if currency is None or str(used).upper() == currency:
            return True
    return False


def _stated_count(calls: list[Any], n: int) -> bool:
    """ "一张卡": recommend_gpus carries max_gpus; other tools a GPU count."""
    recommends = [c for c in calls if c.name == "recommend_gpus"]
    if recommends:
        return any(_close(v, n) for c in recommends for v in _values(c.args, "max_gpus"))
    counts = [v for c in calls for d in _values(c.args, "counts") if isinstance(d, dict) for v in d.values()]
    return any(_close(v, n) for v in counts + [v for c in calls for v in _call_values(c, "num_gpus")])


def _stated_plain(calls: list[Any], key: str, value: Any) -> bool:
    if isinstance(value, str):
        return any(str(v).lower() == value.lower() for c in calls for v in _call_values(c, key))
    targets = [float(value)]
    if key == "context_tokens" and value % 1024 == 0:  # "8k" may be typed as 8,000
        targets.append(value / 1024 * 1000)
    return any(_close(v, t) for c in calls for v in _call_values(c, key) for t in targets)


def _stated_reached(calls: list[Any], stated: Stated, key: str, value: Any) -> bool:
    if key in ("hours_per_month", "hours_per_day"):
        return _stated_hours(calls, value if key == "hours_per_month" else value * 730 / 24)
    if key == "users":
        return _stated_users(calls, value)
    if key == "concurrent":
        return any(_close(v, value) for c in calls for v in _values(c.args, "batch"))
    if key in ("budget", "monthly_budget"):
        return _stated_money(calls, key, value, stated.currency)
    if key == "max_gpus":
        return _stated_count(calls, value)
    return _stated_plain(calls, key, value)


def _stated_check(turn: Turn, calls: list[Any]) -> CheckResult | None:
    if turn.stated is None:
        return None
    tools = [c for c in calls if c.name != "search_guides"]
    given = turn.stated.model_dump(exclude_none=True)
    missing = [f"{k}={v}" for k, v in given.items() if not _stated_reached(tools, turn.stated, k, v)]
    return CheckResult(
        check=f"rubric stated: {', '.join(f'{k}={v}' for k, v in given.items())} reach the tool arguments",
        passed=not missing,
        detail=("not in any call: " + ", ".join(missing) + f"; calls were {[(c.name, c.args) for c in tools]}")
        if missing
        else "",
        rubric="stated",
    )


# -- hard constraints on the typed results


class _Option(BaseModel):
    """One thing a result puts in front of the user: a recommended pick, a comparison's pick, a fit or a memory size."""

    label: str
    gpu: str | None
    count: int
    deployment: str | None = None


def _options_of(call: Any) -> list[_Option]:
    """The options a typed result presents (read by attribute, so results of new tools work once they land)."""
    result = call.result
    if result is None:
        return []
    if call.name == "recommend_gpus":
        picks = [getattr(result, "primary", None), *(getattr(result, "alternatives", None) or [])]
        picks.append(getattr(result, "stretch", None))
        return [
            _Option(label=p.label or "option", gpu=p.gpu_id, count=p.count, deployment=p.deployment)
            for p in picks
            if p is not None
        ]
    if call.name == "compare_gpus":
        verdict, rows = getattr(result, "verdict", None), getattr(result, "rows", None) or []
        index = getattr(verdict, "pick", None)
        if isinstance(index, int) and 0 <= index < len(rows) and rows[index].count:
            return [_Option(label="pick", gpu=rows[index].gpu_id, count=rows[index].count)]
        return []
    if call.name == "rent_providers":  # where to rent: the cheapest offer leads, and it is a cloud rental
        offers = getattr(result, "offers", None) or getattr(result, "alternatives", None) or []
        first = offers[0] if offers else None
        return [_Option(label="primary", gpu=first.gpu_id, count=first.num_gpus, deployment="cloud")] if first else []
    if call.name in ("fit_on_gpu", "estimate_vram") and hasattr(result, "num_gpus"):
        gpu = getattr(result, "gpu", None) if call.name == "fit_on_gpu" else None
        return [_Option(label=call.name, gpu=gpu, count=result.num_gpus)]
    return []


def _option_problems(c: Constraints, o: _Option) -> list[str]:
    out = []
    if c.max_gpus is not None and o.label != "stretch" and o.count > c.max_gpus:
        out.append(f"{o.label} uses {o.count} cards")
    if c.deployment is not None and o.label == "primary" and o.deployment != c.deployment:
        out.append(f"primary is {o.deployment}, not {c.deployment}")
    row = _gpu_row(o.gpu) if o.gpu else None
    if row is None:
        return out
    if c.vendor and row.vendor not in c.vendor:
        out.append(f"{o.label} {row.name} is {row.vendor}")
    if c.ecc and not row.ecc:
        out.append(f"{o.label} {row.name} has no ECC")
    if c.nvlink and o.count > 1 and not row.nvlink:
        out.append(f"{o.label} {o.count} x {row.name} has no NVLink")
    return out


def _gpu_row(name_or_id: str) -> Any:
    from tools.catalog import catalog, resolve_gpu

    try:
        return catalog().get(name_or_id) or resolve_gpu(name_or_id)[0]
    except AdvisorError:
        return None


def _applies(c: Constraints, o: _Option) -> bool:
    """Whether some constraint that is set can be judged on this option."""
    return (
        c.max_gpus is not None
        or (c.deployment is not None and o.label == "primary")
        or (bool(c.vendor or c.ecc or c.nvlink) and o.gpu is not None)
    )


def _constraint_problems(c: Constraints, call: Any) -> tuple[bool, list[str]]:
    """(applied, problems) for one call's typed result."""
    options = [o for o in _options_of(call) if _applies(c, o)]
    return bool(options), [p for o in options for p in _option_problems(c, o)]


def _constraints_check(turn: Turn, calls: list[Any]) -> CheckResult | None:
    c = turn.constraints
    if c is None:
        return None
    applied, problems = False, []
    for call in calls:
        used, found = _constraint_problems(c, call)
        applied, problems = applied or used, problems + found
    wanted = c.model_dump(exclude_none=True)
    return CheckResult(
        check=f"rubric constraints: {wanted} hold on the results",
        passed=applied and not problems,
        detail="; ".join(problems)
        if applied
        else "no result these constraints apply to (recommend / compare / fit / memory)",
        rubric="constraints",
    )


# -- the verdict leads


def lead_of(answer: str, sentences: int = 2) -> str:
    """The answer's first sentences (split on 。！？!? newlines, and a period before a space)."""
    text = re.sub(r"[*#`>]", "", answer)
    parts = re.split(r"(?<=[。！？!?\n])|(?<=\.)(?=\s)", text)
    parts = [p.strip() for p in parts if p.strip()]
    return " ".join(parts[:sentences])


def _verdict_pick(result: Any) -> tuple[str, str] | None:
    """(kind, name) of a comparison's pick, read by attribute where present (compare_gpus: `verdict`).

    Between ways of running one job (axis methods / precisions) the pick is the method or the precision of the
    picked row; between cards it is the card."""
    verdict = getattr(result, "verdict", None)
    if verdict is None:
        return None
    axis = getattr(result, "axis", None)
    index = getattr(verdict, "pick", None)
    rows = getattr(result, "rows", None) or []
    if axis in ("methods", "precisions") and isinstance(index, int) and 0 <= index < len(rows):
        value = getattr(rows[index], "mode" if axis == "methods" else "precision", None)
        if isinstance(value, str) and value:
            return ("method" if axis == "methods" else "precision"), value
    for attr in ("gpu_id", "gpu", "name", "label"):
        value = getattr(verdict, attr, None)
        if isinstance(value, str) and value:
            return "gpu", value
    return ("gpu", verdict) if isinstance(verdict, str) and verdict else None


_METHOD_IN_TEXT = {
    "qlora": re.compile(r"qlora", re.I),
    "lora": re.compile(r"(?<![a-z])lora", re.I),
    "full": re.compile(r"全参|全量|full", re.I),
}


def _names_pick(kind: str, name: str, head: str) -> bool:
    if kind == "method":
        pattern = _METHOD_IN_TEXT.get(name.lower())
        return bool(pattern.search(head)) if pattern else name.lower() in head.lower()
    if kind == "precision":
        return _key(name) in _key(head)
    row = _gpu_row(name)
    forms = [name]
    if row is not None:
        short = row.name
        for brand in _GPU_BRANDS:
            short = short.replace(brand, "")
        forms += [row.name, short, *row.aliases]
    return any(_key(f) and _key(f) in _key(head) for f in forms)


def _verdict_check(calls: list[Any], answer: str) -> CheckResult | None:
    """The first two sentences name the pick of the turn's recommendation or comparison."""
    picks: list[tuple[str, str]] = []
    for call in calls:
        if call.name == "recommend_gpus" and getattr(call.result, "primary", None) is not None:
            picks = [("gpu", call.result.primary.gpu_id)]  # the last recommendation is the one the answer is about
        elif call.name == "compare_gpus" and call.result is not None:
            pick = _verdict_pick(call.result)
            if pick:
                picks.append(pick)
    if not picks:
        return None
    head = lead_of(answer)
    missing = [name for kind, name in picks if not _names_pick(kind, name, head)]
    return CheckResult(
        check="rubric verdict: the first two sentences name the pick",
        passed=not missing,
        detail=(f"pick {missing} not in: {head[:200]}") if missing else "",
        rubric="verdict",
    )


def rubric_checks(turn: Turn, final: Any) -> list[CheckResult]:
    """The rubric rows for one turn (a check that does not apply yields no row)."""
    calls = list(final.tool_calls)
    rows = {
        "budget": _budget_check(calls, final.answer),
        "names": _names_check(turn, final.answer),
        "stated": _stated_check(turn, calls),
        "constraints": _constraints_check(turn, calls),
        "verdict": _verdict_check(calls, final.answer),
    }
    return [row for name, row in rows.items() if row is not None and name not in turn.skip_rubric]


def _in_text(phrase: str, text: str) -> bool:
    """A phrase in the text, case-insensitive; "re:PATTERN" is a regular expression (e.g. "re:(?<!q)lora")."""
    if phrase.startswith("re:"):
        return re.search(phrase[3:], text, re.IGNORECASE) is not None
    return phrase.lower() in text.lower()


def _lead_checks(turn: Turn, answer: str) -> list[CheckResult]:
    """The verdict an expert leads with: phrases that must (not) appear in the first two sentences."""
    head = lead_of(answer)
    out = [
        CheckResult(
            check=f"first two sentences contain one of {group}",
            passed=any(_in_text(p, head) for p in group),
            detail=head[:200],
        )
        for group in turn.lead
    ]
    out += [
        CheckResult(check=f"first two sentences do not contain '{p}'", passed=not _in_text(p, head), detail=head[:200])
        for p in turn.lead_not
    ]
    return out


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
                    language_violations=language_violations(final.answer, final.language),
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
            wild=scenario.source is not None,
            held_out=scenario.held_out,
        )
    return ScenarioResult(
        id=scenario.id,
        category=scenario.category,
        language=scenario.language,
        file=file,
        turns=turns,
        passed=all(t.passed for t in turns),
        wild=scenario.source is not None,
        held_out=scenario.held_out,
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


def _rubric_rates(results: list[ScenarioResult]) -> dict[str, dict[str, float]]:
    out: dict[str, dict[str, float]] = {}
    for name in RUBRIC_CHECKS:
        rows = [(r.id, c) for r in results for t in r.turns for c in t.checks if c.rubric == name]
        passed = sum(c.passed for _, c in rows)
        out[name] = {
            "applied": len(rows),
            "passed": passed,
            "failed": len(rows) - passed,
            "pass_rate": round(passed / len(rows), 3) if rows else 0.0,
            "scenarios_failed": len({i for i, c in rows if not c.passed}),
        }
    return out


def _grouped(rows: list[ScenarioResult], key: str) -> dict[str, dict[str, float]]:
    groups: dict[str, list[ScenarioResult]] = defaultdict(list)
    for r in rows:
        groups[getattr(r, key)].append(r)
    return {k: _rate(v) for k, v in sorted(groups.items())}


def _wild_report(rows: list[ScenarioResult]) -> WildReport | None:
    if not rows:
        return None
    held = [r for r in rows if r.held_out]
    overall = _rate(rows)
    return WildReport(
        passed=int(overall["passed"]),
        total=int(overall["total"]),
        pass_rate=overall["pass_rate"],
        by_category=_grouped(rows, "category"),
        by_language=_grouped(rows, "language"),
        held_out=_rate(held),
        worked_on=_rate([r for r in rows if not r.held_out]),
        held_out_by_language=_grouped(held, "language"),
    )


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
        by_rubric=_rubric_rates(results),
        untraceable_numbers=sum(len(t.untraceable) for t in turns),
        answers_with_untraceable=sum(bool(t.untraceable) for t in turns),
        language_violations=sum(len(t.language_violations) for t in turns),
        answers_with_language_violations=sum(bool(t.language_violations) for t in turns),
        language_violations_by_scenario={r.id: r.language_violations for r in results if r.language_violations},
        inconsistent_answers=sum(
            any(c.check.startswith("one story") and not c.passed for c in t.checks) for t in turns
        ),
        wild=_wild_report([r for r in results if r.wild]),
        latency_ms_p50=round(statistics.median(latencies), 1),
        latency_ms_p95=round(latencies[min(len(latencies) - 1, round(0.95 * (len(latencies) - 1)))], 1),
        results=results,
    )


def _wild_lines(w: WildReport) -> list[str]:
    lines = [
        "",
        "## The wild set (real questions, evals/wild)",
        "",
        f"- passed: **{w.passed}/{w.total}** ({w.pass_rate:.1%})",
        f"- held-aside quarter: {w.held_out['passed']:g}/{w.held_out['total']:g} ({w.held_out['pass_rate']:.1%}); "
        f"the rest: {w.worked_on['passed']:g}/{w.worked_on['total']:g} ({w.worked_on['pass_rate']:.1%})",
        "",
        "| category | passed | total | rate |",
        "|---|---|---|---|",
    ]
    lines += [f"| {k} | {v['passed']:g} | {v['total']:g} | {v['pass_rate']:.0%} |" for k, v in w.by_category.items()]
    lines += ["", "| language | passed | total | rate | held out |", "|---|---|---|---|---|"]
    for k, v in w.by_language.items():
        h = w.held_out_by_language.get(k, {"passed": 0, "total": 0})
        lines.append(
            f"| {k} | {v['passed']:g} | {v['total']:g} | {v['pass_rate']:.0%} | {h['passed']:g}/{h['total']:g} |"
        )
    return lines


def report_markdown(report: EvalReport, extra: dict[str, str] | None = None) -> str:
    """Human report: rates, per category/language, failures with transcripts, grounding, latency."""
    lines = [
        f"# GPU Advisor eval — provider `{report.provider}`",
        "",
        f"- scenarios passed: **{report.passed}/{report.total}** ({report.pass_rate:.1%})",
        f"- checks passed: {report.checks_passed}/{report.checks_total}",
        f"- untraceable numbers: {report.untraceable_numbers} in {report.answers_with_untraceable} answers",
        f"- answers the consistency check flags: {report.inconsistent_answers}",
        f"- language violations: {report.language_violations} in {report.answers_with_language_violations} answers "
        f"({len(report.language_violations_by_scenario)} scenarios)",
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
    if report.wild is not None:
        lines += _wild_lines(report.wild)
    lines += ["", "## By language", "", "| language | passed | total | rate |", "|---|---|---|---|"]
    lines += [
        f"| {k} | {v['passed']:g} | {v['total']:g} | {v['pass_rate']:.0%} |" for k, v in report.by_language.items()
    ]
    lines += [
        "",
        "## Rubric (applied to every turn)",
        "",
        "| check | turns applied | passed | failed | rate | scenarios failed |",
        "|---|---|---|---|---|---|",
    ]
    lines += [
        f"| {k} | {v['applied']:g} | {v['passed']:g} | {v['failed']:g} | {v['pass_rate']:.0%} "
        f"| {v['scenarios_failed']:g} |"
        for k, v in report.by_rubric.items()
    ]
    if report.language_violations_by_scenario:
        lines += ["", "## Language check", "", "| scenario | violations |", "|---|---|"]
        lines += [f"| {k} | {v} |" for k, v in sorted(report.language_violations_by_scenario.items())]
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
