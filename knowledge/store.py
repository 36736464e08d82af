"""Where the knowledge base lives: Chroma collections plus a small manifest per logical collection.

A logical collection ("guides", "user") is a sequence of immutable Chroma collections called
generations (`guides__3f2a9c1b7e`). An ingest writes a new generation next to the live one and then
switches the manifest to it in one atomic step (`os.replace` of a small JSON file; in server mode an
upsert of one record in a manifest collection). A failed or killed ingest therefore leaves the previous
generation live and untouched; its half-written generation is garbage-collected by the next ingest.

Embedded mode (default): `chromadb.PersistentClient` under `<data dir>/chroma`, manifests under
`<data dir>/manifests`. The data dir defaults to ~/.local/share/gpu-advisor (env GPU_ADVISOR_DATA_DIR).
Server mode: `chromadb.HttpClient` when GPU_ADVISOR_CHROMA_URL (or `chroma_url`) is set; manifests then
live in the server too, and the local data dir only holds lock files and saved BM25 corpora.

Each generation's chunks with their BM25 tokens are also kept in `<data dir>/bm25/<generation>.json`
(written by the retriever, removed with the generation), so a BM25 query never needs to open Chroma.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import re
import threading
import uuid
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any
from urllib.parse import urlparse

from pydantic import BaseModel, Field

from knowledge.embeddings import DEFAULT_MODEL
from knowledge.loaders import DEFAULT_MAX_DOC_MB
from tools.errors import AdvisorError

MANIFEST_COLLECTION = "gpu_advisor_manifests"
GUIDES = "guides"
USER = "user"
_NAME_RE = re.compile(r"^[a-z0-9](?:[a-z0-9-]|_(?!_)){1,40}[a-z0-9]$")


class StoreError(AdvisorError):
    """The store cannot be opened or is inconsistent; the message says how to recover."""


def default_data_dir() -> Path:
    """~/.local/share/gpu-advisor, or $XDG_DATA_HOME/gpu-advisor, or $GPU_ADVISOR_DATA_DIR."""
    if env := os.environ.get("GPU_ADVISOR_DATA_DIR"):
        return Path(env).expanduser()
    base = os.environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
    return Path(base).expanduser() / "gpu-advisor"


class KnowledgeConfig(BaseModel):
    """Where the store is and which model embeds it; environment variables fill what is not given."""

    data_dir: Path = Field(default_factory=default_data_dir, description="Local data directory")
    chroma_url: str | None = Field(
        default_factory=lambda: os.environ.get("GPU_ADVISOR_CHROMA_URL") or None,
        description="Chroma server URL (http://host:port); embedded store when empty",
    )
    embed_model: str = Field(
        default_factory=lambda: os.environ.get("GPU_ADVISOR_EMBED_MODEL") or DEFAULT_MODEL,
        description="sentence-transformers model name or path",
    )
    max_doc_mb: float = Field(
        default_factory=lambda: float(os.environ.get("GPU_ADVISOR_MAX_DOC_MB") or DEFAULT_MAX_DOC_MB),
        gt=0,
        description="Largest document accepted by ingest, in MB",
    )

    @classmethod
    def resolve(cls, **overrides: Any) -> KnowledgeConfig:
        """Build a config, ignoring overrides that are None."""
        return cls(**{k: v for k, v in overrides.items() if v is not None})


def check_collection_name(name: str) -> str:
    """Validate a logical collection name (Chroma needs 3+ characters; '__' separates generations)."""
    if not _NAME_RE.match(name):
        raise StoreError(
            f"invalid collection name '{name}' — use 3 to 42 lowercase letters, digits, '-' or single '_', "
            "starting and ending with a letter or digit"
        )
    return name


class DocEntry(BaseModel):
    """A document as recorded in a manifest."""

    doc_id: str
    title: str
    lang: str
    source: str
    format: str
    doc_hash: str
    chunk_ids: list[str]
    chunk_hashes: list[str]


class Manifest(BaseModel):
    """The live state of one logical collection."""

    collection: str
    generation: str = Field(description="Chroma collection holding the live chunks")
    previous: str | None = Field(default=None, description="The generation before, kept for in-flight readers")
    embed_model: str
    chunker_version: str
    source_digest: str | None = Field(default=None, description="Digest of the bundled guides (guides only)")
    docs: dict[str, DocEntry] = Field(default_factory=dict)
    chunk_count: int = 0
    updated_at: str = Field(default_factory=lambda: datetime.now(UTC).isoformat(timespec="seconds"))


class _FileManifests:
    """Manifests as JSON files switched atomically with os.replace."""

    def __init__(self, directory: Path) -> None:
        self.dir = directory

    def _path(self, name: str) -> Path:
        return self.dir / f"{name}.json"

    def names(self) -> list[str]:
        return sorted(p.stem for p in self.dir.glob("*.json")) if self.dir.is_dir() else []

    def read(self, name: str) -> Manifest | None:
        path = self._path(name)
        try:
            raw = path.read_text(encoding="utf-8")
        except FileNotFoundError:
            return None
        except OSError as exc:
            raise StoreError(f"cannot read the knowledge manifest {path}: {exc}") from None
        try:
            return Manifest.model_validate_json(raw)
        except ValueError:
            raise StoreError(
                f"the knowledge manifest {path} is corrupt — delete it and re-ingest "
                f"(`gpu-advisor ingest --guides` for the bundled guides, `gpu-advisor ingest PATH...` for yours)"
            ) from None

    def write(self, manifest: Manifest) -> None:
        self.dir.mkdir(parents=True, exist_ok=True)
        path = self._path(manifest.collection)
        tmp = path.with_suffix(f".{os.getpid()}.{threading.get_ident()}.tmp")
        try:
            with tmp.open("w", encoding="utf-8") as fh:
                fh.write(manifest.model_dump_json(indent=1))
                fh.flush()
                os.fsync(fh.fileno())
            os.replace(tmp, path)
        finally:
            tmp.unlink(missing_ok=True)
        dir_fd = os.open(self.dir, os.O_RDONLY)
        try:
            os.fsync(dir_fd)
        finally:
            os.close(dir_fd)

    def version(self) -> tuple:
        """Changes whenever any manifest is replaced (cheap: one stat per file)."""
        out = []
        for name in self.names():
            with contextlib.suppress(FileNotFoundError):
                st = self._path(name).stat()
                out.append((name, st.st_mtime_ns, st.st_ino, st.st_size))
        return tuple(out)


class _ChromaManifests:
    """Manifests as records of one Chroma collection (server mode); an upsert of one record is atomic."""

    def __init__(self, client: Any) -> None:
        self.client = client
        self._col = None

    @property
    def col(self):
        if self._col is None:
            self._col = self.client.get_or_create_collection(
                MANIFEST_COLLECTION, embedding_function=None, metadata={"gpu_advisor": "manifests"}
            )
        return self._col

    def _all(self) -> dict[str, str]:
        got = self.col.get(include=["documents"])
        return dict(zip(got["ids"], got["documents"] or [], strict=False))

    def names(self) -> list[str]:
        return sorted(self._all())

    def read(self, name: str) -> Manifest | None:
        got = self.col.get(ids=[name], include=["documents"])
        if not got["ids"]:
            return None
        try:
            return Manifest.model_validate_json(got["documents"][0])
        except ValueError:
            raise StoreError(
                f"the manifest record '{name}' in the Chroma server is corrupt — delete it from the "
                f"'{MANIFEST_COLLECTION}' collection and re-ingest"
            ) from None

    def write(self, manifest: Manifest) -> None:
        # Chroma needs a vector per record; a constant one keeps it from reaching for a default model.
        self.col.upsert(ids=[manifest.collection], documents=[manifest.model_dump_json()], embeddings=[[1.0]])

    def version(self) -> tuple:
        return tuple(sorted((k, hash(v)) for k, v in self._all().items()))


class KnowledgeStore:
    """Chroma client, manifests, per-collection ingest locks and generation bookkeeping."""

    def __init__(self, config: KnowledgeConfig | None = None) -> None:
        self.config = config or KnowledgeConfig()
        self.data_dir = Path(self.config.data_dir).expanduser()
        self._client = None
        self._manifests: _FileManifests | _ChromaManifests | None = None
        self._init_lock = threading.Lock()

    @property
    def server_mode(self) -> bool:
        return bool(self.config.chroma_url)

    @property
    def location(self) -> str:
        return self.config.chroma_url or str(self.data_dir)

    def _prepare_data_dir(self) -> None:
        if self.data_dir.exists() and not self.data_dir.is_dir():
            raise StoreError(
                f"the knowledge data directory {self.data_dir} is a file, not a directory — move it away or set "
                "GPU_ADVISOR_DATA_DIR (or --data-dir) to another place"
            )
        try:
            self.data_dir.mkdir(parents=True, exist_ok=True)
            (self.data_dir / "locks").mkdir(exist_ok=True)
        except OSError as exc:
            raise StoreError(
                f"cannot create the knowledge data directory {self.data_dir}: {exc.strerror} — set "
                "GPU_ADVISOR_DATA_DIR (or --data-dir) to a writable place"
            ) from None

    @property
    def client(self):
        """The Chroma client, opened on first use (telemetry off)."""
        with self._init_lock:
            if self._client is None:
                self._prepare_data_dir()
                self._client = self._open_client()
            return self._client

    def _open_client(self):
        os.environ.setdefault("ANONYMIZED_TELEMETRY", "False")
        import chromadb
        from chromadb.config import Settings

        settings = Settings(anonymized_telemetry=False, allow_reset=False)
        if self.config.chroma_url:
            url = urlparse(
                self.config.chroma_url if "://" in self.config.chroma_url else f"http://{self.config.chroma_url}"
            )
            try:
                client = chromadb.HttpClient(
                    host=url.hostname or "localhost",
                    port=url.port or (443 if url.scheme == "https" else 8000),
                    ssl=url.scheme == "https",
                    settings=settings,
                )
                client.heartbeat()
            except Exception as exc:
                raise StoreError(
                    f"cannot reach the Chroma server at {self.config.chroma_url} ({type(exc).__name__}: "
                    f"{str(exc).splitlines()[0] if str(exc) else 'no answer'}) — start it (`chroma run --path DIR "
                    "--port N`) or unset GPU_ADVISOR_CHROMA_URL to use the embedded store"
                ) from None
            return client
        path = self.data_dir / "chroma"
        try:
            client = chromadb.PersistentClient(path=str(path), settings=settings)
            client.list_collections()
        except Exception as exc:
            raise StoreError(
                f"the knowledge store at {path} is unreadable ({str(exc).splitlines()[0] if str(exc) else exc!r}) "
                f"— move or delete that folder, then run `gpu-advisor ingest --guides` (and re-ingest your own "
                "documents)"
            ) from None
        return client

    @property
    def manifests(self) -> _FileManifests | _ChromaManifests:
        if self._manifests is None:
            if self.server_mode:
                self._manifests = _ChromaManifests(self.client)
            else:
                self._prepare_data_dir()
                self._manifests = _FileManifests(self.data_dir / "manifests")
        return self._manifests

    def read_manifest(self, name: str) -> Manifest | None:
        return self.manifests.read(name)

    def collection_names(self) -> list[str]:
        """Logical collections that have a manifest."""
        return self.manifests.names()

    def write_manifest(self, manifest: Manifest) -> None:
        """Make `manifest.generation` the live generation, atomically."""
        self.manifests.write(manifest)

    def manifest_version(self) -> tuple:
        return self.manifests.version()

    @contextlib.contextmanager
    def lock(self, name: str) -> Iterator[None]:
        """Serialize ingests of one logical collection across processes (a local file lock)."""
        self._prepare_data_dir()
        path = self.data_dir / "locks" / f"{name}.lock"
        with path.open("a+") as fh:
            fcntl.flock(fh.fileno(), fcntl.LOCK_EX)
            try:
                yield
            finally:
                fcntl.flock(fh.fileno(), fcntl.LOCK_UN)

    def new_generation(self, name: str, embed_model: str):
        """Create an empty staging collection for `name`."""
        generation = f"{name}__{uuid.uuid4().hex[:10]}"
        col = self.client.create_collection(
            generation,
            embedding_function=None,
            configuration={"hnsw": {"space": "cosine"}},
            metadata={
                "gpu_advisor": "generation",
                "logical": name,
                "embed_model": embed_model,
                "created": datetime.now(UTC).isoformat(timespec="seconds"),
            },
        )
        return generation, col

    def generation(self, generation: str):
        """Open a generation; None when it does not exist."""
        from chromadb.errors import NotFoundError

        try:
            return self.client.get_collection(generation, embedding_function=None)
        except NotFoundError:
            return None
        except ValueError as exc:  # older clients raise ValueError for a missing collection
            if "does not exist" in str(exc):
                return None
            raise

    def generations(self, name: str) -> list[str]:
        """All Chroma collections that belong to logical collection `name` (live, previous, or leftovers)."""
        prefix = f"{name}__"
        return [c.name for c in self.client.list_collections() if c.name.startswith(prefix)]

    def corpus_path(self, generation: str) -> Path:
        """The saved BM25 corpus of `generation` (knowledge/bm25.py): a local file, in server mode too."""
        return self.data_dir / "bm25" / f"{generation}.json"

    def postings_path(self, generation: str) -> Path:
        """The saved BM25 index built from that corpus (knowledge/bm25.py), removed with it."""
        return self.data_dir / "bm25" / f"{generation}.postings.npz"

    def drop_generation(self, generation: str) -> None:
        from chromadb.errors import NotFoundError

        self.corpus_path(generation).unlink(missing_ok=True)
        self.postings_path(generation).unlink(missing_ok=True)
        with contextlib.suppress(NotFoundError, ValueError):
            self.client.delete_collection(generation)

    def collect_garbage(self, name: str, keep: set[str]) -> list[str]:
        """Drop generations of `name` not in `keep` (superseded ones and leftovers of killed ingests)."""
        dropped = []
        for generation in self.generations(name):
            if generation not in keep:
                self.drop_generation(generation)
                dropped.append(generation)
        return dropped
