"""The Knowledge tab: list the documents in the store, add user documents, search passages.

Uploaded files are copied into <data dir>/uploads first: the store keeps a user document only while its
source file exists, and Gradio's upload cache is temporary.
"""

from __future__ import annotations

import logging
import re
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pandas as pd

from assistant.web.i18n import t

USER_COLLECTION = "user"
log = logging.getLogger(__name__)


def _retriever() -> Any:
    from knowledge.retrieval import get_retriever

    return get_retriever()


def limits() -> tuple[list[str], float]:
    """Accepted file suffixes and the size limit per document (MB)."""
    from knowledge.loaders import SUFFIXES
    from knowledge.store import KnowledgeConfig

    return sorted(SUFFIXES), KnowledgeConfig().max_doc_mb


def documents(lang: str) -> pd.DataFrame:
    """One row per document in every collection of the store."""
    from knowledge.store import KnowledgeConfig, KnowledgeStore

    cols = [t(lang, k) for k in ("kb_col_collection", "kb_col_doc", "kb_col_title", "kb_col_lang", "kb_col_chunks")]
    rows = []
    try:
        store = KnowledgeStore(KnowledgeConfig())
        for name in sorted(store.collection_names(), key=lambda n: (n != USER_COLLECTION, n)):
            manifest = store.read_manifest(name)
            if manifest is None:
                continue
            for doc in sorted(manifest.docs.values(), key=lambda d: d.doc_id):
                rows.append([name, doc.doc_id, doc.title, doc.lang, len(doc.chunk_ids)])
    except Exception:  # an unreadable store must not break the page; search and upload report the reason
        log.warning("cannot list the knowledge base", exc_info=True)
    return pd.DataFrame(rows, columns=cols)


def safe_name(name: str) -> str:
    """A file name without folders or odd characters (keeps the suffix)."""
    base = Path(name).name
    stem, suffix = Path(base).stem, Path(base).suffix.lower()
    stem = re.sub(r"[^\w.\-\u4e00-\u9fff]+", "-", stem).strip("-.") or "document"
    return f"{stem[:80]}{suffix}"


def add_documents(paths: list[str], lang: str, progress: Callable[[float, str], None] | None = None) -> str:
    """Check, copy and ingest uploaded files into the 'user' collection; return a status line."""
    from knowledge.ingest import ingest_paths
    from knowledge.loaders import LoaderError, check_file
    from knowledge.store import KnowledgeConfig

    if not paths:
        return ""
    config = KnowledgeConfig()
    try:
        for path in paths:  # refuse the whole batch before copying anything
            check_file(Path(path), config.max_doc_mb)
    except LoaderError as exc:
        return t(lang, "kb_rejected", message=_public(str(exc), paths))
    uploads = Path(config.data_dir).expanduser() / "uploads"
    uploads.mkdir(parents=True, exist_ok=True)
    copies = []
    for path in paths:
        target = uploads / safe_name(Path(path).name)
        shutil.copyfile(path, target)
        copies.append(target)
    if progress:
        progress(0.0, t(lang, "kb_progress_load"))

    def report(stage: str, done: int, total: int) -> None:
        if progress and total:
            progress(done / total, t(lang, "kb_progress_embed" if stage == "embed" else "kb_progress_copy"))

    retriever = _retriever()
    try:
        rep = ingest_paths(
            copies, collection=USER_COLLECTION, store=retriever.store, embedder=retriever.embedder, progress=report
        )
    except Exception as exc:  # bad document, unreadable store, missing model: a line for the user, not a traceback
        log.warning("ingest failed", exc_info=True)
        for copy in copies:
            copy.unlink(missing_ok=True)
        return t(lang, "kb_rejected", message=_public(str(exc), [str(c) for c in copies]))
    return t(
        lang,
        "kb_added",
        files=", ".join(c.name for c in copies),
        added=len(rep.added),
        updated=len(rep.updated),
        unchanged=len(rep.unchanged),
        chunks=rep.chunks_embedded,
        seconds=rep.seconds,
    )


def _public(message: str, paths: list[str]) -> str:
    """Show file names, not the server's temporary folders."""
    for path in paths:
        message = message.replace(str(path), Path(path).name)
    return message


def search(query: str, lang: str, k: int = 5) -> str:
    """Top passages for `query` as markdown: title, section, document, collection and an excerpt."""
    query = (query or "").strip()
    if not query:
        return ""
    passages = _retriever().search(query, k=k)
    if not passages:
        return t(lang, "kb_no_results")
    parts = []
    for i, p in enumerate(passages, 1):
        text = p.text if len(p.text) <= 700 else p.text[:700] + " …"
        quoted = "\n".join(f"> {line}" for line in text.splitlines())
        section = f" — {p.section}" if p.section else ""
        parts.append(f"**{i}. {p.title}**{section}  \n`{p.doc_id}` · {p.collection} · {p.lang}\n\n{quoted}")
    return "\n\n".join(parts)
