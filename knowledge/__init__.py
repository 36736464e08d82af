"""What GPU Advisor knows: the guides, ingestion into Chroma, and hybrid retrieval.

Names are imported lazily, so `import knowledge` stays light (no chromadb, torch or jieba).
"""

from __future__ import annotations

from importlib import import_module
from typing import Any

_EXPORTS = {
    "Passage": "knowledge.retrieval",
    "Retriever": "knowledge.retrieval",
    "get_retriever": "knowledge.retrieval",
    "search": "knowledge.retrieval",
    "IngestReport": "knowledge.ingest",
    "ingest_guides": "knowledge.ingest",
    "ingest_paths": "knowledge.ingest",
    "KnowledgeConfig": "knowledge.store",
    "KnowledgeStore": "knowledge.store",
    "StoreError": "knowledge.store",
    "Document": "knowledge.loaders",
    "LoaderError": "knowledge.loaders",
    "load_document": "knowledge.loaders",
    "EmbeddingError": "knowledge.embeddings",
}

__all__ = sorted(_EXPORTS)


def __getattr__(name: str) -> Any:
    if name in _EXPORTS:
        return getattr(import_module(_EXPORTS[name]), name)
    raise AttributeError(f"module 'knowledge' has no attribute {name!r}")
