"""The Advisor in a child process (assistant/worker.py): same answers, separate sessions, and a dead or
stuck child that ends the turn with a message instead of hanging the web app."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from assistant.events import FinalEvent, TextEvent, ToolCallEvent
from assistant.settings import settings_from
from assistant.worker import AdvisorProcess, WorkerError

OFFLINE = settings_from({"provider": "offline"})


@pytest.fixture(scope="module")
def remote(knowledge_dir) -> Iterator[AdvisorProcess]:
    worker = AdvisorProcess(OFFLINE).start()
    yield worker
    worker.close()


def test_a_turn_in_the_child_gives_the_in_process_answer(remote: AdvisorProcess, advisor) -> None:
    question = "How much memory to QLoRA fine-tune Qwen2.5-7B?"
    events = list(remote.stream_turn("worker-a", question))
    local = list(advisor.stream_turn("worker-local", question))
    assert [e.type for e in events if e.type != "text"] == [e.type for e in local if e.type != "text"]
    final = events[-1]
    assert isinstance(final, FinalEvent) and final.answer == local[-1].answer
    assert "GiB" in final.answer and final.scenario.summary()["mode"] == "qlora"
    assert remote.pid != os.getpid()


def test_sessions_keep_their_own_history_in_the_child(remote: AdvisorProcess) -> None:
    list(remote.stream_turn("worker-b", "How much memory to QLoRA fine-tune Qwen2.5-7B?"))
    list(remote.stream_turn("worker-c", "Llama-3.1-8B QLoRA 微调需要多少显存？"))
    follow = list(remote.stream_turn("worker-b", "what if I use LoRA instead?"))[-1]
    assert follow.scenario.summary()["model"] == "qwen2.5-7b" and follow.scenario.summary()["mode"] == "lora"
    remote.reset("worker-b")
    fresh = list(remote.stream_turn("worker-b", "what if I use LoRA instead?"))[-1]
    assert fresh.scenario.summary().get("model") != "qwen2.5-7b"  # the history is gone with the reset


def test_concurrent_turns_in_the_child_do_not_mix(remote: AdvisorProcess) -> None:
    models = ["Qwen2.5-7B", "Llama-3.1-8B", "Mistral-7B-v0.3", "Gemma-2-9B", "Phi-4", "Yi-34B"]
    finals: dict[str, FinalEvent] = {}

    def turn(i: int, model: str) -> None:
        finals[model] = list(remote.stream_turn(f"worker-many-{i}", f"How much memory to QLoRA fine-tune {model}?"))[-1]

    threads = [threading.Thread(target=turn, args=(i, m)) for i, m in enumerate(models)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(120)
    assert len(finals) == len(models)
    for model, final in finals.items():
        assert final.scenario.summary()["model"] == model.lower()


def test_a_killed_child_ends_the_turn_with_a_message_and_the_next_turn_restarts_it() -> None:
    worker = AdvisorProcess(OFFLINE, factory="fakes.worker_advisor:HangingAdvisor").start()
    try:
        turn = worker.stream_turn("s", "how much memory?")
        assert isinstance(next(turn), ToolCallEvent)  # the turn is under way in the child
        first_pid = worker.pid
        os.kill(first_pid, signal.SIGKILL)
        start = time.monotonic()
        with pytest.raises(WorkerError, match=r"stopped .*ask again"):
            next(turn)
        assert time.monotonic() - start < 30
        again = list(worker.stream_turn("s", "quick"))  # a new child, started by the next turn
        assert again == [TextEvent(delta="s: fine")]
        assert worker.pid != first_pid and worker.restarts == 1
    finally:
        worker.close()


def test_a_stuck_turn_gives_up_after_the_turn_timeout() -> None:
    worker = AdvisorProcess(OFFLINE, factory="fakes.worker_advisor:HangingAdvisor", turn_timeout_s=1.0).start()
    try:
        turn = worker.stream_turn("s", "how much memory?")
        next(turn)
        with pytest.raises(WorkerError, match="no answer from the assistant within 1 s"):
            next(turn)
        assert list(worker.stream_turn("s2", "quick")) == [TextEvent(delta="s2: fine")]  # still usable
    finally:
        worker.close()


def test_an_error_in_the_child_reaches_the_caller_as_a_message() -> None:
    worker = AdvisorProcess(OFFLINE, factory="fakes.worker_advisor:SlowStartAdvisor")
    try:
        with pytest.raises(WorkerError, match="ValueError: cannot reset tab-1"):
            worker.reset("tab-1")  # the first call starts the child
    finally:
        worker.close()


def test_a_child_that_cannot_start_says_why() -> None:
    worker = AdvisorProcess(OFFLINE, factory="fakes.worker_advisor:NoSuchAdvisor")
    with pytest.raises(WorkerError, match="exited at start"):
        worker.start()


def test_the_assistant_process_opens_no_outbound_socket(knowledge_dir) -> None:
    """The child runs the real Advisor (warm-up, planner, tools, retrieval) under the outbound guard."""
    worker = AdvisorProcess(OFFLINE, factory="fakes.worker_advisor:GuardedAdvisor").start()
    try:
        events = list(worker.stream_turn("guarded", "Qwen2.5-7B QLoRA 微调需要多少显存？需要 NVLink 吗？"))
        probe = list(worker.stream_turn("guarded", "probe the guard"))
    finally:
        worker.close()
    assert "203.0.113.7" in probe[-1].delta  # the guard records in the child (so an empty list means something)
    final = next(e for e in events if isinstance(e, FinalEvent))
    assert {"estimate_vram", "search_guides"} <= {c.name for c in final.tool_calls}
    assert final.citations and "GiB" in final.answer
    assert events[-1] == TextEvent(delta="outbound attempts: []")


def test_the_child_ends_with_its_parent_even_with_a_turn_stuck() -> None:
    """The web server killed with -9 while a turn hangs: its assistant process must not linger."""
    tests_dir = Path(__file__).resolve().parent
    code = (
        "import time\n"
        "from assistant.settings import settings_from\n"
        "from assistant.worker import AdvisorProcess\n"
        "w = AdvisorProcess(settings_from({'provider': 'offline'}), factory='fakes.worker_advisor:HangingAdvisor')\n"
        "turn = w.start().stream_turn('s', 'how much memory?')\n"
        "next(turn)\n"
        "print(w.pid, flush=True)\n"
        "time.sleep(600)\n"
    )
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(tests_dir), str(tests_dir.parent)])}
    parent = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, text=True, env=env)
    try:
        child = int(parent.stdout.readline())
        parent.kill()
        parent.wait(10)
        deadline = time.monotonic() + 30
        while _running(child) and time.monotonic() < deadline:
            time.sleep(0.1)
        assert not _running(child), "the assistant process outlived the web server"
    finally:
        parent.kill()


def _running(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (OSError, IndexError):
        return False
    return state != "Z"  # a zombie has ended; only its exit status waits to be collected
