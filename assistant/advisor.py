"""The Advisor facade: runs one conversational turn for a session and yields events.

The CLI, the web UI and the eval runner talk only to this class; none of them touches LangChain.
Conversation state lives in a LangGraph checkpointer keyed by session id, so sessions never see each
other's messages or scenario. The checkpointer is the session store's (assistant/sessions.py): a SQLite
file by default, PostgreSQL for several replicas; when the store fails, the turn is answered in a fresh
in-memory session with a one-line notice, and the store is tried again after STORE_RETRY_S.
"""

from __future__ import annotations

import hashlib
import json
import logging
import threading
import time
import uuid
from collections import OrderedDict
from collections.abc import Callable, Iterator
from functools import cache
from pathlib import Path
from typing import Any

from assistant.citations import Citation, citations_from, cited_again
from assistant.consistency import check_consistency
from assistant.events import (
    ErrorEvent,
    Event,
    FinalEvent,
    ProposalFiles,
    TextEvent,
    ToolCallEvent,
    ToolCallRecord,
    ToolResultEvent,
)
from assistant.grounding import check_grounding
from assistant.language import detect_language
from assistant.scenario import Scenario, scenario_from_messages
from assistant.settings import Settings
from assistant.turns import tool_payload, tool_records

log = logging.getLogger(__name__)
MAX_MESSAGE_CHARS = 8000
MAX_AGENTS = 16
STORE_RETRY_S = 30.0  # after a store failure, how long turns stay in memory before the store is tried again


@cache
def system_prompt() -> str:
    return (Path(__file__).with_name("prompts") / "system.md").read_text(encoding="utf-8")


def summarize_result(name: str, result: Any, lang: str = "en") -> str:
    """One line for a tool bubble, from the tool's home capability."""
    from assistant.capabilities import home_of

    home = home_of(name)
    return home.summary(name, result, lang) if home is not None and result is not None else name  # type: ignore[arg-type]


class Advisor:
    """Runs turns for sessions; one instance serves many concurrent sessions."""

    def __init__(self, settings: Settings | None = None) -> None:
        self.settings = settings or Settings()
        self._agents: OrderedDict[str, Any] = OrderedDict()
        self._lock = threading.Lock()
        self._session_locks: dict[str, threading.Lock] = {}
        self._store: Any = None  # the SessionStore, opened on first use
        self._store_lock = threading.Lock()
        self._retry_at = 0.0
        self._told: set[str] = set()  # sessions already told that they are not saved
        self.sessions_notice: str | None = None  # why the latest turn was not saved, for the CLI

    # ---- sessions --------------------------------------------------------------------------------
    @property
    def checkpointer(self) -> Any:
        return self.sessions().checkpointer

    def sessions(self) -> Any:
        """The session store: the configured one, or a fresh in-memory one while that fails."""
        with self._store_lock:
            store = self._store
            if store is not None and (store.notice is None or time.monotonic() < self._retry_at):
                return store
            from assistant.sessions import SessionStoreError, memory_store, open_store

            try:
                fresh = open_store(self.settings)
            except SessionStoreError as exc:
                log.warning("%s", exc)
                self._retry_at = time.monotonic() + STORE_RETRY_S
                if store is not None:  # still failing: keep the in-memory sessions of the meantime
                    return store
                fresh = memory_store(str(exc), self.settings.sessions_max_age_days, self.settings.sessions_max_count)
            self._switch_store(fresh)
            return fresh

    def _switch_store(self, store: Any) -> None:
        old, self._store = self._store, store
        with self._lock:
            self._agents.clear()  # compiled with the old checkpointer
            self._told.clear()
        if old is not None:
            try:
                old.close()
            except Exception:  # a failed store may not close cleanly; nothing of it is used any more
                log.debug("closing the session store failed", exc_info=True)

    def _store_failed(self, store: Any, exc: Exception) -> str | None:
        """After an exception in a turn: if the store is what failed, fall back to memory; its message."""
        from assistant.sessions import is_store_error, memory_store

        if not is_store_error(exc):
            return None
        reason = store.check()
        if reason is None:
            return None  # the store works: something else failed
        log.warning("%s", reason)
        with self._store_lock:
            if self._store is store:
                self._retry_at = time.monotonic() + STORE_RETRY_S
                self._switch_store(
                    memory_store(reason, self.settings.sessions_max_age_days, self.settings.sessions_max_count)
                )
        return reason

    # ---- agents ----------------------------------------------------------------------------------
    def _agent(self, provider: str, settings: Settings) -> Any:
        # One agent per distinct configuration (a digest: the key itself is not kept), the least recently
        # used dropped beyond MAX_AGENTS — sessions that each bring their own key must not grow memory.
        secret = settings.api_key.get_secret_value() if settings.api_key is not None else ""
        fields = json.dumps(
            [provider, settings.model_dump(mode="json", exclude={"api_key", "provider"}), secret],
            sort_keys=True,
            default=str,
        )
        key = hashlib.blake2b(fields.encode("utf-8"), digest_size=16).hexdigest()
        checkpointer = self.checkpointer
        with self._lock:
            if key in self._agents:
                self._agents.move_to_end(key)
            else:
                from langchain.agents import create_agent

                from assistant.planner.model import OfflinePlanner
                from assistant.providers import build_chat_model
                from assistant.toolset import as_langchain_tools

                model = build_chat_model(settings.model_copy(update={"provider": provider}), OfflinePlanner)
                self._agents[key] = create_agent(
                    model, tools=as_langchain_tools(), system_prompt=system_prompt(), checkpointer=checkpointer
                )
                while len(self._agents) > MAX_AGENTS:
                    self._agents.popitem(last=False)
            return self._agents[key]

    def _session_lock(self, session_id: str) -> threading.Lock:
        with self._lock:
            return self._session_locks.setdefault(session_id, threading.Lock())

    # ---- public API ------------------------------------------------------------------------------
    def stream_turn(
        self, session_id: str, text: str, provider: str | None = None, settings: Settings | None = None
    ) -> Iterator[Event]:
        """Run one turn; yield tool calls, tool results, text chunks and the final answer."""
        settings = settings or self.settings
        provider = provider or settings.provider
        text = (text or "").strip()[:MAX_MESSAGE_CHARS]
        if not text:
            yield ErrorEvent(message="empty message", kind="input")
            return
        with self._session_lock(session_id):
            store = self.sessions()
            try:
                yield from self._noticed(session_id, store)
                yield from self._turn(session_id, text, provider, settings)
            except Exception as exc:
                reason = self._store_failed(store, exc)
                if reason is None:
                    raise
                self.sessions_notice = reason
                yield ErrorEvent(message=reason, kind="sessions")
                self._told.add(session_id)
                yield from self._turn(session_id, text, provider, settings)  # in a fresh in-memory session

    def _noticed(self, session_id: str, store: Any) -> Iterator[Event]:
        """Tell a session once that its turns are not being saved (the store failed)."""
        if store.notice is None:
            self.sessions_notice = None
            return
        self.sessions_notice = store.notice
        if session_id not in self._told:
            self._told.add(session_id)
            yield ErrorEvent(message=store.notice, kind="sessions")

    def ask(
        self, session_id: str, text: str, provider: str | None = None, settings: Settings | None = None
    ) -> FinalEvent:
        """Run a turn and return only the final answer (errors are folded into it)."""
        final: FinalEvent | None = None
        errors: list[str] = []
        for event in self.stream_turn(session_id, text, provider, settings):
            if isinstance(event, FinalEvent):
                final = event
            elif isinstance(event, ErrorEvent):
                errors.append(event.message)
        if final is None:
            final = self._final_from_error(session_id, text, provider or self.settings.provider, errors)
        return final

    def scenario(self, session_id: str) -> Scenario:
        """The session's scenario, rebuilt from its saved messages (so also after a restart)."""
        return scenario_from_messages(self._saved_messages(session_id))

    def history(self, session_id: str) -> list[tuple[str, str]]:
        """The session's questions and answers, from the session store (so also after a restart)."""
        from assistant.sessions import conversation

        return conversation(self._saved_messages(session_id))

    def warm_up(self, progress: Callable[[str], None] | None = None) -> None:
        """Load what the first question would otherwise wait for: the knowledge base (embedding model,
        guides), the data files behind the calculators and the agent, by answering one question offline
        in a private session. `progress` hears "guides" when the guides must be prepared first (a fresh
        data directory), so the terminal can say why the start takes longer."""
        from knowledge.retrieval import get_retriever

        try:
            retriever = get_retriever()
            if progress is not None and retriever.auto_ingest_guides and not retriever.guides_current():
                progress("guides")
            retriever.refresh()
        except Exception as exc:  # the chat reports knowledge errors when it needs the store
            log.warning("knowledge base not ready: %s", exc)
        session = f"__warm-up-{uuid.uuid4().hex}"  # private: never indexed; unique across replicas
        try:
            self.ask(session, "How much memory to QLoRA fine-tune Qwen2.5-7B on an RTX 4090?", provider="offline")
        finally:
            self.reset(session)

    def proposal(self, session_id: str, out_dir: str, stem: str | None = None) -> ProposalFiles:
        """The session's purchase proposal in every format, written to `out_dir` (the web app's download button);
        the reason instead when the session has nothing to propose or a file cannot be written."""
        from assistant.proposal import proposal_files
        from tools.errors import AdvisorError

        try:
            files = proposal_files(self._saved_messages(session_id), stem or session_id, Path(out_dir))
        except (AdvisorError, OSError) as exc:
            return ProposalFiles(error=str(exc))
        return ProposalFiles(files={suffix: str(path) for suffix, path in files.items()})

    def reset(self, session_id: str) -> None:
        """Forget a session: its messages and scenario, in the session store too."""
        store = self.sessions()
        try:
            store.delete(session_id)
        except Exception as exc:
            if self._store_failed(store, exc) is None:
                raise
        with self._lock:
            lock = self._session_locks.get(session_id)
            if lock is not None and not lock.locked():  # a closed tab's session: nothing of it stays
                del self._session_locks[session_id]

    # ---- internals -------------------------------------------------------------------------------
    def _messages(self, session_id: str) -> list[Any]:
        return self.sessions().messages(session_id)

    def _saved_messages(self, session_id: str) -> list[Any]:
        """The messages, or none when the store fails (which then falls back to memory)."""
        store = self.sessions()
        try:
            return store.messages(session_id)
        except Exception as exc:
            if self._store_failed(store, exc) is None:
                raise
            return []

    def _record(self, session_id: str) -> None:
        """Index the session after a turn (title, turns, last activity) and apply retention."""
        with self._lock:
            active = {sid for sid, lock in self._session_locks.items() if lock.locked()}
        self.sessions().saved(session_id, self._messages(session_id), keep=active)

    def _turn(self, session_id: str, text: str, provider: str, settings: Settings) -> Iterator[Event]:
        from langchain_core.messages import HumanMessage

        start = time.perf_counter()
        before = len(self._messages(session_id))
        config = {"configurable": {"thread_id": session_id}, "recursion_limit": 16}
        fell_back = False
        try:
            agent = self._agent(provider, settings)
            yield from self._run_graph(agent, {"messages": [HumanMessage(text)]}, config)
        except Exception as exc:  # any provider failure becomes a message, never a traceback
            from assistant.providers import describe_llm_failure, endpoint_of

            if self._store_broken(exc):
                raise  # stream_turn answers in a fresh in-memory session
            failure = describe_llm_failure(exc, endpoint=endpoint_of(settings), timeout_s=settings.timeout_s)
            yield ErrorEvent(message=failure.message, kind=failure.kind)
            if not (settings.fallback_offline and provider != "offline"):
                self._record(session_id)
                yield self._final_from_error(session_id, text, provider, [failure.message])
                return
            fell_back = True
            self._repair_thread(session_id, before, text)
            offline = self._agent("offline", settings)
            yield from self._run_graph(offline, None, config)
            provider = "offline"
        if provider != "offline":
            from assistant.providers import invalid_tool_call_failure

            last = self._messages(session_id)[-1:]
            failure = invalid_tool_call_failure(last[0]) if last else None
            if failure is not None:  # the model sent tool-call arguments that are not JSON
                yield ErrorEvent(message=failure.message, kind=failure.kind)
                if settings.fallback_offline:
                    self._repair_thread(session_id, before, text)
                    yield from self._run_graph(self._agent("offline", settings), None, config)
                    provider, fell_back = "offline", True
        final = self._final(session_id, before, provider, start, fell_back)
        self._record(session_id)
        yield final

    def _store_broken(self, exc: Exception) -> bool:
        from assistant.sessions import is_store_error

        return is_store_error(exc) and self.sessions().check() is not None

    def _run_graph(self, agent: Any, inputs: dict | None, config: dict) -> Iterator[Event]:
        pending: dict[str, tuple[str, float]] = {}
        # "sync": each step is saved before the next, so the housekeeping after a turn never races its writes
        for mode, payload in agent.stream(inputs, config, stream_mode=["updates", "messages"], durability="sync"):
            if mode == "messages":
                chunk, _meta = payload
                if (
                    getattr(chunk, "type", "") in ("AIMessageChunk", "ai")
                    and chunk.content
                    and not getattr(chunk, "tool_call_chunks", None)
                ):
                    yield TextEvent(delta=str(chunk.content))
                continue
            for node_output in (payload or {}).values():
                for msg in (node_output or {}).get("messages", []) if isinstance(node_output, dict) else []:
                    for call in getattr(msg, "tool_calls", None) or []:
                        pending[call["id"]] = (call["name"], time.perf_counter())
                        yield ToolCallEvent(id=call["id"], name=call["name"], args=call.get("args") or {})
                    if getattr(msg, "type", "") == "tool":
                        name, started = pending.pop(msg.tool_call_id, (msg.name or "tool", time.perf_counter()))
                        ok, result, error = tool_payload(name, str(msg.content))
                        yield ToolResultEvent(
                            id=msg.tool_call_id,
                            name=name,
                            ok=ok,
                            result=result,
                            error=error,
                            summary=summarize_result(name, result) if ok else f"error: {error}",
                            duration_ms=round((time.perf_counter() - started) * 1000, 1),
                        )

    def _repair_thread(self, session_id: str, before: int, text: str) -> None:
        """After a failed provider call, make sure the thread ends with the user's message for the fallback."""
        from langchain_core.messages import HumanMessage, RemoveMessage

        agent = self._agent("offline", self.settings)
        config = {"configurable": {"thread_id": session_id}}
        messages = self._messages(session_id)
        extra = messages[before:]
        if extra and isinstance(extra[0], HumanMessage):
            removals = [RemoveMessage(id=m.id) for m in extra[1:] if getattr(m, "id", None)]
        else:
            removals = [RemoveMessage(id=m.id) for m in extra if getattr(m, "id", None)]
            agent.update_state(config, {"messages": [*removals, HumanMessage(text)]})
            return
        if removals:
            agent.update_state(config, {"messages": removals})

    def _final(self, session_id: str, before: int, provider: str, start: float, fell_back: bool) -> FinalEvent:
        messages = self._messages(session_id)
        turn = messages[before:]
        last = next((m for m in reversed(turn) if m.type == "ai" and m.content), None)
        answer = str(last.content) if last is not None else ""
        replies = list((getattr(last, "additional_kwargs", None) or {}).get("quick_replies") or [])
        question = next((str(m.content) for m in turn if m.type == "human"), "")
        records = tool_records(turn)
        users = [str(m.content) for m in messages if m.type == "human"]
        citations = _citations(last, records, users)
        from assistant.strings import static_texts
        from assistant.understanding.accelerators import named_figures

        passages = [c.text + " " + c.title + " " + c.section for c in citations] + static_texts() + named_figures(users)
        results = [r.result for r in records if r.result is not None]
        results += _parsed_notes(question)
        grounding = check_grounding(answer, results, passages, users)
        return FinalEvent(
            answer=answer,
            language=detect_language(question),
            provider=provider,
            tool_calls=records,
            citations=citations,
            grounding=grounding,
            consistency=check_consistency(answer, results),
            scenario=scenario_from_messages(messages),
            latency_ms=round((time.perf_counter() - start) * 1000, 1),
            fell_back=fell_back,
            quick_replies=replies,
        )

    def _final_from_error(self, session_id: str, text: str, provider: str, errors: list[str]) -> FinalEvent:
        from assistant.grounding import GroundingReport

        lang = detect_language(text)
        prefix = "抱歉，这一轮没有完成：" if lang == "zh" else "Sorry, this turn could not be completed: "
        return FinalEvent(
            answer=prefix + "; ".join(errors or ["unknown error"]),
            language=lang,
            provider=provider,
            tool_calls=[],
            citations=[],
            grounding=GroundingReport(numbers_checked=0, untraceable=[]),
            scenario=self.scenario(session_id),
            latency_ms=0,
        )


def _parsed_notes(question: str) -> list[Any]:
    """The catalog facts the parser stated about the question (the desktop card a laptop part is named after, the
    base model of a fine-tune): data with sources, which the answer repeats, so they ground its numbers."""
    from assistant.understanding import parse

    try:
        return list(parse(question).notes) if question else []
    except Exception:  # grounding is a report; a question the parser cannot read grounds nothing more
        return []


def _citations(last: Any, records: list[ToolCallRecord], users: list[str]) -> list[Citation]:
    """The sources of the answer: those the offline planner numbered in it, or, for an LLM's answer, the
    passages it was given that fit the conversation (`assistant.subjects`)."""
    from assistant.subjects import turn_subjects
    from assistant.toolset import ToolName

    results = [r.result for r in records]
    numbered = (getattr(last, "additional_kwargs", None) or {}).get("cited")
    if numbered is not None:
        return cited_again(results, numbered)
    calls = [(r.name, r.args) for r in records if r.name != ToolName.SEARCH_GUIDES]
    return citations_from(results, subjects=turn_subjects(users, calls, results))
