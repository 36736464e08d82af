"""Take the README screenshots from the real app: `python -m assistant.web.screenshot [--size desktop|phone|both]`.

Starts the app on a free loopback port, asks a question in Debian's chromium (driven by Playwright, a
dev dependency) at a desktop size (docs/screenshot-desktop.png) and a phone's (390 × 844,
docs/screenshot-mobile.png), waits for the answer and saves each page as a PNG. The first run may spend
a minute ingesting the guides into the knowledge store.
"""

from __future__ import annotations

import argparse
from dataclasses import dataclass
from pathlib import Path
from typing import Any

CHROMIUM = "/usr/bin/chromium"
ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
QUESTION = "用 QLoRA 微调 Qwen2.5-7B，一张 RTX 4090 放得下吗？"
LOCALE = "zh-CN"


@dataclass(frozen=True)
class Size:
    name: str
    width: int
    height: int
    phone: bool = False

    @property
    def out(self) -> Path:
        return Path("docs") / f"screenshot-{self.name}.png"


SIZES = {"desktop": Size("desktop", 1440, 1250), "mobile": Size("mobile", 390, 844, phone=True)}


# The answer's first message (not the question, a tool bubble or the sources) scrolled to the chat's top.
ANSWER_TO_TOP = """() => {
  const parts = [...document.querySelectorAll('#chatbot .bot-row .message.panel-full-width')];
  const answer = parts.find(m => !m.querySelector('.thought-group') && !/^\\s*(🛠|❌|📚)/u.test(m.innerText));
  if (!answer) return;
  answer.scrollIntoView({block: 'start'});
  const log = answer.closest('[role=log], .bubble-wrap');
  if (log) log.scrollBy(0, -40);  // clear of the chat's label
}"""


def _ask(page: Any, question: str) -> None:
    from playwright.sync_api import expect

    page.wait_for_selector("#chat-input textarea")
    box = page.locator("#chat-input textarea")
    box.fill(question)
    box.press("Enter")
    expect(page.locator("#turn-info")).to_contain_text("#1 ·", timeout=300_000)


def _frame(page: Any, size: Size) -> None:
    """The question and the start of the answer in view; on a desktop one tool call opened too."""
    if not size.phone:
        page.locator("#chatbot .thought-group .title").first.click()
        page.wait_for_timeout(800)
    log = page.locator("#chatbot [role=log], #chatbot .bubble-wrap").first
    log.evaluate("el => el.scrollTo(0, 0)")
    if size.phone:  # a phone has room for the answer only: its first lines at the top of the chat
        page.evaluate(ANSWER_TO_TOP)
    page.evaluate("window.scrollTo(0, 0)")
    page.mouse.move(0, 0)
    page.wait_for_timeout(500)


def take(sizes: list[Size], question: str = QUESTION, locale: str = LOCALE, out: Path | None = None) -> list[Path]:
    """Serve the app, ask `question` at each size, save a screenshot of each page (to `out` if one size)."""
    from playwright.sync_api import sync_playwright

    from assistant.settings import Settings
    from assistant.web import serve_local

    saved = []
    with serve_local(settings=Settings(provider="offline")) as url, sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        for size in sizes:
            viewport = {"width": size.width, "height": size.height}
            context = browser.new_context(viewport=viewport, locale=locale, is_mobile=size.phone, has_touch=size.phone)
            page = context.new_page()
            page.goto(url)
            _ask(page, question)
            _frame(page, size)
            path = out if out is not None and len(sizes) == 1 else size.out
            path.parent.mkdir(parents=True, exist_ok=True)
            page.screenshot(path=str(path))
            saved.append(path)
            context.close()
        browser.close()
    return saved


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size", choices=[*SIZES, "both"], default="both")
    parser.add_argument("--out", type=Path, help="where to save (one size only); default docs/screenshot-SIZE.png")
    parser.add_argument("--question", default=QUESTION)
    parser.add_argument("--locale", default=LOCALE, help="browser locale: zh-CN or en-US (interface language)")
    args = parser.parse_args()
    sizes = list(SIZES.values()) if args.size == "both" else [SIZES[args.size]]
    for path in take(sizes, args.question, args.locale, args.out):
        print(path)


if __name__ == "__main__":
    main()
