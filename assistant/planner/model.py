"""The offline provider: a deterministic LangChain chat model that plans tool calls and writes answers."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator, Sequence
from functools import lru_cache
from typing import Any

from langchain_core.callbacks import CallbackManagerForLLMRun
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, AIMessageChunk, BaseMessage, HumanMessage, ToolMessage
from langchain_core.outputs import ChatGeneration, ChatGenerationChunk, ChatResult
from pydantic import Field, PrivateAttr

from assistant.capabilities.base import Outcome, ToolCall, call_id, owner_from_id
from assistant.capabilities.recommend import ASSUMED_JOB
from assistant.planner.clarify import ASKED, as_reply, picked_offer, plan_turn, questions_asked, replies_in
from assistant.planner.compose import compose
from assistant.planner.plan import merge, second_round
from assistant.scenario import Scenario, scenario_from_messages
from assistant.toolset import typed_result
from assistant.understanding import ParsedQuery
from assistant.understanding import parse as _parse_text
from tools.notes import Note


def _text(message: BaseMessage) -> str:
    content = message.content
    if isinstance(content, str):
        return content
    return " ".join(part.get("text", "") for part in content if isinstance(part, dict))


class OfflinePlanner(BaseChatModel):
    """Reads the conversation, emits real tool calls, then composes the answer from their results."""

    tool_names: list[str] = Field(default_factory=list)
    _bound: dict[tuple[str, ...], OfflinePlanner] = PrivateAttr(default_factory=dict)

    @property
    def _llm_type(self) -> str:
        return "gpu-advisor-offline"

    def bind_tools(self, tools: Sequence[Any], **kwargs: Any) -> OfflinePlanner:  # type: ignore[override]
        names = [getattr(t, "name", None) or (t.get("name") if isinstance(t, dict) else str(t)) for t in tools]
        # The agent binds its tools on every model call; the same copy each time spares LangChain from
        # re-serializing a fresh model for its callbacks on every step.
        key = tuple(names)
        if key not in self._bound:
            self._bound[key] = self.model_copy(update={"tool_names": names})
        return self._bound[key]

    def respond(self, messages: list[BaseMessage]) -> AIMessage:
        """One step of the agent loop: tool calls for a new question, or the answer once results are in."""
        last_human = max((i for i, m in enumerate(messages) if isinstance(m, HumanMessage)), default=None)
        if last_human is None:
            return AIMessage(content="")
        question = _text(messages[last_human])
        parsed = parse(question)
        previous = _with_pending_questions(messages[:last_human])
        asked = questions_asked(messages[:last_human])  # "推理" after "这些卡主要用来做什么？" answers that question
        parsed = as_reply(parsed) if asked or picked_offer(messages[:last_human], question) else parsed
        plan = plan_turn(parsed, previous, asked)
        if self.tool_names:
            plan.calls = [c for c in plan.calls if c.name in self.tool_names]
        after = messages[last_human + 1 :]
        requested = [c for m in after if isinstance(m, AIMessage) for c in (m.tool_calls or [])]
        if plan.calls and not requested:
            return _calls_message(plan.calls)
        results = {m.tool_call_id: m for m in after if isinstance(m, ToolMessage)}
        outcomes = [_outcome(call, results.get(call["id"]), plan.calls) for call in requested]
        rounds = sum(1 for m in after if isinstance(m, AIMessage) and m.tool_calls)
        if rounds == 1:
            more = [c for c in second_round(plan, outcomes) if c.name in self.tool_names or not self.tool_names]
            if more:
                return _calls_message(more)
        composed = compose(plan, parsed, outcomes, before=_previous_answer(messages[:last_human]))
        extra: dict[str, Any] = {}
        if composed.quick_replies:  # plain data: the checkpointer keeps it with the message
            extra["quick_replies"] = [r.model_dump() for r in composed.quick_replies]
        if plan.ask:  # the question this answer asks: the next message may be its reply (planner/clarify.py)
            extra[ASKED] = plan.ask
        if composed.citations:  # the sections the answer numbers, so every view lists exactly these
            extra["cited"] = [[c.doc_id, c.section] for c in composed.citations]
        assumed = [n for n in plan.notes if isinstance(n, Note) and n.code in ASSUMED_JOB]
        if assumed:  # the job sized was nobody's: a proposal written from this answer must say so (assistant/turns.py)
            extra["assumed_job"] = assumed[0].model_dump(mode="json")
        return AIMessage(content=composed.answer, additional_kwargs=extra)

    def _generate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: CallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> ChatResult:
        return ChatResult(generations=[ChatGeneration(message=self.respond(messages))])

    def _stream(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: CallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> Iterator[ChatGenerationChunk]:
        message = self.respond(messages)
        if message.tool_calls:
            chunks = [
                {
                    "name": c["name"],
                    "args": json.dumps(c["args"], ensure_ascii=False),
                    "id": c["id"],
                    "index": i,
                    "type": "tool_call_chunk",
                }
                for i, c in enumerate(message.tool_calls)
            ]
            yield ChatGenerationChunk(message=AIMessageChunk(content="", tool_call_chunks=chunks))
            return
        # The answer is complete already: stream it a line at a time (each chunk is a message object that
        # LangGraph and every consumer handle; word by word made a turn hundreds of events).
        pieces = re.findall(r"[^\n]*\n+|[^\n]+", str(message.content)) or [""]
        for i, piece in enumerate(pieces):
            last = i == len(pieces) - 1  # the quick replies ride on the last chunk, once
            extra = message.additional_kwargs if last else {}
            chunk = ChatGenerationChunk(message=AIMessageChunk(content=piece, additional_kwargs=extra))
            if run_manager:
                run_manager.on_llm_new_token(piece, chunk=chunk)
            yield chunk


@lru_cache(maxsize=512)
def _parsed(text: str) -> ParsedQuery:
    return _parse_text(text)


def parse(text: str) -> ParsedQuery:
    """The parser's reading of a message. Every step of a turn re-reads the conversation, so readings are
    remembered; each caller gets its own copy to change."""
    return _parsed(text).model_copy(deep=True)


def _previous_answer(history: list[BaseMessage]) -> str:
    """The last answer the user read (an AI message with text, not a tool request)."""
    for msg in reversed(history):
        if isinstance(msg, AIMessage) and not msg.tool_calls and msg.content:
            return _text(msg)
    return ""


def _with_pending_questions(history: list[BaseMessage]) -> Scenario:
    """The scenario from earlier tool calls, plus what the user said in turns the planner answered with a
    question ("which GPU?"): "Qwen2.5-7B 推理速度多少？" -> "which GPU?" -> "一张 4090" keeps the model."""
    scenario = scenario_from_messages(history)
    _keep_named_engine(history, scenario)
    _mark_sized_count(history, scenario)
    last_tools = max((i for i, m in enumerate(history) if isinstance(m, AIMessage) and m.tool_calls), default=-1)
    replies = replies_in(history)
    for pos, msg in enumerate(history[last_tools + 1 :], start=last_tools + 1):
        if isinstance(msg, HumanMessage):
            parsed = as_reply(parse(_text(msg))) if pos in replies else parse(_text(msg))
            intents = [i for i in parsed.intents if i not in ("help", "out_of_scope", "concept")]
            scenario, _ = merge(parsed, scenario)
            if intents:
                scenario.last_intents = intents
    return scenario


def _mark_sized_count(history: list[BaseMessage], scenario: Scenario) -> None:
    """Whether the scenario's card count is one an answer worked out: the user's last message that named cards
    ("How many A6000s for 70B?", "I have 2x 3090") stated another count or none ("I have a 4090" states one), so
    "what about with 4090s instead" sizes the new card's count anew instead of keeping the A6000s' four."""
    if scenario.num_gpus is None:
        return
    named = next(
        (p for m in reversed(history) if isinstance(m, HumanMessage) and (p := parse(_text(m))).gpu_mentions),
        None,
    )
    if named is None:
        return
    stated = named.gpu_counts.get(named.gpu or "") or named.num_gpus or (1 if named.owns_hardware else None)
    scenario.count_sized = stated != scenario.num_gpus


def _keep_named_engine(history: list[BaseMessage], scenario: Scenario) -> None:
    """The engine the user last named stays until they name another: a turn whose calls carry no engine
    ("I use vLLM, biggest model on a 4090?" sizes with largest_model) must not drop it, and one the planner
    chose for a turn (vLLM for a service) does not replace it. An offload engine ("用 ktransformers 跑") is one too:
    "换成 3090 呢" still runs it, until another engine is named."""
    named = next(
        (
            p
            for m in reversed(history)
            if isinstance(m, HumanMessage) and ((p := parse(_text(m))).engine or p.offload_engine)
        ),
        None,
    )
    if named is not None:
        if named.engine:
            scenario.engine, scenario.engine_name = named.engine, named.engine_name
        scenario.offload_engine = named.offload_engine


def _calls_message(calls: list[ToolCall]) -> AIMessage:
    """Tool calls whose ids name the capability that planned them (the scenario replays them by owner)."""
    return AIMessage(
        content="",
        tool_calls=[{"name": str(c.name), "args": c.args, "id": call_id(c.owner), "type": "tool_call"} for c in calls],
    )


def _outcome(call: dict[str, Any], message: ToolMessage | None, planned: list[ToolCall]) -> Outcome:
    """A requested call and its tool message as an Outcome with the tool's typed result."""
    owner = owner_from_id(call["id"]) or next(
        (c.owner for c in planned if c.name == call["name"] and c.args == call["args"]), ""
    )
    done = ToolCall(name=call["name"], args=call.get("args") or {}, owner=owner)
    if message is None:
        return Outcome(call=done, ok=False, error="the tool did not answer")
    try:
        data = json.loads(_text(message))
    except json.JSONDecodeError:
        return Outcome(call=done, ok=False, error=_text(message)[:500])
    if isinstance(data, dict) and set(data) == {"error"}:
        return Outcome(call=done, ok=False, error=str(data["error"]))
    result = typed_result(call["name"], data)
    if result is None:
        return Outcome(call=done, ok=False, error=f"{call['name']} returned a result I cannot read")
    return Outcome(call=done, ok=True, result=result)
