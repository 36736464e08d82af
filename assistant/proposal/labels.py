"""The proposal's sentences and labels in zh and en (labels.yaml next to this module)."""

from __future__ import annotations

from functools import cache
from pathlib import Path
from typing import Any

from tools._data import read_yaml


@cache
def _labels() -> dict[str, Any]:
    return read_yaml(Path(__file__).with_name("labels.yaml"))


def say(key: str, lang: str, **fields: Any) -> str:
    """The entry at a dotted key ("cost.upfront") in `lang`, formatted with `fields`."""
    entry: Any = _labels()
    for part in key.split("."):
        entry = entry[part]
    return str(entry[lang]).format(**fields)
