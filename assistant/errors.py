"""Turn validation and lookup errors into one readable line (never a traceback)."""

from __future__ import annotations

import re

from pydantic import ValidationError

MAX_ERROR_CHARS = 2000
_LONG_QUOTE = re.compile(r"'([^']{80})[^']{20,}'")


def _clip(text: str) -> str:
    """Shorten echoed input (a 5,000-character 'name' stays readable) and cap the whole line."""
    text = _LONG_QUOTE.sub(lambda m: f"'{m.group(1)}…'", text)
    return text if len(text) <= MAX_ERROR_CHARS else text[: MAX_ERROR_CHARS - 1] + "…"


def describe_error(exc: Exception) -> str:
    """A message a person can act on."""
    if isinstance(exc, ValidationError):
        parts = []
        for err in exc.errors():
            loc = ".".join(str(p) for p in err.get("loc", ()) if p != "__root__")
            msg = err.get("msg", "invalid").removeprefix("Value error, ")
            parts.append(f"{loc}: {msg}" if loc else msg)
        return _clip("invalid input — " + "; ".join(parts))
    return _clip(str(exc))
