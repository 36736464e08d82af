"""Guide answers: passages from the guides that explain a concept or back the numbers, cited as [n]."""

from __future__ import annotations

from pydantic import BaseModel

from assistant.capabilities.base import Capability, PlanContext, Turn
from assistant.citations import Citation, citations_from
from assistant.strings import Writer
from assistant.toolset import ToolName
from assistant.understanding import looks_like_injection
from knowledge.passage import SearchResult

MAX_QUERY_CHARS = 500
EXCERPT_CHARS = 420
_TERM_MENTIONS = 2  # a passage that names the concept at least this often is about it
MYTHS = "myths-and-corrections"  # claims and their corrections: quoted only where the user raised the claim


def excerpt(text: str, limit: int = EXCERPT_CHARS, focus: list[str] | None = None) -> str:
    """The first sentences of a passage, cut at a sentence end; with `focus` (words the user used), from the
    line that names most of them: in a list of corrections, the one about the user's claim."""
    lines = [line.strip() for line in text.splitlines() if line.strip() and not line.startswith("#")]
    if focus:
        hits = [sum(w.lower() in line.lower() for w in focus) for line in lines]
        if hits and max(hits) > 0:
            start = hits.index(max(hits))
            lines = _table_head(lines, start) + lines[start:]
    flat = " ".join(lines)
    if len(flat) <= limit:
        return flat
    rows = _whole_rows(lines, limit)
    if rows is not None:
        return rows
    cut = max(flat.rfind(mark, 0, limit) for mark in ("。", ". ", "！", "？", "; "))
    return flat[: cut + 1] if cut > 80 else flat[:limit] + "…"


def _whole_rows(lines: list[str], limit: int) -> str | None:
    """A passage whose length limit falls inside a markdown table ends after the last whole row (a row cut at
    a "; " inside a cell would leave a table no reader can rebuild); the header keeps at least one row."""
    size, end = 0, None
    for i, line in enumerate(lines):
        if size + len(line) > limit:
            end = i
            break
        size += len(line) + 1
    if not end or not lines[end].startswith("|"):
        return None
    if set(lines[end - 1]) <= set("|-: "):  # only the header made it: the first row comes too
        end += 1
    return " ".join(lines[:end])


def _table_head(lines: list[str], row: int) -> list[str]:
    """The header and separator of the markdown table line `row` sits in (none when it is no table row): a
    quote that starts at the row the user asked about keeps the column names that make it readable."""
    if not lines[row].startswith("|"):
        return []
    for i in range(row - 1, 0, -1):
        if not lines[i].startswith("|"):
            return []
        if set(lines[i]) <= set("|-: "):
            return lines[i - 1 : i + 1] if i < row else []
    return []


def _focus(turn: Turn) -> list[str]:
    """The words a quote should be about: the concepts named, and the GPUs' model numbers ("4090")."""
    numbers = [part for g in turn.parsed.gpu_mentions for part in g.split("-") if part.isdigit() and len(part) >= 3]
    return [*turn.parsed.concept_terms, *numbers]


def _gpu_name(gpu_id: str) -> str:
    from tools.catalog import catalog

    spec = catalog().get(gpu_id)
    return spec.name if spec else gpu_id


def _local_formats_question(turn: Turn) -> bool:
    """ "GPTQ、AWQ、Q4_K_M 有什么区别？我用 4090 该选哪种": formats compared for a desk-side card."""
    from tools.catalog import catalog

    p = turn.parsed
    spec = catalog().get(p.gpu or "")
    personal = spec is not None and spec.segment in ("consumer", "workstation") and not (p.users or p.serving)
    return personal and len(p.precisions_mentioned) >= 2


def _about_term(passages: list[Citation], terms: list[str], focus: list[str]) -> Citation | None:
    """The passage that speaks most of a concept the user named beside their numbers question ("How mature
    is ROCm?"): quoted, since a link would not answer it; none when no passage names the term. A line naming
    the concept together with the user's card ("RTX 4090 不支持 BF16") outweighs mentions elsewhere."""

    def score(c: Citation) -> int:
        mentions = sum(c.text.lower().count(t.lower()) for t in terms)
        together = any(all(w.lower() in line.lower() for w in focus) for line in c.text.splitlines())
        return mentions + (10 if together and len(focus) > len(terms) else 0)

    scored = [(score(c), -i, c) for i, c in enumerate(passages)]
    best = max(scored, default=None, key=lambda x: (x[0], x[1]))
    return best[2] if best is not None and best[0] >= _TERM_MENTIONS else None


def _passages_cited(intents: list[str], own: str) -> int:
    """A question about concepts alone gets more passages: a section's other parts join its citation."""
    return 5 if set(intents) <= {own} else 3


def _subjects(turn: Turn) -> set[str]:
    """What this turn is about: the question, the conversation's slots (persona, model, GPUs, method) and
    the tools called; the retrieval query is not used, it adds topic words on purpose."""
    from assistant.subjects import turn_subjects

    values = turn.plan.scenario.summary().values()
    slots = " ".join(w for v in values for w in ([v] if isinstance(v, str) else v if isinstance(v, list) else []))
    calls = [(str(o.call.name), o.call.args) for o in turn.outcomes if o.call.name != ToolName.SEARCH_GUIDES]
    return turn_subjects([turn.parsed.text, slots], calls, [o.result for o in turn.outcomes])


class Guides(Capability):
    intent = "concept"
    owns = (ToolName.SEARCH_GUIDES,)
    render_phase = 3  # sources close the answer

    def plan(self, ctx: PlanContext) -> None:
        """Search the guides with the user's words plus the topics of what the other capabilities computed."""
        from assistant.capabilities import capability

        topics = [capability(i).topic(ctx) for i in ctx.intents if i != self.intent]
        query = " ".join([ctx.parsed.text, *[t for t in topics if t]])[:MAX_QUERY_CHARS]
        # twice the passages cited: those about something else are left out, the next ones take their place
        k = 2 * _passages_cited(ctx.intents, self.intent)
        concept = set(ctx.intents) <= {self.intent}  # "什么是 MIG？": the section from its definition on
        args = {"whole_sections": True} if concept else {}
        ctx.add(self.intent, ToolName.SEARCH_GUIDES, query=query, k=k, lang=ctx.parsed.language, **args)

    def render(self, w: Writer, turn: Turn) -> None:
        only_guides = set(turn.plan.intents) <= {self.intent}
        about = turn.parsed.concept_terms if only_guides else None  # a concept question cites what names it
        results = turn.own(self.intent, SearchResult)
        if not (only_guides or turn.parsed.claims):  # a myth entry backs an answer only about that claim
            results = [
                r.model_copy(update={"passages": [p for p in r.passages if p.doc_id.split(".")[0] != MYTHS]})
                for r in results
            ]
        limit = _passages_cited(turn.plan.intents, self.intent)
        turn.citations = citations_from(results, about, _subjects(turn), limit=limit)
        failed = next((o.error for o in turn.outcomes if o.call.name == ToolName.SEARCH_GUIDES and not o.ok), None)
        if turn.citations:
            self._cite(w, turn, only_guides)
        elif failed:  # a broken knowledge store is said, not passed off as "nothing found"
            w.say("knowledge_error", error=failed)
        elif only_guides:
            w.say("no_passages")

    def _cite(self, w: Writer, turn: Turn, only_guides: bool) -> None:
        # A passage that gives instructions (e.g. a user document with a prompt injection) is cited, never quoted.
        quotable = [c for c in turn.citations if not looks_like_injection(c.text)]
        computed = any(o.call.name != ToolName.SEARCH_GUIDES for o in turn.outcomes)
        # a concept or an advice question ("二手矿卡能买吗？有什么坑") gets the passage itself, not a link
        asks_why = self.intent in turn.parsed.intents or turn.parsed.advice
        about = _about_term(quotable, turn.parsed.concept_terms, _focus(turn))  # "…and how mature is ROCm?"
        if (asks_why or about) and not only_guides and quotable:
            best = about or quotable[0]
            quote = excerpt(best.text, focus=_focus(turn))
            if not w.said_before(quote):  # a follow-up does not quote the same passage again
                w.add(f"> {quote} [{best.n}]")
        if only_guides and _local_formats_question(turn):
            w.say("quant_local_pick", gpu=_gpu_name(turn.parsed.gpu or ""))  # the choice first, then the why
        if only_guides or not computed:
            w.say("concept_head")
            for c in quotable[:2]:
                quote = excerpt(c.text)
                if not any(quote in line for line in w.lines):  # the passage quoted after the lead, not twice
                    w.add(f"> {quote} [{c.n}]")
        # each source once, numbered: a "background" line naming them again would print every title twice
        sources = "\n".join(f"[{c.n}] {c.title} — {c.section} ({c.doc_id})" for c in turn.citations)
        w.add(w.t("sources_head") + "\n" + sources)

    def summary(self, tool: ToolName, result: BaseModel, lang: str) -> str:
        if not isinstance(result, SearchResult):
            return str(tool)
        return ", ".join(p.doc_id for p in result.passages)
