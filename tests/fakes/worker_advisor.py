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
