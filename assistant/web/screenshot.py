"""Take the README screenshots from the real app: `python -m assistant.web.screenshot [--size desktop|phone|both]
[--view answer|panel]`.

Starts the app on a free loopback port, asks a question in Debian's chromium (driven by Playwright, a
dev dependency) at a desktop size (docs/screenshot-desktop.png) and a phone's (390 × 844,
docs/screenshot-mobile.png), waits for the answer and saves each page as a PNG. `--view panel` asks for a
recommendation instead and frames the scenario panel, the what-if controls and the memory chart showing the
pick (docs/screenshot-panel-desktop.png, docs/screenshot-panel-mobile.png). The first run may spend a minute
ingesting the guides into the knowledge store.
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
PANEL_QUESTION = "预算 1.5 万，在家用一张卡微调 Qwen2.5-14B"  # issue 21: the panel must show the pick, QLoRA on a 3090
LOCALE = "zh-CN"


@dataclass(frozen=True)
class Size:
    name: str
    width: int
    height: int
    phone: bool = False

    def out(self, view: str = "answer") -> Path:
        return Path("docs") / f"screenshot-{'' if view == 'answer' else view + '-'}{self.name}.png"


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


# The panel's column: from the "Scenario" heading above the panel to the chart's legend, in page coordinates.
PANEL_BOX = """() => {
  const top = document.querySelector('#scenario').getBoundingClientRect();
  const legend = document.querySelector('#chart-memory-legend').getBoundingClientRect();
  return {top: top.top + scrollY, bottom: legend.bottom + scrollY};
}"""


def _panel(page: Any, size: Size) -> dict[str, float] | None:
    """The scenario panel, the what-if controls and the memory chart after the answer, drawn in full: on a desktop
    beside the chat (the page from its top), on a phone below it (the panel's own stretch of the page). Returns
    the clip for the screenshot."""
    from playwright.sync_api import expect

    closed = page.locator("#scenario").locator(
        "xpath=ancestor::*[contains(@class,'accordion')]//button[@aria-expanded='false']"
    )
    if closed.count():  # a panel folded on a narrow screen opens first
        closed.first.click()
    expect(page.locator("#chart-memory-legend .legend-item").first).to_be_visible(timeout=60_000)
    page.wait_for_function("document.querySelectorAll('#chart-memory svg .role-axis-label text').length >= 2")
    page.mouse.move(0, 0)
    for _ in range(2):  # the chat scrolls itself down as the last updates land: the answer's lead back in view
        page.wait_for_timeout(800)
        page.evaluate(ANSWER_TO_TOP)
    page.evaluate("window.scrollTo(0, 0)")
    page.wait_for_timeout(300)
    box = page.evaluate(PANEL_BOX)
    if not size.phone:  # the chat and its panel side by side, down to the chart's legend
        return {"x": 0, "y": 0, "width": size.width, "height": max(size.height, box["bottom"] + 24)}
    top = max(0.0, box["top"] - 52)  # the panel's heading sits above the scenario list
    return {"x": 0, "y": top, "width": size.width, "height": box["bottom"] + 16 - top}


def take(
    sizes: list[Size], question: str = QUESTION, locale: str = LOCALE, out: Path | None = None, view: str = "answer"
) -> list[Path]:
    """Serve the app, ask `question` at each size, save a screenshot of each page (to `out` if one size); `view`
    "panel": the scenario panel and the memory chart after the answer rather than the answer itself."""
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
            path = out if out is not None and len(sizes) == 1 else size.out(view)
            path.parent.mkdir(parents=True, exist_ok=True)
            if view == "panel":
                page.screenshot(path=str(path), full_page=True, clip=_panel(page, size))
            else:
                _frame(page, size)
                page.screenshot(path=str(path))
            saved.append(path)
            context.close()
        browser.close()
    return saved


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size", choices=[*SIZES, "both"], default="both")
    parser.add_argument("--out", type=Path, help="where to save (one size only); default docs/screenshot-SIZE.png")
    parser.add_argument("--question", help=f"default: {QUESTION} (answer), {PANEL_QUESTION} (panel)")
    parser.add_argument("--locale", default=LOCALE, help="browser locale: zh-CN or en-US (interface language)")
    parser.add_argument("--view", choices=["answer", "panel"], default="answer", help="what the screenshot frames")
    args = parser.parse_args()
    sizes = list(SIZES.values()) if args.size == "both" else [SIZES[args.size]]
    question = args.question or (PANEL_QUESTION if args.view == "panel" else QUESTION)
    for path in take(sizes, question, args.locale, args.out, args.view):
        print(path)


if __name__ == "__main__":
    main()
