"""The web app in a real browser: Debian's chromium driven by Playwright against the app on loopback.

The numbers checked are not hard-coded: each test reads the tool call's arguments from the chat's tool
bubble, runs the same calculator here and looks for its result in the answer.
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

pytest_plugins = ["conftest_web"]
# Gradio converts dataframes with a pandas option pandas 3 deprecates; not ours to fix.
pytestmark = [pytest.mark.slow, pytest.mark.filterwarnings("ignore::pandas.errors.Pandas4Warning")]

TURN_TIMEOUT_MS = 90_000
QLORA_ZH = "用 QLoRA 微调 Qwen2.5-7B 需要多少显存？"
LLAMA_EN = "How much VRAM does Llama-3.1-70B need at 8k context?"


def wait_until(check: Any, timeout_s: float = 30.0, every_s: float = 0.1) -> Any:
    """Poll `check` until it returns something truthy; fail with the last value after `timeout_s`."""
    deadline = time.monotonic() + timeout_s
    value = None
    while time.monotonic() < deadline:
        value = check()
        if value:
            return value
        time.sleep(every_s)
    raise AssertionError(f"condition not met within {timeout_s} s (last value: {value!r})")


def expected_gib(args: dict[str, Any]) -> str:
    """What estimate_vram computes for these arguments, as the answer prints it (one decimal)."""
    from tools.vram import VramRequest, estimate_vram

    return f"{estimate_vram(VramRequest(**args)).per_gpu_gib:.1f} GiB"


class ChatPage:
    """One browser tab on the app."""

    def __init__(self, page: Any, shots: Path) -> None:
        self.page = page
        self.shots = shots

    def open(self, url: str) -> ChatPage:
        self.page.goto(url)
        self.page.wait_for_selector("#chat-input textarea")
        return self

    def ask(self, text: str) -> None:
        box = self.page.locator("#chat-input textarea")
        box.fill(text)
        box.press("Enter")

    def wait_turn(self, n: int) -> None:
        """Wait until turn n has finished (the turn line under the chat shows '#n ·')."""
        from playwright.sync_api import expect

        expect(self.page.locator("#turn-info")).to_contain_text(f"#{n} ·", timeout=TURN_TIMEOUT_MS)

    def bubbles(self, tool: str) -> Any:
        return self.page.locator("#chatbot .thought-group").filter(has_text=f"{tool} —")

    def wait_tool(self, tool: str, n: int) -> Any:
        """The n-th finished call of `tool` in this chat (1-based), once its result is in."""

        def finished() -> bool:
            titles = [
                self.bubbles(tool).nth(i).locator(".title").inner_text() for i in range(self.bubbles(tool).count())
            ]
            return len([x for x in titles if "running" not in x and "计算中" not in x]) >= n

        wait_until(finished, timeout_s=TURN_TIMEOUT_MS / 1000)
        return self.bubbles(tool).nth(n - 1)

    def tool_args(self, bubble: Any) -> dict[str, Any]:
        """Open a tool bubble and read the JSON arguments it shows."""
        code = bubble.locator("pre code").first

        def opened() -> bool:
            if code.count():
                return True
            bubble.locator(".title").click()  # done bubbles are collapsed; a re-render may close one again
            time.sleep(0.3)
            return code.count() > 0

        wait_until(opened, timeout_s=15, every_s=0.5)
        return json.loads(code.inner_text())

    def expect_answer(self, text: str) -> None:
        from playwright.sync_api import expect

        expect(self.page.locator("#chatbot")).to_contain_text(text, timeout=TURN_TIMEOUT_MS)

    def pick(self, elem_id: str, option: str) -> None:
        """Choose `option` in a dropdown, as a user would."""
        self.page.locator(f"#{elem_id} input").click()
        self.page.get_by_role("option", name=option, exact=True).click()

    def scenario(self) -> str:
        return self.page.locator("#scenario").inner_text()

    def shot(self, name: str) -> Path:
        path = self.shots / f"{name}.png"
        self.page.screenshot(path=str(path), full_page=True)
        return path


@pytest.fixture
def open_page(browser: Any, real_app: str, tmp_path: Path) -> Iterator[Any]:
    """A factory of fresh browser sessions (own context = own cookies and Gradio session)."""
    contexts = []

    def make(locale: str = "en-US") -> ChatPage:
        context = browser.new_context(viewport={"width": 1440, "height": 1000}, locale=locale)
        contexts.append(context)
        return ChatPage(context.new_page(), tmp_path).open(real_app)

    yield make
    for context in contexts:
        context.close()


def test_chinese_question_shows_tool_call_answer_and_what_if(open_page: Any) -> None:
    from playwright.sync_api import expect

    from tools.notes import money
    from tools.tco import TcoRequest, calculate_tco

    chat = open_page("zh-CN")
    chat.ask(QLORA_ZH)
    chat.wait_turn(1)
    bubble = chat.wait_tool("estimate_vram", 1)
    args = chat.tool_args(bubble)
    assert args["model"].lower() == "qwen2.5-7b" and args["mode"] == "qlora"
    first = expected_gib(args)
    chat.expect_answer(first)
    assert bubble.locator(".duration").count() == 1  # done bubbles show how long the tool took
    assert "Qwen2.5-7B" in chat.scenario() and "QLoRA" in chat.scenario()
    link = chat.page.locator("#chatbot a.cite-link").first
    link.click()
    target = link.get_attribute("href").removeprefix("#")
    assert chat.page.evaluate("id => document.getElementById(id).open", target)
    assert (chat.shot("zh-answer")).stat().st_size > 10_000

    chat.pick("whatif-context", "32k")
    chat.wait_turn(2)
    bubble = chat.wait_tool("estimate_vram", 2)
    args = chat.tool_args(bubble)
    assert args["context_tokens"] == 32768 and args["mode"] == "qlora"
    second = expected_gib(args)
    assert second != first
    chat.expect_answer(second)
    chat.expect_answer("如果上下文改成 32k 呢？")  # the what-if went through the chat as a follow-up
    assert "32,768" in chat.scenario()
    chat.shot("zh-what-if")

    chat.ask("4 张 4090 三年自购 vs 租云，哪个划算？")
    chat.wait_turn(3)
    args = chat.tool_args(chat.wait_tool("calculate_tco", 1))
    tco = calculate_tco(TcoRequest(**args))
    chart = chat.page.locator("#chart-tco")
    expect(chart).to_be_visible()
    if tco.break_even_month is not None:
        expect(chart).to_contain_text(f"回本点（第 {tco.break_even_month} 月）")
    chat.expect_answer(money(tco.buy_total, "CNY"))  # as the answer writes amounts: ¥85,556
    chat.shot("zh-tco")


def test_english_question_and_language_toggle(open_page: Any) -> None:
    from playwright.sync_api import expect

    chat = open_page("en-US")
    expect(chat.page.get_by_role("tab", name="Chat")).to_be_visible()
    chat.ask(LLAMA_EN)
    chat.wait_turn(1)
    args = chat.tool_args(chat.wait_tool("estimate_vram", 1))
    assert args["context_tokens"] == 8192
    chat.expect_answer(expected_gib(args))
    chat.expect_answer("per GPU")  # answered in the question's language

    chat.pick("whatif-method", "QLoRA")
    chat.wait_turn(2)
    args = chat.tool_args(chat.wait_tool("estimate_vram", 2))
    assert args["mode"] == "qlora"
    chat.expect_answer(expected_gib(args))
    expect(chat.page.locator("#chart-memory")).to_contain_text("LoRA adapters")  # the chart was redrawn

    chat.page.get_by_label("中文").check()
    expect(chat.page.get_by_role("tab", name="对话")).to_be_visible()
    expect(chat.page.locator("#send")).to_have_text("发送")
    expect(chat.page.locator("#chart-memory")).to_contain_text("LoRA 适配器")
    expect(chat.page.locator("#scenario")).to_contain_text("方式")
    chat.shot("en-then-zh-interface")


def test_two_sessions_never_share_a_scenario(open_page: Any) -> None:
    a, b = open_page("zh-CN"), open_page("en-US")
    a.ask(QLORA_ZH)
    b.ask(LLAMA_EN)
    a.wait_turn(1)
    b.wait_turn(1)
    a_args = a.tool_args(a.wait_tool("estimate_vram", 1))
    b_args = b.tool_args(b.wait_tool("estimate_vram", 1))
    a.expect_answer(expected_gib(a_args))
    b.expect_answer(expected_gib(b_args))

    b.ask("What about 32k context?")
    b.wait_turn(2)
    b_args = b.tool_args(b.wait_tool("estimate_vram", 2))
    assert b_args["context_tokens"] == 32768 and b_args["model"].lower() == "llama-3.1-70b"
    b.expect_answer(expected_gib(b_args))

    assert "Qwen2.5-7B" in a.scenario() and "Llama" not in a.scenario() and "32,768" not in a.scenario()
    assert "Llama-3.1-70B" in b.scenario() and "Qwen" not in b.scenario()
    assert "Llama" not in a.page.locator("#chatbot").inner_text()
    assert "Qwen" not in b.page.locator("#chatbot").inner_text()
    a.shot("session-a")
    b.shot("session-b")


def test_upload_a_document_and_find_it(open_page: Any, tmp_path: Path) -> None:
    from playwright.sync_api import expect

    doc = tmp_path / "zorblatt-cooling.md"
    doc.write_text(
        "# Zorblatt rack cooling notes\n\n## Airflow\n\nThe Zorblatt retrofit moves 900 CFM through each GPU shelf; "
        "keep blanking panels in every empty slot so the hot aisle stays hot.\n",
        encoding="utf-8",
    )
    chat = open_page("en-US")
    chat.page.get_by_role("tab", name="Knowledge").click()
    chat.page.locator("#kb-upload input[type=file]").set_input_files(str(doc))
    expect(chat.page.locator("#kb-status")).to_contain_text("✅", timeout=TURN_TIMEOUT_MS)
    expect(chat.page.locator("#kb-docs")).to_contain_text("Zorblatt rack cooling notes")
    chat.page.locator("#kb-query textarea").fill("Zorblatt retrofit airflow blanking panels")
    chat.page.locator("#kb-search").click()
    expect(chat.page.locator("#kb-results")).to_contain_text("Zorblatt rack cooling notes", timeout=TURN_TIMEOUT_MS)
    expect(chat.page.locator("#kb-results")).to_contain_text("900 CFM")
    chat.shot("knowledge")


def test_memory_calculator_without_chatting(open_page: Any) -> None:
    from playwright.sync_api import expect

    from tools.vram import VramRequest, estimate_vram

    chat = open_page("en-US")
    chat.page.get_by_role("tab", name="Calculators").click()
    chat.page.locator("#vram-run").click()
    # the form's defaults: Qwen2.5-7B QLoRA, 2,048 tokens x 1, gradient checkpointing, compared with an RTX 4090
    want = estimate_vram(VramRequest(model="Qwen2.5-7B", mode="qlora", context_tokens=2048, grad_checkpointing=True))
    expect(chat.page.locator("#vram-result")).to_contain_text(f"{want.per_gpu_gib:.2f} GiB per GPU")
    expect(chat.page.locator("#vram-result")).to_contain_text("RTX 4090")
    expect(chat.page.locator("#vram-chart")).to_contain_text("capacity")
    chat.shot("calculator-vram")


def test_settings_switch_this_session_to_an_openai_compatible_endpoint(
    open_page: Any, caplog: pytest.LogCaptureFixture
) -> None:
    import logging

    from fakes import text, tool_call
    from fakes.openai_server import FakeOpenAIServer
    from playwright.sync_api import expect

    key = "sk-web-session-only-0123456789"
    args = {"model": "qwen2.5-7b", "mode": "qlora", "context_tokens": 2048, "grad_checkpointing": True}
    want = expected_gib(args)
    caplog.set_level(logging.DEBUG)
    script = [tool_call("estimate_vram", args), text(f"QLoRA on Qwen2.5-7B needs about {want} per GPU.")]
    with FakeOpenAIServer(script) as server:
        chat, other = open_page("en-US"), open_page("en-US")
        page = chat.page
        page.get_by_role("tab", name="Settings").click()
        page.locator("#settings-provider").get_by_label("openai").check()
        page.locator("#settings-model textarea, #settings-model input").first.fill("fake-model")
        page.locator("#settings-base-url textarea, #settings-base-url input").first.fill(server.base_url)
        page.locator("#settings-api-key input").fill(key)
        page.locator("#settings-apply").click()
        expect(page.locator("#settings-status")).to_contain_text("openai:fake-model")
        expect(page.locator("#provider-notice")).to_contain_text("openai:fake-model")
        page.get_by_role("tab", name="Chat").click()
        chat.ask("QLoRA Qwen2.5-7B: how much VRAM?")
        chat.wait_turn(1)
        assert chat.tool_args(chat.wait_tool("estimate_vram", 1)) == args
        chat.expect_answer(f"about {want} per GPU")
        expect(page.locator("#turn-info")).to_contain_text("openai:fake-model")
        assert server.chat_requests[0].headers["authorization"] == f"Bearer {key}"
        assert key not in page.locator("body").inner_text()
        expect(other.page.locator("#provider-notice")).to_contain_text("offline")  # other sessions keep theirs
    assert key not in caplog.text
    chat.shot("settings-openai")
