"""Markdown written in Chinese that every renderer reads as meant (the terminal's rich, the web app's Gradio).

"**结论：选 2 张 A800。**单人……": CommonMark does not close a bold run after punctuation when a letter follows
(there is no space in Chinese), so the stars would print. Closing the run before the punctuation reads the same.
"""

from __future__ import annotations

_CLOSING_PUNCT = "。！？；：，、）"


def closable_bold(text: str) -> str:
    """`text` with each bold run that ends on CJK punctuation before a letter closed before that punctuation."""
    out = []
    for line in text.split("\n"):
        parts = line.split("**")
        for i in range(1, len(parts) - 1, 2):  # parts[i] is inside a bold run (an odd count of stars before it)
            inner, after = parts[i], parts[i + 1]
            if len(inner) > 1 and inner[-1] in _CLOSING_PUNCT and after[:1] not in ("", " "):
                parts[i], parts[i + 1] = inner[:-1], inner[-1] + after
        out.append("**".join(parts))
    return "\n".join(out)
