"""How a user's card name is read: the typos people make, and a generic name that is a specific one said plainly.

- typos (lexicon `gpus.typos`): "M2 Ultral" is the M2 Ultra, "A6000ada" the RTX 6000 Ada; a name is rewritten
  before it is resolved, so only a spelling the table names is forgiven, never a near name of another card;
- "A100 ... my A100-PCIE 40G", "the 4090 ... RTX 4090 D": the plain name is the specific one's family, so the
  message is about one card; "4090 vs 4090 D", "A100 or A100 PCIe" set them against each other and stay two.
"""

from __future__ import annotations

import re
from functools import cache
from typing import Protocol, TypeVar

from assistant.understanding.lexicon import _lex


class _Span(Protocol):
    start: int
    end: int
    text: str
    value: str | None


_S = TypeVar("_S", bound=_Span)


@cache
def _typos() -> tuple[tuple[re.Pattern[str], str], ...]:
    rows = _lex().raw["gpus"].get("typos") or []
    return tuple((re.compile(r["pattern"], re.I), r["to"]) for r in rows)


def fix_typos(name: str) -> str:
    """ "Mac Studio M2 Ultral 192G" -> "Mac Studio M2 Ultra 192G"; a name with no known typo is returned as is."""
    for rx, to in _typos():
        name = rx.sub(to, name)
    return name


# words before a card name that are no part of which card it is
_VENDOR = re.compile(r"(?<![a-z])(?:nvidia|geforce|tesla|quadro|rtx|gtx)(?![a-z])", re.I)


def _key(text: str) -> str:
    return re.sub(r"[^a-z0-9]", "", _VENDOR.sub("", fix_typos(text).lower()))


@cache
def _variant_rx() -> re.Pattern[str]:
    return re.compile(_lex().raw["gpus"]["variant_words"], re.I)


@cache
def _set_against_rx() -> re.Pattern[str]:
    return re.compile(_lex().raw["gpus"]["set_against"], re.I)


def one_card(view: str, plain: _Span, specific: _Span) -> bool:
    """The plain name is the specific one's family ("A100" / "A100-PCIE 40G", "4090" / "RTX 4090 D"; never "3090" /
    "3090 Ti": another card), said apart from it (a clause or more between) with nothing setting them against each
    other between them ("vs", "or", "还是", "和")."""
    general, named = _key(plain.text), _key(specific.text)
    rest = named[len(general) :] if general and named.startswith(general) else ""
    if not rest or not _variant_rx().fullmatch(rest) or (general[-1].isdigit() and rest[0].isdigit()):
        return False  # "A10" is no family of "A100 80G": a model number does not run on into another one
    lo, hi = sorted((plain, specific), key=lambda s: s.start)
    between = view[lo.end : hi.start]
    return len(between.strip()) >= 6 and not _set_against_rx().search(between)


def family_named_plainly(spans: list[_S], view: str) -> list[_S]:
    """Each plain name that is a specific one's family said apart from it takes the specific one's reading."""
    for plain in spans:
        specific = next((o for o in spans if o is not plain and o.value and one_card(view, plain, o)), None)
        if plain.value and specific is not None:
            plain.value = specific.value
    return spans
