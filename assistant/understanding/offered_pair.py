"""Two model families offered with a slash ("open models like LLama2/Mistral", "Qwen2.5/Llama3 哪个便宜"): the name
before the slash is an alternative, not the organisation of a Hugging Face id. An id keeps its org: "Qwen/QwQ-32B"
(no version before the slash), "deepseek-ai/DeepSeek-R1" and "Qwen/Qwen2.5-7B" (the same family on both sides)."""

from __future__ import annotations

import re

from assistant.understanding.lexicon import _lex


def offered_before_slash(match: re.Match[str], family: str) -> str:
    """The org of a model-name match when it is another family's versioned name ("LLama2/"), else ""."""
    lex = _lex()
    org = match.group("org") or ""
    name = org[:-1]
    if org.count("/") != 1 or not name.isascii() or not re.search(r"\d", name):
        return ""
    other = lex.rx["model"].fullmatch(name)
    if other is None or other.group("org"):
        return ""
    other_family = next((to for rx, to, _ in lex.families if rx.match(other.group("fam"))), None)
    return org if other_family and other_family != family else ""
