"""Weight formats: real bits per weight, checked against llama.cpp's measured GGUF files."""

import pytest

from tools.errors import AdvisorError
from tools.models import registry
from tools.precision import effective_bits, kv_bytes, resolve_precision, weight_bytes

# ggml-org/llama.cpp tools/quantize/README.md, Llama-3.1-8B (bits per weight of the whole file)
LLAMA31_8B_BPW = {
    "f16": 16.0005,
    "q8_0": 8.5008,
    "q6_k": 6.5633,
    "q5_k_m": 5.7036,
    "q4_k_m": 4.8944,
    "q4_k_s": 4.6672,
    "q3_k_s": 3.6429,
    "q2_k": 3.1593,
}


@pytest.mark.parametrize(("ftype", "bpw"), LLAMA31_8B_BPW.items())
def test_gguf_mixes_match_llama_cpp(ftype, bpw):
    arch = registry()["llama-3.1-8b"]
    assert effective_bits(arch, resolve_precision(ftype)) == pytest.approx(bpw, rel=0.01)


def test_qlora_bits():
    assert resolve_precision("nf4").bits == 4.5
    assert resolve_precision("NF4-DQ").bits == pytest.approx(4 + 8 / 64 + 32 / (64 * 256), abs=1e-3)


def test_gptq_group_size_changes_bits():
    assert resolve_precision("gptq").bits == pytest.approx(4 + 20 / 128)
    assert resolve_precision("gptq_g32").bits == pytest.approx(4 + 20 / 32)
    with pytest.raises(AdvisorError):
        resolve_precision("gptq_g7")


def test_quantized_checkpoints_keep_embeddings_16bit():
    arch = registry()["qwen2.5-0.5b"]  # tied 136M-parameter embedding is a quarter of the model
    groups = arch.param_groups()
    awq = weight_bytes(arch, resolve_precision("awq"))
    blocks = sum(n for g, n in groups.items() if g.startswith(("attn_", "ffn_")) and g != "attn_other")
    assert awq == pytest.approx(blocks * (4 + 20 / 128) / 8 + (arch.params - blocks) * 2)


def test_kv_dtypes():
    assert kv_bytes("FP16") == 2 and kv_bytes("fp8") == 1 and kv_bytes("q4") == 0.5625
    with pytest.raises(AdvisorError, match="unknown KV-cache dtype"):
        kv_bytes("fp7")


def test_unknown_precision_lists_choices():
    with pytest.raises(AdvisorError, match="q4_k_m"):
        resolve_precision("int3")
