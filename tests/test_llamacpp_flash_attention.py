"""llama.cpp's -fa is its own FlashAttention kernels: it runs on cards FlashAttention-2 (Ampere+) does not."""

from __future__ import annotations

import pytest

from tools.support import SupportRequest, check_support


@pytest.mark.parametrize("gpu", ["V100", "P40", "T4", "RTX 4060"])
def test_llamacpp_fa_runs_on_old_nvidia(gpu: str) -> None:
    r = check_support(SupportRequest(engine="llamacpp_flash_attention", gpu=gpu))
    assert r.verdict == "yes"
    assert any("FlashAttention-2" in n.text for n in r.why)  # says which FlashAttention needs Ampere


def test_flash_attention_2_still_needs_ampere() -> None:
    assert check_support(SupportRequest(engine="flash-attn", gpu="V100")).verdict == "no"
    assert check_support(SupportRequest(engine="llamacpp_flash_attention", gpu="K80")).verdict == "no"  # Kepler
