"""Any model name resolves and says how: Ollama tags, HF ids with a quantisation, GGUF files, family shapes
scaled to a size the registry lacks, generic decoders; a name with neither a size nor a family asks back."""

import pytest

from tools.errors import UnknownNameError
from tools.model_match import match_model
from tools.model_names import split_name
from tools.models import registry
from tools.vram import VramRequest, estimate_vram


@pytest.mark.parametrize(
    ("typed", "name", "precision"),
    [
        ("llama3.1:70b-instruct-q4_K_M", "llama3.1-70b-instruct", "q4_k_m"),
        ("Qwen/Qwen2-72B-Instruct-AWQ", "Qwen2-72B-Instruct", "awq"),
        ("Qwen2.5-72B-Instruct-GPTQ-Int4", "Qwen2.5-72B-Instruct", "gptq"),
        ("Qwen2.5-72B-Instruct-GPTQ-Int8", "Qwen2.5-72B-Instruct", "int8_wo"),
        ("Meta-Llama-3.1-8B-Instruct-Q4_K_M-00001-of-00002.gguf", "Meta-Llama-3.1-8B-Instruct", "q4_k_m"),
        ("hf.co/bartowski/Llama-3.2-3B-Instruct-GGUF:Q8_0", "Llama-3.2-3B-Instruct", "q8_0"),
        ("unsloth/Llama-3.2-3B-bnb-4bit", "Llama-3.2-3B", "nf4"),
        ("mlx-community/Qwen2.5-7B-Instruct-4bit", "Qwen2.5-7B-Instruct", "int4"),
        ("Qwen2.5-7B-Instruct", "Qwen2.5-7B-Instruct", None),
    ],
)
def test_a_name_is_taken_apart_into_the_model_and_its_format(typed, name, precision):
    parts = split_name(typed)
    assert parts.name == name
    assert parts.precision == precision


def test_an_ollama_tag_without_a_format_is_the_default_build():
    parts = split_name("qwen2:7b")
    assert parts.ollama_default and parts.precision is None and "qwen2:7b" in parts.ollama_keys
    m = match_model("deepseek-r1:671b")
    assert m.arch.id == "deepseek-r1" and m.how == "ollama"
    assert m.precision == "q4_k_m" and m.precision_how == "ollama_default"


def test_registry_names_resolve_exactly_or_say_how_they_were_read():
    assert match_model("mixtral-8x7b").how == "registry"
    read = match_model("qwen 7b")
    assert read.how == "read_as" and read.name_notes()
    dated = match_model("Qwen3-30B-A3B-Instruct-2507")
    assert dated.arch.id == "qwen3-30b-a3b"


def test_a_size_the_registry_lacks_is_the_familys_shape_scaled_and_said():
    m = match_model("Qwen2.5-20B")
    assert m.how == "scaled" and m.base in {a.name for a in registry().values() if a.family == "qwen"}
    assert abs(m.arch.params / 1e9 - 20) < 0.01
    assert m.arch.num_key_value_heads == registry()["qwen2.5-14b"].num_key_value_heads  # the family's attention
    (line,) = m.name_notes()
    assert line.code == "model_scaled" and "Qwen2.5-20B" in line.text


def test_unknown_families_with_a_size_are_generic_decoders_dense_or_moe():
    dense = match_model("FooBar-13B-Ultra")
    assert dense.how == "generic" and abs(dense.arch.params / 1e9 - 13) < 0.01
    moe = match_model("Baz-30B-A3B")
    assert moe.how == "generic_moe" and moe.arch.moe is not None
    assert abs(moe.arch.params / 1e9 - 30) < 0.01 and 2 < moe.arch.active_params / 1e9 < 4.5
    layout = match_model("Bar-8x7B")
    assert layout.arch.moe.num_experts == 8 and 35 < layout.arch.params / 1e9 < 50  # 8x7B holds less than 56B


def test_nothing_computable_asks_back_with_close_matches():
    for vague in ("qwen", "llama"):
        with pytest.raises(UnknownNameError) as err:
            match_model(vague)
        assert err.value.suggestions


def test_the_tools_size_a_quantised_name_in_its_own_format_and_say_so():
    r = estimate_vram(VramRequest(model="Qwen2.5-72B-Instruct-AWQ", mode="inference", context_tokens=4096))
    assert r.precision == "awq"
    assert any(a.code == "precision_from_name" for a in r.assumptions)
    stated = estimate_vram(VramRequest(model="Qwen2.5-72B-Instruct-AWQ", precision="bf16", context_tokens=4096))
    assert stated.precision == "bf16"  # a format the request names wins over the name's
    lora = estimate_vram(VramRequest(model="Qwen2.5-7B-Instruct-AWQ", mode="lora", context_tokens=2048))
    assert lora.precision == "bf16"  # fine-tuning starts from 16-bit weights
    scaled = estimate_vram(VramRequest(model="Qwen2.5-20B", context_tokens=4096))
    assert any(a.code == "model_scaled" for a in scaled.assumptions)
