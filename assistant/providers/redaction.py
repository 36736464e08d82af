"""Secrets out of every message and log line: registered API keys, sk-... keys, bearer tokens, URL passwords."""

from __future__ import annotations

import logging
import re
import threading
from collections.abc import Iterable
from urllib.parse import urlsplit, urlunsplit

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
    if value and len(value) >= 4:
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


def display_url(url: str | None) -> str | None:
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
