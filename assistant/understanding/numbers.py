"""Numbers as people type them: digits, Chinese numerals, English number words, counts, currency words."""

from __future__ import annotations

import re

from assistant.understanding.lexicon import _lex


def _cn_number(text: str) -> float | None:
    """Chinese numerals to a number: "两" 2, "十六" 16, "一万五" 15000 (a trailing digit is one unit down)."""
    lex = _lex()
    digits, units = lex.zh_digits, lex.zh_units
    if not text or any(ch not in digits and ch not in units for ch in text):
        return None
    if all(ch in digits for ch in text):
        values = [digits[ch] for ch in text]
        if len(values) == 2 and values[1] == values[0] + 1:
            return float(values[1])  # "三四个", "两三张": a range said the Chinese way; the upper end counts
        return float("".join(str(v) for v in values))
    total, section, digit, last_unit = 0, 0, None, 1
    for ch in text:
        if ch in digits:
            digit = digits[ch]
        elif units[ch] < 10_000:
            section += (1 if digit is None else digit) * units[ch]
            digit, last_unit = None, units[ch]
        else:
            section += digit or 0
            total += (section or 1) * units[ch]
            section, digit, last_unit = 0, None, units[ch]
    if digit is not None:
        section += digit * (last_unit // 10 if text[-2] in units and last_unit >= 10 else 1)
    return float(total + section)


def _number(text: str | None) -> float | None:
    """A digit string ("1,500", "0.6"), Chinese numeral or English number word as a float."""
    if not text:
        return None
    text = text.strip()
    if re.fullmatch(r"[0-9,]+(?:\.[0-9]+)?", text):
        try:
            return float(text.replace(",", ""))
        except ValueError:
            return None
    key = re.sub(r"\s+", " ", text.lower())
    if key in _lex().en_words:
        return float(_lex().en_words[key])
    return _cn_number(text)


def _count(m: re.Match[str]) -> int | None:
    """The count in a count match (groups n/c/e/w, n2/c2; m multiplies machines by cards)."""
    gd = m.groupdict()
    value = next((_number(gd[k]) for k in ("n", "n2", "c", "c2", "e") if gd.get(k)), None)
    if value is None and gd.get("w"):
        value = float(_lex().raw["numerals"]["zh_count_words"][gd["w"]])
    if value is None:
        return None
    if re.fullmatch(r"\s*20[0-3]\d\s*", m.group(0)):
        return None  # a year with no classifier ("a 2021 MacBook Pro M1", "in 2025 H100s rent for"): not a count
    if gd.get("m"):
        value *= _number(gd["m"]) or 1
    return int(value) if 1 <= value <= 100_000 and value == int(value) else None


def _in_range(value: float | None, low: float, high: float) -> float | None:
    return value if value is not None and low < value <= high else None


def _currency_of(token: str | None) -> str | None:
    """CNY or USD for a currency token; None for any other ("€": see `_other_currency_of`)."""
    found = _other_currency_of(token)
    return found if found in ("CNY", "USD") else None


def _other_currency_of(token: str | None) -> str | None:
    """The lexicon's currency code of a token, including ones the answers do not price in ("€" EUR)."""
    for cur, rx in _lex().currency.items():
        if token and rx.match(token.strip()):
            return cur
    return None
