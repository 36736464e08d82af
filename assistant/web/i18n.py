"""Interface strings in Chinese and English: the web app's part of the one catalog (assistant/catalog.yaml)."""

from __future__ import annotations

from functools import cache
from typing import Any, Literal

from tools.notes import Note

Lang = Literal["zh", "en"]
LANGS: tuple[Lang, ...] = ("zh", "en")
LANG_NAMES: dict[str, Lang] = {"中文": "zh", "English": "en"}


@cache
def strings() -> dict[str, Any]:
    from assistant.strings import catalog

    return catalog()


def t(lang: str, key: str, **fields: Any) -> str:
    """The string `key` (a dotted path such as 'slot.model') in `lang`, formatted with `fields`; a label
    the tools name ('method.lora', 'segment.consumer') comes from their labels, never from a second copy."""
    entry = _entry(key)
    if entry is None and _tool_label(key) is not None:
        group, name = key.split(".")
        return label(group, name, lang)
    if entry is None:
        raise KeyError(key)
    text = entry["zh" if lang == "zh" else "en"]
    return text.format(**fields) if fields else text


def _entry(key: str) -> dict[str, Any] | None:
    entry: Any = strings()
    for part in key.split("."):
        if not isinstance(entry, dict) or part not in entry:
            return None
        entry = entry[part]
    return entry if isinstance(entry, dict) and "en" in entry else None


def _tool_label(key: str) -> dict[str, str] | None:
    from tools.notes import _labels

    group, _, name = key.partition(".")
    found = _labels().get(group, {}).get(name) if name and "." not in name else None
    return found if isinstance(found, dict) else None


def label(group: str, key: str, lang: str) -> str:
    """A label the answers use (e.g. option_label.rent_on_demand), from the same catalog."""
    from assistant.strings import label as answer_label

    return answer_label(group, key, "zh" if lang == "zh" else "en")


def has(key: str) -> bool:
    return _entry(key) is not None or _tool_label(key) is not None


def lang_from_header(accept_language: str | None) -> Lang:
    """zh when the browser prefers Chinese, else en."""
    first = (accept_language or "").split(",")[0].strip().lower()
    return "zh" if first.startswith("zh") else "en"


def example_questions() -> list[str]:
    return list(strings()["example_questions"])


def note_text(item: str | Note, lang: str) -> str:
    """An assumption, warning or reason in `lang`: tools state some as catalog notes, some as sentences."""
    return item.render(lang) if isinstance(item, Note) else item
