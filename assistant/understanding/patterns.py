"""Regex building blocks: lexicon fragments joined with the word guards they need, a number as typed, the mask."""

from __future__ import annotations

import re

_FLAGS = re.I | re.A
_MASK = "\ue000"  # replaces characters a slot has used; private-use, never a letter or digit
# A number as typed: "15000", "15,000", "0.6"; at most 12 integer digits, so no huge-int conversion.
_NUM = r"(?<![0-9.])(?:\d{1,3}(?:,\d{3})+|\d{1,12})(?:\.\d{1,4})?(?![0-9]|\.[0-9])"


def _split_top(frag: str) -> list[str]:
    """Split a regex on its top-level `|` (not inside groups, classes or after a backslash)."""
    parts, depth, in_class, escaped, start = [], 0, False, False, 0
    for i, ch in enumerate(frag):
        if escaped:
            escaped = False
        elif ch == "\\":
            escaped = True
        elif in_class:
            in_class = ch != "]"
        elif ch == "[":
            in_class = True
        elif ch == "(":
            depth += 1
        elif ch == ")":
            depth -= 1
        elif ch == "|" and depth == 0:
            parts.append(frag[start:i])
            start = i + 1
    parts.append(frag[start:])
    return parts


def _guarded(frag: str) -> list[tuple[str, str, str]]:
    """Each alternative of a lexicon fragment with the ASCII word guards it needs where it starts or ends with
    a letter/digit: (before, after, alternative)."""
    # so 'mig' misses "migrate" while '电价' still matches in "电价1块" (Chinese has no spaces)
    out = []
    for alt in _split_top(frag):
        head = re.sub(r"^(?:\(\?:|\()+", "", alt)
        tail = alt.rstrip("?*+)")
        pre = "(?<![a-z0-9])" if head[:1].isascii() and head[:1].isalnum() else ""
        post = "(?![a-z0-9])" if tail[-1:].isascii() and tail[-1:].isalnum() else ""
        out.append((pre, post, alt))
    return out


def _alt(frags: list[str] | str) -> str:
    """One guarded alternation of lexicon fragments. Neighbours with the same guards share one group: the
    same alternatives in the same order (so the same matches) with far fewer lookarounds to compile."""
    runs: list[tuple[str, str, list[str]]] = []
    for frag in [frags] if isinstance(frags, str) else frags:
        for pre, post, alt in _guarded(frag):
            if runs and runs[-1][:2] == (pre, post):
                runs[-1][2].append(alt)
            else:
                runs.append((pre, post, [alt]))
    return "|".join(f"{pre}(?:{'|'.join(f'(?:{a})' for a in alts)}){post}" for pre, post, alts in runs)


def _rx(frags: list[str] | str) -> re.Pattern[str]:
    return re.compile(_alt(frags), _FLAGS)


def _c(pattern: str) -> re.Pattern[str]:
    return re.compile(pattern, _FLAGS)


def _langs(entry: dict[str, list[str]] | list[str]) -> list[str]:
    """Flatten a {zh: [...], en: [...], both: [...]} keyword entry (both languages match every message; "both" holds
    words of either language that another list shares by a YAML anchor, so they have one home)."""
    if isinstance(entry, list):
        return entry
    return [*entry.get("zh", []), *entry.get("en", []), *entry.get("both", [])]
