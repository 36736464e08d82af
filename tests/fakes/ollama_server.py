"""A scripted Ollama server: /api/chat (NDJSON stream or one JSON), /api/tags, /api/show, /api/version."""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import Any

from . import Exchange, RecordedRequest, ScriptedServer, Turn, split_text

_CREATED_AT = "2025-01-01T00:00:00.000000Z"


class FakeOllamaServer(ScriptedServer):
    """Speaks enough of the Ollama REST API for ChatOllama (which streams /api/chat by default)."""

    chat_path = "/api/chat"

    def __init__(self, script: Iterable[Turn] = (), *, models: Iterable[str] = ("qwen2.5:7b",)) -> None:
        super().__init__(script)
        self.models = list(models)

    def __enter__(self) -> FakeOllamaServer:
        super().__enter__()
        return self

    @property
    def base_url(self) -> str:
        """What to give ChatOllama as base_url (the Ollama host)."""
        return self.url

    def route(self, exchange: Exchange, request: RecordedRequest) -> None:
        if request.path == self.chat_path and request.method == "POST":
            self.play(exchange, request)
        elif request.path == "/api/tags":
            exchange.send_json(200, {"models": [self._model_entry(m) for m in self.models]})
        elif request.path == "/api/show" and request.method == "POST":
            name = (request.body or {}).get("model") or (request.body or {}).get("name")
            if name not in self.models:
                exchange.send_json(404, self.error_payload(404, f"model '{name}' not found"))
                return
            exchange.send_json(
                200,
                {
                    "modelfile": f"FROM {name}",
                    "parameters": "",
                    "template": "{{ .Prompt }}",
                    "details": {"format": "gguf", "family": "qwen2", "parameter_size": "7.6B"},
                    "model_info": {"general.architecture": "qwen2"},
                    "capabilities": ["completion", "tools"],
                },
            )
        elif request.path == "/api/version":
            exchange.send_json(200, {"version": "0.6.0-fake"})
        else:
            exchange.send_json(404, self.error_payload(404, f"no route {request.method} {request.path}"))

    @staticmethod
    def _model_entry(name: str) -> dict[str, Any]:
        return {
            "name": name,
            "model": name,
            "modified_at": _CREATED_AT,
            "size": 4_700_000_000,
            "digest": "0" * 64,
            "details": {"format": "gguf", "family": "qwen2", "parameter_size": "7.6B", "quantization_level": "Q4_K_M"},
        }

    def error_payload(self, code: int, message: str) -> Any:
        return {"error": message}

    def _message(self, content: str, turn: Turn | None = None) -> dict[str, Any]:
        message: dict[str, Any] = {"role": "assistant", "content": content}
        if turn is not None and turn.tool_calls:
            # Ollama parses tool calls server-side and sends arguments as an object, not a JSON string.
            message["tool_calls"] = [
                {"function": {"name": c.name, "arguments": c.arguments_object()}} for c in turn.tool_calls
            ]
        return message

    def _done(self, request: RecordedRequest, message: dict[str, Any]) -> dict[str, Any]:
        return {
            "model": (request.body or {}).get("model", self.models[0]),
            "created_at": _CREATED_AT,
            "message": message,
            "done": True,
            "done_reason": "stop",
            "total_duration": 1_000_000,
            "load_duration": 10_000,
            "prompt_eval_count": 20,
            "prompt_eval_duration": 100_000,
            "eval_count": 10,
            "eval_duration": 500_000,
        }

    def _partial(self, request: RecordedRequest, message: dict[str, Any]) -> dict[str, Any]:
        model = (request.body or {}).get("model", self.models[0])
        return {"model": model, "created_at": _CREATED_AT, "message": message, "done": False}

    def reply(self, exchange: Exchange, request: RecordedRequest, turn: Turn) -> None:
        exchange.send_json(200, self._done(request, self._message(turn.content, turn)))

    def stream_reply(self, exchange: Exchange, request: RecordedRequest, turn: Turn) -> None:
        parts = [self._partial(request, self._message(piece)) for piece in split_text(turn.content)]
        if turn.tool_calls:
            parts.append(self._partial(request, self._message("", turn)))
        parts.append(self._done(request, self._message("")))
        exchange.start_stream("application/x-ndjson")
        for part in parts:
            exchange.write_chunk(json.dumps(part).encode() + b"\n")
        exchange.end_stream()

    def drop(self, exchange: Exchange, request: RecordedRequest, *, streaming: bool) -> None:
        if streaming:
            first = json.dumps(self._partial(request, self._message("this answer will be cut"))).encode() + b"\n"
            exchange.drop_partial(first, streaming=True, content_type="application/x-ndjson")
        else:
            exchange.drop_partial(b'{"model": "x", "message": {', streaming=False, content_type="application/json")
