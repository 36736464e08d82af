"""Which language a message is in, and what follows from it: the one home of both rules.

The parser, the Advisor facade, the web app and the eval runner all call `detect_language`, so a mixed
question ("How do I run 千问?") gets one reading everywhere. Light on purpose: no imports beyond `re`.
"""

from __future__ import annotations

import re
from typing import Literal

Language = Literal["zh", "en"]
Currency = Literal["CNY", "USD"]

_CJK = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\u3040-\u30ff]")
# Standalone Latin words: "Qwen2.5-7B" or "FP8" appear in Chinese messages as much as in English ones,
# so names glued to digits or punctuation do not count as English.
_LATIN_WORD = re.compile(r"(?<![A-Za-z0-9_.-])[A-Za-z]{2,}(?![A-Za-z0-9_.-])")


# A pasted error message is English whoever pastes it ("报错：torch.OutOfMemoryError: CUDA out of memory ..."):
# from the exception's name to the end of its line, its words say nothing about the user's language.
_ERROR_LINE = re.compile(r"[A-Za-z_.]*(?:Error|Exception|Traceback)\b[^\n]*")
# So is a pasted log or table line: a level tag ("INFO 05-15 11:04:11 [model_runner.py:1110] ..."), a rank prefix
# ("[rank0]: ..."), a traceback frame ('File "/x.py", line 8'), a progress bar ("100%|███|") or an nvidia-smi row.
_LOG_LINE = re.compile(
    r"^[ \t]*(?:(?:INFO|WARNING|WARN|DEBUG|ERROR|CRITICAL)\b|\[rank\d+\]:|File \"|[|+]-*[ |=-])[^\n]*"
    r"|^[^\n]*\d+%\|[^\n]*",
    re.MULTILINE,
)


def detect_language(text: str) -> Language:
    """zh when CJK characters number at least a third of the standalone Latin words (outside pasted error
    messages), else en."""
    cjk = len(_CJK.findall(text or ""))
    prose = _LOG_LINE.sub(" ", _ERROR_LINE.sub(" ", text or "")) if cjk else ""
    return "zh" if cjk and cjk * 3 >= len(_LATIN_WORD.findall(prose)) else "en"


def currency_for(lang: str) -> Currency:
    """The currency an answer uses when the user names none: CNY for Chinese, USD otherwise."""
    return "CNY" if lang == "zh" else "USD"
