"""Security: no outbound connections, API keys never leak, loopback by default, login when asked."""

from __future__ import annotations

import inspect
import json
import logging
import os
import socket
import urllib.error
import urllib.parse
import urllib.request
from pathlib import Path

import pytest
from fakes import status
from fakes.netguard import outbound_guard
from fakes.openai_server import FakeOpenAIServer

KEY = "sk-secret-Xq9T7v2LmB4nR8wZ0pK5"  # recognisable in any file, log line or event


# ---- no outbound connections ------------------------------------------------------------------------------


def test_the_guard_refuses_and_records_outbound_connections():
    """The guard itself works (else the no-outbound tests below would prove nothing)."""
    import httpx

    with outbound_guard() as attempts:
        with socket.socket() as s, pytest.raises(OSError):
            s.connect(("203.0.113.7", 443))  # TEST-NET-3: never routable
        with pytest.raises(httpx.HTTPError):
            httpx.get("https://example.com/", timeout=2)
        with socket.socket() as server:  # loopback stays allowed
            server.bind(("127.0.0.1", 0))
            server.listen(1)
            with socket.create_connection(server.getsockname(), timeout=2):
                pass
    assert any("203.0.113.7" in a for a in attempts)
    assert any("example.com" in a for a in attempts)
    assert not any("127.0.0.1" in a for a in attempts)


def test_offline_turn_and_ingest_open_no_outbound_socket(knowledge_dir, advisor, tmp_path):
    """A full offline turn (planner, tools, retrieval) and a user-document ingest never leave the machine."""
    advisor.ask("warm", "What is NVLink?")  # the shared store exists before the guard (first ingest is slow)
    doc = tmp_path / "my-notes.md"
    doc.write_text("# Cluster notes\n\nOur lab has 4 RTX 4090 cards on PCIe 4.0 x16 risers.\n", encoding="utf-8")
    with outbound_guard() as attempts:
        from assistant.advisor import Advisor
        from assistant.settings import settings_from
        from knowledge.ingest import ingest_paths
        from knowledge.store import KnowledgeConfig

        fresh = Advisor(settings_from({"provider": "offline"}))  # agent construction is inside the guard too
        final = fresh.ask("no-outbound", "Qwen2.5-7B QLoRA 微调需要多少显存？需要 NVLink 吗？")
        report = ingest_paths([doc], KnowledgeConfig(data_dir=tmp_path / "data"))
    names = {c.name for c in final.tool_calls}
    assert {"estimate_vram", "search_guides"} <= names, names
    assert final.citations and "GiB" in final.answer
    assert report.chunks_embedded >= 1
    assert attempts == [], f"outbound connection attempts: {attempts}"


# ---- API keys ------------------------------------------------------------------------------------------------


def _files_containing(root: Path, needle: bytes) -> list[str]:
    hits = []
    for path in root.rglob("*"):
        if path.is_file():
            try:
                if needle in path.read_bytes():
                    hits.append(str(path))
            except OSError:
                continue
    return hits


def test_api_key_is_never_logged_echoed_or_persisted(monkeypatch, caplog, knowledge_dir, tmp_path):
    """A rejected key (401) is used on the wire only: not in logs, events, answers, history or files."""
    from assistant.advisor import Advisor
    from assistant.settings import settings_from

    monkeypatch.chdir(tmp_path)  # anything written to the working directory would be found below
    data_dir = Path(os.environ["GPU_ADVISOR_DATA_DIR"])
    caplog.set_level(logging.DEBUG)
    with FakeOpenAIServer([status(401, message="Incorrect API key provided: sk-secr***wZ0pK5")]) as server:
        settings = settings_from(
            {"provider": "openai:gpt-4o-mini", "base_url": server.base_url, "api_key": KEY, "max_retries": 0}
        )
        advisor = Advisor(settings)
        events = list(advisor.stream_turn("key-test", "How much VRAM does Qwen2.5-7B need for inference?"))
        final = advisor.ask("key-test", "And at 32k context?")
    assert server.chat_requests and server.chat_requests[0].headers["authorization"] == f"Bearer {KEY}"
    errors = [e for e in events if e.type == "error"]
    assert errors and errors[0].kind == "auth" and "API key" in errors[0].message
    assert events[-1].type == "final" and events[-1].fell_back  # the offline planner still answered

    texts = {
        "events": json.dumps([e.model_dump(mode="json") for e in events], ensure_ascii=False),
        "second answer": final.model_dump_json(),
        "history": json.dumps(advisor.history("key-test"), ensure_ascii=False),
        "scenario": advisor.scenario("key-test").model_dump_json(),
        "settings repr": repr(settings) + str(settings.model_dump()),
        "logs": "\n".join(r.getMessage() + (r.exc_text or "") for r in caplog.records) + caplog.text,
    }
    for where, text in texts.items():
        assert KEY not in text, f"API key found in {where}"
        assert KEY[6:] not in text, f"part of the API key found in {where}"
    assert _files_containing(data_dir, KEY.encode()) == []
    assert _files_containing(tmp_path, KEY.encode()) == []


def test_settings_dump_to_json_masks_the_key():
    from assistant.settings import settings_from

    settings = settings_from({"provider": "openai:x", "api_key": KEY})
    assert KEY not in settings.model_dump_json() and KEY not in repr(settings)
    assert settings.api_key is not None and settings.api_key.get_secret_value() == KEY


# ---- bind address, share link, login -----------------------------------------------------------------------


def test_chat_binds_to_loopback_and_never_shares_by_default():
    from typer.testing import CliRunner

    from assistant import cli

    params = inspect.signature(cli.chat).parameters
    assert params["host"].default == "127.0.0.1"
    assert params["share"].default is False
    assert params["auth"].default is None
    result = CliRunner().invoke(cli.app, ["chat", "--help"], env={"COLUMNS": "200", "NO_COLOR": "1", "TERM": "dumb"})
    assert result.exit_code == 0, result.output
    help_text = " ".join(result.output.split())
    assert "--host" in help_text and "127.0.0.1" in help_text
    assert "--auth" in help_text and "--share" in help_text
    web = pytest.importorskip("assistant.web")  # what `chat` hands the bind address to
    serve = inspect.signature(web.serve).parameters
    assert serve["host"].default == "127.0.0.1" and serve["share"].default is False


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class _Browser:
    """A tiny HTTP client with cookies that never uses a proxy (the app is on loopback)."""

    def __init__(self, base: str) -> None:
        import http.cookiejar

        self.base = base
        self.opener = urllib.request.build_opener(
            urllib.request.ProxyHandler({}), urllib.request.HTTPCookieProcessor(http.cookiejar.CookieJar())
        )

    def status(self, path: str, form: dict[str, str] | None = None) -> int:
        data = urllib.parse.urlencode(form).encode() if form is not None else None
        try:
            with self.opener.open(urllib.request.Request(self.base + path, data=data), timeout=10) as response:
                return response.status
        except urllib.error.HTTPError as exc:
            return exc.code


def test_auth_option_protects_the_app(monkeypatch, knowledge_dir):
    """`--auth user:password`: without logging in, the app's config and API answer 401; with it, 200."""
    web = pytest.importorskip("assistant.web")
    from assistant.settings import Settings

    class NoAdvisor:  # the login check runs before any turn; nothing here may be called
        def __getattr__(self, name):
            raise AssertionError(f"advisor.{name} used before login")

    monkeypatch.setenv("GRADIO_ANALYTICS_ENABLED", "False")
    demo = web.build_app(advisor=NoAdvisor(), settings=Settings(_env_file=None, provider="offline"))
    port = _free_port()
    kwargs = web.launch_kwargs("127.0.0.1", port, "alice:correct-horse", False)
    demo.launch(**kwargs, prevent_thread_lock=True, quiet=True)
    try:
        browser = _Browser(f"http://127.0.0.1:{port}")
        assert browser.status("/config") == 401
        assert browser.status("/gradio_api/info") == 401
        assert browser.status("/login", {"username": "alice", "password": "wrong"}) in (400, 401)
        assert browser.status("/config") == 401
        assert browser.status("/login", {"username": "alice", "password": "correct-horse"}) == 200
        assert browser.status("/config") == 200
    finally:
        demo.close()
