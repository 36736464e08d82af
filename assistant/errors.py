"""Turn validation and lookup errors into one readable line (never a traceback)."""

from __future__ import annotations

from pydantic import ValidationError


def describe_error(exc: Exception) -> str:
    """A message a person can act on."""
    if isinstance(exc, ValidationError):
        parts = []
        for err in exc.errors():
            loc = ".".join(str(p) for p in err.get("loc", ()) if p != "__root__")
            msg = err.get("msg", "invalid").removeprefix("Value error, ")
            parts.append(f"{loc}: {msg}" if loc else msg)
        return "invalid input — " + "; ".join(parts)
    return str(exc)
