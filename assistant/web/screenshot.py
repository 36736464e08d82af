"""Take the README screenshot from the real app: `python -m assistant.web.screenshot [--out docs/screenshot.png]`.

Starts the app on a free loopback port, asks a question in Debian's chromium (driven by Playwright, a
dev dependency), waits for the answer and saves a PNG. The first run may spend a minute ingesting the
guides into the knowledge store.
"""

from __future__ import annotations

import argparse
from pathlib import Path

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
QUESTION = "QLoRA fine-tune Qwen2.5-7B on an RTX 4090: how much VRAM?"


def take(out: Path, question: str = QUESTION, locale: str = "en-US", width: int = 1440, height: int = 1560) -> Path:
    """Serve the app, ask `question`, save a screenshot of the page to `out`."""
    from playwright.sync_api import expect, sync_playwright

    from assistant.settings import Settings
    from assistant.web import serve_local

    with serve_local(settings=Settings(provider="offline")) as url, sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        page = browser.new_page(viewport={"width": width, "height": height}, locale=locale)
        page.goto(url)
        box = page.locator("#chat-input textarea")
        box.fill(question)
        box.press("Enter")
        expect(page.locator("#turn-info")).to_contain_text("#1 ·", timeout=300_000)
        page.locator("#chatbot .thought-group .title").first.click()  # show one tool call opened
        page.wait_for_timeout(800)
        page.locator("#chatbot [role=log], #chatbot .bubble-wrap").first.evaluate("el => el.scrollTo(0, 0)")
        page.mouse.move(0, 0)
        page.wait_for_timeout(500)
        out.parent.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(out))
        browser.close()
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=Path("docs/screenshot.png"))
    parser.add_argument("--question", default=QUESTION)
    parser.add_argument("--locale", default="en-US", help="browser locale: en-US or zh-CN (interface language)")
    args = parser.parse_args()
    print(take(args.out, args.question, args.locale))


if __name__ == "__main__":
    main()
