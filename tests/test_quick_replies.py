"""Quick replies: when a question cannot be sized, the advisor asks the seed articles' questions (purpose, budget,
where it runs) with likely answers, and choosing one answers the original question.

Each flow runs the real Advisor (offline planner) turn by turn, choosing the offered replies as a user would, and
checks the question asked (by its quick replies) and, at the end, the recommendation's own arguments: the model
size, method, budget and buyer the choices stood for.
"""

from __future__ import annotations

import uuid
from typing import Any

import pytest

from assistant.cli_chat import chosen
from assistant.events import FinalEvent
from assistant.language import detect_language
from assistant.quick_replies import QuickReply, budget_tiers, group, options
from assistant.understanding import parse

SIZES = ["7B", "14B", "32B", "70B"]
JOBS = {"zh": ["推理", "微调", "训练"], "en": ["Inference", "Fine-tuning", "Training"]}
PLACES = {"zh": ["在家", "公司机房", "云上租"], "en": ["At home", "Office server", "Cloud"]}
TIERS = {
    "zh": ["1 万以内", "1-3 万", "3-10 万", "10-30 万"],
    "en": ["under $1,500", "$1,500-4,000", "$4,000-12,000", "$12,000-40,000"],
}
NOTHING = {"zh": "我想买张显卡跑大模型，买什么好", "en": "I want to buy a GPU to run LLMs, which one?"}
NO_MODEL = {"zh": "想买显卡做微调，推荐哪张？", "en": "which GPU to buy for fine-tuning?"}
# the method each job choice sizes (a fine-tune with no method is LoRA; "训练" sends a full training run)
JOB_MODES = [("inference",), ("lora", "qlora"), ("full",)]


class Chat:
    """One conversation with the advisor, choosing offered replies by their label."""

    def __init__(self, advisor: Any) -> None:
        self.advisor, self.session = advisor, f"qr-{uuid.uuid4().hex[:8]}"
        self.final: FinalEvent | None = None

    def say(self, text: str) -> FinalEvent:
        self.final = self.advisor.ask(self.session, text)
        return self.final

    def labels(self) -> list[str]:
        assert self.final is not None
        return [r.label for r in self.final.quick_replies]

    def choose(self, label: str) -> FinalEvent:
        assert self.final is not None
        reply = next((r for r in self.final.quick_replies if r.label == label), None)
        assert reply is not None, (label, self.labels(), self.final.answer)
        return self.say(reply.message)

    def recommended(self) -> dict[str, Any]:
        """The arguments of the turn's recommendation (the purchase the answer sized)."""
        assert self.final is not None
        calls = [c for c in self.final.tool_calls if c.name == "recommend_gpus"]
        assert calls, ("no recommendation", self.final.answer)
        return calls[0].args


def _asked(final: FinalEvent) -> bool:
    return not final.tool_calls and bool(final.quick_replies)


# --- the options are data, in both languages, and read as the answers they stand for ---------------------------


def _rows(key: str) -> list[dict]:
    value = options()[key]
    return value if isinstance(value, list) else [r for rows in value.values() for r in rows]


@pytest.mark.parametrize("key", list(options()))
def test_every_option_has_a_label_and_a_message_in_both_languages(key: str) -> None:
    for row in _rows(key):
        assert set(row["label"]) == set(row["message"]) == {"zh", "en"}, row
        assert detect_language(row["message"]["en"]) == "en", row
        if key != "need_model":  # "7B 模型" is Chinese, a bare size has no language
            assert detect_language(row["message"]["zh"]) == "zh", row


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_each_reply_reads_as_the_answer_it_stands_for(lang: str) -> None:
    jobs = [parse(r.message) for r in group("need_purpose", lang)]
    assert [p.mode for p in jobs] == ["inference", None, "full"] and jobs[1].fine_tune_unspecified
    assert [parse(r.message).params_b for r in group("need_model", lang)] == [7, 14, 32, 70]
    places = [parse(r.message) for r in group("need_place", lang)]
    assert [p.persona for p in places[:2]] == ["individual", "company"] and places[2].buy_or_rent == "rent"
    for currency in ("CNY", "USD"):
        for tier in budget_tiers(currency):
            said = parse(tier["message"][lang])
            assert said.budget == tier["top"], (tier, said.budget)


def test_budget_tiers_follow_the_catalogs_price_bands() -> None:
    """The tier bounds sit where the catalog's prices and buyer brackets change (quick_replies.yaml says which)."""
    from tools.advice import policy
    from tools.catalog import resolve_gpu
    from tools.prices import bundled_prices, purchase_price, used_purchase_price

    book = bundled_prices()

    def new(gpu: str, currency: str) -> float:
        return purchase_price(resolve_gpu(gpu)[0], currency, book)[0]  # type: ignore[index]

    for currency in ("CNY", "USD"):
        tops = [t["top"] for t in budget_tiers(currency)]
        brackets = policy()["persona_by_budget"][currency]
        used_3090 = used_purchase_price(resolve_gpu("rtx 3090")[0], currency, book)[0]  # type: ignore[index]
        assert used_3090 <= tops[0] < new("rtx 4090 d", currency)  # one consumer card up to 24 GB
        assert tops[1] == brackets["individual_up_to"]  # the 4090 / 5090 class, one person's top
        assert new("a100 80gb", currency) <= tops[2] < new("h20", currency)  # 48-96 GB workstation / PCIe cards
        assert tops[3] == brackets["team_up_to"]  # data-center cards and servers


def test_a_number_picks_the_offered_reply_and_anything_else_is_sent_as_typed() -> None:
    offered = [QuickReply(label=s, message=f"{s} 模型") for s in SIZES]
    assert chosen("2", offered) == "14B 模型"
    assert chosen("4", offered) == "70B 模型"
    assert chosen("5", offered) == "5" and chosen("0", offered) == "0"
    assert chosen("微调 14B", offered) == "微调 14B"


# --- nothing said: purpose, then the model size, then the budget; then the answer ------------------------------


@pytest.mark.parametrize("lang", ["zh", "en"])
@pytest.mark.parametrize("job", [0, 1, 2])
def test_nothing_said_asks_purpose_size_and_budget_then_sizes_the_purchase(advisor: Any, lang: str, job: int) -> None:
    chat = Chat(advisor)
    first = chat.say(NOTHING[lang])
    assert _asked(first) and chat.labels() == JOBS[lang]
    assert chat.choose(JOBS[lang][job]).language == lang
    assert _asked(chat.final) and chat.labels() == SIZES  # the job is said: the model's size is the question
    chat.choose("14B")
    assert _asked(chat.final) and chat.labels() == TIERS[lang]
    chat.choose(TIERS[lang][1])
    assert chat.final.language == lang and chat.final.quick_replies == []  # three questions asked: the answer
    args = chat.recommended()
    assert args["workload"]["params_b"] == 14 and args["workload"]["mode"] in JOB_MODES[job]
    assert args["budget"] == budget_tiers("CNY" if lang == "zh" else "USD")[1]["top"]


# --- the job said, no model: the size, the budget, where it runs -------------------------------------------------


@pytest.mark.parametrize("lang", ["zh", "en"])
@pytest.mark.parametrize("size", SIZES)
def test_no_model_asks_its_size_then_budget_and_place(advisor: Any, lang: str, size: str) -> None:
    chat = Chat(advisor)
    chat.say(NO_MODEL[lang])
    assert _asked(chat.final) and chat.labels() == SIZES
    chat.choose(size)
    assert chat.labels() == TIERS[lang]
    chat.choose(TIERS[lang][2])
    assert _asked(chat.final) and chat.labels() == PLACES[lang]
    chat.choose(PLACES[lang][0])
    args = chat.recommended()
    assert args["workload"]["params_b"] == float(size[:-1]) and args["workload"]["mode"] in ("lora", "qlora")
    assert args["budget"] == budget_tiers("CNY" if lang == "zh" else "USD")[2]["top"]
    assert args.get("persona") == "individual"


@pytest.mark.parametrize("lang", ["zh", "en"])
@pytest.mark.parametrize("place", [1, 2])
def test_the_place_chosen_decides_buyer_or_renting(advisor: Any, lang: str, place: int) -> None:
    chat = Chat(advisor)
    chat.say(NO_MODEL[lang])
    chat.choose("32B")
    chat.choose(TIERS[lang][3])
    chat.choose(PLACES[lang][place])
    if place == 1:  # a company server room: data-center cards with ECC, within the budget chosen
        args = chat.recommended()
        top = budget_tiers("CNY" if lang == "zh" else "USD")[3]["top"]
        assert args["workload"]["params_b"] == 32 and args.get("persona") == "company" and args["budget"] == top
    else:  # the cloud: where the same job rents cheapest
        calls = {c.name: c.args for c in chat.final.tool_calls}
        assert "rent_providers" in calls, chat.final.answer
        assert calls["estimate_vram"]["params_b"] == 32 and calls["estimate_vram"]["mode"] in ("lora", "qlora")


# --- free text answers the question too -------------------------------------------------------------------------


def test_a_typed_reply_with_two_answers_skips_the_question_it_answers(advisor: Any) -> None:
    chat = Chat(advisor)
    chat.say(NOTHING["zh"])
    chat.say("微调 14B")  # the job and the size at once
    assert _asked(chat.final) and chat.labels() == TIERS["zh"]
    chat.say("预算 2 万")
    assert _asked(chat.final) and chat.labels() == PLACES["zh"]
    chat.choose("在家")
    args = chat.recommended()
    assert args["workload"]["params_b"] == 14 and args["budget"] == 20000


# --- no purpose (a budget said): sized for the usual purpose, the others offered -------------------------------


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_no_purpose_is_assumed_and_the_offered_purposes_resize_the_purchase(advisor: Any, lang: str) -> None:
    chat = Chat(advisor)
    chat.say("预算 2 万买什么显卡" if lang == "zh" else "I have $2,000, which GPU?")
    assert chat.final.tool_calls and len(chat.final.quick_replies) == 3  # answered, with other purposes offered
    before = chat.recommended()
    chat.choose(chat.labels()[0])  # local chat with a 14B model
    args = chat.recommended()  # the purchase again, for that purpose, within the same budget
    assert args["budget"] == before["budget"] and args["workload"]["mode"] == "inference"
    assert "14b" in (args["workload"].get("model") or "") or args["workload"].get("params_b") == 14


# --- no budget with the job and model said: sized at once at the stated default, nothing asked -----------------


@pytest.mark.parametrize("question", ["买什么卡跑 Qwen2.5-14B 推理", "Which GPU should I buy to run a 14B model?"])
def test_no_budget_with_a_sized_job_is_answered_not_asked(advisor: Any, question: str) -> None:
    chat = Chat(advisor)
    chat.say(question)
    assert chat.final.tool_calls and not chat.final.quick_replies
    assert chat.recommended()["workload"].get("params_b") in (None, 14)


# --- not a purchase: a memory question with no model gets the sizes, and the size chosen is sized ---------------


@pytest.mark.parametrize(
    ("lang", "question"), [("zh", "微调要多少显存"), ("en", "How much memory does a fine-tune need?")]
)
def test_a_memory_question_without_a_model_offers_sizes_and_sizes_the_one_chosen(
    advisor: Any, lang: str, question: str
) -> None:
    chat = Chat(advisor)
    chat.say(question)
    assert _asked(chat.final) and chat.labels() == SIZES
    chat.choose("32B")
    calls = [c.args for c in chat.final.tool_calls if c.name == "estimate_vram"]
    assert calls and calls[0]["params_b"] == 32 and calls[0]["mode"] == "lora", chat.final.answer
    assert chat.final.language == lang and not chat.final.quick_replies


# --- the questions run out: the usual first job, said -----------------------------------------------------------


@pytest.mark.parametrize(
    ("lang", "replies"), [("zh", ["不知道", "随便", "都行"]), ("en", ["not sure", "no idea", "whatever"])]
)
def test_after_three_questions_it_answers_with_a_stated_default(advisor: Any, lang: str, replies: list[str]) -> None:
    from tools.advice import default_purpose
    from tools.models import registry
    from tools.notes import note

    chat = Chat(advisor)
    chat.say(NOTHING[lang])
    for reply in replies[:2]:
        assert _asked(chat.say(reply))
    chat.say(replies[2])
    model = default_purpose("individual")["model"]
    assert chat.recommended()["workload"]["model"] == model
    said = note("assumed_purpose", model=registry()[model].name, mode=chat.recommended()["workload"]["mode"])
    assert said.render(lang) in chat.final.answer
