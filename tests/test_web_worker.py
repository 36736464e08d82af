"""The web app as `gpu-advisor chat` runs it: the assistant in its own process (assistant/worker.py),
driven over Gradio's queue protocol by the load test's client (evals/gradio_sse.py), which must read
exactly what the official gradio_client reads."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from evals.gradio_sse import GradioError, GradioSession

pytest_plugins = ["conftest_web"]


@pytest.fixture(scope="module")
def worker_app(web_kb_dir: Path) -> Iterator[str]:
    from conftest_web import knowledge_env, offline_settings, serve_app

    from assistant.worker import AdvisorProcess

    with knowledge_env(web_kb_dir):  # the child inherits the environment when it starts
        worker = AdvisorProcess(offline_settings()).start()
        try:
            with serve_app(worker) as url:
                yield url
        finally:
            worker.close()


def test_a_conversation_through_the_assistant_process(worker_app: str) -> None:
    with GradioSession(worker_app) as session:
        session.open()
        chat, box, scenario, *_, turn = session.call("/chat", "How much memory to QLoRA fine-tune Qwen2.5-7B?", [])
        assert box != "How much memory to QLoRA fine-tune Qwen2.5-7B?"  # the message box was emptied
        assert chat[0]["role"] == "user"
        assert chat[0]["content"][0]["text"] == "How much memory to QLoRA fine-tune Qwen2.5-7B?"
        assert any("GiB" in str(m["content"]) for m in chat if m["role"] == "assistant")
        assert "Qwen2.5-7B" in scenario and "QLoRA" in scenario and turn.startswith("#1 · offline")
        chat, _, scenario, *_ = session.call("/chat", "what if I use LoRA instead?", chat)
        assert "Qwen2.5-7B" in scenario and "**: LoRA fine-tuning\n" in scenario


def test_two_sessions_do_not_share_a_scenario(worker_app: str) -> None:
    with GradioSession(worker_app) as a, GradioSession(worker_app) as b:
        a.call("/chat", "How much memory to QLoRA fine-tune Qwen2.5-7B?", [])
        b.call("/chat", "Llama-3.1-8B QLoRA 微调需要多少显存？", [])
        _, _, scenario_a, *_ = a.call("/chat", "and with two GPUs?", [])
        assert "Qwen2.5-7B" in scenario_a and "Llama" not in scenario_a


def test_the_lean_client_reads_what_gradio_client_reads(worker_app: str) -> None:
    from gradio_client import Client

    question = "Llama-3.1-8B QLoRA 微调需要多少显存？"
    with GradioSession(worker_app) as session:
        ours = session.call("/chat", question, [])
    theirs = Client(worker_app, verbose=False, download_files=False).predict(question, [], api_name="/chat")
    assert len(ours) == len(theirs)
    assert _stable(ours[0]) == _stable(theirs[0]) and ours[2] == theirs[2]  # the chat and the scenario panel
    assert ours[-1].split(" · ")[0] == theirs[-1].split(" · ")[0] == "#1"  # timings differ, the turn does not


def _stable(chat: list[dict]) -> list[dict]:
    """The chat without what differs between two runs of one question: tool-call ids and timings."""
    out = []
    for message in chat:
        meta = {k: v for k, v in (message.get("metadata") or {}).items() if k not in ("id", "duration")}
        out.append({**message, "metadata": meta})
    return out


def test_an_unknown_endpoint_is_a_clear_error(worker_app: str) -> None:
    with GradioSession(worker_app) as session, pytest.raises(GradioError, match="no endpoint named 'nope'"):
        session.call("/nope")
