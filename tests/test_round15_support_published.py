"""Round 15 (issue 20, item 1): "will X run on Y" agrees with the published support tables.

knowledge/data/support_published.yaml transcribes NVIDIA's CUDA GPUs list, the vLLM (CUDA and ROCm), FlashAttention-2
(CUDA and ROCm), TensorRT-LLM, bitsandbytes, ROCm, llama.cpp, MLX and TensorRT-RTX tables as their sources state them;
evals/support_audit.py compares check_support with them for every catalog GPU they speak about.
"""

from __future__ import annotations

import pytest

from evals.support_audit import Check, audit, expectations, published
from tools.support import SupportRequest, check_support


@pytest.fixture(scope="module")
def result():
    return audit()


def test_every_checked_catalog_gpu_agrees_with_the_published_tables(result) -> None:
    print(result.summary())
    assert not result.disagreements, "\n".join(map(str, result.disagreements))
    assert result.gpus >= 140 and len(result.checks) >= 1000  # the whole catalog the tables speak about


def test_catalog_compute_capability_matches_nvidias_list(result) -> None:
    assert len(result.cc) >= 80
    assert all(c.agrees for c in result.cc), [c for c in result.cc if not c.agrees]


def test_every_table_names_its_source_and_when_it_was_read() -> None:
    doc = published()
    for table in doc["tables"]:
        src = table["source"]
        assert src["url"].startswith("https://") and src["read"] and src["title"], table["id"]
        assert src.get("quote"), table["id"]
        assert table.get("gpus") or table.get("rules"), table["id"]


def test_every_written_exception_is_used(result) -> None:
    # a table's accept_caveat / accept_yes that no GPU needs any more is stale and must go
    used = {c.table for c in result.checks if c.exception}
    for table in published()["tables"]:
        entries = [*table.get("gpus", []), *table.get("rules", [])]
        if any("accept_caveat" in e or "accept_yes" in e for e in entries):
            assert table["id"] in used, table["id"]


def test_the_agreement_rule_can_fail() -> None:
    bad = Check("t", "vllm", None, "rtx-3090", "cc>=7.5", "yes", "no", None)
    assert not bad.agrees
    assert not Check("t", "vllm", None, "p40", "cc<7.0", "no", "caveat", None).agrees
    assert not Check("t", "rocm", None, "mi60", "not listed", "not_listed", "yes", None).agrees
    assert Check("t", "rocm", None, "x", "listed, limited", "limited", "caveat", None).agrees


def test_tables_speak_about_every_vendor() -> None:
    vendors = {gid.split("-")[0] for _, gid, *_ in expectations()}
    assert {"mi300x", "rtx", "apple", "arc"} <= vendors


def _v(engine: str, gpu: str, precision: str | None = None) -> str:
    return check_support(SupportRequest(engine=engine, gpu=gpu, precision=precision)).verdict


@pytest.mark.parametrize(
    ("engine", "gpu", "precision", "verdict"),
    [
        # FlashAttention README, ROCm CK back end: MI200/MI250/MI300/MI355 and RDNA 3/4; Triton back end: RDNA
        ("flash-attention-2", "RX 7900 XTX", None, "caveat"),  # RDNA 3: forward only, no backward pass yet
        ("flash attention 2", "Radeon PRO W7900", None, "caveat"),
        ("FlashAttention2", "MI210", None, "yes"),
        ("fa2", "RX 9070 XT", None, "yes"),
        ("flash-attn", "RX 6800 XT", None, "caveat"),
        ("flash-attention-2", "MI100", None, "no"),
        ("flash-attention-2", "MI60", None, "no"),
        # bitsandbytes v0.50.0: NF4 6.0+, LLM.int8() 7.5+
        ("bitsandbytes", "Tesla P40", "nf4", "yes"),
        ("bnb", "GTX 1080 Ti", "nf4", "yes"),
        ("bitsandbytes", "V100", "nf4", "yes"),
        ("bitsandbytes", "P100", "int8", "no"),
        ("bitsandbytes", "M40", "nf4", "no"),
    ],
)
def test_fixed_disagreements(engine: str, gpu: str, precision: str | None, verdict: str) -> None:
    assert _v(engine, gpu, precision) == verdict


def test_rdna2_flash_attention_names_the_triton_back_end_in_both_languages() -> None:
    r = check_support(SupportRequest(engine="flash-attention-2", gpu="RX 6900 XT"))
    assert r.why[0].code == "sup_fa2_rocm_triton"
    assert "FLASH_ATTENTION_TRITON_AMD_ENABLE" in r.why[0].render("en")
    zh = r.why[0].render("zh")
    assert "Triton 后端" in zh and "RDNA 2" in zh
