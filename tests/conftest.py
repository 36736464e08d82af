"""Shared test set-up: everything offline and deterministic."""

import os

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("ANONYMIZED_TELEMETRY", "False")
os.environ.setdefault("GRADIO_ANALYTICS_ENABLED", "False")

import pytest
from hypothesis import settings as hypothesis_settings

# Property tests explore the same examples on every run: CI results never depend on a random seed.
hypothesis_settings.register_profile("deterministic", derandomize=True, print_blob=True)
hypothesis_settings.load_profile("deterministic")


@pytest.fixture(scope="session")
def knowledge_dir(tmp_path_factory):
    """One knowledge store for the whole test session (the guides are embedded once)."""
    reuse = os.environ.get("GPU_ADVISOR_TEST_DATA_DIR")  # developers: keep one embedded store across runs
    path = tmp_path_factory.mktemp("knowledge-data") if not reuse else __import__("pathlib").Path(reuse)
    os.environ["GPU_ADVISOR_DATA_DIR"] = str(path)
    return path


@pytest.fixture(scope="session")
def advisor(knowledge_dir):
    """The real Advisor facade with the offline planner."""
    from assistant.advisor import Advisor
    from assistant.settings import settings_from

    return Advisor(settings_from({"provider": "offline"}))
