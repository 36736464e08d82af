"""Provider strings (`offline`, `openai:MODEL`, `ollama:MODEL`) and the chat models they name.

LangChain, openai and ollama are imported only when a model is built, so importing this module is cheap.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal

from assistant.providers.redaction import display_url, register_secret

if TYPE_CHECKING:
    from langchain_core.language_models import BaseChatModel

    from assistant.settings import Settings

log = logging.getLogger(__name__)

ProviderKind = Literal["offline", "openai", "ollama"]
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
    if key.get_secret_value() != _PLACEHOLDER_KEY:
        register_secret(key.get_secret_value())
    options: dict[str, Any] = {
        "model": spec.model,
        "api_key": key,
        "base_url": settings.base_url,
        "timeout": settings.timeout_s,
        # The openai client itself retries 429, 5xx, timeouts and dropped connections, honouring Retry-After.
        "max_retries": settings.max_retries,
        "temperature": settings.temperature,
    }
    if settings.base_url is not None:
        # Compatible servers speak chat completions only; never let ChatOpenAI pick the Responses API.
        options["use_responses_api"] = False
    log.debug("building ChatOpenAI model=%s base_url=%s", spec.model, display_url(settings.base_url))
    return ChatOpenAI(**options)


def _build_ollama(spec: ProviderSpec, settings: Settings) -> BaseChatModel:
    from langchain_ollama import ChatOllama

    log.debug("building ChatOllama model=%s host=%s", spec.model, display_url(settings.ollama_host))
    # ChatOllama has no timeout or retry options of its own: the timeout goes to its httpx client, and a
    # failed Ollama call is not retried (settings.max_retries applies to the openai client only).
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
        return display_url(settings.base_url or "https://api.openai.com/v1")
    if spec.kind == "ollama":
        return display_url(settings.ollama_host)
    return None
