"""Round 9 kinds (fit / troubleshooting / fine-tuning): a run from scratch too big for one card is answered with
what shrinks it (GaLore, an 8-bit optimizer, offload, a smaller model), never with LoRA; an OOM said with "go out
of VRAM" is diagnosed on the user's card. Questions as people write them, both languages."""

from __future__ import annotations

import uuid


def _ask(advisor, question: str):
    return advisor.ask(f"t-{uuid.uuid4().hex[:8]}", question)


def test_pretraining_too_big_for_one_card_names_the_ways_that_shrink_it(advisor):
    for question in (
        "is it possible to train something like a 7b model from scratch on a single 24GB GPU?",
        "can I pretrain a 7B llama from scratch on my RTX 4090?",
    ):
        final = _ask(advisor, question)
        head = "\n".join(final.answer.split("\n")[:4])
        assert "GaLore" in head and "AdamW8bit" in head, final.answer[:600]
        assert "with LoRA" not in final.answer and "Yes" not in head


def test_pretraining_too_big_in_chinese_names_the_ways_too(advisor):
    for question in ("24G显存的单卡能从零预训练一个7B模型吗", "我有一张3090，想从头训练一个3B的模型，显存够吗"):
        final = _ask(advisor, question)
        head = "\n".join(final.answer.split("\n")[:4])
        assert "放不下" in head and "GaLore" in head and "8-bit" in head, final.answer[:600]
        assert "LoRA 就行" not in final.answer


def test_a_fine_tune_that_fits_says_nothing_about_pretraining(advisor):
    final = _ask(advisor, "can I LoRA fine-tune llama 3.1 8b on my 4090?")
    assert "GaLore" not in final.answer


def test_out_of_vram_with_a_4bit_load_is_diagnosed_on_the_owned_card(advisor):
    final = _ask(
        advisor,
        "Mixtral8x7 on A6000 48GB: loaded with --load_4bit=True, about 30GB VRAM. Loading a spreadsheet the GPU go out "
        "of VRAM, testing on an A100 goes up to 78GB usage.",
    )
    diagnose = [e for e in final.tool_calls if e.name == "diagnose"] if hasattr(final, "tool_calls") else []
    assert "RTX A6000" in final.answer.split("\n")[0]
    if diagnose:
        assert diagnose[0].args.get("precision") == "nf4"
