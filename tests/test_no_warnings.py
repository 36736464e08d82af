"""Nothing on a user's terminal but the app's own lines, on a fresh data directory, with Python's warnings turned
into errors: `gpu-advisor ask`, `gpu-advisor chat --terminal` (one question, then an empty line), and the web app
(start, one answer, Ctrl+C) as a user runs it print no warning, no traceback and no leaked-semaphore report.

The web app says why its first start takes longer ("Preparing the guides (first run) …") and prints its address
only once that is done (assistant/web/preparing.py)."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

BIN = Path(sys.executable).with_name("gpu-advisor")
NOISE = ("Warning", "warning:", "Traceback", "leaked", "resource_tracker")


def _env(tmp_path: Path, warnings: str | None = None) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("GPU_ADVISOR_", "PYTHONWARNINGS"))}
    env |= {"GPU_ADVISOR_DATA_DIR": str(tmp_path / "data"), "COLUMNS": "100"}
    return env | ({"PYTHONWARNINGS": warnings} if warnings else {})


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_ask_on_a_fresh_directory_prints_no_warning(tmp_path: Path) -> None:
    out = subprocess.run(
        [str(BIN), "ask", "4090 能跑 Qwen2.5-32B 吗"],
        env=_env(tmp_path, "error"),
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert out.returncode == 0, out.stderr[-2000:]
    noise = [line for line in out.stderr.splitlines() if any(n in line for n in NOISE)]
    assert not noise, noise
    assert "GiB" in out.stdout


def test_the_terminal_chat_answers_and_ends_without_a_warning(tmp_path: Path) -> None:
    out = subprocess.run(
        [str(BIN), "chat", "--terminal"],
        input="4090 能跑 Qwen2.5-32B 吗\n\n",
        env=_env(tmp_path, "error"),
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert out.returncode == 0, out.stderr[-2000:]
    noise = [line for line in (out.stdout + out.stderr).splitlines() if any(n in line for n in NOISE)]
    assert not noise, noise
    assert "GiB" in out.stdout


def test_the_web_app_starts_answers_and_stops_on_ctrl_c_without_a_warning(tmp_path: Path) -> None:
    from gradio_client import Client

    port = _free_port()
    proc = subprocess.Popen(
        [str(BIN), "chat", "--port", str(port)],  # the assistant in its child process, as users run it
        env=_env(tmp_path, "error"),
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        start_new_session=True,
    )
    url = f"http://127.0.0.1:{port}/"
    try:
        deadline = time.monotonic() + 180
        while True:
            try:
                with urllib.request.urlopen(url, timeout=5) as r:
                    if r.status == 200:
                        break
            except OSError:
                pass
            assert proc.poll() is None and time.monotonic() < deadline, "the app did not start"
            time.sleep(1)
        api = Client(url, verbose=False, download_files=False)
        history, *_ = api.predict("Can a 4090 run Qwen2.5-32B?", [], api_name="/chat")
        assert any("GiB" in str(m.get("content")) for m in history)
        os.killpg(proc.pid, signal.SIGINT)  # Ctrl+C in the terminal reaches the whole process group
        output, _ = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.communicate()
    assert "is running on" in output, output[-2000:]
    preparing = output.index("Preparing the guides (first run) … done in")  # a fresh data directory
    assert preparing < output.index("is running on"), output
    noise = [line for line in output.splitlines() if any(n in line for n in NOISE)]
    assert not noise, noise
