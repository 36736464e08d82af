"""Get the assistant ready before `gpu-advisor chat` says it is running, and say on the terminal why that
takes longer the first time.

On a fresh data directory the guides are indexed first (the shipped vectors are copied: ~4 s on two cores,
knowledge/seed.py); every start also loads the embedding model and the calculators' data (~2 s). Both run
while Gradio starts, and the address is printed only once they are done, so the first question a user types
is answered as fast as the later ones rather than waiting behind them.
"""

from __future__ import annotations

import sys
import threading
import time
from typing import Any, TextIO

STAGES = {"guides": "Preparing the guides (first run)"}  # stages Advisor.warm_up announces


class Preparation:
    """The assistant's warm-up on a background thread; `wait` blocks until it is done, showing its progress."""

    def __init__(self, advisor: Any) -> None:
        self._stage: str | None = None
        self._done = threading.Event()
        self._started = time.monotonic()
        threading.Thread(target=self._run, args=(advisor,), name="warm-up", daemon=True).start()

    def _run(self, advisor: Any) -> None:
        try:
            advisor.warm_up(progress=self._on_stage)
        except Exception as exc:  # the first turn retries and reports the reason in the chat
            import logging

            logging.getLogger(__name__).warning("the assistant is not ready: %s", exc)
        finally:
            self._done.set()

    def _on_stage(self, stage: str) -> None:
        self._stage = stage

    def wait(self, out: TextIO | None = None, timeout_s: float = 600) -> float:
        """Block until the warm-up ends (or `timeout_s`); while a named stage runs, print it with the seconds
        so far (one line kept up to date on a terminal, a start and an end line otherwise). Returns seconds."""
        out = out or sys.stdout
        live = out.isatty()
        shown = ""
        deadline = self._started + timeout_s
        while not self._done.wait(0.25 if live else 0.1) and time.monotonic() < deadline:
            label = STAGES.get(self._stage or "")
            if not label:
                continue
            if live:
                line = f"{label} … {time.monotonic() - self._started:.0f} s"
                out.write("\r" + line.ljust(len(shown)))
                out.flush()
                shown = line
            elif not shown:
                shown = f"{label} …"
                print(shown, file=out, flush=True)
        elapsed = time.monotonic() - self._started
        label = STAGES.get(self._stage or "")
        if label:
            end = f"{label} … done in {elapsed:.1f} s"
            print(("\r" + end.ljust(len(shown))) if live else end, file=out, flush=True)
        return elapsed
