"""Components whose text follows the interface language, each registered with how to re-translate it."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

import gradio as gr

from assistant.web.i18n import t

C = TypeVar("C")


class Labels:
    """Registers components as they are built; `updates(lang)` re-translates them all."""

    def __init__(self, lang: str) -> None:
        self.lang = lang
        self.items: list[tuple[Any, Callable[[str], dict[str, Any]]]] = []

    def __call__(self, component: C, key: str, attr: str = "label", **fields: Any) -> C:
        """Register `component` whose `attr` is the string `key` (formatted with `fields`)."""
        self.items.append((component, lambda lang: {attr: t(lang, key, **fields)}))
        return component

    def add(self, component: C, update: Callable[[str], dict[str, Any]]) -> C:
        """Register `component` with a function from the language to its changed properties."""
        self.items.append((component, update))
        return component

    def t(self, key: str, **fields: Any) -> str:
        return t(self.lang, key, **fields)

    @property
    def components(self) -> list[Any]:
        return [c for c, _ in self.items]

    def updates(self, lang: str) -> dict[Any, Any]:
        return {c: gr.update(**fn(lang)) for c, fn in self.items}
