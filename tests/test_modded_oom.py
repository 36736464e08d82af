"""A memory-modified card that runs out of memory while the job fits ("魔改2080ti 22G 用到 12G 就爆显存", "my 48GB 4090
OOMs at 24GB"): the mod leads (a driver or BIOS mapping less memory, faulty added chips), with nvidia-smi's total and a
whole-memory test before the job's own settings (issue 19, wild set round 7)."""

from __future__ import annotations

import pytest
from asking import ask_checked, lead_of

from tools.diagnose import DiagnoseRequest, diagnose


def test_modded_card_oom_that_fits_leads_with_the_mod() -> None:
    r = diagnose(DiagnoseRequest(symptom="oom", model="qwen2.5-14b", gpu="rtx-2080-ti-22gb-mod", precision="int4"))
    assert r.fits and r.causes[0].id == "modded_memory"
    stock = diagnose(DiagnoseRequest(symptom="oom", model="qwen2.5-14b", gpu="rtx-2080-ti", precision="int4"))
    assert "modded_memory" not in {c.id for c in stock.causes}


@pytest.mark.parametrize(
    ("question", "words"),
    [
        ("魔改2080ti跑 moss-moon-003-sft-int4 显存不够", ["改过显存", "11 GB"]),
        ("2080ti 22g魔改 跑qwen2.5-14b int4 用到11G就爆显存", ["改过显存", "11 GB"]),
        ("my 48GB 4090 OOMs at 24GB when loading qwen 32b awq", ["memory-modified", "24 GB"]),
        ("modded 2080 Ti 22GB, CUDA out of memory with llama 3 8b fp16", ["memory-modified", "11 GB"]),
    ],
)
def test_modded_oom_answer(advisor, question: str, words: list[str]) -> None:
    final = ask_checked(advisor, question)
    lead = lead_of(final.answer)
    for word in words:
        assert word in lead, (word, final.answer)
    assert "nvidia-smi" in final.answer and "memtest_vulkan" in final.answer
