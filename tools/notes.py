"""Notes as keys: a tool states an assumption, a warning or a reason as a code plus parameters.

The sentence for each code lives once, in both languages, in the string catalog
(knowledge/data/notes.yaml). Results carry the code, its parameters and the English sentence (so `--json`
stays readable); the assistant, the CLI and the web app render the same note in the user's language.
"""

from __future__ import annotations

import re
import string
from collections.abc import Iterable
from functools import cache
from typing import Any

from pydantic import BaseModel, Field

from tools._data import load_yaml

ParamValue = str | int | float | bool | None
# A parameter may itself be notes ("use 3 PSUs ({layout})"): rendered in the same language and joined,
# by "; " ({x}), ", " between clauses ({x:,}), ", " between items ({x:items}: 、 in Chinese) or " or "
# ({x:or}); {x:tail} puts "; " before them and {x:paren} brackets them, each giving nothing when empty.
_JOINERS = {
    "": {"en": "; ", "zh": "；"},
    ",": {"en": ", ", "zh": "，"},
    "items": {"en": ", ", "zh": "、"},
    "or": {"en": " or ", "zh": "或"},
    "tail": {"en": "; ", "zh": "；"},
    "paren": {"en": "; ", "zh": "；"},
}
_WRAP = {"tail": {"en": "; {}", "zh": "；{}"}, "paren": {"en": " ({})", "zh": "（{}）"}}


@cache
def _catalog() -> dict[str, dict[str, str]]:
    return load_yaml("notes.yaml")["notes"]


class Note(BaseModel):
    """One assumption, warning or reason: a catalog code, its parameters, and the English sentence."""

    code: str = Field(description="Key in knowledge/data/notes.yaml")
    params: dict[str, ParamValue | list[Note]] = Field(default_factory=dict)
    text: str = Field(default="", description="The sentence in English")

    def render(self, lang: str) -> str:
        return render(self.code, lang, self.params)


@cache
def _labels() -> dict[str, dict[str, dict[str, str]]]:
    return load_yaml("notes.yaml").get("labels", {})


class _Formatter(string.Formatter):
    """str.format plus `{x:money}`: an amount in the note's `currency` as people write it (¥15,000, $1,500;
    cents below 100, so ¥1.88 an hour stays readable), and `{x:method}` (any section of the catalog's
    labels): an identifier such as "qlora" as the reader's language names it."""

    def __init__(self, currency: str | None, lang: str = "en") -> None:
        self.currency = currency
        self.lang = lang

    def format_field(self, value: Any, format_spec: str) -> str:
        if isinstance(value, list):
            text = join(value, self.lang, format_spec)
            wrap = _WRAP.get(format_spec)
            return wrap.get(self.lang, wrap["en"]).format(text) if wrap and text else text
        if format_spec == "money":
            return money(float(value), self.currency or "USD")
        if format_spec in _labels():
            names = _labels()[format_spec].get(str(value), {})
            return names.get(self.lang, names.get("en", str(value)))
        return super().format_field(value, format_spec)


def money(amount: float, currency: str) -> str:
    """¥15,000 / $1,500 / ¥1.88: the one way amounts are written."""
    symbol = {"CNY": "¥", "USD": "$"}.get(currency, currency + " ")
    digits = f"{amount:,.2f}" if abs(amount) < 100 and amount != int(amount) else f"{amount:,.0f}"
    return f"-{symbol}{digits[1:]}" if digits.startswith("-") else f"{symbol}{digits}"


# "1 GPU(s)", "8,192 tokens x 1 sequence(s)": a count right before a word marked "(s)" (at most two words between)
_COUNTED = re.compile(r"(?<![\d.,])(\d[\d,]*(?:\.\d+)?)(\s+(?:[A-Za-z][\w/-]*\s+){0,2}?)([A-Za-z][\w-]*?)\(s\)")


def plurals(text: str) -> str:
    """A template's "(s)" resolved by the count written before it ("1 GPU", "2 GPUs"); plural with no count."""
    if "(s)" not in text:
        return text
    text = _COUNTED.sub(lambda m: f"{m[1]}{m[2]}{m[3]}{'' if m[1] == '1' else 's'}", text)
    return text.replace("(s)", "s")


def render(code: str, lang: str, params: dict[str, Any]) -> str:
    """The sentence for `code` in `lang` (English when the catalog has no such language), its "(s)" resolved."""
    return plurals(_render(code, lang, params))


def _render(code: str, lang: str, params: dict[str, Any]) -> str:
    entry = _catalog()[code]
    template = entry.get(lang, entry["en"])
    currency = params.get("currency")
    formatter = _Formatter(currency if isinstance(currency, str) else None, lang)
    parts = _parts(template)
    if parts is None:  # a field with attribute access or a conversion: the general formatter
        return formatter.format(template, **params)
    # A recommendation renders ~1,300 notes: the template is parsed once, each field formatted directly.
    out: list[str] = []
    for literal, name, spec in parts:
        out.append(literal)
        if name is not None:
            out.append(formatter.format_field(params[name], spec))
    return "".join(out)


@cache
def _parts(template: str) -> tuple[tuple[str, str | None, str], ...] | None:
    """(literal, field, spec) of a template whose fields are plain names; None otherwise."""
    parts = []
    for literal, name, spec, conversion in string.Formatter().parse(template):
        if name is not None and (conversion or not name.isidentifier() or "{" in (spec or "")):
            return None
        parts.append((literal, name, spec or ""))
    return tuple(parts)


def note(code: str, **params: ParamValue | list[Note]) -> Note:
    """A note for `code`; fails at once on a code or parameter the catalog does not have."""
    return Note(code=code, params=params, text=render(code, "en", params))


def render_all(notes: Iterable[Note | None], lang: str) -> list[str]:
    """Each note's sentence in `lang`, in order (None and sentences a language leaves out skipped)."""
    return [text for n in notes if n is not None and (text := n.render(lang))]


def join(notes: Iterable[Note | None], lang: str, how: str = "") -> str:
    """Notes as one line in `lang`, separated as the language writes a list of clauses."""
    joiner = _JOINERS.get(how, _JOINERS[""])
    return joiner.get(lang, joiner["en"]).join(render_all(notes, lang))


def label(section: str, key: str, lang: str, default: str | None = None) -> str:
    """An identifier (a method, a circuit, a platform class) as the reader's language names it."""
    names = _labels().get(section, {}).get(key, {})
    bpw = re.fullmatch(r"(\d+(?:\.\d+)?)bpw(?:_h\d)?", key) if section == "format" and not names else None
    if bpw:  # "4.65bpw" (tools/precision.py bpw_precision): no fixed row, the figure in the reader's words
        return label("format_bpw", "bpw", lang).format(bits=bpw.group(1))
    return names.get(lang) or names.get("en") or (default if default is not None else key)


def codes() -> list[str]:
    return list(_catalog())


@cache
def fields(code: str) -> frozenset[str]:
    """The parameters a code's sentences use, in any language (a tool passes only those it has)."""
    out: set[str] = set()
    for template in _catalog()[code].values():
        out |= {name for _, name, _, _ in string.Formatter().parse(template) if name}
    return frozenset(out)
