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
    """The string `key` (a dotted path such as 'slot.model') in `lang`, formatted with `fields`."""
    entry: Any = strings()
    for part in key.split("."):
        entry = entry[part]
    text = entry["zh" if lang == "zh" else "en"]
    return text.format(**fields) if fields else text


def label(group: str, key: str, lang: str) -> str:
    """A label the answers use (e.g. option_label.rent_on_demand), from the same catalog."""
    from assistant.strings import label as answer_label

    return answer_label(group, key, "zh" if lang == "zh" else "en")


def has(key: str) -> bool:
    entry: Any = strings()
    for part in key.split("."):
        if not isinstance(entry, dict) or part not in entry:
            return False
        entry = entry[part]
    return isinstance(entry, dict) and "en" in entry


def lang_from_header(accept_language: str | None) -> Lang:
    """zh when the browser prefers Chinese, else en."""
    first = (accept_language or "").split(",")[0].strip().lower()
    return "zh" if first.startswith("zh") else "en"


def example_questions() -> list[str]:
    return list(strings()["example_questions"])


def note_text(item: str | Note, lang: str) -> str:
    """An assumption, warning or reason in `lang`: tools state some as catalog notes, some as sentences."""
    return item.render(lang) if isinstance(item, Note) else item
