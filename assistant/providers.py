"""Chat models by provider string, and LLM failures explained in plain words (never with the API key).

`offline` is the built-in planner (supplied by the caller), `openai:MODEL` any OpenAI-compatible endpoint
(OpenAI, DeepSeek, Qwen/DashScope, vLLM, llama.cpp server, LM Studio), `ollama:MODEL` a local Ollama.
LangChain, openai and ollama are imported only when a model is built, so importing this module is cheap.
"""

from __future__ import annotations

import asyncio
import logging
import re
import threading
import time
from collections.abc import Awaitable, Callable, Iterable, Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal, TypeVar
from urllib.parse import urlsplit, urlunsplit

if TYPE_CHECKING:
    from langchain_core.language_models import BaseChatModel
    from langchain_core.messages import BaseMessage

    from assistant.settings import Settings

log = logging.getLogger(__name__)

T = TypeVar("T")
ProviderKind = Literal["offline", "openai", "ollama"]
FailureKind = Literal[
    "timeout", "connection", "auth", "rate_limit", "server", "bad_request", "bad_response", "config", "unknown"
]

PROVIDER_KINDS: tuple[ProviderKind, ...] = ("offline", "openai", "ollama")
_EXAMPLES = "offline, openai:gpt-4o-mini, openai:deepseek-chat, ollama:qwen2.5:7b"
# Local OpenAI-compatible servers ignore the key, but the openai client refuses to start without one.
_PLACEHOLDER_KEY = "not-needed"


class ProviderError(ValueError):
    """A provider string or provider configuration that cannot work; the message says how to fix it."""


@dataclass(frozen=True)
class ProviderSpec:
    """A parsed provider string: `offline`, or a kind plus a model name."""

    kind: ProviderKind
    model: str | None = None

    def __str__(self) -> str:
        return self.kind if self.model is None else f"{self.kind}:{self.model}"


def parse_provider(spec: str) -> ProviderSpec:
    """Parse `offline`, `openai:MODEL` or `ollama:MODEL` (the model may itself contain ':' or '/')."""
    raw = (spec or "").strip()
    if not raw:
        raise ProviderError(f"no provider given — use one of: {_EXAMPLES}")
    kind, _, model = raw.partition(":")
    kind, model = kind.strip().lower(), model.strip()
    if kind not in PROVIDER_KINDS:
        head, slash, rest = raw.partition("/")
        if slash and head.strip().lower() in PROVIDER_KINDS and rest:
            raise ProviderError(f"unknown provider '{raw}' — did you mean '{head.strip().lower()}:{rest.strip()}'?")
        raise ProviderError(f"unknown provider '{raw}' — use one of: {_EXAMPLES}")
    if kind == "offline":
        if model:
            raise ProviderError(f"'{raw}': the offline planner takes no model name — use 'offline'")
        return ProviderSpec("offline")
    if not model:
        example = "openai:gpt-4o-mini" if kind == "openai" else "ollama:qwen2.5:7b"
        raise ProviderError(f"'{raw}' needs a model name, e.g. '{example}'")
    return ProviderSpec(kind, model)  # type: ignore[arg-type]  # kind checked against PROVIDER_KINDS above


# --- secrets ---------------------------------------------------------------------------------------------

_known_secrets: set[str] = set()
_secrets_lock = threading.Lock()
_SECRET_PATTERNS = (
    (re.compile(r"\bsk-[A-Za-z0-9_\-]{6,}"), "sk-***"),
    (re.compile(r"(?i)\b(bearer)\s+[A-Za-z0-9._~+/=\-]{6,}"), r"\1 ***"),
    (re.compile(r"(?i)\b(api[_-]?key|access[_-]?token|token)([\"']?\s*[:=]\s*[\"']?)[^\s\"'&,;]{6,}"), r"\1\2***"),
    (re.compile(r"(://[^/\s:@]+:)[^/\s@]+@"), r"\1***@"),
)


def register_secret(value: str | None) -> None:
    """Remember a secret so that `redact` (and so every failure message) removes it."""
    if value and len(value) >= 4 and value != _PLACEHOLDER_KEY:
        with _secrets_lock:
            _known_secrets.add(value)


def redact(text: str, secrets: Iterable[str | None] = ()) -> str:
    """Remove API keys from text: registered and given secrets, sk-... keys, bearer tokens, URL passwords."""
    with _secrets_lock:
        known = set(_known_secrets)
    known.update(s for s in secrets if s and len(s) >= 4)
    for secret in sorted(known, key=len, reverse=True):
        text = text.replace(secret, "***")
    for pattern, replacement in _SECRET_PATTERNS:
        text = pattern.sub(replacement, text)
    return text


class SecretRedactingFilter(logging.Filter):
    """A logging filter for handlers: rewrites each record with secrets removed."""

    def filter(self, record: logging.LogRecord) -> bool:
        message = record.getMessage()
        cleaned = redact(message)
        if cleaned != message:
            record.msg, record.args = cleaned, None
        if record.exc_info and record.exc_info[1] is not None:
            record.exc_text = redact(logging.Formatter().formatException(record.exc_info))
            record.exc_info = None
        return True


def install_log_redaction() -> None:
    """Scrub secrets from everything this process logs: a SecretRedactingFilter on every root handler
    (a stderr handler is added at WARNING if there is none). Library loggers propagate to the root, so
    their records pass the filter too. Called by the web server and the assistant process at start."""
    root = logging.getLogger()
    if not root.handlers:
        logging.basicConfig(level=logging.WARNING, format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    for handler in root.handlers:
        if not any(isinstance(f, SecretRedactingFilter) for f in handler.filters):
            handler.addFilter(SecretRedactingFilter())


# --- building chat models ---------------------------------------------------------------------------------


def build_chat_model(settings: Settings, offline_factory: Callable[[], BaseChatModel]) -> BaseChatModel:
    """The chat model `settings.provider` names, configured with the settings' endpoint, timeout and retries."""
    spec = parse_provider(settings.provider)
    if spec.kind == "offline":
        return offline_factory()
    if spec.kind == "openai":
        return _build_openai(spec, settings)
    return _build_ollama(spec, settings)


def _build_openai(spec: ProviderSpec, settings: Settings) -> BaseChatModel:
    from langchain_openai import ChatOpenAI
    from pydantic import SecretStr

    key = settings.api_key
    if key is None:
        if settings.base_url is None:
            raise ProviderError(
                f"'{spec}' needs an API key — set GPU_ADVISOR_API_KEY (or OPENAI_API_KEY), "
                "or point GPU_ADVISOR_BASE_URL at a local OpenAI-compatible server"
            )
        key = SecretStr(_PLACEHOLDER_KEY)
    register_secret(key.get_secret_value())
    options: dict[str, Any] = {
        "model": spec.model,
        "api_key": key,
        "base_url": settings.base_url,
        "timeout": settings.timeout_s,
        "max_retries": settings.max_retries,
        "temperature": settings.temperature,
    }
    if settings.base_url is not None:
        # Compatible servers speak chat completions only; never let ChatOpenAI pick the Responses API.
        options["use_responses_api"] = False
    log.debug("building ChatOpenAI model=%s base_url=%s", spec.model, _display_url(settings.base_url))
    return ChatOpenAI(**options)


def _build_ollama(spec: ProviderSpec, settings: Settings) -> BaseChatModel:
    from langchain_ollama import ChatOllama

    log.debug("building ChatOllama model=%s host=%s", spec.model, _display_url(settings.ollama_host))
    # ChatOllama has no timeout or retry options of its own: the timeout goes to its httpx client, and
    # retries are the caller's (call_with_retry).
    return ChatOllama(
        model=spec.model,
        base_url=settings.ollama_host,
        temperature=settings.temperature,
        client_kwargs={"timeout": settings.timeout_s},
    )


def endpoint_of(settings: Settings) -> str | None:
    """The address the configured provider talks to (for messages and the UI), without credentials."""
    spec = parse_provider(settings.provider)
    if spec.kind == "openai":
        return _display_url(settings.base_url or "https://api.openai.com/v1")
    if spec.kind == "ollama":
        return _display_url(settings.ollama_host)
    return None


# --- failures ---------------------------------------------------------------------------------------------


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
    secrets = list(secrets)

    def failure(kind: FailureKind, message: str, retryable: bool) -> LlmFailure:
        return LlmFailure(kind, redact(message, secrets), retryable, status_code, retry_after)

    if isinstance(exc, ProviderError):
        return failure("config", str(exc), False)
    if "GraphRecursionError" in names:
        return failure(
            "bad_response", "the model kept calling tools without reaching an answer — try rephrasing", False
        )
    if status_code is not None:
        return failure(*_describe_status(status_code, where, detail, retry_after, names))
    if names & {"ModelAuthenticationError", "ModelPermissionDeniedError"}:
        return failure("auth", "the API key was rejected — check GPU_ADVISOR_API_KEY", False)
    if "ModelRateLimitError" in names:
        return failure("rate_limit", f"{where} is rate-limiting requests — wait a moment and try again", True)
    if "ConnectTimeout" in names:
        return failure("connection", f"{where} did not accept a connection in time — check the address", True)
    if names & _TIMEOUT_NAMES:
        within = f" within {timeout_s:g} s" if timeout_s else " in time"
        return failure(
            "timeout",
            f"{where} did not answer{within} — the model may be busy or still loading; "
            "try again or raise GPU_ADVISOR_TIMEOUT_S",
            True,
        )
    if "ConnectionRefusedError" in names:
        return failure("connection", f"{where} refused the connection — is the server running?", True)
    if "gaierror" in names:
        return failure("connection", f"could not resolve the host of {where} — check the address", True)
    if names & _DROP_NAMES:
        return failure("connection", f"{where} closed the connection in the middle of the answer — try again", True)
    if names & _CONNECT_NAMES:
        return failure("connection", f"could not reach {where} — is the server running and the address right?", True)
    if "ResponseError" in names or ("APIError" in names and not names & _PARSE_NAMES):
        return failure("server", f"{where} reported an error: {detail or _short(str(exc))}", False)
    if names & _PARSE_NAMES or any(text in str(e) for e in chain for text in _EMPTY_STREAM_TEXT):
        return failure("bad_response", _bad_response_message(chain, where), True)
    if "Unexpected response type" in str(exc):
        return failure("bad_response", f"{where} answered with something that is not a chat completion", True)
    return failure("unknown", f"the LLM call failed ({type(exc).__name__}: {_short(str(exc))})", False)


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


def is_retryable_llm_error(exc: BaseException) -> bool:
    """Whether trying the same LLM call again may succeed (429, 5xx, timeouts, dropped connections)."""
    return describe_llm_failure(exc).retryable


def call_with_retry(
    fn: Callable[[], T],
    *,
    retries: int,
    backoff_s: float,
    is_retryable: Callable[[BaseException], bool] = is_retryable_llm_error,
    max_backoff_s: float = 30.0,
    retry_after: Callable[[BaseException], float | None] = retry_after_s,
    sleep: Callable[[float], None] = time.sleep,
    on_retry: Callable[[int, BaseException, float], None] | None = None,
) -> T:
    """Call fn, retrying retryable failures up to `retries` times with exponential backoff (backoff_s, 2x, 4x...);
    a Retry-After from the server replaces the computed wait; every wait is capped at max_backoff_s."""
    for attempt, wait in enumerate(_waits(retries, backoff_s)):
        try:
            return fn()
        except Exception as exc:
            if wait is None or not is_retryable(exc):
                raise
            wait = _wait_for(exc, wait, retry_after, max_backoff_s)
            if on_retry is not None:
                on_retry(attempt + 1, exc, wait)
            log.info("LLM call failed (%s); retry %d of %d in %.2f s", type(exc).__name__, attempt + 1, retries, wait)
            sleep(wait)
    raise AssertionError("unreachable")  # the last attempt either returns or raises


async def acall_with_retry(
    fn: Callable[[], Awaitable[T]],
    *,
    retries: int,
    backoff_s: float,
    is_retryable: Callable[[BaseException], bool] = is_retryable_llm_error,
    max_backoff_s: float = 30.0,
    retry_after: Callable[[BaseException], float | None] = retry_after_s,
    on_retry: Callable[[int, BaseException, float], None] | None = None,
) -> T:
    """`call_with_retry` for coroutines."""
    for attempt, wait in enumerate(_waits(retries, backoff_s)):
        try:
            return await fn()
        except Exception as exc:
            if wait is None or not is_retryable(exc):
                raise
            wait = _wait_for(exc, wait, retry_after, max_backoff_s)
            if on_retry is not None:
                on_retry(attempt + 1, exc, wait)
            await asyncio.sleep(wait)
    raise AssertionError("unreachable")


def _waits(retries: int, backoff_s: float) -> Iterator[float | None]:
    """The wait after each attempt; None after the last one."""
    for attempt in range(max(0, retries)):
        yield backoff_s * 2**attempt
    yield None


def _wait_for(
    exc: BaseException, computed: float, retry_after: Callable[[BaseException], float | None], cap: float
) -> float:
    hinted = retry_after(exc)
    return max(0.0, min(hinted if hinted is not None else computed, cap))


# --- helpers ----------------------------------------------------------------------------------------------


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
                return _display_url(_api_root(str(url)))
    return None


def _api_root(url: str) -> str:
    for suffix in ("/chat/completions", "/completions", "/responses", "/models", "/api/chat", "/api/tags", "/api/show"):
        if url.split("?", 1)[0].endswith(suffix):
            return url.split("?", 1)[0][: -len(suffix)]
    return url


def _display_url(url: str | None) -> str | None:
    """The URL without user:password and query string."""
    if not url:
        return url
    try:
        parts = urlsplit(url)
    except ValueError:
        return redact(url)
    netloc = parts.hostname or ""
    if parts.port:
        netloc = f"{netloc}:{parts.port}"
    if not parts.scheme or not netloc:
        return redact(url)
    return urlunsplit((parts.scheme, netloc, parts.path.rstrip("/"), "", ""))


def _short(text: str, limit: int = 200) -> str:
    text = " ".join(str(text).split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


__all__ = [
    "LlmFailure",
    "ProviderError",
    "ProviderSpec",
    "SecretRedactingFilter",
    "acall_with_retry",
    "build_chat_model",
    "call_with_retry",
    "describe_llm_failure",
    "endpoint_of",
    "install_log_redaction",
    "invalid_tool_call_failure",
    "is_retryable_llm_error",
    "parse_provider",
    "redact",
    "register_secret",
    "retry_after_s",
]
