"""Scripted local LLM servers for provider tests: real HTTP on 127.0.0.1, one scripted turn per request.

A test lists the turns the "model" plays, in order; each chat request consumes the next one:

    with FakeOpenAIServer([tool_call("estimate_vram", {"model": "qwen2.5-7b"}), text("10.3 GiB")]) as server:
        ...  # point ChatOpenAI at server.base_url
        assert server.chat_requests[0].body["tools"][0]["function"]["name"] == "estimate_vram"

Turns: `text`, `tool_call`, `tool_calls`, `malformed_tool_call` (answers), and `status`, `delay`, `drop`,
`garbage` (failures). Each server renders a turn in its own wire format (OpenAI JSON/SSE, Ollama NDJSON).
"""

from __future__ import annotations

import contextlib
import json
import socket
import threading
import time
from collections.abc import Iterable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Literal

TurnKind = Literal["reply", "status", "delay", "drop", "garbage"]


@dataclass(frozen=True)
class ScriptedToolCall:
    """One tool call the fake model makes; `arguments` is the raw JSON text (it may be broken on purpose)."""

    name: str
    arguments: str
    call_id: str | None = None

    def arguments_object(self) -> Any:
        """The arguments as JSON if they parse, else the raw text (Ollama carries objects, not strings)."""
        try:
            return json.loads(self.arguments)
        except json.JSONDecodeError:
            return self.arguments


@dataclass(frozen=True)
class Turn:
    """What the fake server does for one chat request."""

    kind: TurnKind = "reply"
    content: str = ""
    tool_calls: tuple[ScriptedToolCall, ...] = ()
    status_code: int = 200
    retry_after: float | None = None
    message: str = ""
    delay_s: float = 0.0
    then: Turn | None = None
    body: str = ""
    content_type: str = "application/json"


def text(content: str) -> Turn:
    """Answer with plain text."""
    return Turn(content=content)


def tool_call(name: str, args: dict[str, Any], *, call_id: str | None = None, content: str = "") -> Turn:
    """Answer with one tool call (and optional text alongside it)."""
    return Turn(content=content, tool_calls=(ScriptedToolCall(name, json.dumps(args), call_id),))


def tool_calls(*calls: tuple[str, dict[str, Any]], content: str = "") -> Turn:
    """Answer with several tool calls in one message, e.g. `tool_calls(("gpu_specs", {...}), ("find_gpus", {...}))`."""
    return Turn(content=content, tool_calls=tuple(ScriptedToolCall(n, json.dumps(a)) for n, a in calls))


def malformed_tool_call(name: str = "estimate_vram", raw_arguments: str = '{"model": "qwen2.5-7b", "mode": ') -> Turn:
    """Answer with a tool call whose arguments are not valid JSON (a truncated object by default)."""
    return Turn(tool_calls=(ScriptedToolCall(name, raw_arguments),))


def status(code: int, *, retry_after: float | None = None, message: str | None = None) -> Turn:
    """Fail with an HTTP error status (401, 429, 500...), optionally with a Retry-After header in seconds."""
    return Turn(kind="status", status_code=code, retry_after=retry_after, message=message or f"fake error {code}")


def delay(seconds: float, then: Turn | None = None) -> Turn:
    """Wait before answering (long enough and the client times out); then play `then` (a short text by default)."""
    return Turn(kind="delay", delay_s=seconds, then=then or text("sorry, that took a while"))


def drop() -> Turn:
    """Start a response and close the connection in the middle of its body."""
    return Turn(kind="drop")


def garbage(body: str = "<html><body>502 Bad Gateway</body></html>", content_type: str = "application/json") -> Turn:
    """Answer 200 with a body that is not JSON (by default labelled as JSON, as a broken proxy would)."""
    return Turn(kind="garbage", body=body, content_type=content_type)


@dataclass
class RecordedRequest:
    """A request the fake server received."""

    method: str
    path: str
    headers: dict[str, str]
    raw: bytes
    at: float = field(default_factory=time.monotonic)

    @property
    def body(self) -> Any:
        """The JSON body, or None when the body is empty or not JSON."""
        try:
            return json.loads(self.raw) if self.raw else None
        except json.JSONDecodeError:
            return None


class Exchange:
    """One request/response in progress: the handler's socket plus helpers to answer on it."""

    def __init__(self, handler: BaseHTTPRequestHandler, server: ScriptedServer) -> None:
        self.handler = handler
        self.server = server

    def send_json(self, code: int, payload: Any, headers: dict[str, str] | None = None) -> None:
        """Answer with a complete JSON body."""
        self.send_bytes(code, json.dumps(payload).encode(), "application/json", headers)

    def send_bytes(self, code: int, data: bytes, content_type: str, headers: dict[str, str] | None = None) -> None:
        """Answer with a complete body of any type."""
        h = self.handler
        h.send_response(code)
        h.send_header("Content-Type", content_type)
        h.send_header("Content-Length", str(len(data)))
        for key, value in (headers or {}).items():
            h.send_header(key, value)
        h.end_headers()
        h.wfile.write(data)
        h.wfile.flush()

    def start_stream(self, content_type: str) -> None:
        """Begin a chunked (streaming) 200 response."""
        h = self.handler
        h.send_response(200)
        h.send_header("Content-Type", content_type)
        h.send_header("Transfer-Encoding", "chunked")
        h.send_header("Cache-Control", "no-cache")
        h.end_headers()
        h.wfile.flush()

    def write_chunk(self, data: bytes) -> None:
        """Send one piece of a streaming body."""
        self.handler.wfile.write(f"{len(data):x}\r\n".encode() + data + b"\r\n")
        self.handler.wfile.flush()

    def end_stream(self) -> None:
        """Finish a streaming body properly."""
        self.handler.wfile.write(b"0\r\n\r\n")
        self.handler.wfile.flush()

    def drop_partial(self, data: bytes, *, streaming: bool, content_type: str) -> None:
        """Send the start of a body, then close the socket before it is complete."""
        h = self.handler
        h.send_response(200)
        h.send_header("Content-Type", content_type)
        if streaming:
            h.send_header("Transfer-Encoding", "chunked")
            h.end_headers()
            self.write_chunk(data)
        else:
            h.send_header("Content-Length", str(len(data) + 4096))
            h.end_headers()
            h.wfile.write(data)
            h.wfile.flush()
        self.abort()

    def abort(self) -> None:
        """Close the connection abruptly."""
        self.handler.close_connection = True
        with contextlib.suppress(OSError):
            self.handler.connection.shutdown(socket.SHUT_RDWR)

    def wait(self, seconds: float) -> bool:
        """Sleep unless the server is shutting down; False when it is."""
        return not self.server.stopping.wait(seconds)


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    timeout = 10
    server: _HTTPServer

    def _dispatch(self) -> None:
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length) if length else b""
        owner = self.server.owner
        request = RecordedRequest(
            method=self.command,
            path=self.path.split("?", 1)[0],
            headers={k.lower(): v for k, v in self.headers.items()},
            raw=raw,
        )
        with owner.lock:
            owner.requests.append(request)
        self.close_connection = True  # one request per connection keeps client pools honest
        try:
            owner.route(Exchange(self, owner), request)
        except OSError:  # the client went away (timeout, cancelled stream): nothing left to answer
            self.close_connection = True

    do_GET = do_POST = do_HEAD = do_DELETE = _dispatch

    def end_headers(self) -> None:
        self.send_header("Connection", "close")
        super().end_headers()

    def log_message(self, format: str, *args: Any) -> None:
        pass


class _HTTPServer(ThreadingHTTPServer):
    daemon_threads = True
    owner: ScriptedServer


class ScriptedServer:
    """A loopback HTTP server that plays scripted turns; use it as a context manager."""

    chat_path = ""
    script_exhausted_status = 500

    def __init__(self, script: Iterable[Turn] = ()) -> None:
        self.script: list[Turn] = list(script)
        self.requests: list[RecordedRequest] = []
        self.lock = threading.Lock()
        self.stopping = threading.Event()
        self._httpd: _HTTPServer | None = None
        self._thread: threading.Thread | None = None

    def __enter__(self) -> ScriptedServer:
        self._httpd = _HTTPServer(("127.0.0.1", 0), _Handler)
        self._httpd.owner = self
        self._thread = threading.Thread(target=self._httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
        self._thread.start()
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.stopping.set()
        assert self._httpd is not None and self._thread is not None
        self._httpd.shutdown()
        self._httpd.server_close()
        self._thread.join(timeout=5)

    @property
    def port(self) -> int:
        """The port the server listens on."""
        assert self._httpd is not None, "start the server with `with` first"
        return self._httpd.server_address[1]

    @property
    def url(self) -> str:
        """Root URL, e.g. http://127.0.0.1:53211."""
        return f"http://127.0.0.1:{self.port}"

    @property
    def chat_requests(self) -> list[RecordedRequest]:
        """The chat requests received so far (each consumed one turn)."""
        with self.lock:
            return [r for r in self.requests if r.path == self.chat_path]

    @property
    def remaining(self) -> int:
        """How many scripted turns have not been played yet."""
        with self.lock:
            return len(self.script)

    def add(self, *turns: Turn) -> None:
        """Append turns to the script."""
        with self.lock:
            self.script.extend(turns)

    def next_turn(self) -> Turn | None:
        """Take the next scripted turn, or None when the script is used up."""
        with self.lock:
            return self.script.pop(0) if self.script else None

    def route(self, exchange: Exchange, request: RecordedRequest) -> None:
        """Answer one request (subclasses speak their protocol)."""
        raise NotImplementedError

    def play(self, exchange: Exchange, request: RecordedRequest) -> None:
        """Answer a chat request with the next scripted turn."""
        turn = self.next_turn()
        if turn is None:
            exchange.send_json(self.script_exhausted_status, self.error_payload(500, "fake server: script exhausted"))
            return
        while turn.kind == "delay":
            if not exchange.wait(turn.delay_s):
                exchange.abort()
                return
            assert turn.then is not None
            turn = turn.then
        streaming = bool((request.body or {}).get("stream"))
        if turn.kind == "status":
            headers = {"Retry-After": f"{turn.retry_after:g}"} if turn.retry_after is not None else None
            exchange.send_json(turn.status_code, self.error_payload(turn.status_code, turn.message), headers)
        elif turn.kind == "garbage":
            exchange.send_bytes(200, turn.body.encode(), turn.content_type)
        elif turn.kind == "drop":
            self.drop(exchange, request, streaming=streaming)
        elif streaming:
            self.stream_reply(exchange, request, turn)
        else:
            self.reply(exchange, request, turn)

    def error_payload(self, code: int, message: str) -> Any:
        """The JSON body of an error response."""
        raise NotImplementedError

    def reply(self, exchange: Exchange, request: RecordedRequest, turn: Turn) -> None:
        """Send a whole scripted answer as one JSON body."""
        raise NotImplementedError

    def stream_reply(self, exchange: Exchange, request: RecordedRequest, turn: Turn) -> None:
        """Send a scripted answer as a stream."""
        raise NotImplementedError

    def drop(self, exchange: Exchange, request: RecordedRequest, *, streaming: bool) -> None:
        """Start an answer and cut the connection."""
        raise NotImplementedError


def split_text(value: str, pieces: int = 3) -> list[str]:
    """Cut text into up to `pieces` non-empty parts, so streams carry several deltas."""
    if not value:
        return []
    size = max(1, -(-len(value) // pieces))
    return [value[i : i + size] for i in range(0, len(value), size)]
