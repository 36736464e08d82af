"""Pace a turn's events for the browser: at most one render per interval, and never a stale screen.

Every render re-sends the chat (the server diffs it, the browser redraws it), so rendering per event is
what makes a busy server slow: a fast offline turn emits a few hundred events in 50 ms. Throttling in
the consuming loop alone is not enough either: an event held back for the next render would wait for
an event that may not come for a long time (an LLM thinking after its tool call), leaving the tool
bubble unseen. So a helper thread drains the turn and the caller wakes when an interval ends.
"""

from __future__ import annotations

import queue
import threading
import time
from collections.abc import Iterator
from typing import Generic, TypeVar

T = TypeVar("T")

_DONE = object()


class _Raised:
    def __init__(self, exc: BaseException) -> None:
        self.exc = exc


class Batch(Generic[T]):
    """Events to apply before the next render; `last` when the turn has ended (render the final view)."""

    __slots__ = ("events", "last")

    def __init__(self, events: list[T], last: bool) -> None:
        self.events = events
        self.last = last


def paced(events: Iterator[T], interval_s: float, rendered: bool = True) -> Iterator[Batch[T]]:
    """Batches of `events`: one as soon as `interval_s` has passed since the previous batch and something
    new arrived, and a final one (`last=True`, possibly empty) when `events` ends. An exception raised by
    `events` is raised here after the batch of events that came before it.

    `rendered=False`: the caller has not drawn anything for this turn yet (not even the user's message),
    so an empty batch comes after `interval_s` if the turn is still quiet then; a turn that ends sooner
    is drawn once, complete."""
    inbox: queue.SimpleQueue = queue.SimpleQueue()

    def pump() -> None:
        try:
            for event in events:
                inbox.put(event)
        except BaseException as exc:  # handed to the consumer, which decides what the user sees
            inbox.put(_Raised(exc))
        finally:
            inbox.put(_DONE)

    threading.Thread(target=pump, name="turn-events", daemon=True).start()
    pending: list[T] = []
    last = time.monotonic()  # when the caller last rendered (or started the turn)
    while True:
        try:
            waiting = pending or not rendered
            timeout = max(0.0, last + interval_s - time.monotonic()) if waiting else None
            item = inbox.get(timeout=timeout)
        except queue.Empty:  # the interval is over and the screen is behind: render now
            yield Batch(pending, last=False)
            pending, last, rendered = [], time.monotonic(), True
            continue
        if item is _DONE:
            yield Batch(pending, last=True)
            return
        if isinstance(item, _Raised):
            if pending:
                yield Batch(pending, last=False)
            raise item.exc
        pending.append(item)
        if time.monotonic() - last >= interval_s:
            yield Batch(pending, last=False)
            pending, last, rendered = [], time.monotonic(), True


class Load:
    """Turns in flight in this server, for pacing: with many at once every render competes for the same
    CPU, so each turn renders less often (the final answer is never delayed, only intermediate frames)."""

    def __init__(self, base_s: float, per: int = 4) -> None:
        self.base_s, self.per = base_s, per
        self._active = 0
        self._lock = threading.Lock()

    def interval_s(self) -> float:
        with self._lock:
            return self.base_s * max(1.0, self._active / self.per)

    def __enter__(self) -> Load:
        with self._lock:
            self._active += 1
        return self

    def __exit__(self, *exc: object) -> None:
        with self._lock:
            self._active -= 1
