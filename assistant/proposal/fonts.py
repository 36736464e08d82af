"""A font that draws Chinese for the PDF, found through fontconfig (or GPU_ADVISOR_CJK_FONT).

fpdf2 reads TrueType/OpenType files and collections (.ttc, with the face's index), so Debian's fonts-noto-cjk
serves as it is; with no CJK font the PDF cannot be written, and the error names the package to install.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

from pydantic import BaseModel

from tools.errors import AdvisorError

_FAMILIES = ("Noto Sans CJK SC", "Noto Sans SC", "Source Han Sans SC", "WenQuanYi Micro Hei", "PingFang SC")
_ENV = "GPU_ADVISOR_CJK_FONT"


class NoCjkFont(AdvisorError):
    """No font with Chinese glyphs on this machine."""


class FontFile(BaseModel):
    path: Path
    index: int = 0  # the face within a collection (.ttc)


class CjkFonts(BaseModel):
    regular: FontFile
    bold: FontFile


def _match(pattern: str) -> FontFile | None:
    """fontconfig's best file for a pattern, when it really is that family (fc-match falls back to any font)."""
    if shutil.which("fc-match") is None:
        return None
    try:
        out = subprocess.run(
            ["fc-match", "-f", "%{file}|%{index}|%{family}", pattern], capture_output=True, text=True, timeout=10
        ).stdout
    except (OSError, subprocess.SubprocessError):
        return None
    path, _, rest = out.partition("|")
    index, _, family = rest.partition("|")
    wanted = pattern.split(":")[0]
    if not path or wanted.lower() not in family.lower() or not Path(path).is_file():
        return None
    return FontFile(path=Path(path), index=int(index or 0))


def cjk_fonts() -> CjkFonts | None:
    """The regular and bold faces of the first CJK family installed (bold = regular when there is none)."""
    chosen = os.environ.get(_ENV)
    if chosen and Path(chosen).is_file():
        face = FontFile(path=Path(chosen))
        return CjkFonts(regular=face, bold=face)
    for family in _FAMILIES:
        regular = _match(family)
        if regular is not None:
            return CjkFonts(regular=regular, bold=_match(f"{family}:bold") or regular)
    return None
