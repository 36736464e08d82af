"""`gpu-advisor ingest` and `gpu-advisor search`: the knowledge base from the command line.

Only typer and rich are imported here; chromadb, sentence-transformers and jieba load inside the commands.
"""

from __future__ import annotations

import json
import sys
from typing import Annotated, Any

import typer
from rich.console import Console
from rich.markup import escape

console = Console()
err_console = Console(stderr=True)

DataDirOpt = Annotated[
    str | None,
    typer.Option("--data-dir", help="Knowledge data directory (default: $GPU_ADVISOR_DATA_DIR or ~/.local/share)"),
]
JsonOpt = Annotated[bool, typer.Option("--json", help="Print the result as JSON")]


def _fail(message: str, as_json: bool) -> None:
    if as_json:
        print(json.dumps({"error": message}, ensure_ascii=False))
    else:
        err_console.print(f"[red]error:[/] {escape(message)}", soft_wrap=True, highlight=False)
    raise typer.Exit(2)


def _user_errors() -> tuple[type[Exception], ...]:
    from knowledge.embeddings import EmbeddingError
    from knowledge.loaders import LoaderError
    from knowledge.store import StoreError

    return (LoaderError, StoreError, EmbeddingError, ValueError)


class _ProgressBar:
    """A rich progress bar on stderr that appears only once there is embedding work to show."""

    def __init__(self, enabled: bool) -> None:
        self.enabled = enabled
        self.progress: Any = None
        self.tasks: dict[str, Any] = {}

    def __call__(self, stage: str, done: int, total: int) -> None:
        if not self.enabled or not total:
            return
        if self.progress is None:
            from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

            self.progress = Progress(
                TextColumn("{task.description}"),
                BarColumn(),
                MofNCompleteColumn(),
                TimeRemainingColumn(),
                console=err_console,
                transient=True,
            )
            self.progress.start()
        if stage not in self.tasks:
            label = "embedding chunks" if stage == "embed" else "reusing stored vectors"
            self.tasks[stage] = self.progress.add_task(label, total=total)
        self.progress.update(self.tasks[stage], completed=done, total=total)

    def close(self) -> None:
        if self.progress is not None:
            self.progress.stop()


def _print_report(report: Any) -> None:
    docs = len(report.added) + len(report.updated) + len(report.unchanged)
    console.print(
        f"[bold]{report.collection}[/]: {docs} documents — {len(report.added)} added, {len(report.updated)} updated, "
        f"{len(report.removed)} removed, {len(report.unchanged)} unchanged; {report.chunks_embedded} chunks embedded, "
        f"{report.chunks_reused} reused, {report.chunks_total} live ({report.seconds:.1f} s) "
        f"[dim]{escape(report.location)}[/]",
        soft_wrap=True,
    )
    for note in report.skipped:
        console.print(f"[yellow]skipped:[/] {escape(note)}", soft_wrap=True)


def ingest(
    paths: Annotated[list[str] | None, typer.Argument(help="Files or folders (md, txt, html, pdf)")] = None,
    guides: Annotated[bool, typer.Option("--guides", help="(Re)build the bundled guides collection")] = False,
    collection: Annotated[str, typer.Option("--collection", "-c", help="Collection for your documents")] = "user",
    replace: Annotated[
        bool, typer.Option("--replace", help="Make the collection exactly these documents (drop the others)")
    ] = False,
    force: Annotated[bool, typer.Option("--force", help="Re-embed everything, even unchanged chunks")] = False,
    max_mb: Annotated[
        float | None, typer.Option("--max-mb", help="Largest accepted document in MB (default 5)")
    ] = None,
    data_dir: DataDirOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """Add documents to the knowledge base; unchanged ones are skipped, changed ones re-embedded."""
    if not paths and not guides:
        _fail("give files or folders to ingest (md, txt, html, pdf), or --guides for the bundled guides", as_json)
    from knowledge.ingest import ingest_guides, ingest_paths
    from knowledge.store import KnowledgeConfig, KnowledgeStore

    errors = _user_errors()
    bar = _ProgressBar(enabled=not as_json and sys.stderr.isatty())
    reports = []
    try:
        config = KnowledgeConfig.resolve(data_dir=data_dir, max_doc_mb=max_mb)
        store = KnowledgeStore(config)
        if guides:
            reports.append(ingest_guides(store=store, force=force, progress=bar))
        if paths:
            reports.append(
                ingest_paths(paths, store=store, collection=collection, replace=replace, force=force, progress=bar)
            )
        from knowledge.retrieval import Retriever

        Retriever(store=store, auto_ingest_guides=False).index()  # saves the BM25 corpora: later asks start fast
    except errors as exc:
        bar.close()
        _fail(str(exc), as_json)
    bar.close()
    if as_json:
        rows = [{**r.model_dump(mode="json"), "changed": r.changed} for r in reports]
        print(json.dumps(rows[0] if len(rows) == 1 else rows, ensure_ascii=False, indent=2))
        return
    for report in reports:
        _print_report(report)


def search(
    query: Annotated[str, typer.Argument(help="What to look up, in Chinese or English")],
    k: Annotated[int, typer.Option("-k", "--top", min=1, max=50, help="How many passages")] = 5,
    mode: Annotated[
        str,
        typer.Option(
            "--mode", help="auto (BM25 on the guides alone, hybrid with your documents) | hybrid | dense | bm25"
        ),
    ] = "auto",
    collection: Annotated[
        list[str] | None, typer.Option("--collection", "-c", help="Search only these collections (repeatable)")
    ] = None,
    lang: Annotated[str | None, typer.Option("--lang", help="Preferred language zh|en (default: the query's)")] = None,
    data_dir: DataDirOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """Search the guides and your documents; prints ranked passages with doc id, section and score."""
    from knowledge.ingest import guides_need_ingest
    from knowledge.retrieval import Retriever
    from knowledge.store import KnowledgeConfig
    from knowledge.text import detect_lang

    errors = _user_errors()
    try:
        retriever = Retriever(KnowledgeConfig.resolve(data_dir=data_dir))
        fresh = retriever.guides_current() or not guides_need_ingest(retriever.store, retriever.embedder)
        if not as_json and not fresh:
            err_console.print("[dim]indexing the bundled guides (first use, takes a minute)…[/]")
        passages = retriever.search(query, k=k, mode=mode, collections=collection or None, lang=lang)  # type: ignore[arg-type]
    except errors as exc:
        _fail(str(exc), as_json)
    qlang = lang or detect_lang(query)
    searched_as = mode if mode != "auto" else ("hybrid" if any(p.dense_rank for p in passages) else "bm25")
    if as_json:
        payload = {
            "query": query,
            "mode": mode,
            "searched_as": searched_as,
            "lang": qlang,
            "k": k,
            "passages": [p.model_dump(mode="json") for p in passages],
        }
        print(json.dumps(payload, ensure_ascii=False, indent=2))
        return
    if not passages:
        console.print("no passages found — add documents with `gpu-advisor ingest PATH...`")
        return
    from rich.padding import Padding

    from assistant.render_markdown import renderables

    shown = mode if mode == searched_as else f"{mode} ({searched_as})"
    console.print(f"[bold]{shown} search:[/] {escape(query)}")
    for rank, p in enumerate(passages, start=1):
        # One block per passage, its text as the guide wrote it (a table stays a table) at the terminal's width.
        where = f"{escape(p.doc_id)} — {escape(p.section or '(intro)')}" + (
            f" [dim]({escape(p.collection)})[/]" if p.collection != "guides" else ""
        )
        console.print(f"\n[bold]{rank}.[/] {where}  [dim]score {p.score:.4f}[/]")
        for part in renderables(p.text, console.width - 3):
            console.print(Padding(part, (0, 0, 0, 3)))


def register(app: typer.Typer) -> None:
    """Add the `ingest` and `search` commands to the gpu-advisor CLI."""
    app.command("ingest")(ingest)
    app.command("search")(search)
