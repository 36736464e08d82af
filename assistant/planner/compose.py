"""Compose the offline planner's answer from typed tool results, in the user's language.

Each capability writes its own part (assistant/capabilities); this module orders them, says what could
not be computed, and asks for a missing input when nothing could be.
"""

from __future__ import annotations

from pydantic import BaseModel

from assistant.capabilities import REGISTRY, Capability, capability
from assistant.capabilities.base import Outcome, Plan, Turn
from assistant.capabilities.named_cards import cards_not_named
from assistant.citations import Citation
from assistant.quick_replies import QuickReply, replies
from assistant.strings import Writer
from assistant.toolset import ToolName
from assistant.understanding import ParsedQuery
from tools.notes import Note


class Composed(BaseModel):
    answer: str
    citations: list[Citation]
    quick_replies: list[QuickReply] = []


def quick_replies(plan: Plan, lang: str) -> list[QuickReply]:
    """The one-click replies the plan offers, in the user's language (assistant/quick_replies.yaml)."""
    return replies(plan.quick_replies, lang)


def _tool_errors(w: Writer, outcomes: list[Outcome]) -> None:
    """Each calculator that failed, said in the reader's language: the tools' messages are English, quoted only to
    an English reader; another language names the part that failed (catalog.yaml tool_label)."""
    for o in outcomes:
        if not o.ok and o.call.name != ToolName.SEARCH_GUIDES:  # the guides say their own failure
            if w.lang == "en":
                w.say("tool_error", tool=o.call.name, error=o.error)
            else:
                w.say("tool_error_localized", tool=w.label("tool_label", o.call.name))


def compose(plan: Plan, parsed: ParsedQuery, outcomes: list[Outcome], before: str = "") -> Composed:
    """The answer: notes on defaults, each capability's part in reading order, then the sources. `before`:
    the previous answer when this is a follow-up, so what did not change is not repeated."""
    w = Writer(
        parsed.language,
        before=before if parsed.is_followup else "",
        pretrain=parsed.pretrain,
        per_minute=parsed.rate_per_minute,
    )
    if parsed.injection:
        w.say("injection")
    # an accelerator outside the catalog ("MTT S80", "昇腾910A"): the stack that runs it leads
    for n in parsed.notes:
        if isinstance(n, Note) and n.code.startswith("accel_"):
            w.add(n.render(w.lang))
    replies = quick_replies(plan, parsed.language)
    if plan.ask:
        _ask(w, plan, parsed)
        return Composed(answer=w.text(), citations=[], quick_replies=replies)
    turn = Turn(plan=plan, parsed=parsed, outcomes=outcomes)
    if not plan.calls:
        talk = [i for i in plan.intents if i in ("help", "out_of_scope")] or ["help"]
        capability("out_of_scope" if "out_of_scope" in talk else "help").render(w, turn)
        return Composed(answer=w.text(), citations=[])
    _tool_errors(w, outcomes)
    noted = False
    for cap in _reading_order(turn):
        before_render = len(w.lines)
        cap.render(w, turn)
        if not noted and len(w.lines) > before_render:  # defaults assumed come right after the verdict, not before
            noted = True
            _after_lead(w, plan, before_render)
            for key in plan.notes:
                if not _changes_what_was_sized(key):
                    w.add(key.render(w.lang)) if isinstance(key, Note) else w.say(key)
    if not noted:
        for key in plan.notes:
            w.add(key.render(w.lang)) if isinstance(key, Note) else w.say(key)
    return Composed(answer=w.text(), citations=turn.citations, quick_replies=replies)


# "You cannot run GPT-4 on your own GPUs": said before anything sized, which is only what runs instead
_FIRST = ("closed_product", *(f"closed_product_card{no}{small}" for no in ("", "_none") for small in ("", "_small")))
# Notes that say the model sized is not the one typed ("Kimi K3" read as Kimi-K2.5): the reader needs them before
# any figure, so they follow the lead paragraph rather than the whole first part
_READ_AS = (
    "newer_version_read_as",
    "newer_version_sized_as",
    "model_library_default",
    "fine_tune_base",  # the model sized is the fine-tune's base
    "fine_tune_base_own_name",
    *_FIRST,
    "laptop_gpu_memory",  # the card sized is not the desktop one its name reads as
    "notebook_tier",  # "free Colab", "Kaggle": the card sized is the one the tier gives
    "notebook_tier_largest",
    "notebook_tier_ram",
    "card_memory_stated",  # the card sized has the memory the user wrote beside it, not the catalog row's
)


def _changes_what_was_sized(key: str | Note) -> bool:
    return isinstance(key, Note) and key.code in _READ_AS


def _after_lead(w: Writer, plan: Plan, start: int) -> None:
    """Put the read-as notes right after the first part's lead paragraph (after its list when the lead ends with a
    colon and heads one)."""
    notes = [k.render(w.lang) for k in plan.notes if isinstance(k, Note) and _changes_what_was_sized(k)]
    first = [k.render(w.lang) for k in plan.notes if isinstance(k, Note) and k.code in _FIRST]
    notes = [n for n in notes if n not in first]
    if notes:
        at = start + 1
        if w.lines[start].rstrip().rstrip("*").endswith((":", "：")) and len(w.lines) > at:
            at += 1
        w.lines[at:at] = notes
    w.lines[start:start] = first


def _reading_order(turn: Turn) -> list[Capability]:
    """Active capabilities: computed numbers in the order asked, then comparisons, card facts, sources."""
    asked = {intent: i for i, intent in enumerate(turn.plan.intents)}
    active = [c for c in REGISTRY if c.active(turn) and c.intent not in ("help", "out_of_scope")]
    return sorted(active, key=lambda c: (c.phase(turn), asked.get(c.intent, len(asked)), REGISTRY.index(c)))


def _ask(w: Writer, plan: Plan, parsed: ParsedQuery) -> None:
    """Ask for the one input that decides the answer, naming what the user already said."""
    for n in plan.notes:  # "You cannot run Claude on your own GPUs", then which cards the user has
        if isinstance(n, Note) and n.code in _FIRST:
            w.add(n.render(w.lang))
    model = _model_name(plan)
    if plan.ask == "unknown_model":
        suggestions = ", ".join(parsed.model_suggestions) or "-"
        w.say("unknown_model", name=parsed.unknown_model or "", suggestions=suggestions)
    elif plan.ask == "unknown_gpu":
        about = w.t("about_model_after", model=model) if model else ""
        suggestions = ", ".join(parsed.gpu_suggestions) or "-"
        w.say("unknown_gpu", name=parsed.unknown_gpu or "", suggestions=suggestions, about=about)
    elif plan.ask == "need_gpu":
        w.say("need_gpu", about=w.t("about_model", model=model) if model else "")
    else:
        w.say(plan.ask or "help")
    skipped = cards_not_named(w.text(), parsed.gpu_mentions)
    if skipped and plan.ask != "unknown_gpu":  # the cards already said are kept: the answer will be about them
        w.say("ask_named_cards", gpus=", ".join(skipped))


def _model_name(plan: Plan) -> str | None:
    """The scenario's model as the registry spells it ('Qwen2.5-14B'), or its size ('a 13B model')."""
    s = plan.scenario
    if s.model:
        from tools.errors import AdvisorError
        from tools.models import resolve_model

        try:
            return resolve_model(s.model)[0].name
        except AdvisorError:
            return s.model
    return f"{s.params_b:g}B" if s.params_b else None
