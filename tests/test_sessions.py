"""Persisted sessions (assistant/sessions.py): a conversation continues in a new process, `gpu-advisor
sessions list | show | delete`, retention by age and count, and a damaged, locked or unreachable store
that still answers, in a fresh unsaved session, without losing any other session. Real SQLite files,
a real closed port for PostgreSQL, real child processes."""

from __future__ import annotations

import json
import os
import socket
import sqlite3
import stat
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from assistant.advisor import Advisor
from assistant.events import ErrorEvent, FinalEvent
from assistant.sessions import SessionStoreError, open_store, redact
from assistant.settings import Settings

BIN = Path(sys.executable).with_name("gpu-advisor")
QWEN_LORA = "预算1.5万 LoRA 微调 Qwen2.5-7B 买什么卡"
MEMORY_Q = "How much memory to QLoRA fine-tune Qwen2.5-7B?"


def settings_for(store: Path | str, **extra) -> Settings:
    return Settings(_env_file=None, provider="offline", sessions_url=str(store), **extra)


@pytest.fixture(scope="module")
def knowledge(knowledge_dir: Path) -> Path:
    """The guides ingested once, so child processes only read them."""
    from knowledge.retrieval import get_retriever

    get_retriever().refresh()
    return knowledge_dir


def cli(*args: str, env: dict[str, str]) -> subprocess.CompletedProcess:
    return subprocess.run(
        [str(BIN), *args], capture_output=True, text=True, timeout=240, env={**os.environ, "COLUMNS": "200", **env}
    )


def ask_json(question: str, env: dict[str, str]) -> dict:
    out = cli("ask", question, "--session", "s1", "--json", env=env)
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout)


def recommend_args(answer: dict) -> dict:
    return next(c["args"] for c in answer["tool_calls"] if c["name"] == "recommend_gpus")


# ---- a conversation across processes ------------------------------------------------------------------


def test_a_follow_up_in_a_new_process_continues_the_conversation(knowledge: Path, tmp_path: Path) -> None:
    env = {"GPU_ADVISOR_SESSIONS_URL": str(tmp_path / "sessions.sqlite")}
    first = ask_json(QWEN_LORA, env)
    assert recommend_args(first)["workload"]["mode"] == "lora"

    second = ask_json("如果换成 QLoRA 呢？", env)  # a new process: it knows the model and budget only from the store
    args = recommend_args(second)
    assert args["workload"]["model"] == "qwen2.5-7b" and args["workload"]["mode"] == "qlora"
    assert args["budget"] == 15000 and args["currency"] == "CNY"
    assert second["language"] == "zh" and "Qwen2.5-7B" in second["answer"]

    third = ask_json("what about two cards?", env)
    assert third["scenario"]["model"] == "qwen2.5-7b" and third["scenario"]["mode"] == "qlora"
    assert third["scenario"]["budget"] == 15000 and recommend_args(third)["num_gpus"] == 2  # on exactly two cards
    assert third["language"] == "en"

    # Without --session a question stands alone: nothing continued, nothing saved.
    alone = cli("ask", "如果换成 QLoRA 呢？", "--json", env=env)
    assert alone.returncode == 0 and json.loads(alone.stdout)["scenario"].get("model") is None
    listed = json.loads(cli("sessions", "list", "--json", env=env).stdout)
    assert [(s["session_id"], s["turns"]) for s in listed["sessions"]] == [("s1", 3)]


# ---- list, show, delete ---------------------------------------------------------------------------------


def test_sessions_list_show_and_delete(knowledge: Path, tmp_path: Path) -> None:
    store = tmp_path / "sessions.sqlite"
    advisor = Advisor(settings_for(store))
    advisor.ask("alpha", MEMORY_Q)
    advisor.ask("alpha", "what if I use LoRA instead?")
    advisor.ask("beta", "RTX 4090 支持 NVLink 吗？")
    env = {"GPU_ADVISOR_SESSIONS_URL": str(store)}

    listed = json.loads(cli("sessions", "list", "--json", env=env).stdout)
    assert listed["store"] == str(store)
    assert [(s["session_id"], s["turns"]) for s in listed["sessions"]] == [("beta", 1), ("alpha", 2)]
    assert listed["sessions"][1]["title"] == MEMORY_Q
    table = cli("sessions", "list", env=env)
    assert table.returncode == 0 and "alpha" in table.stdout and "RTX 4090 支持 NVLink 吗？" in table.stdout

    shown = json.loads(cli("sessions", "show", "alpha", "--json", env=env).stdout)
    assert shown["turns"] == 2 and shown["scenario"]["model"] == "qwen2.5-7b" and shown["scenario"]["mode"] == "lora"
    assert [m["role"] for m in shown["messages"]] == ["user", "assistant", "user", "assistant"]
    assert shown["messages"][2]["content"] == "what if I use LoRA instead?"
    text = cli("sessions", "show", "alpha", env=env)
    assert text.returncode == 0 and "what if I use LoRA instead?" in text.stdout and "GiB" in text.stdout

    deleted = cli("sessions", "delete", "alpha", env=env)
    assert deleted.returncode == 0 and "deleted session alpha" in deleted.stdout
    again = cli("sessions", "delete", "alpha", env=env)
    assert again.returncode == 1 and "no session named 'alpha'" in again.stderr and "Traceback" not in again.stderr
    missing = cli("sessions", "show", "alpha", env=env)
    assert missing.returncode == 1 and "no session named 'alpha'" in missing.stderr
    # The other session is intact, and a new Advisor (a restart) reads it back.
    assert [s["session_id"] for s in json.loads(cli("sessions", "list", "--json", env=env).stdout)["sessions"]] == [
        "beta"
    ]
    restarted = Advisor(settings_for(store))
    assert restarted.history("beta")[0] == ("user", "RTX 4090 支持 NVLink 吗？") and restarted.history("alpha") == []


def test_sessions_with_a_memory_store_say_that_nothing_is_saved() -> None:
    out = cli("sessions", "list", env={"GPU_ADVISOR_SESSIONS_URL": "memory"})
    assert out.returncode == 2 and "not saved" in out.stderr and "Traceback" not in out.stderr


def test_an_unknown_store_url_is_a_clear_error() -> None:
    with pytest.raises(ValueError, match="unknown session store 'mysql://u:\\*\\*\\*@db/x'"):
        Settings(_env_file=None, sessions_url="mysql://u:secret@db/x")


def test_retention_settings_come_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GPU_ADVISOR_SESSIONS_MAX_AGE_DAYS", "7")
    monkeypatch.setenv("GPU_ADVISOR_SESSIONS_MAX_COUNT", "3")
    monkeypatch.setenv("GPU_ADVISOR_SESSIONS_URL", "postgresql://gpu:pw@db.internal:5432/advisor")
    settings = Settings(_env_file=None)
    assert (settings.sessions_max_age_days, settings.sessions_max_count) == (7, 3)
    assert settings.sessions_url == "postgresql://gpu:pw@db.internal:5432/advisor"
    assert redact(settings.sessions_url) == "postgresql://gpu:***@db.internal:5432/advisor"


# ---- retention -------------------------------------------------------------------------------------------


def test_retention_by_count_keeps_the_most_recent_sessions(knowledge: Path, tmp_path: Path) -> None:
    store = tmp_path / "sessions.sqlite"
    advisor = Advisor(settings_for(store, sessions_max_count=2))
    for name in ("one", "two", "three"):
        advisor.ask(name, MEMORY_Q)
    assert [s.session_id for s in advisor.sessions().list_sessions()] == ["three", "two"]
    assert advisor.history("one") == []  # its checkpoints went with it
    assert advisor.history("two")[0] == ("user", MEMORY_Q)
    advisor.ask("one", "what if I use LoRA instead?")  # a new conversation under the old name
    assert advisor.scenario("one").model is None


def test_retention_by_age_never_deletes_the_session_being_written(knowledge: Path, tmp_path: Path) -> None:
    store = tmp_path / "sessions.sqlite"
    advisor = Advisor(settings_for(store, sessions_max_age_days=30))
    advisor.ask("old", MEMORY_Q)
    advisor.ask("current", MEMORY_Q)
    sessions = advisor.sessions()
    later = time.time() + 45 * 86400  # 45 days on, both are older than 30 days...
    sessions.saved("current", sessions.messages("current"), now=later)  # ...but "current" is being written
    assert [s.session_id for s in sessions.list_sessions()] == ["current"]
    assert advisor.history("old") == [] and advisor.history("current")[0] == ("user", MEMORY_Q)


def test_retention_applies_when_the_store_opens(knowledge: Path, tmp_path: Path) -> None:
    store = tmp_path / "sessions.sqlite"
    advisor = Advisor(settings_for(store))
    for name in ("a", "b", "c"):
        advisor.ask(name, MEMORY_Q)
    opened = open_store(settings_for(store, sessions_max_count=1))
    try:
        assert [s.session_id for s in opened.list_sessions()] == ["c"]
    finally:
        opened.close()
    opened = open_store(settings_for(store, sessions_max_age_days=0, sessions_max_count=0))  # 0: keep everything
    assert [s.session_id for s in opened.list_sessions()] == ["c"]
    opened.close()


def test_the_store_is_private_and_keeps_only_the_latest_checkpoint(knowledge: Path, tmp_path: Path) -> None:
    store = tmp_path / "sessions.sqlite"
    advisor = Advisor(settings_for(store))
    advisor.ask("s", MEMORY_Q)
    advisor.ask("s", "what if I use LoRA instead?")
    assert stat.S_IMODE(store.stat().st_mode) == 0o600
    with sqlite3.connect(store) as db:
        assert db.execute("SELECT COUNT(*) FROM checkpoints WHERE thread_id = 's'").fetchone() == (1,)
    assert [role for role, _ in Advisor(settings_for(store)).history("s")] == ["user", "assistant"] * 2


# ---- a store that cannot be used ----------------------------------------------------------------------


def turn(advisor: Advisor, session: str, question: str = MEMORY_Q) -> tuple[list[ErrorEvent], FinalEvent]:
    events = list(advisor.stream_turn(session, question))
    assert isinstance(events[-1], FinalEvent)
    return [e for e in events if isinstance(e, ErrorEvent)], events[-1]


def test_a_damaged_store_is_left_untouched_and_the_question_still_answered(knowledge: Path, tmp_path: Path) -> None:
    store = tmp_path / "sessions.sqlite"
    store.write_bytes(b"this is not a SQLite database, but it may be someone's only copy" * 64)
    before = store.read_bytes()
    errors, final = turn(Advisor(settings_for(store)), "s1")
    assert [e.kind for e in errors] == ["sessions"]
    message = errors[0].message
    assert "damaged" in message and "left untouched" in message and f"mv {store}" in message and "\n" not in message
    assert "GiB" in final.answer and final.scenario.model == "qwen2.5-7b"
    assert store.read_bytes() == before and sorted(p.name for p in tmp_path.iterdir()) == ["sessions.sqlite"]

    out = cli("ask", MEMORY_Q, "--session", "s1", env={"GPU_ADVISOR_SESSIONS_URL": str(store)})
    assert out.returncode == 0 and "GiB" in out.stdout
    assert out.stderr.count("\n") == 1 and "damaged" in out.stderr and "Traceback" not in out.stderr
    assert store.read_bytes() == before


def test_a_store_that_cannot_be_opened_is_one_clear_line(knowledge: Path, tmp_path: Path) -> None:
    errors, final = turn(Advisor(settings_for(tmp_path)), "s1")  # a folder where the file should be
    assert [e.kind for e in errors] == ["sessions"]
    assert errors[0].message.startswith(f"cannot use the session store {tmp_path} (unable to open database file)")
    assert "\n" not in errors[0].message and "GiB" in final.answer


@pytest.fixture
def saved_store(knowledge: Path, tmp_path: Path) -> Path:
    """A store holding one conversation ("kept") that must survive whatever happens to the store."""
    store = tmp_path / "sessions.sqlite"
    Advisor(settings_for(store)).ask("kept", MEMORY_Q)
    return store


@pytest.fixture
def write_lock(saved_store: Path) -> Iterator[sqlite3.Connection]:
    """Another process's open write transaction on the store."""
    other = sqlite3.connect(saved_store, isolation_level=None)
    other.execute("BEGIN EXCLUSIVE")
    yield other
    other.rollback()
    other.close()


def test_a_locked_store_answers_in_a_fresh_session_and_loses_nothing(
    saved_store: Path, write_lock: sqlite3.Connection
) -> None:
    advisor = Advisor(settings_for(saved_store, sessions_timeout_s=0.2))
    errors, final = turn(advisor, "kept", "what if I use LoRA instead?")
    assert [e.kind for e in errors] == ["sessions"] and "locked by another process" in errors[0].message
    assert final.scenario.model is None  # a fresh session: the saved one could not be read for sure
    told, again = turn(advisor, "kept", "what if I use LoRA instead?")  # told once per session
    assert told == [] and again.answer
    write_lock.rollback()
    history = Advisor(settings_for(saved_store)).history("kept")
    assert history[0] == ("user", MEMORY_Q) and len(history) == 2  # the saved conversation, as it was


def test_a_store_that_locks_during_a_turn_falls_back_to_memory(saved_store: Path) -> None:
    advisor = Advisor(settings_for(saved_store, sessions_timeout_s=0.2))
    assert advisor.history("kept")[0] == ("user", MEMORY_Q)  # opened and working
    other = sqlite3.connect(saved_store, isolation_level=None)
    other.execute("BEGIN EXCLUSIVE")
    try:
        errors, final = turn(advisor, "new", MEMORY_Q)
    finally:
        other.rollback()
        other.close()
    assert [e.kind for e in errors] == ["sessions"] and "locked" in errors[0].message
    assert "GiB" in final.answer and final.scenario.model == "qwen2.5-7b"
    assert Advisor(settings_for(saved_store)).history("kept")[0] == ("user", MEMORY_Q)


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def test_an_unreachable_postgres_answers_in_a_fresh_session(knowledge: Path) -> None:
    url = f"postgresql://advisor:s3cret-pw@127.0.0.1:{free_port()}/sessions"  # nothing listens there
    errors, final = turn(Advisor(settings_for(url)), "s1")
    assert [e.kind for e in errors] == ["sessions"]
    message = errors[0].message
    assert "cannot use the session database postgresql://advisor:***@127.0.0.1" in message
    assert "s3cret-pw" not in message and "\n" not in message
    assert "GiB" in final.answer

    out = cli("sessions", "list", env={"GPU_ADVISOR_SESSIONS_URL": url})
    assert out.returncode == 2 and "cannot use the session database" in out.stderr
    assert "Traceback" not in out.stderr and "s3cret-pw" not in out.stderr
    with pytest.raises(SessionStoreError, match="start PostgreSQL or fix GPU_ADVISOR_SESSIONS_URL"):
        open_store(settings_for(url))


# ---- the web app's assistant process --------------------------------------------------------------------


def test_the_assistant_process_finds_the_conversation_after_a_restart(knowledge: Path, tmp_path: Path) -> None:
    from assistant.worker import AdvisorProcess

    settings = settings_for(tmp_path / "sessions.sqlite")
    first = AdvisorProcess(settings).start()
    try:
        final = list(first.stream_turn("browser-1", MEMORY_Q))[-1]
        assert isinstance(final, FinalEvent) and final.scenario.model == "qwen2.5-7b"
    finally:
        first.close()
    second = AdvisorProcess(settings).start()  # the app restarted
    try:
        assert second.pid != first.pid
        assert second.history("browser-1")[0] == ("user", MEMORY_Q)
        assert second.scenario("browser-1").model == "qwen2.5-7b"
        follow = list(second.stream_turn("browser-1", "what if I use LoRA instead?"))[-1]
        assert follow.scenario.model == "qwen2.5-7b" and follow.scenario.mode == "lora"
        assert second.history("nobody") == [] and second.scenario("nobody").model is None
    finally:
        second.close()
