"""Where conversations persist: a LangGraph checkpointer plus a small index of sessions.

- default: a SQLite file, `<data dir>/sessions.sqlite` (`langgraph-checkpoint-sqlite`);
- `GPU_ADVISOR_SESSIONS_URL=postgresql://…`: PostgreSQL (`langgraph-checkpoint-postgres`), which several
  replicas of the app share, so a conversation begun on one continues on another;
- `GPU_ADVISOR_SESSIONS_URL=memory`: nothing is written (the conversation lasts as long as the process).

The scenario is derived from the messages (`scenario_from_messages`), so persisting the messages persists
the scenario. Next to the checkpoints, a table `gpu_advisor_sessions` keeps one row per session (title,
turns, first and last activity) for `gpu-advisor sessions` and for retention by age and count, which
runs when a store opens and after every saved turn and never deletes the session being written.

A store that cannot be used (a damaged or locked SQLite file, an unreachable PostgreSQL) raises
`SessionStoreError` with a one-line message; the Advisor then answers in a fresh in-memory session. A
damaged file is left where it is, untouched: the message says so and how to start a new one.
The SQLite and PostgreSQL savers (and psycopg) are imported only when such a store is opened.
"""

from __future__ import annotations

import atexit
import contextlib
import sqlite3
import sys
import threading
import time
from collections.abc import Iterable
from pathlib import Path
from typing import Any, Literal
from urllib.parse import urlsplit, urlunsplit

from pydantic import BaseModel, Field

from tools.errors import AdvisorError

MEMORY = "memory"
SQLITE_FILE = "sessions.sqlite"
INDEX = "gpu_advisor_sessions"
PRIVATE_PREFIX = "__"  # sessions the Advisor uses for itself (warm-up): never indexed
TITLE_CHARS = 80
_PG_SETUP_LOCK = 7_243_911_502  # pg_advisory_lock key: replicas starting together migrate one at a time
SETUP_WAIT_S = 120.0  # how long a replica waits for another one's migrations (index builds on a big table)

_INDEX_DDL = f"""CREATE TABLE IF NOT EXISTS {INDEX} (
    session_id TEXT PRIMARY KEY,
    title TEXT NOT NULL DEFAULT '',
    turns INTEGER NOT NULL DEFAULT 0,
    created_at DOUBLE PRECISION NOT NULL,
    updated_at DOUBLE PRECISION NOT NULL
)"""
_UPSERT = (
    f"INSERT INTO {INDEX} (session_id, title, turns, created_at, updated_at) VALUES (?, ?, ?, ?, ?) "
    "ON CONFLICT (session_id) DO UPDATE SET title = excluded.title, turns = excluded.turns, "
    "updated_at = excluded.updated_at"
)
_COLUMNS = "session_id, title, turns, created_at, updated_at"


class SessionStoreError(AdvisorError):
    """The session store cannot be used; the one-line message says why and what to do."""


class SessionInfo(BaseModel):
    """One saved conversation, as `gpu-advisor sessions list` shows it."""

    session_id: str
    title: str = Field(description="the first question, shortened")
    turns: int = Field(description="questions asked so far")
    created_at: float = Field(description="first turn, seconds since the epoch")
    updated_at: float = Field(description="latest turn, seconds since the epoch")


# ---- where the store is ---------------------------------------------------------------------------


def store_kind(url: str | None) -> Literal["sqlite", "postgres", "memory"]:
    """What GPU_ADVISOR_SESSIONS_URL names: a PostgreSQL URL, `memory`, or else a SQLite file."""
    value = (url or "").strip()
    if value.lower() == MEMORY:
        return "memory"
    scheme = urlsplit(value).scheme.lower() if "://" in value else ""
    if scheme in ("postgres", "postgresql"):
        return "postgres"
    if scheme in ("", "sqlite", "file"):
        return "sqlite"
    raise ValueError(
        f"unknown session store {redact(value)!r} — use postgresql://user:password@host:5432/db, "
        "a SQLite file path, or 'memory'"
    )


def sqlite_path(url: str | None, data_dir: Path | None = None) -> Path:
    """The SQLite file: the URL's path (`sqlite:///abs/file.sqlite` or a plain path), or the data dir's."""
    value = (url or "").strip()
    if value:
        return Path(value.split("://", 1)[1] if "://" in value else value).expanduser()
    if data_dir is None:
        from knowledge.store import default_data_dir

        data_dir = default_data_dir()
    return Path(data_dir).expanduser() / SQLITE_FILE


def redact(url: str) -> str:
    """The URL without its password, for messages and `sessions list`."""
    parts = urlsplit(url) if "://" in url else None
    if parts is None or parts.password is None:
        return url
    netloc = parts.netloc.replace(f":{parts.password}@", ":***@", 1)
    return urlunsplit(parts._replace(netloc=netloc))


def _one_line(exc: BaseException) -> str:
    text = " ".join(str(exc).split()) or type(exc).__name__
    return text[:300]


# ---- what a conversation looks like ------------------------------------------------------------------


def conversation(messages: Iterable[Any]) -> list[tuple[str, str]]:
    """(role, text) pairs a person would see: questions and answers, without tool traffic."""
    out = []
    for m in messages:
        if m.type == "human" or (m.type == "ai" and not getattr(m, "tool_calls", None) and m.content):
            out.append(("user" if m.type == "human" else "assistant", str(m.content)))
    return out


def _title(messages: list[Any]) -> str:
    first = next((str(m.content) for m in messages if m.type == "human"), "")
    first = " ".join(first.split())
    return first if len(first) <= TITLE_CHARS else first[: TITLE_CHARS - 1] + "…"


# ---- backends: a checkpointer and a way to run SQL next to it -------------------------------------------


class _Backend:
    kind: str
    location: str
    checkpointer: Any

    def open(self) -> _Backend:
        return self

    def rows(self, sql: str, params: tuple = ()) -> list[tuple]:
        raise NotImplementedError

    def prune(self, session_id: str) -> None:
        """Drop a session's older checkpoints: only the latest is ever read back."""

    def probe(self) -> None:
        """Raise if the store cannot be read and written now."""
        self.rows(f"SELECT session_id FROM {INDEX} LIMIT 1")

    def close(self) -> None:
        pass


class _LockedConnection:
    """A sqlite3 connection shared by threads, one statement at a time."""

    def __init__(self, conn: sqlite3.Connection, lock: Any) -> None:
        self.conn, self.lock = conn, lock

    def rows(self, sql: str, params: tuple = ()) -> list[tuple]:
        with self.lock:
            try:
                cur = self.conn.execute(sql, params)
                out = cur.fetchall()
                self.conn.commit()
                return out
            except BaseException:
                self.conn.rollback()
                raise


class _MemoryBackend(_Backend):
    kind, location = "memory", MEMORY

    def __init__(self) -> None:
        from langgraph.checkpoint.memory import InMemorySaver

        self.checkpointer = InMemorySaver()
        self._db = _LockedConnection(sqlite3.connect(":memory:", check_same_thread=False), threading.Lock())
        self._db.rows(_INDEX_DDL)

    def rows(self, sql: str, params: tuple = ()) -> list[tuple]:
        return self._db.rows(sql, params)


class _SqliteBackend(_Backend):
    kind = "sqlite"

    def __init__(self, path: Path, timeout_s: float) -> None:
        self.path, self.location, self.timeout_s = path, str(path), timeout_s
        self._conn: sqlite3.Connection | None = None

    def open(self) -> _SqliteBackend:
        from langgraph.checkpoint.sqlite import SqliteSaver

        self._conn = sqlite3.connect(self.path, check_same_thread=False, timeout=self.timeout_s)
        self.checkpointer = SqliteSaver(self._conn)
        self._db = _LockedConnection(self._conn, self.checkpointer.lock)  # the saver's lock: one user at a time
        self.checkpointer.setup()  # WAL mode, the checkpoint tables
        self.rows("PRAGMA synchronous=NORMAL")  # WAL + NORMAL: a crash loses at most the last turn, never the file
        self.rows(_INDEX_DDL)
        self.probe()
        return self

    def rows(self, sql: str, params: tuple = ()) -> list[tuple]:
        return self._db.rows(sql, params)

    def probe(self) -> None:
        super().probe()
        with self._db.lock:  # a write lock held elsewhere shows here, after the busy timeout
            self._db.conn.execute("BEGIN IMMEDIATE")
            self._db.conn.rollback()

    def prune(self, session_id: str) -> None:
        latest = "(SELECT MAX(checkpoint_id) FROM checkpoints WHERE thread_id = ? AND checkpoint_ns = '')"
        for table in ("writes", "checkpoints"):
            self.rows(
                f"DELETE FROM {table} WHERE thread_id = ? AND checkpoint_ns = '' AND checkpoint_id < {latest}",
                (session_id, session_id),
            )

    def close(self) -> None:
        if self._conn is not None:
            self._conn.close()


class _PostgresBackend(_Backend):
    kind = "postgres"

    def __init__(self, url: str, timeout_s: float) -> None:
        self.url, self.location, self.timeout_s = url, redact(url), timeout_s
        self.pool: Any = None

    def _kwargs(self) -> dict[str, Any]:
        from psycopg.rows import dict_row

        # autocommit + no prepared statements: what PostgresSaver expects (and what poolers like PgBouncer need)
        return {"autocommit": True, "prepare_threshold": 0, "row_factory": dict_row}

    def open(self) -> _PostgresBackend:
        import psycopg
        from langgraph.checkpoint.postgres import PostgresSaver
        from psycopg_pool import ConnectionPool

        connect_timeout = max(2, round(self.timeout_s))  # libpq's smallest
        with psycopg.connect(self.url, connect_timeout=connect_timeout, **self._kwargs()) as conn:
            self._take_setup_lock(conn)
            try:
                PostgresSaver(conn).setup()
                conn.execute(_INDEX_DDL)
            finally:
                conn.execute("SELECT pg_advisory_unlock(%s)", (_PG_SETUP_LOCK,))
        kwargs = {**self._kwargs(), "connect_timeout": connect_timeout}
        self.pool = ConnectionPool(
            self.url,
            kwargs=kwargs,
            min_size=1,
            max_size=4,
            open=False,
            timeout=max(self.timeout_s, 5.0),
            check=ConnectionPool.check_connection,  # a restarted server: reconnect instead of failing the turn
            name="gpu-advisor-sessions",
        )
        self.pool.open(wait=True, timeout=max(self.timeout_s, 5.0))
        atexit.register(self.close)
        self.checkpointer = PostgresSaver(self.pool)
        return self

    def _take_setup_lock(self, conn: Any) -> None:
        """Wait for the migration lock by polling, never inside a blocked statement.

        The saver's migrations build indexes with CREATE INDEX CONCURRENTLY, which waits for every open
        transaction to finish. A replica blocked in `pg_advisory_lock` is such a transaction, and it waits for
        the lock the migrating replica holds: PostgreSQL reports a deadlock and one replica starts without its
        store. Between polls the waiting replica has no transaction open, so the index build goes through.
        """
        deadline = time.monotonic() + max(SETUP_WAIT_S, self.timeout_s)
        while not conn.execute("SELECT pg_try_advisory_lock(%s) AS got", (_PG_SETUP_LOCK,)).fetchone()["got"]:
            if time.monotonic() > deadline:
                raise SessionStoreError(
                    f"another process has been setting up the session database for over {SETUP_WAIT_S:.0f} s"
                )
            time.sleep(0.2)

    def rows(self, sql: str, params: tuple = ()) -> list[tuple]:
        def run() -> list[tuple]:
            with self.pool.connection() as conn:
                cur = conn.execute(sql.replace("?", "%s"), params)
                return [tuple(r.values()) for r in cur.fetchall()] if cur.description else []

        return _retry_collisions(run)

    def prune(self, session_id: str) -> None:
        def keep_latest() -> None:
            with contextlib.suppress(NotImplementedError):  # a thread with delta channels keeps its history
                self.checkpointer.prune([session_id], strategy="keep_latest")

        _retry_collisions(keep_latest)

    def close(self) -> None:
        atexit.unregister(self.close)
        if self.pool is not None:
            self.pool.close()


def _retry_collisions(work: Any, attempts: int = 4) -> Any:
    """Run `work`, retrying when PostgreSQL aborts it as a deadlock or serialization failure.

    Housekeeping (pruning old checkpoints, retention) can collide with a write still landing for the same
    thread: the graph persists its last checkpoint in the background, and another replica may be pruning.
    PostgreSQL then aborts one side; each statement here runs in autocommit, so running it again is safe.
    """
    from psycopg import errors

    for attempt in range(attempts):
        try:
            return work()
        except (errors.DeadlockDetected, errors.SerializationFailure):
            if attempt == attempts - 1:
                raise
            time.sleep(0.05 * 2**attempt)
    return None


# ---- the store --------------------------------------------------------------------------------------


class SessionStore:
    """A checkpointer for the agent, plus listing, deleting and retention of saved sessions."""

    def __init__(
        self, backend: _Backend, max_age_days: float = 0, max_count: int = 0, notice: str | None = None
    ) -> None:
        self._backend = backend
        self.max_age_days = max_age_days
        self.max_count = max_count
        self.notice = notice  # why this store is not the configured one (a fresh in-memory store)

    @property
    def checkpointer(self) -> Any:
        return self._backend.checkpointer

    @property
    def kind(self) -> str:
        return self._backend.kind

    @property
    def location(self) -> str:
        return self._backend.location

    @property
    def persistent(self) -> bool:
        return self.kind != "memory"

    def messages(self, session_id: str) -> list[Any]:
        snapshot = self.checkpointer.get_tuple({"configurable": {"thread_id": session_id}})
        if snapshot is None:
            return []
        return list(snapshot.checkpoint.get("channel_values", {}).get("messages", []))

    def saved(self, session_id: str, messages: list[Any], keep: Iterable[str] = (), now: float | None = None) -> None:
        """Index a session after a turn, drop its older checkpoints and apply retention."""
        if session_id.startswith(PRIVATE_PREFIX):
            return
        now = time.time() if now is None else now
        turns = sum(1 for m in messages if m.type == "human")
        self._backend.rows(_UPSERT, (session_id, _title(messages), turns, now, now))
        self._backend.prune(session_id)
        self.apply_retention(keep={session_id, *keep}, now=now)

    def list_sessions(self) -> list[SessionInfo]:
        rows = self._backend.rows(f"SELECT {_COLUMNS} FROM {INDEX} ORDER BY updated_at DESC, session_id")
        return [SessionInfo(**dict(zip(SessionInfo.model_fields, r, strict=True))) for r in rows]

    def get(self, session_id: str) -> SessionInfo | None:
        rows = self._backend.rows(f"SELECT {_COLUMNS} FROM {INDEX} WHERE session_id = ?", (session_id,))
        return SessionInfo(**dict(zip(SessionInfo.model_fields, rows[0], strict=True))) if rows else None

    def delete(self, session_id: str) -> bool:
        """Forget a session: its checkpoints and its index row. True if there was anything to forget."""
        known = self.get(session_id) is not None or bool(self.messages(session_id))
        self.checkpointer.delete_thread(session_id)
        self._backend.rows(f"DELETE FROM {INDEX} WHERE session_id = ?", (session_id,))
        return known

    def apply_retention(self, keep: Iterable[str] = (), now: float | None = None) -> list[str]:
        """Delete sessions idle longer than max_age_days and the oldest beyond max_count; never those in `keep`."""
        if not self.max_age_days and not self.max_count:
            return []
        now = time.time() if now is None else now
        keep = set(keep)
        rows = self._backend.rows(f"SELECT session_id, updated_at FROM {INDEX} ORDER BY updated_at DESC, session_id")
        cutoff = now - self.max_age_days * 86400 if self.max_age_days else None
        expired = [sid for sid, updated in rows if cutoff is not None and updated < cutoff]
        if self.max_count:
            expired += [sid for sid, _ in rows[self.max_count :]]
        doomed = [sid for sid in dict.fromkeys(expired) if sid not in keep]
        for sid in doomed:
            self.delete(sid)
        return doomed

    def check(self) -> str | None:
        """None if the store works now, else a one-line reason."""
        try:
            self._backend.probe()
        except Exception as exc:
            return describe_failure(self, exc)
        return None

    def close(self) -> None:
        self._backend.close()


def memory_store(notice: str | None = None, max_age_days: float = 0, max_count: int = 0) -> SessionStore:
    return SessionStore(_MemoryBackend(), max_age_days, max_count, notice=notice)


def open_store(settings: Any) -> SessionStore:
    """The store the settings name (sessions_url, data_dir, retention), opened, checked and tidied."""
    url = settings.sessions_url
    kind = store_kind(url)
    age, count = settings.sessions_max_age_days, settings.sessions_max_count
    if kind == "memory":
        return memory_store(max_age_days=age, max_count=count)
    backend: _Backend
    if kind == "postgres":
        backend = _PostgresBackend(url, settings.sessions_timeout_s)
    else:
        backend = _SqliteBackend(_sqlite_file(url, settings.data_dir), settings.sessions_timeout_s)
    try:
        store = SessionStore(backend.open(), age, count)
        store.apply_retention()
    except Exception as exc:
        with contextlib.suppress(Exception):  # closing a store that failed to open: nothing more to report
            backend.close()
        raise SessionStoreError(describe_failure(backend, exc)) from exc
    return store


def _sqlite_file(url: str | None, data_dir: Path | None) -> Path:
    path = sqlite_path(url, data_dir)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        if not path.exists():
            path.touch(mode=0o600)  # conversations are private; SQLite gives its -wal and -shm files the same mode
    except OSError as exc:
        raise SessionStoreError(
            f"cannot create the folder for the session store {path} ({_one_line(exc)}) — set "
            "GPU_ADVISOR_DATA_DIR or GPU_ADVISOR_SESSIONS_URL to a writable place; this answer is not saved"
        ) from exc
    return path


# ---- failures as one line for people ------------------------------------------------------------------

_UNSAVED = "this conversation is answered in a new session that is not saved"


def describe_failure(store: Any, exc: BaseException) -> str:
    """One line: what is wrong with the store, what happens now, and what to do."""
    reason = _one_line(exc)
    where = store.location
    if store.kind == "postgres":
        return (
            f"cannot use the session database {where} ({reason}) — {_UNSAVED}; start PostgreSQL or fix "
            "GPU_ADVISOR_SESSIONS_URL"
        )
    low = reason.lower()
    if "locked" in low or "busy" in low:
        return f"the session store {where} is locked by another process — {_UNSAVED}; try again when it is free"
    if "not a database" in low or "malformed" in low or "corrupt" in low:
        return (
            f"the session store {where} is damaged ({reason}); it was left untouched — {_UNSAVED}; move it "
            f"aside (mv {where} {where}.bad) to start a new store"
        )
    return f"cannot use the session store {where} ({reason}) — {_UNSAVED}; check GPU_ADVISOR_DATA_DIR"


def is_store_error(exc: BaseException) -> bool:
    """Whether an exception (or what caused it) came from a session database driver."""
    kinds: list[type] = [sqlite3.Error, SessionStoreError]
    if "psycopg" in sys.modules:
        kinds.append(sys.modules["psycopg"].Error)
    if "psycopg_pool" in sys.modules:
        kinds.append(sys.modules["psycopg_pool"].PoolTimeout)
    seen: set[int] = set()
    current: BaseException | None = exc
    while current is not None and id(current) not in seen:
        if isinstance(current, tuple(kinds)):
            return True
        seen.add(id(current))
        current = current.__cause__ or current.__context__
    return False
