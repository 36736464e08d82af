"""Advisors for the assistant-process tests (tests/test_worker.py); built in the child by import path."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from typing import Any

from assistant.events import TextEvent, ToolCallEvent


class HangingAdvisor:
    """Starts a turn, then never finishes it (a stuck provider, or a process about to be killed)."""

    def __init__(self, settings: Any) -> None:
        self.settings = settings

    def stream_turn(self, session_id: str, text: str, provider: Any = None, settings: Any = None) -> Iterator[Any]:
        if text == "quick":
            yield TextEvent(delta=f"{session_id}: fine")
            return
        yield ToolCallEvent(id="call-1", name="estimate_vram", args={"model": "qwen2.5-7b"})
        threading.Event().wait()  # forever

    def reset(self, session_id: str) -> None:
        raise ValueError(f"cannot reset {session_id}")


class SlowStartAdvisor(HangingAdvisor):
    def __init__(self, settings: Any) -> None:
        time.sleep(0.2)
        super().__init__(settings)


class GuardedAdvisor:
    """The real Advisor, in a child process where every non-loopback connection attempt is refused and
    recorded; each turn ends with a text event listing the attempts (warm-up included)."""

    def __init__(self, settings: Any) -> None:
        from fakes.netguard import outbound_guard

        self._guard = outbound_guard()
        self.attempts = self._guard.__enter__()  # for the life of the child process
        from assistant.advisor import Advisor

        self.advisor = Advisor(settings)

    def warm_up(self, progress: Any = None) -> None:
        self.advisor.warm_up(progress)

    def stream_turn(self, session_id: str, text: str, *args: Any) -> Iterator[Any]:
        if text == "probe the guard":  # proves the guard is live in this process
            import contextlib
            import socket

            with socket.socket() as s, contextlib.suppress(OSError):
                s.connect(("203.0.113.7", 443))  # TEST-NET-3: never routable
        else:
            yield from self.advisor.stream_turn(session_id, text, *args)
        yield TextEvent(delta=f"outbound attempts: {self.attempts}")

    def reset(self, session_id: str) -> None:
        self.advisor.reset(session_id)
