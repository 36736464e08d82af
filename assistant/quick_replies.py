"""Quick replies: the likely answers offered with a question the advisor asks, as typed data for every view.

The options live in assistant/quick_replies.yaml; a turn carries them as `QuickReply` objects (FinalEvent), which the
web app shows as chips, `chat --terminal` as numbered choices and `ask --json` as a list. Choosing one sends its
`message`, an ordinary reply the planner reads as the answer to its pending question.
"""

from __future__ import annotations

from functools import cache
from pathlib import Path
from typing import Any

import yaml
from pydantic import BaseModel, Field

from assistant.language import currency_for

_FILE = Path(__file__).with_name("quick_replies.yaml")


class QuickReply(BaseModel):
    """One offered answer: the button's text and the message that choosing it sends, in the user's language."""

    label: str = Field(description="What the chip or the numbered choice says")
    message: str = Field(description="The reply it sends, as if typed")


@cache
def options() -> dict[str, Any]:
    """The option groups of quick_replies.yaml, by the question (or assumption) they answer."""
    return yaml.safe_load(_FILE.read_text(encoding="utf-8"))


def budget_tiers(currency: str) -> list[dict[str, Any]]:
    """The budget tiers offered in `currency` (CNY or USD), cheapest first, each with its `top`."""
    return list(options()["need_budget"][currency])


def group(key: str, lang: str) -> list[QuickReply]:
    """The quick replies of one group in `lang` (budget tiers in the currency of that language)."""
    rows = options().get(key) or []
    if isinstance(rows, dict):  # by currency
        rows = rows[currency_for(lang)]
    return [QuickReply(label=r["label"][lang], message=r["message"][lang]) for r in rows]


def replies(keys: list[str], lang: str) -> list[QuickReply]:
    """The quick replies of the groups `keys`, in order, each message once."""
    out = [reply for key in dict.fromkeys(keys) for reply in group(key, lang)]
    return list({r.message: r for r in out}.values())
