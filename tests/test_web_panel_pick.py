"""Issue 21, item 4, in a real browser: after a recommendation the scenario panel, the what-if controls and the memory
chart show the pick (method, format, GPU, count), and a what-if from the controls starts from it.

Nothing expected is typed in: the recommendation's arguments are read from its tool bubble and the calculator is run
here on them, so the pick checked is the one the answer was written from.
"""

from __future__ import annotations

from typing import Any

import pytest
from test_web_browser import AXIS_LABELS, DESKTOP, PHONE, ChatPage, wait_until

from assistant.web.chat import followup_text
from assistant.web.i18n import t

pytest_plugins = ["conftest_web"]
pytestmark = [pytest.mark.slow, pytest.mark.filterwarnings("ignore::pandas.errors.Pandas4Warning")]

QUESTION = {
    "zh": "预算 1.5 万，在家用一张卡微调 Qwen2.5-14B",
    "en": "I have a $2000 budget to fine-tune Qwen2.5-14B at home on one card",
}
WHATIF_GPU = "RTX 4090"  # a card the GPU control offers, other than the pick


def _recommendation(chat: ChatPage, before: int) -> tuple[dict[str, Any], Any]:
    """The arguments of the turn's recommend_gpus call (the first after `before` bubbles) and its pick."""
    from assistant.scenario import recommended
    from tools.recommend import RecommendRequest, recommend_gpus

    bubbles = chat.bubbles("recommend_gpus")
    wait_until(lambda: bubbles.count() > before, timeout_s=90)
    args = chat.tool_args(bubbles.nth(before))
    pick = recommended(recommend_gpus(RecommendRequest(**args)))
    assert pick is not None, args
    return args, pick


def _control(chat: ChatPage, elem_id: str) -> str:
    return chat.page.locator(f"#{elem_id} input").input_value()


def _chart_labels(chat: ChatPage) -> list[str]:
    return [label["text"] for label in chat.page.evaluate(AXIS_LABELS, "#chart-memory")]


def _expect_panel_shows(chat: ChatPage, lang: str, pick: Any, alternatives: bool | None = None) -> None:
    """The panel's rows, the what-if controls and the memory chart all name the pick (and the chart the other
    options, when the answer has some)."""
    from playwright.sync_api import expect

    from assistant.web.cards import short_gpu_name

    gpu, method = short_gpu_name(pick.gpu), t(lang, f"method.{pick.mode}")
    panel = chat.page.locator("#scenario")
    for slot, value in (("mode", method), ("precision", pick.precision), ("gpu", gpu), ("num_gpus", str(pick.count))):
        expect(panel).to_contain_text(f"{t(lang, f'slot.{slot}')}: {value}", timeout=30_000)
    wait_until(lambda: _control(chat, "whatif-gpu") == gpu, timeout_s=30)
    assert _control(chat, "whatif-method") == method
    assert _control(chat, "whatif-precision") == pick.precision
    assert _control(chat, "whatif-gpus") == str(pick.count)
    # the chart: the pick first, against its card, then the other options; its caption names the pick
    legend = chat.page.locator("#chart-memory-legend")
    expect(legend).to_contain_text(t(lang, "pick_need"))
    expect(legend).to_contain_text(t(lang, "capacity_left"))
    first = f"{pick.count}× {gpu}"
    wait_until(lambda: first in _chart_labels(chat), timeout_s=30)
    labels = _chart_labels(chat)
    assert labels.index(first) == min(i for i, x in enumerate(labels) if "×" in x), labels
    assert alternatives is None or (len([x for x in labels if "×" in x]) >= 2) == alternatives, labels
    expect(chat.page.locator("#chart-memory")).to_contain_text(
        t(lang, "options_caption", pick=first, need=pick.memory_per_gpu_gib, usable=pick.usable_gib_per_gpu)
    )
    assert chat.page.evaluate("document.documentElement.scrollWidth <= innerWidth")


@pytest.mark.parametrize(
    ("lang", "viewport"),
    [("zh", DESKTOP), ("en", PHONE), ("en", DESKTOP), ("zh", PHONE)],
    ids=["zh-desktop", "en-phone", "en-desktop", "zh-phone"],
)
def test_the_panel_shows_the_pick_and_a_what_if_starts_from_it(
    open_page: Any, lang: str, viewport: dict[str, int]
) -> None:
    chat = open_page("zh-CN" if lang == "zh" else "en-US", viewport)
    chat.ask(QUESTION[lang])
    chat.wait_turn(1)
    args, pick = _recommendation(chat, 0)
    assert args["workload"]["mode"] == "lora" and pick.mode == "qlora"  # the case: LoRA asked, QLoRA picked
    _expect_panel_shows(chat, lang, pick, alternatives=True)
    chat.shot(f"panel-{lang}-{'phone' if viewport is PHONE else 'desktop'}")

    before = chat.bubbles("recommend_gpus").count()
    chat.pick("whatif-gpu", WHATIF_GPU)
    chat.wait_turn(2)
    chat.expect_answer(followup_text("gpu", WHATIF_GPU, lang))  # the what-if went through the chat
    args, after = _recommendation(chat, before)
    # the what-if changed the card only: the method and the format are the pick's, not the LoRA first asked
    assert args["gpus"] == ["rtx-4090"]
    assert args["workload"]["mode"] == pick.mode and args["workload"].get("precision") == pick.precision
    _expect_panel_shows(chat, lang, after)  # one card named: other options, if any, are its rental
