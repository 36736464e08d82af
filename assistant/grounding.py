"""Grounding check: every number in an answer must come from a tool result, a passage or the user."""

from __future__ import annotations

import json
import re
from typing import Any

from pydantic import BaseModel

# Digits with optional thousands separators and decimals; CJK 万/亿 multipliers are handled separately.
# Numbers glued to letters are names or sizes ("Llama-3.1-70B", "A100", "Qwen2.5", "8k"), not claims.
_NUMBER = re.compile(r"(?<![\w.\-])[-+]?(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?(?![\w.]*[A-Za-z])")
_ANY_NUMBER = re.compile(r"\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?")
_CITATION = re.compile(r"\[\d{1,2}\]")
_SIGNED = re.compile(r"(?<![\w.\-])-(\d+(?:\.\d+)?)(?![\w.]*[A-Za-z])")
_SMALL_ORDINALS = set(range(0, 11))  # list numbering, "top 3", "2 options": not claims about the world


class GroundingReport(BaseModel):
    """Numbers found in an answer and which of them no source supports."""

    numbers_checked: int
    untraceable: list[str]

    @property
    def grounded(self) -> bool:
        return not self.untraceable


_NAME_PREFIX = re.compile(r"(?:RTX|GTX|RX|Radeon|Gaudi|Tesla|Quadro|TITAN|GeForce|RTX PRO)\s*$", re.I)  # "RTX PRO 6000"


def _numbers(text: str) -> list[tuple[str, float]]:
    out = []
    clean = _CITATION.sub(" ", text)
    for match in _NUMBER.finditer(clean):
        raw = match.group(0)
        if _NAME_PREFIX.search(clean[max(0, match.start() - 10) : match.start()]):
            continue  # "RTX 3090" is a name, not a quantity
        try:
            out.append((raw, float(raw.replace(",", ""))))
        except ValueError:
            continue
    return out


def _collect(obj: Any, sink: set[float]) -> None:
    if isinstance(obj, bool) or obj is None:
        return
    if isinstance(obj, int | float):
        sink.add(float(obj))
    elif isinstance(obj, str):
        # sources count every digit run, names and sizes included ("48GB", "70B"): the user may quote them
        sink.update(float(x.replace(",", "")) for x in _ANY_NUMBER.findall(obj))
        # a signed value a tool's text states ("n_gpu_layers=-1") is quoted with its sign
        sink.update(-float(x) for x in _SIGNED.findall(obj))
    elif isinstance(obj, dict):
        for k, v in obj.items():
            _collect(k, sink)
            _collect(v, sink)
    elif isinstance(obj, list | tuple):
        for v in obj:
            _collect(v, sink)
    elif isinstance(obj, BaseModel):  # a tool's typed result
        _collect(obj.model_dump(mode="json"), sink)


def _matches(value: float, known: set[float]) -> bool:
    """Equal to a known value as displayed: rounded, in thousands (k), per cent, or x1024 (k tokens)."""
    if value in known or (value == int(value) and int(value) in _SMALL_ORDINALS):
        return True
    if value == int(value) and any(round(k) == value for k in known if abs(k) >= 10):
        return True  # "45 tokens/s" for 44.72
    for k in known:
        for candidate in (k, k * 100, k / 1000, k / 1024, k / 1e6, k / 1e9, k / 1e4, k / 1e8):
            if candidate == 0:
                continue
            if abs(candidate - value) <= max(0.005 * abs(candidate), 0.051 if abs(value) < 100 else 0.5):
                return True
    return False


def check_grounding(
    answer: str, tool_results: list[Any], passages: list[str], user_texts: list[str]
) -> GroundingReport:
    """Report the numbers in `answer` that match nothing the tools, the passages or the user supplied."""
    known: set[float] = set()
    for result in tool_results:
        _collect(result if not isinstance(result, str) else _maybe_json(result), known)
    for text in [*passages, *user_texts]:
        _collect(text, known)
        _collect(_cjk_amounts(text), known)
    found = _numbers(answer)
    untraceable = [raw for raw, value in found if not _matches(value, known)]
    return GroundingReport(numbers_checked=len(found), untraceable=untraceable)


def _maybe_json(text: str) -> Any:
    try:
        return json.loads(text)
    except (json.JSONDecodeError, TypeError):
        return text


def _cjk_amounts(text: str) -> list[float]:
    """'2万' -> 20000, '1.5万' -> 15000, '700亿' -> 7e10: amounts users write in Chinese."""
    out = []
    for num, unit in re.findall(r"(\d+(?:\.\d+)?)\s*([万亿千kKwW])", text):
        factor = {"万": 1e4, "w": 1e4, "W": 1e4, "亿": 1e8, "千": 1e3, "k": 1e3, "K": 1e3}[unit]
        out.append(float(num) * factor)
    return out
