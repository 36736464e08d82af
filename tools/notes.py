"""Notes as keys: a tool states an assumption, a warning or a reason as a code plus parameters.

The sentence for each code lives once, in both languages, in the string catalog
(knowledge/data/notes.yaml). Results carry the code, its parameters and the English sentence (so `--json`
stays readable); the assistant, the CLI and the web app render the same note in the user's language.
"""

from __future__ import annotations

import string
from functools import cache
from typing import Any

from pydantic import BaseModel, Field

from tools._data import load_yaml

ParamValue = str | int | float | bool | None


@cache
def _catalog() -> dict[str, dict[str, str]]:
    return load_yaml("notes.yaml")["notes"]


class Note(BaseModel):
    """One assumption, warning or reason: a catalog code, its parameters, and the English sentence."""

    code: str = Field(description="Key in knowledge/data/notes.yaml")
    params: dict[str, ParamValue] = Field(default_factory=dict)
    text: str = Field(default="", description="The sentence in English")

    def render(self, lang: str) -> str:
        return render(self.code, lang, self.params)


class _Formatter(string.Formatter):
    """str.format plus `{x:money}`: an amount in the note's `currency` as people write it (¥15,000, $1,500;
    cents below 100, so ¥1.88 an hour stays readable)."""

    def __init__(self, currency: str | None) -> None:
        self.currency = currency

    def format_field(self, value: Any, format_spec: str) -> str:
        if format_spec != "money":
            return super().format_field(value, format_spec)
        return money(float(value), self.currency or "USD")


def money(amount: float, currency: str) -> str:
    """¥15,000 / $1,500 / ¥1.88: the one way amounts are written."""
    symbol = {"CNY": "¥", "USD": "$"}.get(currency, currency + " ")
    digits = f"{amount:,.2f}" if abs(amount) < 100 and amount != int(amount) else f"{amount:,.0f}"
    return f"-{symbol}{digits[1:]}" if digits.startswith("-") else f"{symbol}{digits}"


def render(code: str, lang: str, params: dict[str, Any]) -> str:
    """The sentence for `code` in `lang` (English when the catalog has no such language)."""
    entry = _catalog()[code]
    currency = params.get("currency")
    return _Formatter(currency if isinstance(currency, str) else None).format(entry.get(lang, entry["en"]), **params)


def note(code: str, **params: ParamValue) -> Note:
    """A note for `code`; fails at once on a code or parameter the catalog does not have."""
    return Note(code=code, params=params, text=render(code, "en", params))


def codes() -> list[str]:
    return list(_catalog())
