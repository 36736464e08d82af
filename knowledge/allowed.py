"""Which local files GPU Advisor may read on someone's behalf.

Two callers, two rules:

- Ingest (`gpu-advisor ingest PATH`, web uploads): the folders in GPU_ADVISOR_ALLOWED_DIRS, or by default
  the home directory, the working directory, the temp directory and the data directory.
- Paths an LLM puts in a tool call (a model's config.json, a prices.yaml): only GPU_ADVISOR_ALLOWED_DIRS
  and the uploads folder of the data directory. A chat user — possibly a remote one, possibly steered by
  a document that says "read /etc/..." — must not make the server open files on its disk.

Either way, hidden files and folders (.ssh, .aws, .env, ...) and system trees (/etc, /proc, ...) are
never read, and a symlink counts where it points.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

ENV = "GPU_ADVISOR_ALLOWED_DIRS"
SYSTEM_TREES = tuple(Path(p) for p in ("/etc", "/proc", "/sys", "/dev", "/boot", "/run", "/var/run", "/var/lib"))


class PathNotAllowed(ValueError):
    """A path outside the folders GPU Advisor may read; the message says how to allow it."""


def configured_roots() -> list[Path]:
    raw = os.environ.get(ENV, "")
    return [_resolve(Path(p).expanduser()) for p in raw.split(os.pathsep) if p.strip()]


def ingest_roots(data_dir: Path) -> list[Path]:
    """Folders `ingest` may read (GPU_ADVISOR_ALLOWED_DIRS replaces the defaults)."""
    return configured_roots() or _unique([Path.home(), Path.cwd(), Path(tempfile.gettempdir()), Path(data_dir)])


def chat_roots(data_dir: Path) -> list[Path]:
    """Folders a tool call from the chat may name: the uploads of the data directory, plus the configured."""
    return _unique([Path(data_dir) / "uploads", *configured_roots()])


def check_path(path: str | Path, roots: list[Path]) -> Path:
    """`path` resolved (symlinks followed) if it lies inside one of `roots`; PathNotAllowed otherwise."""
    try:
        resolved = _resolve(Path(path).expanduser())
    except (OSError, RuntimeError, ValueError) as exc:  # unknown ~user, NUL byte, symlink loop
        raise PathNotAllowed(f"'{path}' is not a usable path ({exc})") from None
    for tree in SYSTEM_TREES:
        if resolved == tree or resolved.is_relative_to(tree):
            raise PathNotAllowed(f"'{path}' is in {tree}, a system folder GPU Advisor never reads")
    roots = [_resolve(r) for r in roots]
    inside = [r for r in roots if resolved == r or resolved.is_relative_to(r)]
    if not inside:
        where = ", ".join(str(r) for r in roots) or "none"
        raise PathNotAllowed(
            f"'{path}' is outside the folders GPU Advisor may read ({where}) — move the file into one of "
            f"them, or add its folder to {ENV} (several separated by '{os.pathsep}')"
        )
    hidden = [part for part in resolved.relative_to(max(inside, key=lambda r: len(r.parts))).parts if part[:1] == "."]
    if hidden:
        raise PathNotAllowed(f"'{path}' is inside the hidden '{hidden[0]}' — hidden files and folders are never read")
    return resolved


def _resolve(path: Path) -> Path:
    return path.resolve(strict=False)


def _unique(paths: list[Path]) -> list[Path]:
    out: list[Path] = []
    for p in paths:
        r = _resolve(p)
        if r not in out:
            out.append(r)
    return out
