"""Ingest documents into the store: chunk, hash, embed only what changed, switch generations atomically.

Every document and every chunk carries a content hash. An ingest compares them with the live
manifest: unchanged documents are copied into the new generation with their stored vectors, changed
documents re-embed only the chunks whose text changed, and documents that are gone are left out. When
nothing changed, nothing is written at all. The new generation becomes live only when it is complete.
"""

from __future__ import annotations

import hashlib
import json
import time
from collections.abc import Callable, Iterable
from pathlib import Path

from pydantic import BaseModel, Field

from knowledge.allowed import PathNotAllowed, check_path, ingest_roots
from knowledge.chunking import CHUNKER_VERSION, chunk_markdown, chunk_plain_text
from knowledge.embeddings import Embedder, get_embedder
from knowledge.loaders import Document, LoaderError, collect_files, load_document
from knowledge.seed import seed_vectors
from knowledge.store import GUIDES, USER, DocEntry, KnowledgeConfig, KnowledgeStore, Manifest, check_collection_name

GUIDES_DIR = Path(__file__).resolve().parent / "guides"
EMBED_BATCH = 32
SEED_BATCH = 1000  # shipped vectors need no model: one add per thousand chunks
COPY_BATCH = 256

# progress(stage, done, total): stage is "embed" (chunks embedded) or "copy" (chunks reused).
Progress = Callable[[str, int, int], None]


class ChunkRecord(BaseModel):
    """One chunk with everything stored next to its vector."""

    id: str
    doc_id: str
    index: int
    title: str
    section_path: list[str]
    lang: str
    source: str
    format: str
    topic: str | None = None
    text: str
    hash: str

    @property
    def section(self) -> str:
        return " > ".join(self.section_path)

    @property
    def embed_text(self) -> str:
        """What the model sees: title and section give a short passage its context."""
        return "\n".join(x for x in (self.title, self.section, self.text) if x)

    def metadata(self, doc_hash: str) -> dict:
        return {
            "doc_id": self.doc_id,
            "chunk_index": self.index,
            "title": self.title,
            "section": self.section,
            "section_path": json.dumps(self.section_path, ensure_ascii=False),
            "lang": self.lang,
            "source": self.source,
            "format": self.format,
            "topic": self.topic or "",
            "chunk_hash": self.hash,
            "doc_hash": doc_hash,
        }


class IngestReport(BaseModel):
    """What an ingest did."""

    collection: str
    location: str = Field(description="Data directory or Chroma server URL")
    generation: str | None = Field(description="Live generation after the ingest")
    added: list[str] = Field(default_factory=list)
    updated: list[str] = Field(default_factory=list)
    removed: list[str] = Field(default_factory=list)
    unchanged: list[str] = Field(default_factory=list)
    skipped: list[str] = Field(default_factory=list, description="Files left out, with the reason")
    chunks_total: int = 0
    chunks_embedded: int = 0
    chunks_reused: int = 0
    seconds: float = 0.0

    @property
    def changed(self) -> bool:
        return bool(self.added or self.updated or self.removed)


def _sha(*parts: str) -> str:
    h = hashlib.sha256()
    for part in parts:
        h.update(part.encode("utf-8"))
        h.update(b"\x00")
    return h.hexdigest()[:24]


def chunk_document(doc: Document) -> list[ChunkRecord]:
    """Split a document into ChunkRecords (markdown by heading; text and PDF pages by sentence)."""
    if doc.format in ("md", "html"):
        pieces = chunk_markdown(doc.text)
    elif doc.format == "pdf" and doc.pages:
        pieces = [
            piece
            for number, page in enumerate(doc.pages, start=1)
            if page.strip()
            for piece in chunk_plain_text(page, section_path=[f"page {number}"])
        ]
    else:
        pieces = chunk_plain_text(doc.text)
    records = []
    for i, piece in enumerate(pieces):
        record = ChunkRecord(
            id=f"{doc.doc_id}#{i}",
            doc_id=doc.doc_id,
            index=i,
            title=doc.title,
            section_path=piece.section_path,
            lang=doc.lang,
            source=doc.source,
            format=doc.format,
            topic=doc.topic,
            text=piece.text,
            hash="",
        )
        record.hash = _sha(record.embed_text)
        records.append(record)
    return records


def document_hash(doc: Document) -> str:
    """Hash of everything that ends up in the store for `doc` (text, metadata, chunker version)."""
    return _sha(CHUNKER_VERSION, doc.doc_id, doc.title, doc.lang, doc.source, doc.format, doc.topic or "", doc.text)


def _batched(items: list, size: int) -> Iterable[list]:
    for start in range(0, len(items), size):
        yield items[start : start + size]


def sync_collection(
    store: KnowledgeStore,
    embedder: Embedder,
    name: str,
    docs: list[Document],
    *,
    replace: bool,
    skipped: list[str] | None = None,
    source_digest: str | None = None,
    force: bool = False,
    progress: Progress | None = None,
) -> IngestReport:
    """Bring logical collection `name` up to date with `docs`.

    replace=True: the collection becomes exactly `docs` (others are removed). replace=False: `docs` are
    added or updated, other documents stay unless their source file no longer exists.
    """
    check_collection_name(name)
    start = time.perf_counter()
    report = IngestReport(collection=name, location=store.location, generation=None, skipped=list(skipped or []))
    given = _sources_by_id(docs)

    with store.lock(name):
        old = store.read_manifest(name)
        old_col = store.generation(old.generation) if old else None
        reusable = _reusable(old, old_col, embedder, force)
        old_docs = old.docs if (old and reusable) else {}
        carried = _carry_over(old, reusable, given, replace, report)
        fresh = _compare_documents(docs, old_docs, report)
        report.unchanged.extend(sorted(carried))
        new_entries = {**carried, **_entries(fresh)}
        report.chunks_total = sum(len(e.chunk_ids) for e in new_entries.values())

        up_to_date = reusable and not report.changed and (source_digest is None or old.source_digest == source_digest)
        if up_to_date:
            report.generation = old.generation
            report.seconds = round(time.perf_counter() - start, 3)
            return report

        generation = _stage_generation(store, embedder, name, old_col, old_docs, carried, fresh, report, progress)
        store.write_manifest(
            Manifest(
                collection=name,
                generation=generation,
                previous=old.generation if old_col is not None else None,
                embed_model=embedder.signature,
                chunker_version=CHUNKER_VERSION,
                source_digest=source_digest,
                docs=dict(sorted(new_entries.items())),
                chunk_count=report.chunks_total,
            )
        )
        # Keep the generation just replaced for readers that are mid-query; drop everything older.
        store.collect_garbage(name, keep={generation} | ({old.generation} if old else set()))
        report.generation = generation
        report.seconds = round(time.perf_counter() - start, 3)
        return report


def _sources_by_id(docs: list[Document]) -> dict[str, str]:
    """Map each document id to its source; refuse two documents with one id."""
    seen: dict[str, str] = {}
    for doc in docs:
        if doc.doc_id in seen:
            raise ValueError(f"two documents share the id '{doc.doc_id}': {seen[doc.doc_id]} and {doc.source}")
        seen[doc.doc_id] = doc.source
    return seen


def _reusable(old: Manifest | None, old_col: object | None, embedder: Embedder, force: bool) -> bool:
    """Tell whether the live generation's vectors can be reused: it exists, from this model and chunker."""
    return (
        old is not None
        and old_col is not None
        and not force
        and old.embed_model == embedder.signature
        and old.chunker_version == CHUNKER_VERSION
    )


def _carry_over(
    old: Manifest | None, reusable: bool, given: dict[str, str], replace: bool, report: IngestReport
) -> dict[str, DocEntry]:
    """Pick the live documents kept without being re-read (merge mode); record the ones that go as removed."""
    if old is None:
        return {}
    if replace or not reusable:
        # replace keeps exactly what is given; so does a merge with nothing reusable (model or chunker changed,
        # or the generation is gone), as its chunks could not be copied
        report.removed.extend(sorted(set(old.docs) - set(given)))
        return {}
    carried: dict[str, DocEntry] = {}
    for doc_id, entry in old.docs.items():
        if doc_id in given:
            continue
        if Path(entry.source).exists():
            carried[doc_id] = entry
        else:
            report.removed.append(doc_id)
    return carried


def _compare_documents(
    docs: list[Document], old_docs: dict[str, DocEntry], report: IngestReport
) -> list[tuple[Document, str, list[ChunkRecord]]]:
    """Chunk and hash each given document; record it as added, updated or unchanged against the live manifest."""
    fresh = []
    for doc in docs:
        doc_hash = document_hash(doc)
        fresh.append((doc, doc_hash, chunk_document(doc)))
        previous = old_docs.get(doc.doc_id)
        if previous is None:
            report.added.append(doc.doc_id)
        elif previous.doc_hash == doc_hash:
            report.unchanged.append(doc.doc_id)
        else:
            report.updated.append(doc.doc_id)
    return fresh


def _entries(fresh: list[tuple[Document, str, list[ChunkRecord]]]) -> dict[str, DocEntry]:
    """Build the manifest entries of the given documents."""
    return {
        doc.doc_id: DocEntry(
            doc_id=doc.doc_id,
            title=doc.title,
            lang=doc.lang,
            source=doc.source,
            format=doc.format,
            doc_hash=doc_hash,
            chunk_ids=[r.id for r in records],
            chunk_hashes=[r.hash for r in records],
        )
        for doc, doc_hash, records in fresh
    }


def _stage_generation(
    store: KnowledgeStore,
    embedder: Embedder,
    name: str,
    old_col,
    old_docs: dict[str, DocEntry],
    carried: dict[str, DocEntry],
    fresh: list[tuple[Document, str, list[ChunkRecord]]],
    report: IngestReport,
    progress: Progress | None,
) -> str:
    """Write a complete new generation (stored vectors copied, changed chunks embedded); return its name."""
    # Vectors already in the live generation, by chunk hash.
    old_ids_by_hash: dict[str, str] = {}
    for entry in old_docs.values():
        for chunk_id, chunk_hash in zip(entry.chunk_ids, entry.chunk_hashes, strict=True):
            old_ids_by_hash.setdefault(chunk_hash, chunk_id)
    chunks = [(r, doc_hash) for _, doc_hash, records in fresh for r in records]
    # Sorted by length, so each batch pads little.
    to_embed = sorted(((r, h) for r, h in chunks if r.hash not in old_ids_by_hash), key=lambda rh: len(rh[0].text))
    to_reuse = [(r, h) for r, h in chunks if r.hash in old_ids_by_hash]
    carried_ids = [cid for e in carried.values() for cid in e.chunk_ids]

    generation, staging = store.new_generation(name, embedder.signature)
    _copy_vectors(old_col, staging, carried_ids, to_reuse, old_ids_by_hash, progress)
    seeded = _embed_chunks(embedder, staging, to_embed, progress)
    written = staging.count()  # read before the generation is dropped: afterwards the collection is gone
    if written != report.chunks_total:
        store.drop_generation(generation)
        raise RuntimeError(
            f"ingest of '{name}' wrote {written} chunks, expected {report.chunks_total}; the previous "
            "knowledge base is still live — run the ingest again"
        )
    report.chunks_embedded = len(to_embed) - seeded
    report.chunks_reused = len(to_reuse) + len(carried_ids) + seeded
    return generation


def _copy_vectors(
    old_col,
    staging,
    carried_ids: list[str],
    to_reuse: list[tuple[ChunkRecord, str]],
    old_ids_by_hash: dict[str, str],
    progress: Progress | None,
) -> None:
    """Copy stored vectors into `staging`: carried chunks verbatim, reused chunks under their new ids."""
    copied = 0
    total_copy = len(to_reuse) + len(carried_ids)
    for batch in _batched(carried_ids, COPY_BATCH):
        got = old_col.get(ids=batch, include=["embeddings", "documents", "metadatas"])
        staging.add(
            ids=list(got["ids"]),
            embeddings=[list(map(float, v)) for v in got["embeddings"]],
            documents=got["documents"],
            metadatas=got["metadatas"],
        )
        copied += len(batch)
        if progress:
            progress("copy", copied, total_copy)
    for batch in _batched(to_reuse, COPY_BATCH):
        got = old_col.get(ids=[old_ids_by_hash[r.hash] for r, _ in batch], include=["embeddings"])
        vectors = dict(zip(got["ids"], got["embeddings"], strict=True))
        staging.add(
            ids=[r.id for r, _ in batch],
            embeddings=[list(map(float, vectors[old_ids_by_hash[r.hash]])) for r, _ in batch],
            documents=[r.text for r, _ in batch],
            metadatas=[r.metadata(h) for r, h in batch],
        )
        copied += len(batch)
        if progress:
            progress("copy", copied, total_copy)


def _embed_chunks(
    embedder: Embedder, staging, to_embed: list[tuple[ChunkRecord, str]], progress: Progress | None
) -> int:
    """Embed the chunks whose text is new and add them to `staging`; a bundled guide chunk's vector comes from the
    shipped seed (knowledge/seed.py) instead, added in large batches. Returns how many came from the seed."""
    shipped = seed_vectors(embedder.signature)
    seeded = [(r, h) for r, h in to_embed if r.hash in shipped]
    rest = [(r, h) for r, h in to_embed if r.hash not in shipped]
    done = 0
    if progress:
        progress("embed", 0, len(to_embed))
    for batch, from_seed in [
        *((b, True) for b in _batched(seeded, SEED_BATCH)),
        *((b, False) for b in _batched(rest, EMBED_BATCH)),
    ]:
        texts = [r.embed_text for r, _ in batch]
        staging.add(
            ids=[r.id for r, _ in batch],
            embeddings=[shipped[r.hash] for r, _ in batch] if from_seed else embedder.embed(texts),
            documents=[r.text for r, _ in batch],
            metadatas=[r.metadata(h) for r, h in batch],
        )
        done += len(batch)
        if progress:
            progress("embed", done, len(to_embed))
    return len(seeded)


def _resolve(
    config: KnowledgeConfig | None, store: KnowledgeStore | None, embedder: Embedder | None
) -> tuple[KnowledgeStore, Embedder]:
    store = store or KnowledgeStore(config or KnowledgeConfig())
    return store, embedder or get_embedder(store.config.embed_model)


def guide_files() -> list[Path]:
    """The bundled guide documents."""
    return sorted(GUIDES_DIR.glob("*.md"))


def guides_digest() -> str:
    """One hash over the bundled guides (names and bytes), to notice an upgraded package cheaply."""
    h = hashlib.sha256(CHUNKER_VERSION.encode())
    for path in guide_files():
        h.update(path.name.encode())
        h.update(path.read_bytes())
    return h.hexdigest()[:24]


def load_guides() -> list[Document]:
    """Load the bundled guides, with sources relative to the package (stable across machines)."""
    docs = []
    for path in guide_files():
        doc = load_document(path, max_mb=50)
        doc.source = f"knowledge/guides/{path.name}"
        docs.append(doc)
    return docs


def ingest_guides(
    config: KnowledgeConfig | None = None,
    *,
    store: KnowledgeStore | None = None,
    embedder: Embedder | None = None,
    force: bool = False,
    progress: Progress | None = None,
) -> IngestReport:
    """(Re)build the 'guides' collection from knowledge/guides/*.md."""
    store, embedder = _resolve(config, store, embedder)
    return sync_collection(
        store,
        embedder,
        GUIDES,
        load_guides(),
        replace=True,
        source_digest=guides_digest(),
        force=force,
        progress=progress,
    )


def guides_need_ingest(store: KnowledgeStore, embedder: Embedder) -> bool:
    """True when the guides collection is missing, broken, older than the bundled guides or from another model."""
    manifest = store.read_manifest(GUIDES)
    if manifest is None or manifest.source_digest != guides_digest() or manifest.embed_model != embedder.signature:
        return True
    return store.generation(manifest.generation) is None


def ingest_paths(
    paths: list[str | Path],
    config: KnowledgeConfig | None = None,
    *,
    collection: str = USER,
    store: KnowledgeStore | None = None,
    embedder: Embedder | None = None,
    replace: bool = False,
    force: bool = False,
    progress: Progress | None = None,
    allowed: list[Path] | None = None,
) -> IngestReport:
    """Ingest user documents (files or folders of md/txt/html/pdf) into `collection`.

    Only paths inside `allowed` (default: knowledge/allowed.py's ingest folders) are read; anything else
    is refused before the store is touched."""
    store, embedder = _resolve(config, store, embedder)
    check_collection_name(collection)
    if collection == GUIDES:
        raise ValueError("the 'guides' collection holds the bundled guides — ingest your documents elsewhere")
    roots = allowed if allowed is not None else ingest_roots(Path(store.config.data_dir).expanduser())
    for given in paths:
        check_path(given, roots)
    files, skipped = collect_files(paths, store.config.max_doc_mb)
    for path in list(files):  # a link inside an allowed folder may point out of it
        try:
            check_path(path, roots)
        except PathNotAllowed as exc:
            files.remove(path)
            skipped.append(str(exc))
    named = {Path(p).expanduser().resolve() for p in paths}
    docs = []
    for path in files:
        try:
            docs.append(load_document(path, store.config.max_doc_mb))
        except LoaderError as exc:
            if path.resolve() in named:
                raise  # a file named on purpose must load; one found in a folder is skipped with a note
            skipped.append(str(exc))
    return sync_collection(
        store, embedder, collection, docs, replace=replace, skipped=skipped, force=force, progress=progress
    )
