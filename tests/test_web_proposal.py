"""Issue 22 in a real browser: the Proposal button appears under an answer that recommends cards (not before),
writes the conversation's proposal, and its files download: the Markdown holds the answer's pick, the XLSX total
equals the Markdown's, the PDF is a PDF. A new conversation hides the button again.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from test_web_browser import DESKTOP, PHONE, ChatPage

from assistant.web.i18n import t

pytest_plugins = ["conftest_web"]
pytestmark = [pytest.mark.slow, pytest.mark.filterwarnings("ignore::pandas.errors.Pandas4Warning")]

CASES = {
    "zh": ("RTX 4090 支持 NVLink 吗？", "预算 20 万，公司内部 30 人用 Qwen2.5-32B 做知识库问答，服务器怎么配？"),
    "en": ("Does the RTX 4090 support NVLink?", "We need to serve Llama 3.1 70B to 50 users, budget $60,000"),
}


def _download(chat: ChatPage, suffix: str, into: Path) -> Path:
    """Click the file of `suffix` in the proposal's file list; the browser's download, saved."""
    link = chat.page.locator(f"#proposal-files a[href$='{suffix}']").first
    with chat.page.expect_download(timeout=30_000) as info:
        link.click()
    path = into / info.value.suggested_filename
    info.value.save_as(path)
    return path


def _total(markdown: str, lang: str) -> str:
    """The up-front total the Markdown states ("一次性投入合计: ¥90,097")."""
    label = "一次性投入合计" if lang == "zh" else "Up-front total"
    found = re.search(rf"{label}\W*([¥$][\d,]+)", markdown)
    assert found, markdown[:800]
    return found.group(1)


@pytest.mark.parametrize(("lang", "viewport"), [("zh", DESKTOP), ("en", PHONE)])
def test_the_proposal_button_writes_files_that_download(open_page, lang: str, viewport, tmp_path: Path) -> None:
    from openpyxl import load_workbook
    from playwright.sync_api import expect

    chat = open_page("zh-CN" if lang == "zh" else "en-US", viewport)
    button = chat.page.locator("#proposal")
    first, recommend = CASES[lang]
    chat.ask(first)
    chat.wait_turn(1)
    expect(button).to_be_hidden()  # a support question: nothing to write up
    chat.ask(recommend)
    chat.wait_turn(2)
    expect(button).to_be_visible(timeout=30_000)
    expect(button).to_contain_text(t(lang, "proposal_button").split("（")[0].split(" (")[0])
    button.click()
    expect(chat.page.locator("#proposal-files a[href$='.pdf']").first).to_be_visible(timeout=90_000)

    markdown = _download(chat, ".md", tmp_path).read_text(encoding="utf-8")
    answer = chat.page.locator("#chatbot .message-row").last.inner_text()
    pick = re.search(r"(\d+) (?:张|×)", markdown)
    assert pick and ("选型" in markdown if lang == "zh" else "proposal" in markdown.lower())
    total = _total(markdown, lang)

    sheet = load_workbook(_download(chat, ".xlsx", tmp_path), data_only=True).active
    amounts = [row for row in sheet.iter_rows(values_only=True) if row and any(v for v in row)]
    last = amounts[-1]
    assert f"{last[-1]:,.0f}" == total.lstrip("¥$"), (last, total)

    pdf = _download(chat, ".pdf", tmp_path)
    assert pdf.read_bytes().startswith(b"%PDF")
    # the answer and the document name the same card price
    prices = set(re.findall(r"[¥$][\d,]{4,}", answer))
    assert prices & set(re.findall(r"[¥$][\d,]{4,}", markdown)), (prices, markdown[:600])

    chat.page.locator("#clear").click()
    expect(button).to_be_hidden(timeout=30_000)
    expect(chat.page.locator("#proposal-files")).to_be_hidden()
