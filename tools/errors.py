"""Errors whose messages tell a person (or an LLM) what to do next."""

from __future__ import annotations


class AdvisorError(ValueError):
    """A user-facing error: the message says what was wrong and how to fix it."""


class UnknownNameError(AdvisorError):
    """A model or GPU name that did not resolve; carries close matches."""

    def __init__(self, kind: str, name: str, suggestions: list[str], hint: str = "") -> None:
        self.kind = kind
        self.name = name
        self.suggestions = suggestions
        msg = f"unknown {kind} '{name}'"
        if suggestions:
            msg += " — did you mean " + ", ".join(suggestions) + "?"
        if hint:
            msg += f" {hint}"
        super().__init__(msg)
