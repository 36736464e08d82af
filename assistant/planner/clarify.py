"""When the planner must ask: the seed articles' three questions in turn, each reply answering the original question.

"我想买张显卡跑大模型" cannot be sized: the planner asks the purpose (推理 / 微调 / 训练, as quick replies), then the
model size, then the budget, then where it runs, one question a turn and at most MAX_QUESTIONS of them, and answers
the original question as soon as it has what it needs (or the questions run out: the answer states its defaults).
A reply ("微调", "14B 模型", "预算 1-3 万", typed or chosen) fills the pending question's slots through the planner's
usual merge of pending messages (model.py _with_pending_questions); this module only keeps the original question's
type, which the reply's own words would otherwise replace (a bare "推理" reads as a memory question), and picks the
next question. Which questions exist and their quick replies: catalog.yaml need_*, assistant/quick_replies.yaml.
"""

from __future__ import annotations

from langchain_core.messages import AIMessage, BaseMessage, HumanMessage

from assistant.capabilities.base import Plan
from assistant.planner.plan import make_plan
from assistant.scenario import Scenario
from assistant.toolset import ToolName
from assistant.understanding import ParsedQuery

ASKED = "asked"  # an answer's additional_kwargs key: the question it asked (a catalog.yaml key)
MAX_QUESTIONS = 3  # purpose, budget, where it runs (advice.md §1); then the answer, with its defaults said
# What slot words alone make a message ask: a job ("推理": memory), a budget ("预算 3 万": a purchase), renting
# ("租云上的 GPU": cost). A reply that asks only these answers the pending question instead.
_SLOT_INTENTS = {"memory", "recommend", "cost", "rent_where", "help"}


def questions_asked(history: list[BaseMessage]) -> int:
    """How many questions in a row the planner has asked since it last answered (0: none is pending)."""
    count = 0
    for message in reversed(history):
        if not isinstance(message, AIMessage) or not message.content:
            continue  # a message from the user or a tool, or a step that only called tools
        if not (message.additional_kwargs or {}).get(ASKED):
            break
        count += 1
    return count


def picked_offer(history: list[BaseMessage], text: str) -> bool:
    """Whether `text` is one of the quick replies the last answer offered beside what it assumed ("预算 2 万买什么显卡"
    sized for an assumed purpose; "本地跑 14B 模型聊天" chosen): the purchase asked again for that purpose."""
    last = next((m for m in reversed(history) if isinstance(m, AIMessage) and m.content), None)
    offered = (last.additional_kwargs or {}).get("quick_replies") or [] if last is not None else []
    return any(isinstance(r, dict) and r.get("message") == text.strip() for r in offered)


def replies_in(history: list[BaseMessage]) -> set[int]:
    """The positions of the user's messages that answer a question the planner asked just before."""
    out, asked = set(), False
    for i, message in enumerate(history):
        if isinstance(message, HumanMessage):
            if asked:
                out.add(i)
            asked = False
        elif isinstance(message, AIMessage) and message.content:
            asked = bool((message.additional_kwargs or {}).get(ASKED))
    return out


def fills_slots(parsed: ParsedQuery) -> bool:
    """Whether a message only gives inputs ("微调", "14B 模型", "预算 1-3 万", "在家用"), asking nothing of its own."""
    text = parsed.text
    asks = "?" in text or "？" in text or parsed.asks or parsed.claims or parsed.concept_terms
    return set(parsed.intents) <= _SLOT_INTENTS and not parsed.gpu_mentions and not asks


def as_reply(parsed: ParsedQuery) -> ParsedQuery:
    """A reply to the planner's question, read as the original question with these inputs: renting ("租云上的
    GPU") asks where to rent the job's cards; any other reply carries the question asked before."""
    if not fills_slots(parsed):
        return parsed
    parsed.intents = ["rent_where"] if parsed.buy_or_rent == "rent" else []  # type: ignore[list-item]
    parsed.is_followup = True
    return parsed


def _ask(plan: Plan, key: str) -> Plan:
    return Plan(intents=plan.intents, scenario=plan.scenario, calls=[], ask=key, quick_replies=[key])


def next_question(plan: Plan, parsed: ParsedQuery, asked: int) -> Plan:
    """The question to ask this turn, `asked` questions into the conversation's current run of them.

    The purpose with the job said ("买卡做推理", "微调") is the model's size; "跑大模型" says no job (people "run"
    training too). After a question was asked, a purchase that could now be sized still asks the budget, then where
    it runs, until MAX_QUESTIONS were asked."""
    if plan.ask == "need_purpose" and plan.scenario.mode and not parsed.mode_from_run_words:
        return _ask(plan, "need_model")
    purchase = any(c.name == ToolName.RECOMMEND_GPUS for c in plan.calls)
    if not asked or asked >= MAX_QUESTIONS or not purchase:
        return plan
    s = plan.scenario
    if s.budget is None and s.monthly_budget is None:
        return _ask(plan, "need_budget")
    if s.persona is None and s.deployment != "cloud":
        return _ask(plan, "need_place")
    return plan


def plan_turn(parsed: ParsedQuery, previous: Scenario, asked: int) -> Plan:
    """This turn's plan, `asked` questions into a run of them: the next question, or the answer. When the questions
    ran out and a purchase still names no job, it is sized for one person's usual first job (advice.yaml
    default_purpose), said in the answer."""
    plan = next_question(make_plan(parsed, previous), parsed, asked)
    if asked < MAX_QUESTIONS or plan.ask not in ("need_purpose", "need_model") or "recommend" not in plan.intents:
        return plan
    from tools.advice import default_purpose
    from tools.models import registry
    from tools.notes import note

    purpose = default_purpose("individual") or {}
    assumed = previous.model_copy(deep=True)
    assumed.model, assumed.params_b, assumed.mode = purpose["model"], None, previous.mode or purpose["mode"]
    plan = make_plan(parsed, assumed)
    plan.notes.insert(0, note("assumed_purpose", model=registry()[assumed.model].name, mode=assumed.mode))
    return plan
