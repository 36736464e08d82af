"""Guide passages an answer cites as [n], numbered once per turn."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from pydantic import BaseModel

from knowledge.passage import Passage, SearchResult

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


def citations_from(
    results: Iterable[Any], about: list[str] | None = None, subjects: set[str] | None = None, limit: int | None = None
) -> list[Citation]:
    """Number the distinct sections among the search results, in order of their best passage: [1], [2], ...

    Several passages of one section make one citation whose text follows the guide's order, so a quote starts
    where the section starts (the definition before the list of uses). With `about` (the concepts the user
    asked about), sections that never name one of them are left out when some section does. With
    `subjects` (what the turn is about, `assistant.subjects.turn_subjects`), a section about something
    else is left out: a MoE passage under a dense model's answer, the H20 section under an H200 question.
    `limit` caps the passages used, best first, after that.
    """
    from assistant.subjects import fits

    searches = [r for r in results if isinstance(r, SearchResult)]
    passages = [p for r in searches for p in r.passages]
    fitting = [p for p in passages if subjects is None or fits(p, subjects)][:limit]
    groups: dict[tuple[str, str], list[Passage]] = {}
    for p in fitting:
        groups.setdefault((p.doc_id, p.section or ""), []).append(p)
    # a cited section's other passages join it: found further down the ranking, or its rest when asked
    for p in [*passages, *(p for r in searches for p in r.section_passages)]:
        group = groups.get((p.doc_id, p.section or ""))
        if group is not None and all(q.chunk_id != p.chunk_id for q in group):
            group.append(p)
    cited = [sorted(ps, key=lambda p: p.position) for ps in groups.values()]
    if about:
        named = [ps for ps in cited if any(t.lower() in "\n".join(p.text for p in ps).lower() for t in about)]
        cited = named or cited
    out = [
        Citation(
            n=n,
            doc_id=ps[0].doc_id,
            title=ps[0].title,
            section=ps[0].section or "",
            lang=ps[0].lang,
            source=ps[0].source or "",
            text="\n\n".join(p.text for p in ps),
        )
        for n, ps in enumerate(cited, start=1)
    ]
    return out[:MAX_CITATIONS]


def without_sources(answer: str) -> str:
    """The answer without the paragraph that lists its sources: the terminal prints them once, numbered,
    and the web app as collapsible passages the [n] links open."""
    from assistant.strings import catalog

    heads = tuple(catalog()["sources_head"][lang] for lang in ("en", "zh"))
    paragraphs = answer.split("\n\n")
    return "\n\n".join(p for p in paragraphs if not p.lstrip().startswith(heads)).strip()
