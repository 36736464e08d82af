"""LLM failures in one readable line: what went wrong talking to the model, and whether trying again may help.

Works from the exception's class names and attributes (openai, httpx, ollama, LangChain), so none of
those libraries is imported here.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

from assistant.providers.models import ProviderError
from assistant.providers.redaction import display_url, redact

if TYPE_CHECKING:
    from langchain_core.messages import BaseMessage

FailureKind = Literal[
    "timeout", "connection", "auth", "rate_limit", "server", "bad_request", "bad_response", "config", "unknown"
]


@dataclass(frozen=True)
class LlmFailure:
    """What went wrong talking to the LLM, in words for the user, and whether trying again may help."""

    kind: FailureKind
    message: str
    retryable: bool
    status_code: int | None = None
    retry_after_s: float | None = None


_TIMEOUT_NAMES = {"TimeoutException", "ReadTimeout", "WriteTimeout", "PoolTimeout", "APITimeoutError"}
_TIMEOUT_NAMES |= {"ModelTimeoutError", "TimeoutError", "StreamChunkTimeoutError", "NodeTimeoutError"}
_DROP_NAMES = {"RemoteProtocolError", "ReadError", "WriteError", "ConnectionResetError", "BrokenPipeError"}
_DROP_NAMES |= {"ConnectionAbortedError", "IncompleteRead"}
_CONNECT_NAMES = {"ConnectError", "APIConnectionError", "ModelConnectionError", "ConnectionError", "NetworkError"}
_PARSE_NAMES = {"OutputParserException", "JSONDecodeError", "ValidationError", "APIResponseValidationError"}
_EMPTY_STREAM_TEXT = ("No generation chunks were returned", "No data received from Ollama stream")

# Failures without an HTTP status, told apart by the exception classes in the chain; the first match wins
# (httpx's ConnectTimeout is also a TimeoutException, so it comes first).
_TRANSPORT_FAILURES: tuple[tuple[set[str], FailureKind, str, bool], ...] = (
    (
        {"ModelAuthenticationError", "ModelPermissionDeniedError"},
        "auth",
        "the API key was rejected — check GPU_ADVISOR_API_KEY",
        False,
    ),
    ({"ModelRateLimitError"}, "rate_limit", "{where} is rate-limiting requests — wait a moment and try again", True),
    ({"ConnectTimeout"}, "connection", "{where} did not accept a connection in time — check the address", True),
    (
        _TIMEOUT_NAMES,
        "timeout",
        "{where} did not answer{within} — the model may be busy or still loading; "
        "try again or raise GPU_ADVISOR_TIMEOUT_S",
        True,
    ),
    ({"ConnectionRefusedError"}, "connection", "{where} refused the connection — is the server running?", True),
    ({"gaierror"}, "connection", "could not resolve the host of {where} — check the address", True),
    (_DROP_NAMES, "connection", "{where} closed the connection in the middle of the answer — try again", True),
    (_CONNECT_NAMES, "connection", "could not reach {where} — is the server running and the address right?", True),
)


def describe_llm_failure(
    exc: BaseException,
    *,
    endpoint: str | None = None,
    timeout_s: float | None = None,
    secrets: Iterable[str | None] = (),
) -> LlmFailure:
    """Explain an exception from ChatOpenAI / ChatOllama (openai, httpx, ollama, LangChain) for the user."""
    chain = list(_exception_chain(exc))
    names = {cls.__name__ for e in chain for cls in type(e).__mro__}
    where = f"the LLM endpoint {endpoint or _endpoint_from(chain) or ''}".rstrip()
    status_code = _status_code(chain)
    retry_after = retry_after_s(exc)
    detail = _server_detail(chain)

    outcome: tuple[FailureKind, str, bool]
    if isinstance(exc, ProviderError):
        outcome = ("config", str(exc), False)
    elif "GraphRecursionError" in names:
        outcome = ("bad_response", "the model kept calling tools without reaching an answer — try rephrasing", False)
    elif status_code is not None:
        outcome = _describe_status(status_code, where, detail, retry_after, names)
    else:
        outcome = _describe_transport(names, where, timeout_s) or _describe_payload(exc, chain, names, where, detail)
    kind, message, retryable = outcome
    return LlmFailure(kind, redact(message, secrets), retryable, status_code, retry_after)


def _describe_status(
    code: int, where: str, detail: str, retry_after: float | None, names: set[str]
) -> tuple[FailureKind, str, bool]:
    said = f": {detail}" if detail else ""
    ollama = "ResponseError" in names  # ollama's client error type; its server takes no GPU_ADVISOR_API_KEY
    if code == 401 and ollama:
        return "auth", f"{where} refused access (401) — check OLLAMA_API_KEY or the user:password in the host", False
    if code == 401:
        return "auth", "the API key was rejected (401) — check GPU_ADVISOR_API_KEY", False
    if code == 404 and ollama:
        return "bad_request", f"{where} does not have this model (404){said} — run `ollama pull MODEL` first", False
    if code == 403:
        return "auth", f"the API key is not allowed to do this (403){said} — check its permissions", False
    if code == 429:
        wait = f"; the server asks to wait {retry_after:g} s" if retry_after is not None else ""
        return "rate_limit", f"{where} is rate-limiting requests (429){wait} — try again shortly", True
    if code == 408:
        return "timeout", f"{where} timed out (408) — try again", True
    if code == 404:
        return "bad_request", f"{where} does not know this model or path (404){said} — check the model name", False
    if "ContextOverflowError" in names or ("context" in detail.lower() and "length" in detail.lower()):
        return "bad_request", f"the conversation is too long for the model ({code}){said} — start a new chat", False
    if 400 <= code < 500:
        return "bad_request", f"{where} rejected the request ({code}){said}", False
    if code >= 500:
        return "server", f"{where} had a server error ({code}){said} — try again later", True
    return "unknown", f"{where} answered with HTTP {code}{said}", False


def _describe_transport(names: set[str], where: str, timeout_s: float | None) -> tuple[FailureKind, str, bool] | None:
    """A timeout, refused or dropped connection, or an auth / rate-limit error raised without a status."""
    within = f" within {timeout_s:g} s" if timeout_s else " in time"
    for classes, kind, template, retryable in _TRANSPORT_FAILURES:
        if names & classes:
            return kind, template.format(where=where, within=within), retryable
    return None


def _describe_payload(
    exc: BaseException, chain: list[BaseException], names: set[str], where: str, detail: str
) -> tuple[FailureKind, str, bool]:
    """An error the server reported in its body, an answer that cannot be read, or anything else."""
    if "ResponseError" in names or ("APIError" in names and not names & _PARSE_NAMES):
        return "server", f"{where} reported an error: {detail or _short(str(exc))}", False
    if names & _PARSE_NAMES or any(text in str(e) for e in chain for text in _EMPTY_STREAM_TEXT):
        return "bad_response", _bad_response_message(chain, where), True
    if "Unexpected response type" in str(exc):
        return "bad_response", f"{where} answered with something that is not a chat completion", True
    return "unknown", f"the LLM call failed ({type(exc).__name__}: {_short(str(exc))})", False


def _bad_response_message(chain: list[BaseException], where: str) -> str:
    text = " ".join(str(e) for e in chain)
    if "tool_calls" in text or "arguments" in text or "Function " in text:
        return "the model sent a tool call whose arguments are not valid JSON — try again or use a stronger model"
    if any(t in text for t in _EMPTY_STREAM_TEXT):
        return f"{where} sent an empty or unreadable stream — is it really an OpenAI-compatible / Ollama server?"
    return f"{where} sent a response that is not valid JSON — is a proxy or a non-LLM server answering?"


def invalid_tool_call_failure(message: BaseMessage) -> LlmFailure | None:
    """A bad_response failure when an AI message carries only malformed tool calls (LangChain keeps them in
    `invalid_tool_calls` instead of raising); None when the message is usable."""
    invalid = getattr(message, "invalid_tool_calls", None) or []
    if not invalid or getattr(message, "tool_calls", None):
        return None
    name = invalid[0].get("name") or "a tool"
    return LlmFailure(
        "bad_response",
        f"the model called {name} with arguments that are not valid JSON — try again or use a stronger model",
        True,
    )


def retry_after_s(exc: BaseException) -> float | None:
    """The server's Retry-After (or retry-after-ms) in seconds, if any response in the chain carries one."""
    for e in _exception_chain(exc):
        headers = getattr(getattr(e, "response", None), "headers", None)
        if headers is None:
            continue
        for header, scale in (("retry-after-ms", 1000.0), ("retry-after", 1.0)):
            value = headers.get(header)
            if value is None:
                continue
            try:
                seconds = float(value) / scale
            except ValueError:
                continue
            if seconds >= 0 and seconds != float("inf"):
                return seconds
    return None


def _exception_chain(exc: BaseException, limit: int = 12) -> Iterator[BaseException]:
    seen: set[int] = set()
    current: BaseException | None = exc
    while current is not None and id(current) not in seen and len(seen) < limit:
        seen.add(id(current))
        yield current
        current = current.__cause__ or current.__context__


def _status_code(chain: list[BaseException]) -> int | None:
    for e in chain:
        code = getattr(e, "status_code", None)
        if isinstance(code, int) and 100 <= code <= 599:
            return code
        response = getattr(e, "response", None)
        code = getattr(response, "status_code", None)
        if isinstance(code, int) and code >= 400:
            return code
    return None


def _server_detail(chain: list[BaseException]) -> str:
    """The server's own error text (from a JSON error body), shortened."""
    for e in chain:
        body = getattr(e, "body", None)
        if isinstance(body, dict):
            inner = body.get("error", body)
            message = inner.get("message") if isinstance(inner, dict) else inner
            if isinstance(message, str) and message:
                return _short(message)
        error = getattr(e, "error", None)  # ollama.ResponseError
        if isinstance(error, str) and error:
            return _short(error)
        message = getattr(e, "message", None)
        if isinstance(message, str) and message.startswith("Error code:"):
            return _short(message.split(" - ", 1)[-1])
    return ""


def _endpoint_from(chain: list[BaseException]) -> str | None:
    for e in chain:
        for holder in (e, getattr(e, "response", None)):
            try:
                request = getattr(holder, "request", None)  # httpx raises RuntimeError when unset
            except RuntimeError:
                request = None
            url = getattr(request, "url", None)
            if url is not None:
                return display_url(_api_root(str(url)))
    return None


def _api_root(url: str) -> str:
    for suffix in ("/chat/completions", "/completions", "/responses", "/models", "/api/chat", "/api/tags", "/api/show"):
        if url.split("?", 1)[0].endswith(suffix):
            return url.split("?", 1)[0][: -len(suffix)]
    return url


def _short(text: str, limit: int = 200) -> str:
    text = " ".join(str(text).split())
    return text if len(text) <= limit else text[: limit - 1] + "…"
