"""Several replicas: two `gpu-advisor chat` processes on different ports, one `chroma run` server and one
PostgreSQL server; a conversation begun on replica A continues on replica B (docs/deployment.md).

PostgreSQL comes from Debian's `postgresql` package (.ci/run installs it): the test makes its own cluster
in a temporary directory on a free loopback port, runs it as an unprivileged user when started as root
(initdb refuses root), and removes it afterwards. The replicas are driven over their real HTTP API, as a
browser does: the page load hands over the conversation id the browser keeps, then questions go to /chat.
"""

from __future__ import annotations

import glob
import json
import os
import pwd
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import urllib.request
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from test_knowledge_server import chroma_url  # noqa: F401  (the `chroma run` server fixture)

from assistant.web import free_port
from evals.gradio_sse import GradioSession

pytestmark = pytest.mark.timeout(1200)

BIN = Path(sys.executable).with_name("gpu-advisor")
PG_BIN = sorted(glob.glob("/usr/lib/postgresql/*/bin"), key=lambda p: int(Path(p).parent.name))
START_S = 180  # how long a server may take to come up on a busy two-core machine
QUESTION = "How much memory to QLoRA fine-tune Qwen2.5-7B?"
FOLLOW_UP = "what if I use LoRA instead?"


# ---- PostgreSQL ------------------------------------------------------------------------------------------


def _as_owner(owner: pwd.struct_passwd | None, *cmd: str) -> list[str]:
    """The command, run as `owner` (when we are root) without a shell or a login."""
    if owner is None:
        return list(cmd)
    return ["setpriv", f"--reuid={owner.pw_uid}", f"--regid={owner.pw_gid}", "--clear-groups", "--", *cmd]


def _unprivileged() -> pwd.struct_passwd | None:
    if os.geteuid() != 0:
        return None
    for name in ("postgres", "nobody"):
        try:
            return pwd.getpwnam(name)
        except KeyError:
            continue
    pytest.skip("running as root and there is no unprivileged user to run PostgreSQL as")


def _wait_for_postgres(url: str, proc: subprocess.Popen, log: Path) -> None:
    import psycopg

    deadline = time.monotonic() + START_S
    while True:
        try:
            with psycopg.connect(url, connect_timeout=2, autocommit=True) as conn:
                conn.execute("SELECT 1")
                return
        except psycopg.OperationalError:
            if proc.poll() is not None or time.monotonic() > deadline:
                pytest.fail(f"PostgreSQL did not start: {log.read_text(errors='replace')[-2000:]}")
            time.sleep(0.3)


@pytest.fixture(scope="module")
def postgres_url() -> Iterator[str]:
    """A fresh PostgreSQL cluster on a free loopback port, with a database `gpu_advisor`."""
    if not PG_BIN:
        pytest.skip("PostgreSQL server binaries are not installed (Debian package `postgresql`; .ci/run installs it)")
    import psycopg

    bindir, owner = Path(PG_BIN[-1]), _unprivileged()
    root = Path(tempfile.mkdtemp(prefix="gpu-advisor-pg-"))
    if owner is not None:
        os.chown(root, owner.pw_uid, owner.pw_gid)
    env = {**os.environ, "LC_ALL": "C", "LANG": "C"}
    init = [str(bindir / "initdb"), "-D", str(root / "data"), "-U", "advisor", "-A", "trust", "-E", "UTF8"]
    subprocess.run(_as_owner(owner, *init, "--locale=C", "-N"), check=True, capture_output=True, env=env, cwd=root)
    port, log = free_port(), root / "server.log"
    server = [str(bindir / "postgres"), "-D", str(root / "data"), "-h", "127.0.0.1", "-p", str(port), "-k", str(root)]
    with log.open("w") as out:
        proc = subprocess.Popen(_as_owner(owner, *server, "-F"), stdout=out, stderr=subprocess.STDOUT, env=env)
    try:
        _wait_for_postgres(f"postgresql://advisor@127.0.0.1:{port}/postgres", proc, log)
        with psycopg.connect(f"postgresql://advisor@127.0.0.1:{port}/postgres", autocommit=True) as conn:
            conn.execute("CREATE DATABASE gpu_advisor")
        yield f"postgresql://advisor@127.0.0.1:{port}/gpu_advisor"
    finally:
        proc.send_signal(signal.SIGINT)  # PostgreSQL's "fast" shutdown
        try:
            proc.wait(timeout=60)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        shutil.rmtree(root, ignore_errors=True)


# ---- the replicas ------------------------------------------------------------------------------------------


def _wait_for_app(url: str, proc: subprocess.Popen, log: Path) -> None:
    deadline = time.monotonic() + START_S
    while True:
        try:
            with urllib.request.urlopen(f"{url}config", timeout=2) as resp:
                if resp.status == 200:
                    return
        except OSError:
            pass
        if proc.poll() is not None or time.monotonic() > deadline:
            pytest.fail(f"the replica at {url} did not start: {log.read_text(errors='replace')[-3000:]}")
        time.sleep(0.5)


@pytest.fixture(scope="module")
def deployment(
    postgres_url: str,
    chroma_url: str,  # noqa: F811
    tmp_path_factory: pytest.TempPathFactory,
) -> Iterator[dict[str, Any]]:
    """The guides ingested once into the Chroma server, then two replicas sharing it and PostgreSQL."""
    root = tmp_path_factory.mktemp("replicas")
    shared = {
        "GPU_ADVISOR_SESSIONS_URL": postgres_url,
        "GPU_ADVISOR_CHROMA_URL": chroma_url,
        "GPU_ADVISOR_PROVIDER": "offline",
        "HF_HUB_OFFLINE": "1",
        "ANONYMIZED_TELEMETRY": "False",
        "GRADIO_ANALYTICS_ENABLED": "False",
    }
    ingest_env = {**os.environ, **shared, "GPU_ADVISOR_DATA_DIR": str(root / "ingest")}
    done = subprocess.run(
        [str(BIN), "ingest", "--guides", "--json"], capture_output=True, text=True, env=ingest_env, cwd=root
    )
    assert done.returncode == 0, done.stderr[-2000:]
    procs, urls = [], []
    try:
        for name in ("a", "b"):
            port, log = free_port(), root / f"replica-{name}.log"
            env = {**os.environ, **shared, "GPU_ADVISOR_DATA_DIR": str(root / name)}  # local dirs hold only locks
            with log.open("w") as out:
                procs.append(
                    subprocess.Popen(
                        [str(BIN), "chat", "--port", str(port)], stdout=out, stderr=subprocess.STDOUT, env=env, cwd=root
                    )
                )
            urls.append((f"http://127.0.0.1:{port}/", log))
        for proc, (url, log) in zip(procs, urls, strict=True):
            _wait_for_app(url, proc, log)
        yield {"a": urls[0][0], "b": urls[1][0], "env": {**shared, "GPU_ADVISOR_DATA_DIR": str(root / "cli")}}
    finally:
        for proc in procs:
            proc.send_signal(signal.SIGINT)
        for proc in procs:
            try:
                proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()


def browser(url: str, browser_id: str) -> GradioSession:
    """A browser tab: the page load hands over the conversation id this browser keeps (its localStorage)."""
    session = GradioSession(url, timeout_s=300)
    session.session_hash = browser_id  # where an app keys conversations by Gradio's session, the same id
    kinds = {c["id"]: c.get("type", "") for c in session.config.get("components", [])}
    for i, dep in enumerate(session.config.get("dependencies", [])):
        if dep.get("queue", True) is not False and any(t[1] == "load" for t in dep.get("targets", [])):
            values = [browser_id if kinds.get(c) == "browserstate" else None for c in dep["inputs"]]
            given = [v for c, v in zip(dep["inputs"], values, strict=True) if kinds.get(c) != "state"]
            session._run(dep.get("id", i), dep, tuple(given))
    return session


def answer_to(chat: list[dict], question: str) -> str:
    """What the assistant showed after the latest `question` in the chat."""
    asked = max(i for i, m in enumerate(chat) if m.get("role") == "user" and question in str(m["content"]))
    return " ".join(str(m["content"]) for m in chat[asked + 1 :] if m.get("role") == "assistant")


def saved(env: dict[str, str], browser_id: str) -> dict[str, Any]:
    """The conversation as PostgreSQL holds it, read by `gpu-advisor sessions` (a third process)."""
    run_env = {**os.environ, **env}
    listed = subprocess.run([str(BIN), "sessions", "list", "--json"], capture_output=True, text=True, env=run_env)
    assert listed.returncode == 0, listed.stderr
    ids = [s["session_id"] for s in json.loads(listed.stdout)["sessions"] if s["session_id"].endswith(browser_id)]
    assert len(ids) == 1, listed.stdout
    shown = subprocess.run(
        [str(BIN), "sessions", "show", ids[0], "--json"], capture_output=True, text=True, env=run_env
    )
    assert shown.returncode == 0, shown.stderr
    return json.loads(shown.stdout)


def test_a_conversation_begun_on_one_replica_continues_on_another(deployment: dict[str, Any]) -> None:
    keep = uuid.uuid4().hex  # the id one browser keeps; a load balancer sends its requests to either replica
    with browser(deployment["a"], keep) as tab:
        chat, *_ = tab.call("/chat", QUESTION, [])
    assert "GiB" in answer_to(chat, QUESTION)
    first = saved(deployment["env"], keep)
    assert first["turns"] == 1 and first["scenario"]["model"] == "qwen2.5-7b" and first["scenario"]["mode"] == "qlora"

    with browser(deployment["b"], keep) as tab:  # the next request lands on the other replica
        chat, *_ = tab.call("/chat", FOLLOW_UP, chat)
    assert "Qwen2.5-7B" in answer_to(chat, FOLLOW_UP)
    second = saved(deployment["env"], keep)
    assert second["turns"] == 2 and second["scenario"]["model"] == "qwen2.5-7b" and second["scenario"]["mode"] == "lora"
    assert [m["content"] for m in second["messages"] if m["role"] == "user"] == [QUESTION, FOLLOW_UP]

    with browser(deployment["a"], keep) as tab:  # and back: A sees what B added
        tab.call("/chat", "and at 32k context?", chat)
    third = saved(deployment["env"], keep)
    assert third["turns"] == 3 and third["scenario"]["mode"] == "lora"
    assert third["scenario"]["context_tokens"] == 32768

    other = uuid.uuid4().hex  # another browser's follow-up on B knows nothing of the first conversation
    with browser(deployment["b"], other) as tab:
        tab.call("/chat", FOLLOW_UP, [])
    assert saved(deployment["env"], other)["scenario"].get("model") is None


def test_the_postgres_store_lists_deletes_prunes_and_applies_retention(postgres_url: str) -> None:
    import psycopg
    from langchain_core.messages import AIMessage, HumanMessage
    from langgraph.graph import START, MessagesState, StateGraph

    from assistant.sessions import open_store
    from assistant.settings import Settings

    with psycopg.connect(postgres_url, autocommit=True) as conn:
        conn.execute("CREATE DATABASE retention")
    url = postgres_url.rsplit("/", 1)[0] + "/retention"
    store = open_store(Settings(_env_file=None, sessions_url=url, sessions_max_count=2))
    graph = StateGraph(MessagesState)
    graph.add_node("echo", lambda state: {"messages": [AIMessage(f"echo: {state['messages'][-1].content}")]})
    graph.add_edge(START, "echo")
    app = graph.compile(checkpointer=store.checkpointer)

    def say(session: str, text: str) -> None:
        app.invoke({"messages": [HumanMessage(text)]}, {"configurable": {"thread_id": session}})
        store.saved(session, store.messages(session))

    try:
        for name in ("one", "two", "three"):
            say(name, f"first question of {name}")
        say("two", "second question of two")
        assert [(s.session_id, s.turns) for s in store.list_sessions()] == [("two", 2), ("three", 1)]
        assert store.messages("one") == []  # retention by count took the oldest, checkpoints included
        assert [m.content for m in store.messages("two")][-1] == "echo: second question of two"
        with psycopg.connect(url) as conn:
            rows = conn.execute("SELECT COUNT(*) FROM checkpoints WHERE thread_id = 'two'").fetchone()
        assert rows == (1,)  # only the latest checkpoint is kept
        assert store.delete("three") and not store.delete("three")
        assert [s.session_id for s in store.list_sessions()] == ["two"]
    finally:
        store.close()


def test_replicas_opening_a_new_database_together_all_get_the_store(postgres_url: str) -> None:
    """Replicas that start at once on an empty database: one migrates, the others wait, none falls back.

    The saver's migrations build indexes with CREATE INDEX CONCURRENTLY, which waits for every open
    transaction; a replica blocked inside `pg_advisory_lock` was one, so PostgreSQL reported a deadlock and
    that replica answered in an unsaved session (seen in CI)."""
    from concurrent.futures import ThreadPoolExecutor

    import psycopg

    from assistant.sessions import open_store
    from assistant.settings import Settings

    with psycopg.connect(postgres_url, autocommit=True) as conn:
        conn.execute("CREATE DATABASE starting_together")
    url = postgres_url.rsplit("/", 1)[0] + "/starting_together"
    settings = Settings(_env_file=None, sessions_url=url)
    with ThreadPoolExecutor(max_workers=4) as pool:
        stores = list(pool.map(lambda _: open_store(settings), range(4)))
    try:
        assert [s.kind for s in stores] == ["postgres"] * 4
        assert all(s.check() is None for s in stores)
    finally:
        for s in stores:
            s.close()
