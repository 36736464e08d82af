"""A scripted OpenAI-compatible server: /v1/chat/completions (JSON and SSE) and /v1/models."""

from __future__ import annotations

import json
import time
from collections.abc import Iterable
from typing import Any

from . import Exchange, RecordedRequest, ScriptedServer, Turn, split_text


class FakeOpenAIServer(ScriptedServer):
    """Speaks the chat-completions protocol that vLLM, llama.cpp, LM Studio, DeepSeek and Qwen endpoints share."""

    chat_path = "/v1/chat/completions"

    def __init__(self, script: Iterable[Turn] = (), *, models: Iterable[str] = ("fake-model",)) -> None:
        super().__init__(script)
        self.models = list(models)
        self._completions = 0

    def __enter__(self) -> FakeOpenAIServer:
        super().__enter__()
        return self

    @property
    def base_url(self) -> str:
        """What to give ChatOpenAI as base_url."""
        return f"{self.url}/v1"

    def route(self, exchange: Exchange, request: RecordedRequest) -> None:
        if request.path == self.chat_path and request.method == "POST":
            self.play(exchange, request)
        elif request.path == "/v1/models" and request.method == "GET":
            data = [{"id": m, "object": "model", "created": 1_700_000_000, "owned_by": "fake"} for m in self.models]
            exchange.send_json(200, {"object": "list", "data": data})
        else:
            exchange.send_json(404, self.error_payload(404, f"no route {request.method} {request.path}"))

    def error_payload(self, code: int, message: str) -> Any:
        kinds = {401: "invalid_request_error", 429: "rate_limit_exceeded", 404: "not_found_error"}
        return {"error": {"message": message, "type": kinds.get(code, "server_error"), "param": None, "code": None}}

    def _completion_id(self) -> str:
        with self.lock:
            self._completions += 1
            return f"chatcmpl-fake-{self._completions}"

    def _tool_call_ids(self, turn: Turn, completion_id: str) -> list[str]:
        return [c.call_id or f"call_{completion_id[-4:]}_{i}" for i, c in enumerate(turn.tool_calls)]

    def reply(self, exchange: Exchange, request: RecordedRequest, turn: Turn) -> None:
        completion_id = self._completion_id()
        message: dict[str, Any] = {"role": "assistant", "content": turn.content or None}
        if turn.tool_calls:
            ids = self._tool_call_ids(turn, completion_id)
            message["tool_calls"] = [
                {"id": ids[i], "type": "function", "function": {"name": c.name, "arguments": c.arguments}}
                for i, c in enumerate(turn.tool_calls)
            ]
        payload = {
            "id": completion_id,
            "object": "chat.completion",
            "created": int(time.time()),
            "model": (request.body or {}).get("model", "fake-model"),
            "choices": [
                {
                    "index": 0,
                    "message": message,
                    "logprobs": None,
                    "finish_reason": "tool_calls" if turn.tool_calls else "stop",
                }
            ],
            "usage": {"prompt_tokens": 20, "completion_tokens": 10, "total_tokens": 30},
        }
        exchange.send_json(200, payload)

    def _chunks(self, request: RecordedRequest, turn: Turn) -> list[dict[str, Any]]:
        completion_id = self._completion_id()
        model = (request.body or {}).get("model", "fake-model")

        def chunk(delta: dict[str, Any], finish_reason: str | None = None) -> dict[str, Any]:
            return {
                "id": completion_id,
                "object": "chat.completion.chunk",
                "created": int(time.time()),
                "model": model,
                "choices": [{"index": 0, "delta": delta, "logprobs": None, "finish_reason": finish_reason}],
            }

        chunks = [chunk({"role": "assistant", "content": ""})]
        chunks += [chunk({"content": piece}) for piece in split_text(turn.content)]
        ids = self._tool_call_ids(turn, completion_id)
        for index, (call, call_id) in enumerate(zip(turn.tool_calls, ids, strict=True)):
            head = {"index": index, "id": call_id, "type": "function", "function": {"name": call.name, "arguments": ""}}
            chunks.append(chunk({"tool_calls": [head]}))
            # Real servers send arguments in small fragments that only parse once joined.
            for piece in split_text(call.arguments, pieces=4):
                chunks.append(chunk({"tool_calls": [{"index": index, "function": {"arguments": piece}}]}))
        chunks.append(chunk({}, "tool_calls" if turn.tool_calls else "stop"))
        if ((request.body or {}).get("stream_options") or {}).get("include_usage"):
            usage = {"prompt_tokens": 20, "completion_tokens": 10, "total_tokens": 30}
            chunks.append({**chunk({}), "choices": [], "usage": usage})
        return chunks

    def stream_reply(self, exchange: Exchange, request: RecordedRequest, turn: Turn) -> None:
        exchange.start_stream("text/event-stream")
        for payload in self._chunks(request, turn):
            exchange.write_chunk(f"data: {json.dumps(payload)}\n\n".encode())
        exchange.write_chunk(b"data: [DONE]\n\n")
        exchange.end_stream()

    def drop(self, exchange: Exchange, request: RecordedRequest, *, streaming: bool) -> None:
        partial = self._chunks(request, Turn(content="this answer will be cut off"))[:2]
        if streaming:
            data = "".join(f"data: {json.dumps(p)}\n\n" for p in partial).encode()
            exchange.drop_partial(data, streaming=True, content_type="text/event-stream")
        else:
            exchange.drop_partial(
                b'{"id": "chatcmpl-fake", "choices": [', streaming=False, content_type="application/json"
            )
