"""`gpu-advisor chat` waits for the assistant's warm-up before printing its address, and says why a first start
takes longer (assistant/web/preparing.py); the end-to-end run on a fresh data directory is in test_no_warnings."""

from __future__ import annotations

import io
import threading
import time

from assistant.web.preparing import Preparation


class _Advisor:
    def __init__(self, stages: list[str], seconds: float = 0.3, fail: bool = False) -> None:
        self.stages, self.seconds, self.fail = stages, seconds, fail
        self.done = threading.Event()

    def warm_up(self, progress=None) -> None:
        for stage in self.stages:
            progress(stage)
        time.sleep(self.seconds)
        self.done.set()
        if self.fail:
            raise RuntimeError("no store")


def test_a_first_run_prints_what_it_prepares_and_returns_once_warm() -> None:
    advisor, out = _Advisor(["guides"]), io.StringIO()
    elapsed = Preparation(advisor).wait(out)
    assert advisor.done.is_set() and elapsed >= 0.3
    lines = out.getvalue().splitlines()
    assert lines[0] == "Preparing the guides (first run) …"
    assert lines[-1].startswith("Preparing the guides (first run) … done in ") and lines[-1].endswith(" s")


def test_a_later_start_waits_without_a_line() -> None:
    advisor, out = _Advisor([]), io.StringIO()
    Preparation(advisor).wait(out)
    assert advisor.done.is_set() and out.getvalue() == ""


def test_a_failed_warm_up_does_not_stop_the_start() -> None:
    advisor, out = _Advisor(["guides"], fail=True), io.StringIO()
    Preparation(advisor).wait(out)  # the first turn reports what is wrong, in the chat
    assert advisor.done.is_set()


class _Tty(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_on_a_terminal_one_line_counts_the_seconds() -> None:
    out = _Tty()
    Preparation(_Advisor(["guides"], seconds=1.2)).wait(out)
    text = out.getvalue()
    assert text.count("\n") == 1 and "\r" in text  # rewritten in place, ended once
    assert text.rstrip().split("\r")[-1].startswith("Preparing the guides (first run) … done in ")
