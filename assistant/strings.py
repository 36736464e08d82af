"""The string catalog the answers are written from, and a Writer that collects an answer's lines.

Every sentence the assistant writes exists in both languages in assistant/catalog.yaml; code picks a key
and fills in numbers, never writes prose itself (one code path, translated strings).
"""

from __future__ import annotations

import re
from functools import cache
from pathlib import Path
from typing import Any

from assistant.language import Language
from tools._data import read_yaml


@cache
def catalog() -> dict[str, Any]:
    """Every string the assistant shows, answers and interface (assistant/catalog.yaml)."""
    return read_yaml(Path(__file__).with_name("catalog.yaml"))


def text(key: str, lang: str, **fields: Any) -> str:
    """The catalog entry `key` in `lang`, formatted, its "(s)" resolved by the count before it."""
    from tools.notes import plurals

    return plurals(catalog()[key][lang].format(**fields))


def label(group: str, key: str, lang: str) -> str:
    """A label from a group of the catalog (e.g. option_label.rent_on_demand), else from the labels the tools
    share (knowledge/data/notes.yaml: method.lora, segment.consumer ...); the key itself when neither has one."""
    entry = catalog().get(group, {}).get(key)
    if entry:
        return entry[lang]
    from tools.notes import label as tool_label

    return tool_label(group, key, lang)


def static_texts() -> list[str]:
    """Fixed texts whose numbers are examples, not claims: the help message and the questions asked back
    ("例如给公司 300 人部署 Qwen2.5-72B")."""
    keys = ["help", *(k for k in catalog() if k.startswith("need_"))]
    return [
        catalog()[k][lang]
        for k in keys
        for lang in ("en", "zh")
        if isinstance(catalog()[k], dict) and lang in catalog()[k]
    ]


# Chinese counts a computer with 台 and a card with 张: the templates say "{n} 张 {gpu}", and a Mac's name (every
# Apple entry in gpus.yaml starts "Apple ") is one machine ("一台 Mac Studio"), never "一张"
_MAC_COUNTED = re.compile(r"(\d+\s?|[一两二三四五六七八])张(\s?Apple )")


def measure_words(paragraph: str, lang: Language) -> str:
    return _MAC_COUNTED.sub(r"\1台\2", paragraph) if lang == "zh" else paragraph


class Writer:
    """Collects an answer's paragraphs in one language."""

    def __init__(self, lang: Language, before: str = "", pretrain: bool = False, per_minute: bool = False) -> None:
        self.lang = lang
        self.lines: list[str] = []
        self.before = before  # the previous answer, on a follow-up: what it said is not said again
        # a run from scratch: the calculators' "full" mode is named pretraining, never "full fine-tuning"
        self.pretrain = pretrain
        # "每分钟可以生成多少token": every decode speed also given per minute (SpeedResult's per-minute fields)
        self.per_minute = per_minute

    def said_before(self, text: str) -> bool:
        return bool(self.before) and text in self.before

    def t(self, key: str, **fields: Any) -> str:
        return text(key, self.lang, **fields)

    def label(self, group: str, key: str) -> str:
        if self.pretrain and key == "full" and group in ("method", "method_short"):
            return label("method_pretrain", key, self.lang)
        return label(group, key, self.lang)

    def add(self, paragraph: str) -> None:
        self.lines.append(measure_words(paragraph, self.lang))

    def say(self, key: str, **fields: Any) -> None:
        self.add(self.t(key, **fields))

    def bullets(self, head_key: str, items: list[str], limit: int = 4) -> None:
        items = [i for i in items if i]
        repeated = [i for i in items if head_key == "assumptions_head" and self.said_before(f"- {i}")]
        items = [i for i in items if i not in repeated][:limit]
        if repeated:  # a follow-up: the assumptions that did not change are folded into one line
            items.append(self.t("assumptions_as_before", n=len(repeated)))
        if items:
            self.add(self.t(head_key) + "\n" + "\n".join(f"- {i}" for i in items))

    def text(self) -> str:
        return "\n\n".join(self.lines)
