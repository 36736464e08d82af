"""Guide passages an answer cites as [n], numbered once per turn."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from pydantic import BaseModel

from knowledge.passage import SearchResult

MAX_CITATIONS = 4


class Citation(BaseModel):
    """A guide passage the answer cites as [n]."""

    n: int
    doc_id: str
    title: str
    section: str
    lang: str
    source: str
    text: str


def citations_from(results: Iterable[Any]) -> list[Citation]:
    """Number the distinct passages of the search results among `results`, in order: [1], [2], ..."""
    out: list[Citation] = []
    for result in results:
        if not isinstance(result, SearchResult):
            continue
        for p in result.passages:
            if any(c.doc_id == p.doc_id and c.section == p.section for c in out):
                continue
            out.append(
                Citation(
                    n=len(out) + 1,
                    doc_id=p.doc_id,
                    title=p.title,
                    section=p.section or "",
                    lang=p.lang,
                    source=p.source or "",
                    text=p.text,
                )
            )
    return out[:MAX_CITATIONS]
