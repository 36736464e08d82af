"""Tokens a minute as the unit a speed is asked or stated in: "每一分钟可以生成多少token", "tokens per minute", "1500
tok/min needed". The speed answer then gives the rate per minute beside tokens/s (SpeedResult's per-minute fields, so
the figure is a tool's). Wording lives in lexicon.yaml `rate_per_minute`; a measured rate per minute of the user's own
run is the symptoms' (understanding/symptoms.py), read there too.
"""

from __future__ import annotations

from functools import cache
from typing import TYPE_CHECKING

from pydantic import BaseModel, Field

if TYPE_CHECKING:
    import re

    from assistant.understanding.text import _State


class RateUnit(BaseModel):
    """The slot of the unit a speed is asked in (a base of ParsedQuery: query.py is at its size limit)."""

    rate_per_minute: bool = Field(
        default=False,
        description="Tokens a minute asked or stated ('每分钟可以生成多少token', 'tokens per minute'): the speed "
        "answer gives tokens/min beside tokens/s",
    )


@cache
def _pattern() -> re.Pattern[str]:
    from assistant.understanding.lexicon import _lex
    from assistant.understanding.patterns import _langs, _rx

    return _rx(_langs(_lex().raw["rate_per_minute"]))


def _rate_per_minute(st: _State) -> None:
    """Whether the message counts tokens by the minute (read on the whole text: a number next to it may be masked)."""
    st.q.rate_per_minute = bool(_pattern().search(st.t.text))
