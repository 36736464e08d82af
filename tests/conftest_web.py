"""Fixtures for the web-app tests (loaded with `pytest_plugins = ["conftest_web"]`).

- `web_kb_dir`: a knowledge data directory with the bundled guides already ingested. Embedding the
  guides takes about a minute on two cores, so the ingested store is kept in pytest's cache, keyed by
  the guides' digest and the embedding model, and copied into a fresh temporary directory per session.
- `serve_app`: launches a Gradio app in this process on a free loopback port.
- `browser`: Debian's chromium driven by Playwright (never a downloaded browser).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-dev-shm-usage",
]


def _ingest_guides_into(data_dir: Path) -> None:
    """Ingest the guides in a child process, so no Chroma client stays open on the directory we copy."""
    env = dict(os.environ, GPU_ADVISOR_DATA_DIR=str(data_dir), HF_HUB_OFFLINE="1", ANONYMIZED_TELEMETRY="False")
    code = "from knowledge.ingest import ingest_guides; ingest_guides()"
    subprocess.run([sys.executable, "-c", code], env=env, check=True, cwd=Path(__file__).resolve().parents[1])


@pytest.fixture(scope="session")
def web_kb_dir(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A data directory whose guides collection is ingested and current."""
    from knowledge.embeddings import DEFAULT_MODEL
    from knowledge.ingest import guides_digest

    target = tmp_path_factory.mktemp("web-kb") / "data"
    cache = getattr(request.config, "cache", None)
    if cache is None:
        _ingest_guides_into(target)
        return target
    model = os.environ.get("GPU_ADVISOR_EMBED_MODEL") or DEFAULT_MODEL
    key = f"{guides_digest()}-{model.replace('/', '_')}"
    root = Path(cache.mkdir("gpu-advisor-web-kb"))
    ready = root / key
    if not (ready / "READY").exists():
        for stale in root.iterdir():  # guides changed: drop older stores
            shutil.rmtree(stale, ignore_errors=True)
        building = root / f"{key}.building-{os.getpid()}"
        _ingest_guides_into(building)
        (building / "READY").write_text("ok\n")
        building.rename(ready)
    shutil.copytree(ready, target)
    return target


@contextmanager
def knowledge_env(data_dir: Path) -> Iterator[None]:
    """Point the knowledge store at `data_dir` for the duration (restoring the previous value)."""
    old = os.environ.get("GPU_ADVISOR_DATA_DIR")
    os.environ["GPU_ADVISOR_DATA_DIR"] = str(data_dir)
    try:
        yield
    finally:
        if old is None:
            os.environ.pop("GPU_ADVISOR_DATA_DIR", None)
        else:
            os.environ["GPU_ADVISOR_DATA_DIR"] = old


def offline_settings() -> Any:
    from assistant.settings import Settings

    return Settings(_env_file=None, provider="offline")


@contextmanager
def serve_app(advisor: Any = None, lang: str = "en") -> Iterator[str]:
    """Launch the app in this process on a free loopback port; yield its URL."""
    from assistant.web import serve_local

    with serve_local(advisor=advisor, settings=offline_settings(), lang=lang) as url:
        yield url


@pytest.fixture(scope="module")
def warm_knowledge(web_kb_dir: Path) -> Iterator[Path]:
    """The knowledge env for a module, with the retriever loaded (embedding model in memory)."""
    with knowledge_env(web_kb_dir):
        from knowledge.retrieval import get_retriever

        get_retriever().search("warm up the embedding model", k=1)
        yield web_kb_dir


@pytest.fixture(scope="module")
def real_app(warm_knowledge: Path) -> Iterator[str]:
    """The app with the real Advisor (offline planner) over the prepared knowledge base."""
    from assistant.advisor import Advisor

    with serve_app(Advisor(offline_settings())) as url:
        yield url


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    sync_api = pytest.importorskip("playwright.sync_api")
    if not Path(CHROMIUM).exists():
        pytest.skip(f"{CHROMIUM} is missing: apt-get install chromium fonts-noto-cjk fonts-noto-color-emoji")
    with sync_api.sync_playwright() as p:
        instance = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        try:
            yield instance
        finally:
            instance.close()


@pytest.fixture
def open_page(browser: Any, real_app: str, tmp_path: Path) -> Iterator[Any]:
    """A factory of fresh browser tabs on the real app (own context = own cookies, localStorage and Gradio session;
    downloads accepted), each a `test_web_browser.ChatPage`."""
    contexts = []

    def make(locale: str = "en-US", viewport: dict[str, int] | None = None, url: str = real_app) -> Any:
        from test_web_browser import DESKTOP, ChatPage

        viewport = viewport or DESKTOP
        phone = viewport["width"] < 600
        context = browser.new_context(
            viewport=viewport, locale=locale, is_mobile=phone, has_touch=phone, accept_downloads=True
        )
        contexts.append(context)
        return ChatPage(context.new_page(), tmp_path).open(url)

    yield make
    for context in contexts:
        context.close()
