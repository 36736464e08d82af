"""Load the YAML data files under knowledge/data (the one place tools/ touches data on disk)."""

from __future__ import annotations

import contextlib
import hashlib
import os
import pickle
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


def data_files(folder: str, suffix: str) -> list[str]:
    """Names (relative to knowledge/data) of the bundled files in `folder`, sorted; an overrides folder of the
    same name replaces the whole folder."""
    where = data_path(folder)
    return sorted(f"{folder}/{p.name}" for p in where.glob(f"*{suffix}") if p.is_file())


# libyaml's parser when PyYAML was built with it (the wheels are): the same safe loader, ~10x faster,
# which is most of a CLI call's start-up (tests/test_models.py checks both give the same data).
SafeLoader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


@cache
def load_yaml(name: str) -> Any:
    """Parse a bundled YAML file once per process."""
    return read_yaml(data_path(name))


def user_cache_dir() -> Path:
    """Where derived files that are safe to delete live ($GPU_ADVISOR_CACHE_DIR, else the XDG cache)."""
    base = os.environ.get("GPU_ADVISOR_CACHE_DIR")
    if not base:
        base = str(Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "gpu-advisor")
    return Path(base).expanduser()


def read_yaml(path: Path) -> Any:
    """A YAML file's data, from a parsed copy in the cache while the file's bytes are unchanged.

    Building Python objects from ~400 KB of catalog, prices, notes and strings takes ~0.3 s on a two-core
    machine even with libyaml, on every terminal command; unpickling the same data takes ~3 ms. The copy is
    keyed by a hash of the file's content, so an edited or overridden file is parsed again. Any problem with
    the cache (read-only home, a torn file) just means parsing the YAML.
    """
    raw = path.read_bytes()
    digest = hashlib.sha1(raw + yaml.__version__.encode()).hexdigest()[:16]
    where = hashlib.sha1(str(path.resolve()).encode()).hexdigest()[:10]
    cached = user_cache_dir() / "yaml" / f"{path.stem}-{where}-{digest}.pickle"
    unreadable = (OSError, pickle.PickleError, EOFError, AttributeError, ValueError)  # missing or torn: parse
    with contextlib.suppress(*unreadable), cached.open("rb") as fh:
        return pickle.load(fh)
    data = yaml.load(raw.decode("utf-8"), Loader=SafeLoader)
    with contextlib.suppress(OSError, pickle.PickleError):
        cached.parent.mkdir(parents=True, exist_ok=True)
        for stale in cached.parent.glob(f"{path.stem}-{where}-*.pickle"):  # copies of the file's earlier versions
            stale.unlink(missing_ok=True)
        tmp = cached.with_name(f"{cached.name}.{os.getpid()}.tmp")
        tmp.write_bytes(pickle.dumps(data, protocol=pickle.HIGHEST_PROTOCOL))
        tmp.replace(cached)  # atomic: a reader never sees half a file
    return data
