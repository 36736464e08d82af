"""The purchase proposal (选型/采购建议书): a session's recommendation as Markdown, PDF and a parts list.

`proposal_files` is the entry the CLI and the web app call; `build_proposal` gives the document as data;
`proposes` (offer.py) says whether a turn can be written up. The heavy parts (the planner's templates, fpdf2,
openpyxl) load on first use, so the web server can import `proposes` without them.
"""

from __future__ import annotations

from typing import Any

from assistant.proposal.offer import proposes

_LAZY = {
    "NothingToPropose": "assistant.proposal.build",
    "build_proposal": "assistant.proposal.build",
    "FORMATS": "assistant.proposal.files",
    "proposal_files": "assistant.proposal.files",
    "write_proposal": "assistant.proposal.files",
}


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        import importlib

        return getattr(importlib.import_module(_LAZY[name]), name)
    raise AttributeError(name)


__all__ = ["FORMATS", "NothingToPropose", "build_proposal", "proposal_files", "proposes", "write_proposal"]
