"""Chat models by provider string, and LLM failures explained in plain words (never with the API key).

`offline` is the built-in planner (supplied by the caller), `openai:MODEL` any OpenAI-compatible endpoint
(OpenAI, DeepSeek, Qwen/DashScope, vLLM, llama.cpp server, LM Studio), `ollama:MODEL` a local Ollama.
`models` parses provider strings and builds chat models, `redaction` keeps secrets out of messages and
logs, `failures` turns an exception into one readable line. Importing this package is cheap: LangChain,
openai and ollama load only when a model is built.
"""

from assistant.providers.failures import (
    LlmFailure,
    describe_llm_failure,
    invalid_tool_call_failure,
    retry_after_s,
)
from assistant.providers.models import ProviderError, ProviderSpec, build_chat_model, endpoint_of, parse_provider
from assistant.providers.redaction import SecretRedactingFilter, install_log_redaction, redact, register_secret

__all__ = [
    "LlmFailure",
    "ProviderError",
    "ProviderSpec",
    "SecretRedactingFilter",
    "build_chat_model",
    "describe_llm_failure",
    "endpoint_of",
    "install_log_redaction",
    "invalid_tool_call_failure",
    "parse_provider",
    "redact",
    "register_secret",
    "retry_after_s",
]
