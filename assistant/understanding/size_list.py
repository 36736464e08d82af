"""A list of model sizes where only the last one carries its "B": "llama7/13/70b", "千问7/14/72b", "gpt-oss 20/120b".

Each number is a size of the same family, so the list is written out size by size ("llama 7B/13B/70B") before the
model reader runs; it then reads one model per size (models._sibling_sizes). The numbers must grow, and a list glued
to a family word needs three of them: "llama3/70b" is a version and a size, not two sizes.
"""

from __future__ import annotations

import itertools
import re

_SIZE = r"\d{1,4}(?:\.\d)?"
_SIZE_LIST = re.compile(
    rf"(?P<glued>(?<=[A-Za-z\u4e00-\u9fff])-?)?(?<![\d.])(?P<sizes>{_SIZE}(?:\s*/\s*{_SIZE})+)\s*b(?![A-Za-z0-9])",
    re.I,
)


def _written_out(m: re.Match[str]) -> str:
    sizes = [s.strip() for s in m.group("sizes").split("/")]
    values = [float(s) for s in sizes]
    growing = all(a < b for a, b in itertools.pairwise(values))
    if not growing or (m.group("glued") is not None and len(sizes) < 3):
        return m.group(0)
    return (" " if m.group("glued") is not None else "") + "/".join(f"{s}B" for s in sizes)


def expand_size_lists(text: str) -> str:
    """ "llama7/13/70b" -> "llama 7B/13B/70B"; anything else unchanged."""
    return _SIZE_LIST.sub(_written_out, text)
