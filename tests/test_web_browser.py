"""The web app in a real browser: Debian's chromium driven by Playwright against the app on loopback.

The numbers checked are not hard-coded: each test reads the tool call's arguments from the chat's tool
bubble, runs the same calculator here and looks for its result in the answer.
"""

from __future__ import annotations

import json
import re
import time
from pathlib import Path
from typing import Any

import pytest

from assistant.web.i18n import t

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
        self.counts: dict[int, dict[str, int]] = {0: {}}  # tool bubbles on the page when each turn finished

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
        self.counts[n] = {tool: self.bubbles(tool).count() for tool in ("estimate_vram", "calculate_tco")}

    def bubbles(self, tool: str) -> Any:
        """The tool bubbles of `tool` (titled by the tool's label in either interface language)."""
        from assistant.web.bubbles import tool_label

        names = "|".join(re.escape(tool_label(tool, lang)) for lang in ("en", "zh"))
        return self.page.locator("#chatbot .thought-group").filter(has_text=re.compile(f"(?:{names}) —"))

    def wait_tool(self, tool: str, turn: int) -> Any:
        """The first finished call of `tool` in turn `turn` (wait_turn(turn - 1) ran before): an answer may make
        several calls of one tool (a fine-tune's answer also sizes the other methods), the first is the job asked."""
        before = self.counts.get(turn - 1, {}).get(tool, 0)

        def finished() -> bool:
            titles = [
                self.bubbles(tool).nth(i).locator(".title").inner_text() for i in range(self.bubbles(tool).count())
            ]
            return len([x for x in titles if "running" not in x and "计算中" not in x]) > before

        wait_until(finished, timeout_s=TURN_TIMEOUT_MS / 1000)
        return self.bubbles(tool).nth(before)

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


DESKTOP = {"width": 1440, "height": 1000}
PHONE = {"width": 390, "height": 844}


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

    chat.pick("whatif-method", "QLoRA fine-tuning")
    chat.wait_turn(2)
    args = chat.tool_args(chat.wait_tool("estimate_vram", 2))
    assert args["mode"] == "qlora"
    chat.expect_answer(expected_gib(args))
    expect(chat.page.locator("#chart-memory-legend")).to_contain_text("LoRA adapters")  # the chart was redrawn

    chat.page.get_by_label("中文").check()
    expect(chat.page.get_by_role("tab", name="对话")).to_be_visible()
    expect(chat.page.locator("#send")).to_have_text("发送")
    expect(chat.page.locator("#chart-memory-legend")).to_contain_text("LoRA 适配器")
    expect(chat.page.locator("#provider-notice")).to_contain_text("离线模式")  # the banner follows the switch too
    expect(chat.bubbles("estimate_vram").first).to_be_visible()
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
    # B's model never shows in A (the guides may still cite Llama-2 figures, so match B's exact model).
    assert "Llama-3.1-70B" not in a.page.locator("#chatbot").inner_text()
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
        page.locator("#settings-provider").get_by_label("OpenAI-compatible API").check()
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


# --- layout: desktop and a phone -------------------------------------------------------------------------------

LAYOUT = """() => {
  const box = (sel) => { const e = document.querySelector(sel); if (!e) return null;
    const r = e.getBoundingClientRect(); return {top: r.top, bottom: r.bottom, left: r.left, right: r.right}; };
  return {
    scrollY: window.scrollY, width: innerWidth, height: innerHeight,
    scrollWidth: document.documentElement.scrollWidth,
    title: box('#title h2'), toggle: box('#lang-toggle'), input: box('#chat-input textarea'),
  };
}"""
AXIS_LABELS = """(sel) => [...document.querySelectorAll(sel + ' svg .role-axis-label text')]
  .map(t => { const r = t.getBoundingClientRect(); return {text: t.textContent, left: r.left, right: r.right,
    top: r.top, bottom: r.bottom}; })"""


def overlapping(labels: list[dict[str, Any]]) -> list[tuple[str, str]]:
    """Pairs of axis labels whose boxes intersect."""
    pairs = []
    for i, a in enumerate(labels):
        for b in labels[i + 1 :]:
            if (
                a["left"] < b["right"] - 1
                and b["left"] < a["right"] - 1
                and a["top"] < b["bottom"] - 1
                and b["top"] < a["bottom"] - 1
            ):
                pairs.append((a["text"], b["text"]))
    return pairs


def assert_fits(chat: ChatPage) -> dict[str, Any]:
    """No sideways scrolling, the title and the language switch at the top, the chat input on the first screen."""
    m = chat.page.evaluate(LAYOUT)
    assert m["scrollWidth"] <= m["width"], f"horizontal overflow: {m}"
    assert m["scrollY"] == 0, f"the page opened scrolled down: {m}"
    for part in ("title", "toggle"):
        assert m[part]["top"] >= 0 and m[part]["bottom"] <= m["height"] / 4, (part, m)
    assert m["title"]["right"] <= m["toggle"]["left"] or m["title"]["bottom"] <= m["toggle"]["top"], m
    assert m["input"]["top"] >= 0 and m["input"]["bottom"] <= m["height"], f"the chat input is below the fold: {m}"
    return m


@pytest.mark.parametrize("viewport", [DESKTOP, PHONE], ids=["desktop", "phone"])
def test_the_page_fits_the_screen_with_readable_charts(open_page: Any, viewport: dict[str, int]) -> None:
    from playwright.sync_api import expect

    chat = open_page("zh-CN", viewport)
    expect(chat.page.locator("#provider-notice")).to_contain_text("离线模式")  # the banner in the page's language
    assert_fits(chat)
    chat.ask(QLORA_ZH)
    chat.wait_turn(1)
    expect(chat.bubbles("estimate_vram").first).to_contain_text("显存估算")
    legend = chat.page.locator("#chart-memory-legend .legend-item")
    expect(legend.first).to_be_visible()
    width = chat.page.evaluate("innerWidth")
    for i in range(legend.count()):  # every legend entry whole and on screen, none cut with "…"
        item = legend.nth(i)
        box = item.bounding_box()
        assert box is not None and box["x"] >= 0 and box["x"] + box["width"] <= width, item.inner_text()
        assert "…" not in item.inner_text()
    wait_until(lambda: len(chat.page.evaluate(AXIS_LABELS, "#chart-memory")) >= 3)
    assert not overlapping(chat.page.evaluate(AXIS_LABELS, "#chart-memory"))
    assert chat.page.evaluate("document.documentElement.scrollWidth <= innerWidth")
    scenario = chat.scenario()
    assert "nf4" in scenario or "QLoRA" in scenario
    chat.shot(f"layout-{'phone' if viewport is PHONE else 'desktop'}")


# --- user text, what-ifs, new chat ---------------------------------------------------------------------------


def test_a_question_in_html_shows_as_text(open_page: Any) -> None:
    from playwright.sync_api import expect

    chat = open_page("en-US")
    dialogs: list[str] = []
    chat.page.on("dialog", lambda d: (dialogs.append(d.message), d.dismiss()))
    question = "<script>alert(1)</script> <img src=x onerror=alert(2)> what is NVLink?"
    chat.ask(question)
    chat.wait_turn(1)
    expect(chat.page.locator("#chatbot .user").first).to_contain_text("<script>alert(1)</script>")
    assert "<img src=x onerror=alert(2)>" in chat.page.locator("#chatbot .user").first.inner_text()
    assert not dialogs


def test_a_what_if_before_any_question_changes_nothing(open_page: Any) -> None:
    from playwright.sync_api import expect

    chat = open_page("en-US")
    chat.pick("whatif-gpu", "RTX 4090")
    expect(chat.page.locator("#turn-info")).to_contain_text(t("en", "whatif_first"))
    expect(chat.page.locator("#whatif-gpu input")).to_have_value("")
    assert chat.page.locator("#chatbot .message").count() == 0
    chat.ask(LLAMA_EN)
    chat.wait_turn(1)
    args = chat.tool_args(chat.wait_tool("estimate_vram", 1))
    assert "gpu" not in args and "4090" not in chat.scenario()


def test_what_ifs_keep_the_method_and_new_chat_clears_them(open_page: Any) -> None:
    from playwright.sync_api import expect

    chat = open_page("en-US")
    chat.ask("LoRA fine-tune Qwen2.5-7B: how much VRAM?")
    chat.wait_turn(1)
    first = chat.tool_args(chat.wait_tool("estimate_vram", 1))
    assert first["mode"] == "lora"
    chat.page.locator("#whatif-precision input").click()  # a LoRA answer offers the formats LoRA trains in
    offered = chat.page.get_by_role("option").all_inner_texts()
    assert "fp16" in offered and "fp8" not in offered and "int4" not in offered
    chat.page.get_by_role("option", name="fp16", exact=True).click()
    chat.wait_turn(2)
    second = chat.tool_args(chat.wait_tool("estimate_vram", 2))
    assert second["mode"] == "lora" and second["precision"] == "fp16"
    expect(chat.page.locator("#whatif-method input")).to_have_value("LoRA fine-tuning")
    expect(chat.page.locator("#whatif-precision input")).to_have_value("fp16")
    assert "**Precision**" not in chat.scenario() and "fp16" in chat.scenario()  # the panel says what the control says

    chat.pick("whatif-method", "full fine-tuning")
    chat.wait_turn(3)
    third = chat.tool_args(chat.wait_tool("estimate_vram", 3))
    assert third["mode"] == "full"
    assert third.get("grad_checkpointing") == second.get("grad_checkpointing")  # the method change kept it
    precision = chat.page.locator("#whatif-precision input").input_value()
    assert precision in chat.scenario()

    stored = chat.page.evaluate("localStorage.getItem('gpu-advisor-session')")
    chat.page.locator("#clear").click()
    expect(chat.page.locator("#scenario")).to_contain_text(t("en", "scenario_empty").split(":")[0])
    for control in ("precision", "context", "batch", "gpu", "gpus", "method"):
        expect(chat.page.locator(f"#whatif-{control} input")).to_have_value("")
    wait_until(lambda: chat.page.evaluate("localStorage.getItem('gpu-advisor-session')") not in (None, stored))
    chat.page.reload()
    chat.page.wait_for_selector("#chat-input textarea")
    expect(chat.page.locator("#scenario")).to_contain_text(t("en", "scenario_empty").split(":")[0])
    assert chat.page.locator("#chatbot .message").count() == 0  # the new chat came back empty


# --- sessions that survive a reload and a restart ------------------------------------------------------------


def test_a_reload_brings_back_the_conversation_and_two_browsers_stay_apart(open_page: Any) -> None:
    from playwright.sync_api import expect

    a, b = open_page("zh-CN"), open_page("en-US")
    a.ask(QLORA_ZH)
    b.ask(LLAMA_EN)
    a.wait_turn(1)
    b.wait_turn(1)
    for chat in (a, b):
        chat.page.reload()
        chat.page.wait_for_selector("#chat-input textarea")
    expect(a.page.locator("#chatbot")).to_contain_text(QLORA_ZH)
    expect(b.page.locator("#chatbot")).to_contain_text(LLAMA_EN)
    expect(a.page.locator("#scenario")).to_contain_text("Qwen2.5-7B")
    expect(b.page.locator("#scenario")).to_contain_text("Llama-3.1-70B")
    expect(a.page.locator("#turn-info")).to_contain_text("已恢复")
    assert "Llama-3.1-70B" not in a.page.locator("#chatbot").inner_text() + a.scenario()
    assert "Qwen" not in b.page.locator("#chatbot").inner_text() + b.scenario()

    b.ask("What about 32k context?")  # the follow-up continues the restored conversation
    b.wait_turn(2)
    args = b.tool_args(b.wait_tool("estimate_vram", 1))
    assert args["context_tokens"] == 32768 and args["model"].lower() == "llama-3.1-70b"
    assert a.page.evaluate("localStorage.getItem('gpu-advisor-session')") != b.page.evaluate(
        "localStorage.getItem('gpu-advisor-session')"
    )


def test_a_server_restart_brings_back_the_conversation(browser: Any, warm_knowledge: Path, tmp_path: Path) -> None:
    from conftest_web import offline_settings
    from langgraph.checkpoint.memory import InMemorySaver
    from playwright.sync_api import expect

    from assistant.advisor import Advisor
    from assistant.web import free_port, serve_local

    first = Advisor(offline_settings())
    if isinstance(getattr(first, "checkpointer", None), InMemorySaver):
        pytest.skip("the Advisor keeps sessions in memory only (persisted sessions: issue 15, part 1)")
    port = free_port()
    context = browser.new_context(viewport=DESKTOP, locale="zh-CN")
    try:
        with serve_local(advisor=first, settings=offline_settings(), port=port) as url:
            chat = ChatPage(context.new_page(), tmp_path).open(url)
            chat.ask(QLORA_ZH)
            chat.wait_turn(1)
        if hasattr(first, "close"):
            first.close()
        with serve_local(advisor=Advisor(offline_settings()), settings=offline_settings(), port=port) as url:
            chat.page.reload()
            chat.page.wait_for_selector("#chat-input textarea")
            expect(chat.page.locator("#chatbot")).to_contain_text(QLORA_ZH)
            expect(chat.page.locator("#scenario")).to_contain_text("Qwen2.5-7B")
            chat.ask("如果上下文改成 32k 呢？")
            chat.wait_turn(2)
            args = chat.tool_args(chat.wait_tool("estimate_vram", 1))
            assert args["context_tokens"] == 32768 and args["model"].lower() == "qwen2.5-7b"
    finally:
        context.close()


def test_a_reload_through_the_assistant_process(browser: Any, warm_knowledge: Path, tmp_path: Path) -> None:
    """As `gpu-advisor chat` runs it: the assistant in its own process answers the page's `history` too."""
    from conftest_web import offline_settings, serve_app
    from playwright.sync_api import expect

    from assistant.worker import AdvisorProcess

    worker = AdvisorProcess(offline_settings()).start()
    context = browser.new_context(viewport=PHONE, locale="en-US", is_mobile=True, has_touch=True)
    try:
        with serve_app(worker) as url:
            chat = ChatPage(context.new_page(), tmp_path).open(url)
            chat.ask(LLAMA_EN)
            chat.wait_turn(1)
            chat.page.reload()
            chat.page.wait_for_selector("#chat-input textarea")
            expect(chat.page.locator("#chatbot")).to_contain_text(LLAMA_EN)
            expect(chat.page.locator("#scenario")).to_contain_text("Llama-3.1-70B")
            expect(chat.page.locator("#turn-info")).to_contain_text("conversation is back")
            assert_fits(chat)
    finally:
        context.close()
        worker.close()
