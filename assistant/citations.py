"""Guide passages an answer cites as [n], numbered once per turn."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from pydantic import BaseModel

from knowledge.chunking import join_passages
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
    sections = _sections(searches)
    cited = [sections[key] for key in dict.fromkeys(_key(p) for p in fitting)]
    if about:
        named = [ps for ps in cited if any(t.lower() in "\n".join(p.text for p in ps).lower() for t in about)]
        cited = named or cited
    return [_citation(n, ps) for n, ps in enumerate(cited, start=1)][:MAX_CITATIONS]


def cited_again(results: Iterable[Any], keys: list[list[str]]) -> list[Citation]:
    """The citations an answer numbered ([doc_id, section] in its order), rebuilt from the turn's own search
    results: a stored conversation keeps which sections were cited, not a second copy of their text."""
    sections = _sections([r for r in results if isinstance(r, SearchResult)])
    found = [sections[(doc, section)] for doc, section in keys if (doc, section) in sections]
    return [_citation(n, ps) for n, ps in enumerate(found, start=1)]


def _key(p: Passage) -> tuple[str, str]:
    return (p.doc_id, p.section or "")


def _sections(searches: list[SearchResult]) -> dict[tuple[str, str], list[Passage]]:
    """Every section among the results with all its passages found (ranked, or its rest when asked), in
    the guide's order, so a quote starts where the section starts."""
    groups: dict[tuple[str, str], dict[str, Passage]] = {}
    for p in [*(p for r in searches for p in r.passages), *(p for r in searches for p in r.section_passages)]:
        groups.setdefault(_key(p), {}).setdefault(p.chunk_id, p)
    return {key: sorted(ps.values(), key=lambda p: p.position) for key, ps in groups.items()}


def _citation(n: int, ps: list[Passage]) -> Citation:
    return Citation(
        n=n,
        doc_id=ps[0].doc_id,
        title=ps[0].title,
        section=ps[0].section or "",
        lang=ps[0].lang,
        source=ps[0].source or "",
        text=join_passages([p.text for p in ps]),  # without the overlap chunking carries between passages
    )


def without_sources(answer: str) -> str:
    """The answer without the paragraph that lists its sources: the terminal prints them once, numbered,
    and the web app as collapsible passages the [n] links open."""
    from assistant.strings import catalog

    heads = tuple(catalog()["sources_head"][lang] for lang in ("en", "zh"))
    paragraphs = answer.split("\n\n")
    return "\n\n".join(p for p in paragraphs if not p.lstrip().startswith(heads)).strip()
