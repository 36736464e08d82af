"""`gpu-advisor sessions list | show NAME | delete NAME`: the saved conversations from the command line.

The store is the one `ask --session` and the web app use (GPU_ADVISOR_SESSIONS_URL, else the SQLite file
in the data dir). Only typer and rich load here; the checkpoint savers load inside the commands.
"""

from __future__ import annotations

import json
from datetime import datetime
from typing import Annotated, Any

import typer
from rich.console import Console
from rich.markup import escape

console = Console()
err_console = Console(stderr=True)

sessions_app = typer.Typer(
    help="Saved conversations (`ask --session NAME`, the web app): list, show, delete.", no_args_is_help=True
)
JsonOpt = Annotated[bool, typer.Option("--json", help="Print the result as JSON")]
NameArg = Annotated[str, typer.Argument(help="The session name (as given to `ask --session`)")]


def _fail(message: str, as_json: bool, code: int = 2) -> None:
    if as_json:
        print(json.dumps({"error": message}, ensure_ascii=False))
    else:
        err_console.print(f"[red]error:[/] {escape(message)}", soft_wrap=True, highlight=False)
    raise typer.Exit(code)


def _store(as_json: bool) -> Any:
    from assistant.sessions import SessionStoreError, open_store, store_kind
    from assistant.settings import Settings

    try:
        settings = Settings()
        if store_kind(settings.sessions_url) == "memory":
            _fail("sessions are not saved (GPU_ADVISOR_SESSIONS_URL=memory)", as_json)
        return open_store(settings)
    except (SessionStoreError, ValueError) as exc:
        _fail(str(exc).splitlines()[0], as_json)


def _when(seconds: float) -> str:
    return datetime.fromtimestamp(seconds).astimezone().strftime("%Y-%m-%d %H:%M")


@sessions_app.command(name="list")
def list_sessions(as_json: JsonOpt = False) -> None:
    """The saved sessions, most recently active first."""
    store = _store(as_json)
    try:
        rows = store.list_sessions()
    finally:
        store.close()
    if as_json:
        print(
            json.dumps(
                {"store": store.location, "sessions": [r.model_dump() for r in rows]}, ensure_ascii=False, indent=2
            )
        )
        return
    if not rows:
        console.print(f"no saved sessions in {escape(store.location)}", highlight=False)
        return
    from rich.table import Table

    table = Table(title=f"{len(rows)} session(s) in {store.location}", title_justify="left")
    for column in ("session", "turns", "last active", "first question"):
        table.add_column(column, overflow="fold")
    for r in rows:
        table.add_row(escape(r.session_id), str(r.turns), _when(r.updated_at), escape(r.title))
    console.print(table)


@sessions_app.command()
def show(name: NameArg, as_json: JsonOpt = False) -> None:
    """One session: its scenario and its questions and answers."""
    from assistant.scenario import scenario_from_messages
    from assistant.sessions import conversation

    store = _store(as_json)
    try:
        info, messages = store.get(name), store.messages(name)
    finally:
        store.close()
    if info is None and not messages:
        _fail(f"no session named {name!r} in {store.location} — see `gpu-advisor sessions list`", as_json, code=1)
    turns = conversation(messages)
    scenario = scenario_from_messages(messages).summary()
    if as_json:
        data = {
            "session_id": name,
            **(info.model_dump(exclude={"session_id"}) if info is not None else {}),
            "scenario": scenario,
            "messages": [{"role": role, "content": text} for role, text in turns],
        }
        print(json.dumps(data, ensure_ascii=False, indent=2))
        return
    from rich.markdown import Markdown

    when = f" · last active {_when(info.updated_at)}" if info is not None else ""
    console.print(f"[bold]session {escape(name)}[/] · {len(turns)} message(s){when}", highlight=False)
    console.print(f"[dim]scenario: {escape(json.dumps(scenario, ensure_ascii=False))}[/]", highlight=False)
    for role, text in turns:
        console.rule(role, align="left", style="dim")
        console.print(Markdown(text) if role == "assistant" else escape(text))


@sessions_app.command()
def delete(name: NameArg, as_json: JsonOpt = False) -> None:
    """Forget one session (its messages and scenario)."""
    store = _store(as_json)
    try:
        found = store.delete(name)
    finally:
        store.close()
    if not found:
        _fail(f"no session named {name!r} in {store.location} — see `gpu-advisor sessions list`", as_json, code=1)
    if as_json:
        print(json.dumps({"deleted": name}, ensure_ascii=False))
    else:
        console.print(f"deleted session {escape(name)}", highlight=False)


def register(app: typer.Typer) -> None:
    app.add_typer(sessions_app, name="sessions")
