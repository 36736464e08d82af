"""Write a proposal in the format its file name asks for (.md, .pdf, .xlsx, .csv), and all of them at once."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import Any

from assistant.language import Language
from assistant.proposal.build import build_proposal
from assistant.proposal.labels import say
from assistant.proposal.model import Proposal
from tools.errors import AdvisorError

FORMATS = (".md", ".pdf", ".xlsx", ".csv")


class UnknownFormat(AdvisorError):
    """A file name whose suffix is no proposal format."""


def write_proposal(p: Proposal, path: Path) -> Path:
    """One file; the format from the suffix. A PDF needs a CJK font (fonts.NoCjkFont says which to install)."""
    suffix = path.suffix.lower()
    if suffix not in FORMATS:
        raise UnknownFormat(say("errors.suffix", p.language, suffix=path.suffix or path.name))
    path.parent.mkdir(parents=True, exist_ok=True)
    if suffix == ".md":
        from assistant.proposal.markdown import to_markdown

        path.write_text(to_markdown(p), encoding="utf-8")
        return path
    if suffix == ".pdf":
        from assistant.proposal.pdf import write_pdf

        return write_pdf(p, path)
    from assistant.proposal.parts import write_csv, write_xlsx

    return write_xlsx(p, path) if suffix == ".xlsx" else write_csv(p, path)


def proposal_files(
    messages: Iterable[Any],
    session: str,
    out_dir: Path,
    lang: Language | None = None,
    formats: Iterable[str] = FORMATS,
) -> dict[str, Path]:
    """Every format of a session's proposal in `out_dir` (for the web app's download button), by suffix.

    `messages` are the session's saved messages (`SessionStore.messages(session)`). NothingToPropose when no
    answer recommends GPUs; a PDF that cannot be written for want of a CJK font is left out, the rest written.
    """
    from assistant.proposal.fonts import NoCjkFont

    p = build_proposal(messages, session, lang)
    stem = "proposal-" + "".join(c if c.isalnum() or c in "-_" else "-" for c in session)[:60]
    written: dict[str, Path] = {}
    for suffix in formats:
        try:
            written[suffix] = write_proposal(p, out_dir / f"{stem}{suffix}")
        except NoCjkFont:
            continue
    return written
