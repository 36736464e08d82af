"""`gpu-advisor proposal --session NAME --out FILE` and `ask ... --proposal FILE`: a saved conversation's
recommendation as a purchase proposal (.md, .pdf, .xlsx or .csv, from the file's suffix).

Only typer and rich load here; the proposal package (fpdf2, openpyxl) loads inside the commands.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated, Any, Literal

import typer
from pydantic import BaseModel
from rich.console import Console
from rich.markup import escape

err_console = Console(stderr=True)

OutOpt = Annotated[Path, typer.Option("--out", "-o", help="The file to write: .md, .pdf, .xlsx (parts list) or .csv")]
SessionOpt = Annotated[str, typer.Option("--session", "-s", help="The session name (as given to `ask --session`)")]
LangOpt = Annotated[
    str | None, typer.Option("--lang", help="zh or en (default: the language of the question answered)")
]


class ProposalOutcome(BaseModel):
    """What `--proposal` did: the file written, or why none was."""

    path: str | None = None
    error: str | None = None


def write_from_messages(messages: list[Any], session: str, out: Path, lang: str | None = None) -> ProposalOutcome:
    """Build the session's proposal and write `out`; a user-facing error instead of a traceback."""
    from assistant.proposal import build_proposal, write_proposal
    from assistant.proposal.fonts import NoCjkFont
    from tools.errors import AdvisorError

    try:
        proposal = build_proposal(messages, session, lang)  # type: ignore[arg-type]
    except AdvisorError as exc:
        return ProposalOutcome(error=str(exc))
    try:
        return ProposalOutcome(path=str(write_proposal(proposal, out)))
    except NoCjkFont as exc:  # the Markdown still comes out, next to the PDF asked for
        markdown = write_proposal(proposal, out.with_suffix(".md"))
        return ProposalOutcome(error=str(exc).replace("{markdown}", str(markdown)))
    except (AdvisorError, OSError) as exc:
        return ProposalOutcome(error=str(exc))


def after_ask(advisor: Any, session: str, out: Path) -> ProposalOutcome:
    """The proposal from the conversation `ask` just continued (its store, or this process's memory)."""
    return write_from_messages(advisor.sessions().messages(session), session, out)


def report(outcome: ProposalOutcome, as_json: bool = False, stream: Literal["out", "err"] = "err") -> None:
    """One line: where the proposal went, or the error; raise Exit(1) on an error."""
    if as_json:
        print(json.dumps(outcome.model_dump(exclude_none=True), ensure_ascii=False))
    elif outcome.path:
        Console(stderr=stream == "err").print(f"proposal written: {escape(outcome.path)}", highlight=False)
    else:
        err_console.print(f"[red]error:[/] {escape(outcome.error or '')}", soft_wrap=True, highlight=False)
    if outcome.error:
        raise typer.Exit(1)


JsonOpt = Annotated[bool, typer.Option("--json", help="Print the result as JSON")]


def proposal(session: SessionOpt, out: OutOpt, lang: LangOpt = None, as_json: JsonOpt = False) -> None:
    """Write a purchase proposal (选型/采购建议书) from a saved session's recommendation."""
    from assistant.cli_sessions import _store

    if lang not in (None, "zh", "en"):
        report(ProposalOutcome(error=f"--lang must be zh or en, not {lang!r}"), as_json)
    store = _store(as_json)
    try:
        info, messages = store.get(session), store.messages(session)
    finally:
        store.close()
    if info is None and not messages:
        from assistant.proposal.labels import say

        report(ProposalOutcome(error=say("errors.no_session", lang or "en", session=session)), as_json)
    report(write_from_messages(messages, session, out, lang), as_json, stream="out")


def register(app: typer.Typer) -> None:
    app.command(name="proposal")(proposal)
