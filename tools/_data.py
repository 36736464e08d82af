"""Load the YAML data files under knowledge/data (the one place tools/ touches data on disk)."""

from __future__ import annotations

import os
from functools import cache
from pathlib import Path
from typing import Any

import yaml

DATA_DIR = Path(__file__).resolve().parent.parent / "knowledge" / "data"


def data_path(name: str) -> Path:
    """Return the path of a bundled data file; a same-named file in $GPU_ADVISOR_DATA_OVERRIDES wins."""
    override = os.environ.get("GPU_ADVISOR_DATA_OVERRIDES")
    if override and (Path(override) / name).exists():
        return Path(override) / name
    return DATA_DIR / name


# libyaml's parser when PyYAML was built with it (the wheels are): the same safe loader, ~10x faster,
# which is most of a CLI call's start-up (tests/test_models.py checks both give the same data).
SafeLoader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


@cache
def load_yaml(name: str) -> Any:
    """Parse a bundled YAML file once per process."""
    with data_path(name).open(encoding="utf-8") as fh:
        return yaml.load(fh, Loader=SafeLoader)
