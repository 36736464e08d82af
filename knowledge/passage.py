"""A retrieved guide passage: what search returns and what an answer cites (pydantic only, cheap to import)."""

from __future__ import annotations

from pydantic import BaseModel, Field


class Passage(BaseModel):
    """One retrieved chunk, ready to cite."""

    doc_id: str = Field(description="Document id, e.g. interconnect.zh")
    title: str
    section: str = Field(description="Section path joined with ' > '")
    section_path: list[str]
    lang: str
    source: str = Field(description="File the passage came from")
    text: str
    score: float = Field(description="Fused score (hybrid: reciprocal-rank fusion); higher is better")
    chunk_id: str
    collection: str
    dense_rank: int | None = None
    bm25_rank: int | None = None

    @property
    def position(self) -> int:
        """The chunk's place in its document (chunk ids end in '#n'); 0 when the id does not say."""
        tail = self.chunk_id.rsplit("#", 1)[-1]
        return int(tail) if tail.isdigit() else 0


class SearchResult(BaseModel):
    """What `search_guides` returns: passages best first."""

    passages: list[Passage] = Field(default_factory=list)
    section_passages: list[Passage] = Field(
        default_factory=list,
        description="With whole_sections: the other passages of the sections found, so a section reads from its start",
    )
