"""Quick replies in a real browser (Debian's chromium, Playwright): a question that cannot be sized gets chips with
likely answers under the advisor's question; clicking one sends it, the next question's chips replace them, and the
last choice brings the answer to the original question. Desktop and phone widths."""

from __future__ import annotations

from typing import Any

import pytest
from test_web_browser import DESKTOP, PHONE, ChatPage, wait_until

from assistant.quick_replies import budget_tiers, group

pytest_plugins = ["conftest_web"]
pytestmark = [pytest.mark.slow, pytest.mark.filterwarnings("ignore::pandas.errors.Pandas4Warning")]

CHIPS = "#chatbot .options button.option"


def chips(chat: ChatPage) -> list[str]:
    return [c.strip() for c in chat.page.locator(CHIPS).all_inner_texts()]


def wait_chips(chat: ChatPage, labels: list[str]) -> None:
    """Wait until exactly these chips are shown (the previous turn's are gone)."""
    wait_until(lambda: chips(chat) == labels, timeout_s=60)


def click_chip(chat: ChatPage, label: str, turn: int) -> None:
    chat.page.locator(CHIPS).filter(has_text=label).first.click()
    chat.wait_turn(turn)


def chips_fit(chat: ChatPage, width: int) -> bool:
    boxes = [chat.page.locator(CHIPS).nth(i).bounding_box() for i in range(chat.page.locator(CHIPS).count())]
    return all(b is not None and b["x"] >= 0 and b["x"] + b["width"] <= width + 1 for b in boxes)


@pytest.mark.parametrize(
    ("lang", "locale", "viewport", "question", "job", "size", "tier"),
    [
        ("zh", "zh-CN", DESKTOP, "我想买张显卡跑大模型，买什么好", 1, 1, 1),
        ("en", "en-US", PHONE, "I want to buy a GPU to run LLMs, which one?", 0, 3, 2),
    ],
    ids=["zh-desktop", "en-phone"],
)
def test_chips_answer_the_questions_and_the_original_question_is_answered(
    open_page: Any, lang: str, locale: str, viewport: dict[str, int], question: str, job: int, size: int, tier: int
) -> None:
    from playwright.sync_api import expect

    currency = "CNY" if lang == "zh" else "USD"
    chat = open_page(locale, viewport)
    chat.ask(question)
    chat.wait_turn(1)
    jobs, sizes = group("need_purpose", lang), group("need_model", lang)
    tiers = group("need_budget", lang)
    wait_chips(chat, [r.label for r in jobs])
    assert chips_fit(chat, viewport["width"])
    chat.shot(f"quick-replies-{lang}-purpose")

    click_chip(chat, jobs[job].label, 2)
    chat.expect_answer(jobs[job].message)  # the chip was sent as the user's message
    wait_chips(chat, [r.label for r in sizes])  # the purpose's chips are gone, the size's shown

    click_chip(chat, sizes[size].label, 3)
    wait_chips(chat, [r.label for r in tiers])
    assert chips_fit(chat, viewport["width"])

    click_chip(chat, tiers[tier].label, 4)
    top = budget_tiers(currency)[tier]["top"]
    chat.expect_answer(f"Generic-{sizes[size].label}")  # the model size chosen, sized
    chat.expect_answer(f"{'¥' if currency == 'CNY' else '$'}{top:,}")  # within the budget chosen
    expect(chat.page.locator(CHIPS)).to_have_count(0)  # three questions asked: an answer, no more chips
    bubble = chat.page.locator("#chatbot .thought-group").first
    expect(bubble).to_be_visible()  # the answer came from the calculators (a tool bubble)
    chat.shot(f"quick-replies-{lang}-answer")
