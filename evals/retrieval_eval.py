"""Retrieval quality on evals/retrieval.yaml: Recall@5 and MRR per language for dense, BM25 and hybrid.

    python -m evals.retrieval_eval [--data-dir DIR] [--json]

Only the bundled guides are searched (the 'guides' collection), so user documents never skew the numbers.
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path
from typing import TYPE_CHECKING

import yaml
from pydantic import BaseModel, Field

if TYPE_CHECKING:
    from knowledge.retrieval import Retriever

QUERIES_PATH = Path(__file__).resolve().parent / "retrieval.yaml"
MODES = ("dense", "bm25", "hybrid")
TARGETS = {"recall_at_5": 0.9, "mrr": 0.75}


class EvalQuery(BaseModel):
    """One question and the documents that answer it."""

    q: str
    relevant: list[str] = Field(min_length=1)

    @property
    def lang(self) -> str:
        return self.relevant[0].rsplit(".", 1)[-1]


class QueryResult(BaseModel):
    """How one query ranked in one mode."""

    q: str
    lang: str
    mode: str
    relevant: list[str]
    top_docs: list[str] = Field(description="Documents of the top passages, first occurrence order")
    first_relevant_rank: int | None = Field(description="Passage rank (1-based) of the first relevant hit")
    found_at_k: list[str]


class Metrics(BaseModel):
    """Scores of one mode in one language."""

    mode: str
    lang: str
    n: int
    recall_at_5: float = Field(description="Share of queries with a relevant document in the top 5 passages")
    full_recall_at_5: float = Field(description="Share of each query's relevant documents in the top 5, averaged")
    mrr: float = Field(description="Mean reciprocal rank of the first relevant passage (0 beyond the top 10)")


class RetrievalReport(BaseModel):
    """Everything `python -m evals.retrieval_eval` prints."""

    k: int
    depth: int
    metrics: list[Metrics]
    targets: dict[str, float]
    passed: bool = Field(description="Hybrid meets the targets in every language")
    misses: list[QueryResult] = Field(description="Hybrid queries with no relevant document in the top k")
    results: list[QueryResult]
    seconds: float

    def metric(self, mode: str, lang: str) -> Metrics:
        return next(m for m in self.metrics if m.mode == mode and m.lang == lang)


def load_queries(path: Path = QUERIES_PATH) -> list[EvalQuery]:
    data = yaml.safe_load(path.read_text(encoding="utf-8"))
    return [EvalQuery.model_validate(row) for row in data["queries"]]


def evaluate_retrieval(
    retriever: Retriever | None = None,
    queries: list[EvalQuery] | None = None,
    modes: tuple[str, ...] = MODES,
    k: int = 5,
    depth: int = 10,
) -> RetrievalReport:
    """Run every query in every mode and score it."""
    from knowledge.retrieval import get_retriever

    start = time.perf_counter()
    retriever = retriever or get_retriever()
    queries = queries or load_queries()
    results: list[QueryResult] = []
    for mode in modes:
        for query in queries:
            passages = retriever.search(query.q, k=depth, mode=mode, collections=["guides"])
            docs = [p.doc_id for p in passages]
            first = next((rank for rank, d in enumerate(docs, start=1) if d in query.relevant), None)
            top_docs = list(dict.fromkeys(docs))
            found = sorted(set(docs[:k]) & set(query.relevant))
            results.append(
                QueryResult(
                    q=query.q,
                    lang=query.lang,
                    mode=mode,
                    relevant=query.relevant,
                    top_docs=top_docs,
                    first_relevant_rank=first,
                    found_at_k=found,
                )
            )
    metrics = []
    for mode in modes:
        for lang in sorted({q.lang for q in queries}):
            rows = [r for r in results if r.mode == mode and r.lang == lang]
            n = len(rows)
            metrics.append(
                Metrics(
                    mode=mode,
                    lang=lang,
                    n=n,
                    recall_at_5=round(sum(bool(r.found_at_k) for r in rows) / n, 4),
                    full_recall_at_5=round(sum(len(r.found_at_k) / len(r.relevant) for r in rows) / n, 4),
                    mrr=round(sum(1 / r.first_relevant_rank for r in rows if r.first_relevant_rank) / n, 4),
                )
            )
    hybrid = [m for m in metrics if m.mode == "hybrid"]
    passed = bool(hybrid) and all(m.recall_at_5 >= TARGETS["recall_at_5"] and m.mrr >= TARGETS["mrr"] for m in hybrid)
    return RetrievalReport(
        k=k,
        depth=depth,
        metrics=metrics,
        targets=TARGETS,
        passed=passed,
        misses=[r for r in results if r.mode == "hybrid" and not r.found_at_k],
        results=results,
        seconds=round(time.perf_counter() - start, 3),
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data-dir", help="Knowledge data directory (default: GPU_ADVISOR_DATA_DIR or ~/.local/share)")
    parser.add_argument("--queries", type=Path, default=QUERIES_PATH)
    parser.add_argument("--json", action="store_true", help="Print the report as JSON")
    args = parser.parse_args(argv)

    from rich.console import Console
    from rich.table import Table

    from knowledge.retrieval import Retriever
    from knowledge.store import KnowledgeConfig

    retriever = Retriever(KnowledgeConfig.resolve(data_dir=args.data_dir))
    report = evaluate_retrieval(retriever, load_queries(args.queries))
    if args.json:
        print(json.dumps(report.model_dump(exclude={"results"}), ensure_ascii=False, indent=2))
        return 0 if report.passed else 1
    console = Console()
    table = Table(title=f"Retrieval on {args.queries.name} (top {report.k})", header_style="bold")
    for col in ("mode", "lang", "queries", "Recall@5", "full Recall@5", "MRR"):
        table.add_column(col, justify="left" if col in ("mode", "lang") else "right")
    for m in report.metrics:
        table.add_row(m.mode, m.lang, str(m.n), f"{m.recall_at_5:.3f}", f"{m.full_recall_at_5:.3f}", f"{m.mrr:.3f}")
    console.print(table)
    for miss in report.misses:
        console.print(
            f"[yellow]miss:[/] {miss.q}  expected {', '.join(miss.relevant)}; got {', '.join(miss.top_docs[:5])}"
        )
    verdict = "[green]targets met[/]" if report.passed else "[red]targets missed[/]"
    console.print(
        f"{verdict} (hybrid Recall@5 >= {TARGETS['recall_at_5']}, MRR >= {TARGETS['mrr']} per language); "
        f"{report.seconds:.1f} s"
    )
    return 0 if report.passed else 1


if __name__ == "__main__":
    raise SystemExit(main())
