"""A card named by its size (or a laptop GPU, read as one): the level that fits leads. A GGUF level the user named
that does not fit is answered no first, then the next level down; with no context stated, 4 bits at a 2k context
come before 3 bits at 4k (a 4-6 GB card)."""

import uuid

import pytest

from assistant.events import FinalEvent


def _ask(advisor, text: str) -> FinalEvent:
    final = advisor.ask(f"t-{uuid.uuid4().hex[:8]}", text)
    assert isinstance(final, FinalEvent)
    return final


def _lead(final: FinalEvent) -> str:
    return final.answer.split("\n")[0]


@pytest.mark.parametrize(
    ("text", "want"),
    [
        ("Is it possible to run the 14B model in a 12GB GPU with Q6?", ["Not at 6-bit", "5-bit"]),
        ("qwen2.5-14b 用 Q8 在 12G 显卡上能跑吗", ["8-bit", "放不下", "GGUF", "可以"]),
        ("Can I run llama 8B on my 6GB VRAM RTX 3060 laptop gpu?", ["4-bit", "2,048 tokens", "6 GB"]),
        ("phi3 on a 4GB card, which quant?", ["4-bit", "2,048 tokens"]),
        ("我的笔记本是3060，能跑 qwen2.5-7b 吗", ["4-bit", "6G"]),
    ],
)
def test_capacity_level_leads(advisor, text, want):
    lead = _lead(_ask(advisor, text))
    for part in want:
        assert part in lead, (text, lead)


def test_without_quantization_is_sized_unquantized(advisor):
    final = _ask(advisor, "Any chance to run 34b model on 3x4090 without 8bit quantization?")
    vram = [c for c in final.tool_calls if c.name == "estimate_vram"]
    assert vram and vram[0].args.get("precision") == "bf16"
    assert "does not fit" in _lead(final)
