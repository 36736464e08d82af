"""The scenario panel: the slots set so far as people read them (¥15,000, 32,768 tokens, 本地), never raw ids.

Pure functions over the scenario's summary, so the panel is testable without a browser.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from assistant.web.i18n import has, t
from tools.notes import money

# shown inside the budget line, internal, or (the pick) through the method, precision, GPU and count rows
HIDDEN = {"last_intents", "currency", "budget_scope", "pick"}
FLAGS = {"cloud_excluded", "serving"}  # shown only when set, as a phrase
# value v of these slots shows as t(f"{group}.{v}"); the method is named by the tools' `method` labels
LABELLED = {"mode": "method", "deployment": "deployment", "preference": "preference", "persona": "persona"}
MONEY = {"budget", "monthly_budget", "gpu_price"}
MAX_ASSUMPTIONS = 8


def _empty(value: Any) -> bool:
    return value in (None, "", [], {}) or value is False


def _money(value: Any, summary: dict[str, Any], lang: str) -> str:
    return money(float(value), summary.get("currency") or ("CNY" if lang == "zh" else "USD"))


def _number(value: Any) -> str:
    if isinstance(value, float) and not value.is_integer():
        return f"{value:,.2f}".rstrip("0").rstrip(".")
    return f"{int(value):,}" if isinstance(value, int | float) else str(value)


FORMATS: dict[str, Callable[[Any, dict[str, Any], str], str]] = {
    "context_tokens": lambda v, s, lang: f"{int(v):,}",
    "utilization": lambda v, s, lang: f"{float(v):.0%}",
    "electricity_price": lambda v, s, lang: t(lang, "value.per_kwh", price=_money(v, s, lang)),
    "cloud_price": lambda v, s, lang: t(lang, "value.per_gpu_hour", price=_money(v, s, lang)),
    "min_card_gib": lambda v, s, lang: f"{_number(v)} GiB",
    "zero_stage": lambda v, s, lang: f"ZeRO-{v}",
    "horizon_years": lambda v, s, lang: t(lang, "value.years", n=_number(v)),
}


def slot_value(slot: str, value: Any, summary: dict[str, Any], lang: str, names: dict[str, str]) -> str:
    """One slot's value as the panel shows it."""
    if slot in names:
        return names[slot]
    if slot in MONEY:
        return _money(value, summary, lang)
    if slot in LABELLED and has(f"{LABELLED[slot]}.{value}"):
        return t(lang, f"{LABELLED[slot]}.{value}")
    if slot in FORMATS:
        return FORMATS[slot](value, summary, lang)
    if isinstance(value, list | tuple):
        return ", ".join(str(v) for v in value)
    if isinstance(value, float):
        return _number(value)
    return str(value)


def _slot_name(slot: str, summary: dict[str, Any], lang: str) -> str:
    if slot == "budget" and summary.get("budget_scope") == "machine":
        return t(lang, "slot.budget_machine")
    return t(lang, f"slot.{slot}") if has(f"slot.{slot}") else slot


def rows(summary: dict[str, Any], lang: str, names: dict[str, str] | None = None) -> list[str]:
    """The panel's lines, one per slot that is set."""
    names = names or {}
    out = []
    for slot, value in summary.items():
        if slot in HIDDEN or _empty(value):
            continue
        if slot in FLAGS:
            out.append(f"- {t(lang, f'flag.{slot}')}")
            continue
        out.append(f"- **{_slot_name(slot, summary, lang)}**: {slot_value(slot, value, summary, lang, names)}")
    return out


def scenario_markdown(
    summary: dict[str, Any], assumptions: list[str], lang: str, names: dict[str, str] | None = None
) -> str:
    """The scenario panel: the slots set so far, then the assumptions of the latest calculation (folded).

    `names` maps slot -> display name (e.g. model 'qwen2.5-7b' -> 'Qwen2.5-7B').
    """
    lines = rows(summary, lang, names)
    if not lines:
        return t(lang, "scenario_empty")
    out = "\n".join(lines)
    if assumptions:
        items = "\n".join(f"- {a}" for a in assumptions[:MAX_ASSUMPTIONS])
        out += f"\n\n<details><summary>{t(lang, 'assumptions')}</summary>\n\n{items}\n\n</details>"
    return out
