"""The web app (Gradio 6): `gpu-advisor chat` serves it on 127.0.0.1:7860.

Gradio is imported only when the app is built, so the calculators' CLI stays light.
"""

from __future__ import annotations

import importlib.util
import logging
import os
from collections.abc import Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import gradio as gr

    from assistant.settings import Settings

log = logging.getLogger(__name__)


def _offline_env() -> None:
    """No telemetry and no model-hub lookups, whatever the caller's environment says."""
    os.environ["GRADIO_ANALYTICS_ENABLED"] = "False"
    os.environ["ANONYMIZED_TELEMETRY"] = "False"
    os.environ.setdefault("HF_HUB_OFFLINE", "1")


def _quiet_library_warnings() -> None:
    """Gradio's own request routes declare their body with FastAPI's `Body(alias=...)`, which pydantic 2.12 reports
    on the first request (UnsupportedFieldAttributeWarning: "the 'alias' attribute ... has no effect"): a notice
    about the libraries' code, not ours, that would land on the user's terminal. Only that category is silenced.

    Gradio also makes a new asyncio event loop each time it needs a lock outside a running loop (gradio.utils
    `safe_get_lock` / `safe_get_stop_event`, ~11 times from start to Ctrl+C) and never closes the one it replaces:
    with warnings shown (-W default or error) each is reported as an unclosed event loop plus its two self-pipe
    sockets (AF_UNIX stream, family=1 type=1). Those two ResourceWarning messages are silenced, nothing else:
    an unclosed file or network socket of ours is still reported."""
    import warnings

    from pydantic.warnings import UnsupportedFieldAttributeWarning

    warnings.filterwarnings("ignore", category=UnsupportedFieldAttributeWarning)
    warnings.filterwarnings("ignore", message=r"unclosed event loop <_UnixSelectorEventLoop", category=ResourceWarning)
    warnings.filterwarnings(
        "ignore", message=r"unclosed <socket\.socket fd=\d+, family=1, type=1, proto=0>", category=ResourceWarning
    )


def build_app(advisor: Any = None, settings: Settings | None = None, lang: str = "en") -> gr.Blocks:
    """The Gradio Blocks app; `advisor` replaces the default Advisor(settings) (tests inject one)."""
    _offline_env()
    _quiet_library_warnings()
    from assistant.web.app import build_app as _build

    return _build(advisor=advisor, settings=settings, lang=lang)


def parse_auth(auth: str | None) -> tuple[str, str] | None:
    """'user:password' -> ('user', 'password'); the password may contain ':'."""
    if not auth:
        return None
    user, sep, password = auth.partition(":")
    if not sep or not user or not password:
        raise ValueError("--auth must look like user:password (both non-empty)")
    return user, password


def launch_kwargs(host: str, port: int, auth: str | None, share: bool) -> dict[str, Any]:
    """Arguments for Blocks.launch: loopback by default, no share link unless asked, MCP when enabled."""
    from assistant.web import kb

    _, max_mb = kb.limits()
    kwargs: dict[str, Any] = {
        "server_name": host,
        "server_port": port,
        "auth": parse_auth(auth),
        "share": bool(share),
        "max_file_size": f"{max_mb:g}mb",
        "ssr_mode": False,
        "show_error": True,
    }
    if os.environ.get("GPU_ADVISOR_MCP", "").lower() in ("1", "true", "yes"):
        if importlib.util.find_spec("mcp") is None:
            log.warning("GPU_ADVISOR_MCP is set but the 'mcp' package is not installed: pip install 'gradio[mcp]'")
        else:
            kwargs["mcp_server"] = True
    return kwargs


def startup_line(host: str, port: int, auth: str | None = None, share_url: str | None = None) -> str:
    """What `gpu-advisor chat` prints once the app is up: where it runs, and the flags that change that."""
    loopback = host in ("127.0.0.1", "localhost", "::1")
    shown = "127.0.0.1" if host in ("0.0.0.0", "::") else host
    lines = [f"GPU Advisor is running on http://{shown}:{port}/ (Ctrl+C to stop)."]
    lines.append("Only this machine can open it." if loopback else f"It listens on {host}: other machines can open it.")
    if share_url:
        lines.append(f"Public link (about 72 hours): {share_url}")
    options = []
    if loopback:
        options.append("--host 0.0.0.0 to serve your network")
    if not auth:
        options.append("--auth user:password to require a login")
    if not share_url:
        options.append("--share for a temporary public link")
    if options:
        lines.append("Options: " + "; ".join(options) + ".")
    return "\n".join(lines)


def theme_kwargs() -> dict[str, Any]:
    """CSS and JS of the app (Gradio 6 takes them in launch())."""
    from assistant.web.theme import CSS, JS

    return {"css": CSS, "js": JS}


def free_port() -> int:
    """A free TCP port on loopback."""
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@contextmanager
def serve_local(
    advisor: Any = None, settings: Settings | None = None, lang: str = "en", port: int | None = None
) -> Iterator[str]:
    """The app in this process on loopback (a free port unless given), for tests and the screenshot; yields its URL."""
    demo = build_app(advisor=advisor, settings=settings, lang=lang)
    port = port or free_port()
    demo.launch(
        server_name="127.0.0.1",
        server_port=port,
        prevent_thread_lock=True,
        quiet=True,
        ssr_mode=False,
        **theme_kwargs(),
    )
    try:
        yield f"http://127.0.0.1:{port}/"
    finally:
        demo.close()


def serve(
    settings: Settings | None = None,
    host: str = "127.0.0.1",
    port: int = 7860,
    auth: str | None = None,
    share: bool = False,
    in_process: bool = False,
) -> None:
    """Serve the app until interrupted (binds 127.0.0.1 unless told otherwise; never a share link unless asked).

    The assistant runs in a child process (assistant/worker.py) unless `in_process`: the web server and
    the assistant then use two cores instead of sharing one interpreter lock."""
    from assistant.providers import install_log_redaction

    install_log_redaction()
    kwargs = launch_kwargs(host, port, auth, share)
    if in_process:
        from assistant.advisor import Advisor

        advisor: Any = Advisor(settings)
    else:
        from assistant.worker import AdvisorProcess

        advisor = AdvisorProcess(settings)
    from assistant.web.preparing import Preparation

    preparation = Preparation(advisor)  # while Gradio starts
    demo = build_app(advisor=advisor, settings=settings)
    try:
        # quiet: Gradio's own start-up lines name launch() arguments; `startup_line` names our flags instead.
        demo.launch(**kwargs, **theme_kwargs(), prevent_thread_lock=True, quiet=True)
        preparation.wait()  # the address is printed once the first answer need not wait for anything
        print(
            startup_line(host, getattr(demo, "server_port", None) or port, auth, getattr(demo, "share_url", None)),
            flush=True,
        )
        demo.block_thread()
    finally:
        if hasattr(advisor, "close"):
            advisor.close()


__all__ = ["build_app", "free_port", "launch_kwargs", "parse_auth", "serve", "serve_local", "startup_line"]
