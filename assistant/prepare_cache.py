"""`python -m assistant.prepare_cache`: fill the machine's cache of derived files once, at set-up (`make venv`), so a
new machine's first question does not pay for it (about 2 s on two cores, measured by `make bench`).

The cache (tools/_data.py `user_cache_dir`, safe to delete) holds each bundled YAML file parsed (read_yaml) and the
SQLite copy of jieba's dictionary that the guide search segments Chinese with (knowledge/bm25.py). Both are built
on first use anyway; this only moves that first use to set-up time. It touches no data directory.
"""

from __future__ import annotations

import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("assistant", "knowledge", "tools")  # where the YAML the app reads is shipped


def bundled_yaml() -> list[Path]:
    return sorted(p for package in PACKAGES for p in (ROOT / package).rglob("*.yaml"))


def main() -> None:
    from knowledge.bm25 import use_word_index, word_index_path
    from tools._data import read_yaml, user_cache_dir

    start = time.perf_counter()
    files = bundled_yaml()
    for path in files:
        read_yaml(path)
    had_index = word_index_path().is_file()
    use_word_index()  # builds the index when it is missing (its writer thread ends before the process does)
    where = user_cache_dir()
    built = "present" if had_index else "built"
    print(f"cache ready in {time.perf_counter() - start:.1f} s: {len(files)} YAML files, word index {built} ({where})")


if __name__ == "__main__":
    main()
