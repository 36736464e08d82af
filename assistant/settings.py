"""Assistant configuration from GPU_ADVISOR_* environment variables, .env, CLI flags and the UI."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from pydantic import AliasChoices, Field, SecretStr, field_validator
from pydantic_settings import BaseSettings, SettingsConfigDict


class Settings(BaseSettings):
    """Which LLM to talk to and how; every field can be set as GPU_ADVISOR_<FIELD> (e.g. GPU_ADVISOR_PROVIDER)."""

    model_config = SettingsConfigDict(
        env_prefix="GPU_ADVISOR_",
        env_file=".env",
        env_file_encoding="utf-8",
        env_ignore_empty=True,
        extra="ignore",
        populate_by_name=True,
        validate_assignment=True,
    )

    provider: str = Field(
        "offline",
        description="`offline` (built-in planner), `openai:MODEL` (any OpenAI-compatible endpoint) or `ollama:MODEL`",
    )
    base_url: str | None = Field(
        None,
        description="OpenAI-compatible endpoint, e.g. https://api.deepseek.com/v1 or http://127.0.0.1:8000/v1 (vLLM)",
    )
    api_key: SecretStr | None = Field(
        None,
        validation_alias=AliasChoices("api_key", "GPU_ADVISOR_API_KEY", "OPENAI_API_KEY"),
        description="key for the OpenAI-compatible endpoint; OPENAI_API_KEY is read when GPU_ADVISOR_API_KEY is unset",
    )
    ollama_host: str = Field("http://127.0.0.1:11434", description="where the Ollama server listens")
    timeout_s: float = Field(60.0, gt=0, description="seconds to wait for the LLM endpoint before giving up")
    max_retries: int = Field(
        2,
        ge=0,
        le=10,
        description="client-side retries for 429, 5xx, timeouts and drops (OpenAI-compatible endpoints; "
        "Ollama calls are not retried)",
    )
    fallback_offline: bool = Field(True, description="answer with the offline planner when the LLM endpoint fails")
    data_dir: Path | None = Field(None, description="where the knowledge store and uploads live (GPU_ADVISOR_DATA_DIR)")
    temperature: float = Field(0.0, ge=0, le=2, description="sampling temperature for LLM providers")
    sessions_url: str | None = Field(
        None,
        description="where conversations persist (GPU_ADVISOR_SESSIONS_URL): unset = the SQLite file "
        "sessions.sqlite in the data dir; postgresql://user:password@host:5432/db for several replicas; "
        "a SQLite file path; or `memory` to save nothing",
    )
    sessions_max_age_days: float = Field(
        90.0, ge=0, description="delete sessions idle for longer than this many days (0 = keep them)"
    )
    sessions_max_count: int = Field(
        1000, ge=0, description="keep at most this many sessions, the most recently active (0 = no limit)"
    )
    sessions_timeout_s: float = Field(
        5.0, gt=0, description="seconds to wait for a locked SQLite session file or to connect to PostgreSQL"
    )

    @field_validator("provider")
    @classmethod
    def _known_provider(cls, value: str) -> str:
        from assistant.providers import parse_provider  # providers imports this module; keep the edge one-way

        return str(parse_provider(value))

    @field_validator("base_url")
    @classmethod
    def _clean_base_url(cls, value: str | None) -> str | None:
        return (value.strip().rstrip("/") or None) if value is not None else None

    @field_validator("sessions_url")
    @classmethod
    def _known_sessions_store(cls, value: str | None) -> str | None:
        from assistant.sessions import store_kind

        value = (value or "").strip() or None
        store_kind(value)  # an unknown scheme is a clear error now, not at the first turn
        return value

    @field_validator("ollama_host")
    @classmethod
    def _clean_ollama_host(cls, value: str) -> str:
        return value.strip().rstrip("/")


def settings_from(overrides: dict[str, Any] | None = None, **kwargs: Any) -> Settings:
    """Build settings from env/.env, with CLI flags or UI fields on top; None values mean "not given"."""
    given = {k: v for k, v in {**(overrides or {}), **kwargs}.items() if v is not None}
    unknown = sorted(set(given) - set(Settings.model_fields))
    if unknown:
        known = ", ".join(Settings.model_fields)
        raise ValueError(f"unknown setting(s) {', '.join(unknown)} — known settings: {known}")
    if isinstance(given.get("api_key"), str) and not given["api_key"].strip():
        del given["api_key"]  # an empty key box in the UI means "keep the configured key"
    return Settings(**given)
