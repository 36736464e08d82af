"""The Advisor in a child process, for the web app.

A turn costs the Advisor ~50-70 ms of Python (LangGraph, the planner, the tools, retrieval) and the web
server about as much again (Gradio's queue, diffs, event stream). In one process both hold the same
interpreter lock, so under load they take turns on one core however many the machine has; with the
Advisor in its own process they run side by side, and a busy Advisor never stalls the page.

`AdvisorProcess` has the Advisor's interface (`stream_turn`, `reset`), so the app cannot tell them
apart. Requests and events cross a pipe (pickled in memory; an API key in a session's settings is
never written anywhere). Conversations live in the Advisor's session store (assistant/sessions.py: a
SQLite file by default, PostgreSQL for several replicas), so `history` and `scenario` return them after
a restart too. If the child dies, the turns in flight end with a message, and the next turn starts a
fresh child, which finds the saved conversations (only an in-memory store, `GPU_ADVISOR_SESSIONS_URL=
memory`, loses them).
"""

from __future__ import annotations

import contextlib
import importlib
import itertools
import logging
import multiprocessing
import os
import queue
import signal
import threading
import time
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from assistant.events import Event
from assistant.settings import Settings

log = logging.getLogger(__name__)

TURN_TIMEOUT_S = 600.0  # a turn silent for this long is abandoned (providers have their own, shorter timeouts)
START_TIMEOUT_S = 120.0
_END, _EVENT, _RAISE, _READY = "end", "event", "raise", "ready"


class WorkerError(RuntimeError):
    """The assistant process failed or stopped; the message says what the user can do."""


def _factory(path: str) -> Any:
    module, _, name = path.partition(":")
    return getattr(importlib.import_module(module), name)


def _results(advisor: Any, method: str, args: tuple) -> Iterator[Any]:
    """What a call sends back: each event of a turn, or the one value of `history` or `scenario`."""
    if method == "stream_turn":
        yield from advisor.stream_turn(*args)
        return
    value = getattr(advisor, method)(*args)
    if value is not None:
        yield value


def _serve(conn: Any, settings: Settings, factory: str, threads: int) -> None:
    """The child: one Advisor, turns run on a thread pool, every message back over `conn`."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl+C stops the parent; the child ends when the pipe closes
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("ANONYMIZED_TELEMETRY", "False")
    from assistant.providers import install_log_redaction

    install_log_redaction()
    advisor = _factory(factory)(settings)
    send_lock = threading.Lock()

    def send(*message: Any) -> None:
        with send_lock:
            conn.send(message)

    def warm(rid: int) -> None:  # so the first user's answer does not wait for models and data to load
        try:
            if hasattr(advisor, "warm_up"):
                advisor.warm_up(progress=lambda stage: send(_EVENT, rid, stage))
        except Exception as exc:  # a real turn reports whatever is wrong
            log.warning("warming up the assistant failed: %s", exc)

    def run(rid: int, method: str, args: tuple) -> None:
        try:
            if method == "warm_up":  # its stages go back as they start, for the terminal's progress line
                warm(rid)
            else:
                for payload in _results(advisor, method, args):
                    send(_EVENT, rid, payload)
            send(_END, rid, None)
        except BaseException as exc:  # reported to the caller, whose UI turns it into a message
            log.exception("%s failed in the assistant process", method)
            with contextlib.suppress(OSError, ValueError):
                send(_RAISE, rid, f"{type(exc).__name__}: {exc}")

    send(_READY, 0, os.getpid())  # the parent asks for the warm-up next (AdvisorProcess.start)
    pool = ThreadPoolExecutor(max_workers=threads, thread_name_prefix="turn")
    while True:
        try:
            message = conn.recv()
        except (EOFError, OSError):  # the parent is gone
            break
        if message is None:
            break
        rid, method, args = message
        pool.submit(run, rid, method, args)
    # Nobody is left to read an answer: end now rather than wait for a turn that may be stuck on a slow
    # LLM (an interrupted ingest leaves the previous store live: generations switch atomically).
    pool.shutdown(wait=False, cancel_futures=True)
    logging.shutdown()
    os._exit(0)


DEFAULT_FACTORY = "assistant.advisor:Advisor"


class AdvisorProcess:
    """Runs an Advisor (or `factory(settings)`, "module:callable") in a child process."""

    def __init__(
        self,
        settings: Settings | None = None,
        factory: str = DEFAULT_FACTORY,
        threads: int = 16,
        turn_timeout_s: float = TURN_TIMEOUT_S,
    ) -> None:
        self.settings = settings or Settings()
        self.factory = factory
        self.threads = threads
        self.turn_timeout_s = turn_timeout_s
        self._lock = threading.Lock()
        self._send_lock = threading.Lock()
        self._ids = itertools.count(1)
        self._inbox: dict[int, queue.SimpleQueue] = {}
        self._proc: Any = None
        self._conn: Any = None
        self._warm_stage: str | None = None  # what the child's warm-up is doing, while it runs
        self._warmed = threading.Event()
        self.restarts = -1  # becomes 0 with the first start

    # ---- lifecycle -------------------------------------------------------------------------------
    def start(self) -> AdvisorProcess:
        """Start the child if it is not running (the first turn does this too)."""
        with self._lock:
            if self._proc is not None and self._proc.is_alive():
                return self
            # spawn, not fork: the parent runs threads (and may hold torch), which a fork copies half-way.
            ctx = multiprocessing.get_context("spawn")
            parent, child = ctx.Pipe()
            proc = ctx.Process(
                target=_serve,
                args=(child, self.settings, self.factory, self.threads),
                name="gpu-advisor-assistant",
                daemon=True,
            )
            proc.start()
            child.close()
            if not parent.poll(START_TIMEOUT_S):
                proc.kill()
                raise WorkerError(f"the assistant process did not start within {START_TIMEOUT_S:g} s")
            try:
                kind, _, _ = parent.recv()
            except EOFError:
                proc.join(5)
                raise WorkerError(f"the assistant process exited at start (exit code {proc.exitcode})") from None
            if kind != _READY:
                raise WorkerError(f"the assistant process sent {kind!r} instead of starting")
            self._proc, self._conn = proc, parent
            self.restarts += 1
            threading.Thread(target=self._read, args=(proc, parent), name="assistant-reader", daemon=True).start()
            self._warmed.clear()
            self._warm_stage = None
            threading.Thread(target=self._warm_child, name="assistant-warm-up", daemon=True).start()
            return self

    def _warm_child(self) -> None:
        """Every start warms the child (models, guides, data), so the first user's answer does not wait."""
        try:
            for _, stage in self._call("warm_up", ()):
                self._warm_stage = stage
        except WorkerError as exc:  # the first turn starts the child again and reports what is wrong
            log.warning("warming up the assistant failed: %s", exc)
        finally:
            self._warmed.set()

    def warm_up(self, progress: Callable[[str], None] | None = None, timeout_s: float = START_TIMEOUT_S) -> bool:
        """Start the child and wait until it is warm, telling `progress` each stage it starts (as Advisor.warm_up
        does); False if it is not warm within `timeout_s`."""
        self.start()
        told: str | None = None
        deadline = time.monotonic() + timeout_s
        while True:
            done = self._warmed.wait(0.1)
            stage = self._warm_stage
            if progress is not None and stage is not None and stage != told:
                progress(stage)
                told = stage
            if done:
                return True
            if time.monotonic() > deadline:
                return False

    def close(self) -> None:
        with self._lock:
            proc, conn, self._proc, self._conn = self._proc, self._conn, None, None
        if conn is not None:
            try:
                with self._send_lock:
                    conn.send(None)
            except (OSError, ValueError):
                pass
        if proc is not None:
            proc.join(5)
            if proc.is_alive():
                proc.kill()
                proc.join(5)

    @property
    def pid(self) -> int | None:
        return self._proc.pid if self._proc is not None else None

    def _read(self, proc: Any, conn: Any) -> None:
        """Route the child's messages to the waiting calls; when it dies, end every call in flight."""
        while True:
            try:
                kind, rid, payload = conn.recv()
            except (EOFError, OSError):
                break
            box = self._inbox.get(rid)
            if box is not None:
                box.put((kind, payload))
        proc.join(5)
        reason = (
            f"the assistant process stopped (exit code {proc.exitcode}) — ask again: it restarts by itself "
            "and picks up the saved conversation"
        )
        with self._lock:
            if self._proc is proc:
                self._proc, self._conn = None, None
            waiting = list(self._inbox.values())
        for box in waiting:
            box.put((_RAISE, reason))

    def _call(self, method: str, args: tuple) -> Iterator[tuple[str, Any]]:
        self.start()
        rid = next(self._ids)
        box: queue.SimpleQueue = queue.SimpleQueue()
        self._inbox[rid] = box
        try:
            with self._lock:
                conn = self._conn
            if conn is None:
                raise WorkerError("the assistant process is not running")
            try:
                with self._send_lock:
                    conn.send((rid, method, args))
            except (OSError, ValueError) as exc:
                raise WorkerError(f"the assistant process is not reachable ({exc})") from exc
            while True:
                try:
                    kind, payload = box.get(timeout=self.turn_timeout_s)
                except queue.Empty:
                    raise WorkerError(f"no answer from the assistant within {self.turn_timeout_s:g} s") from None
                if kind == _END:
                    return
                if kind == _RAISE:
                    raise WorkerError(str(payload))
                yield kind, payload
        finally:
            self._inbox.pop(rid, None)  # a turn abandoned by its caller: later messages are dropped

    # ---- the Advisor's interface -----------------------------------------------------------------
    def stream_turn(
        self, session_id: str, text: str, provider: str | None = None, settings: Settings | None = None
    ) -> Iterator[Event]:
        """The Advisor's events for one turn; WorkerError (a message for the user) if the process fails."""
        for _, event in self._call("stream_turn", (session_id, text, provider, settings)):
            yield event

    def reset(self, session_id: str) -> None:
        for _ in self._call("reset", (session_id,)):
            pass

    def history(self, session_id: str) -> list[tuple[str, str]]:
        """The session's questions and answers, from the session store (also after a restart)."""
        return self._value("history", (session_id,), [])

    def scenario(self, session_id: str) -> Any:
        """The session's scenario, rebuilt from its saved messages."""
        return self._value("scenario", (session_id,), None)

    def proposal(self, session_id: str, out_dir: str, stem: str | None = None) -> Any:
        """The session's purchase proposal files, written by the assistant process (Advisor.proposal)."""
        return self._value("proposal", (session_id, out_dir, stem), None)

    def _value(self, method: str, args: tuple, default: Any) -> Any:
        value = default
        for _, payload in self._call(method, args):
            value = payload
        return value
