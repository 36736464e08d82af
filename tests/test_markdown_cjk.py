"""Bold runs in Chinese answers render as bold in the terminal and the web app, never as literal stars
(assistant/markdown_cjk.py): CommonMark will not close "**…：**" when a CJK letter follows."""

import pytest
from markdown_it import MarkdownIt

from assistant.markdown_cjk import closable_bold
from assistant.strings import catalog

MD = MarkdownIt("commonmark")


def _html(text: str) -> str:
    return MD.render(text)


@pytest.mark.parametrize(
    ("text", "fixed"),
    [
        ("**按微调方式看：**全参微调每卡 224.7 GiB。", "**按微调方式看**：全参微调每卡 224.7 GiB。"),
        ("**结论：选 2 张 A800。**单人用够了", "**结论：选 2 张 A800**。单人用够了"),
        ("- **改为租用：** 1 张 RTX 3090", "- **改为租用：** 1 张 RTX 3090"),  # a space follows: already closes
        ("**Pick: 2 × RTX 4090.** Serving", "**Pick: 2 × RTX 4090.** Serving"),
    ],
)
def test_closable_bold(text: str, fixed: str) -> None:
    assert closable_bold(text) == fixed
    assert "**" not in _html(closable_bold(text))


def test_every_bold_lead_in_the_catalog_renders_bold() -> None:
    leads = [v["zh"] for v in catalog().values() if isinstance(v, dict) and "**" in str(v.get("zh", ""))]
    broken = [s for s in leads if "**" in _html(s)]
    assert len(broken) > 5  # the catalog writes them this way: the test would pass without the fix otherwise
    assert not [s for s in leads if "**" in _html(closable_bold(s))]
