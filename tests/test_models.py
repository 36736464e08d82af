"""Model registry: parameter counts from the architecture, name resolution, config.json parsing."""

import json

import pytest

from tools.errors import AdvisorError, UnknownNameError
from tools.models import from_hf_config, generic_arch, load_config_file, registry, resolve_model

REQUIRED_FAMILIES = [
    "llama-2",
    "llama-3-",
    "llama-3.1",
    "llama-3.2",
    "llama-3.3",
    "qwen2.5",
    "qwen3",
    "mistral",
    "mixtral",
    "deepseek-v3",
    "deepseek-r1",
    "r1-distill",
    "chatglm3",
    "glm-4",
    "yi-",
    "baichuan2",
    "gemma-2",
    "gemma-3",
    "phi-3",
    "phi-4",
    "internlm2.5",
]


def test_registry_covers_the_issue_list():
    ids = list(registry())
    assert len(ids) >= 30
    for family in REQUIRED_FAMILIES:
        assert any(family in i for i in ids), family
    assert "llama-3.1-405b" in ids and "qwen3-30b-a3b" in ids and "qwen3-235b-a22b" in ids


@pytest.mark.parametrize("arch", list(registry().values()), ids=lambda a: a.id)
def test_computed_params_match_official_within_1pct(arch):
    assert arch.sources, "every model cites its config"
    assert arch.official_params_b
    assert abs(arch.params / 1e9 - arch.official_params_b) / arch.official_params_b < 0.01
    if arch.official_active_params_b:
        assert abs(arch.active_params / 1e9 - arch.official_active_params_b) / arch.official_active_params_b < 0.03


def test_llama2_7b_count_by_hand():
    a = registry()["llama-2-7b"]
    per_layer = 4 * 4096 * 4096 + 3 * 4096 * 11008 + 2 * 4096
    assert a.params == 32 * per_layer + 2 * 32000 * 4096 + 4096  # untied embeddings + final norm


def test_moe_total_and_active():
    m = registry()["mixtral-8x7b"]
    experts = 32 * 8 * 3 * 4096 * 14336
    assert m.routed_expert_params == experts
    assert m.active_params == m.params - experts * 6 // 8


def test_kv_per_token_gqa_mha_mla():
    assert registry()["llama-2-7b"].kv_values_per_token(1) * 2 == 512 * 1024  # 2 x 32 x 32 x 128 x 2 B
    assert registry()["llama-3-8b"].kv_values_per_token(1) * 2 == 128 * 1024
    assert registry()["qwen2.5-7b"].kv_values_per_token(1) * 2 == 56 * 1024
    assert registry()["deepseek-v3"].kv_values_per_token(1) * 2 == 70_272  # (512 + 64) x 61 x 2 B


def test_sliding_window_caps_cache():
    m = registry()["mistral-7b-v0.1"]
    assert m.kv_values_per_token(4096) == m.kv_values_per_token(100)
    assert m.kv_values_per_token(16384) == pytest.approx(m.kv_values_per_token(100) / 4)
    g = registry()["gemma-2-9b"]  # half the layers global
    assert g.kv_values_per_token(1 << 20) == pytest.approx(g.kv_values_per_token(1) / 2, rel=0.01)


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("llama3-70b", "llama-3-70b"),
        ("Qwen/Qwen2.5-7B-Instruct", "qwen2.5-7b"),
        ("qwen 7b", "qwen2.5-7b"),
        ("LLAMA-3.1-8B", "llama-3.1-8b"),
        ("meta-llama/Llama-3.1-405B-Instruct", "llama-3.1-405b"),
        ("mixtral 8x7b", "mixtral-8x7b"),
        ("deepseek r1", "deepseek-r1"),
        ("chatglm3", "chatglm3-6b"),
        ("qwen3 30b", "qwen3-30b-a3b"),
    ],
)
def test_fuzzy_resolution(name, expected):
    assert resolve_model(name)[0].id == expected


def test_unknown_model_suggests_close_matches():
    with pytest.raises(UnknownNameError) as err:
        resolve_model("lama-3-70")
    assert err.value.suggestions
    assert "did you mean" in str(err.value)


def test_vague_name_is_not_guessed():
    with pytest.raises(UnknownNameError):
        resolve_model("qwen")


def _llama_cfg(**over):
    cfg = {
        "model_type": "llama",
        "hidden_size": 4096,
        "num_attention_heads": 32,
        "num_key_value_heads": 8,
        "num_hidden_layers": 32,
        "intermediate_size": 14336,
        "vocab_size": 128256,
        "tie_word_embeddings": False,
        "max_position_embeddings": 131072,
    }
    cfg.update(over)
    return cfg


def test_config_json_llama_matches_registry(tmp_path):
    path = tmp_path / "config.json"
    path.write_text(json.dumps(_llama_cfg()))
    arch = load_config_file(path)
    assert arch.params == registry()["llama-3.1-8b"].params


def test_config_json_chatglm_field_names():
    cfg = {
        "model_type": "chatglm",
        "hidden_size": 4096,
        "num_attention_heads": 32,
        "multi_query_group_num": 2,
        "multi_query_attention": True,
        "num_layers": 28,
        "ffn_hidden_size": 13696,
        "padded_vocab_size": 65024,
        "kv_channels": 128,
        "add_qkv_bias": True,
        "seq_length": 8192,
    }
    assert from_hf_config(cfg).params == registry()["chatglm3-6b"].params


def test_config_json_deepseek_mla_moe():
    cfg = {
        "model_type": "deepseek_v3",
        "hidden_size": 7168,
        "num_attention_heads": 128,
        "num_key_value_heads": 128,
        "num_hidden_layers": 61,
        "intermediate_size": 18432,
        "moe_intermediate_size": 2048,
        "vocab_size": 129280,
        "n_routed_experts": 256,
        "n_shared_experts": 1,
        "num_experts_per_tok": 8,
        "first_k_dense_replace": 3,
        "q_lora_rank": 1536,
        "kv_lora_rank": 512,
        "qk_rope_head_dim": 64,
        "qk_nope_head_dim": 128,
        "v_head_dim": 128,
    }
    arch = from_hf_config(cfg)
    assert arch.params == registry()["deepseek-v3"].params
    assert arch.kv_values_per_token(1) == 61 * 576


def test_config_file_errors_are_readable(tmp_path):
    with pytest.raises(AdvisorError, match="does not exist"):
        load_config_file(tmp_path / "missing.json")
    bad = tmp_path / "bad.json"
    bad.write_text("{not json")
    with pytest.raises(AdvisorError, match="not valid JSON"):
        load_config_file(bad)
    bad.write_text(json.dumps({"model_type": "bert"}))
    with pytest.raises(AdvisorError, match="required field"):
        load_config_file(bad)


@pytest.mark.parametrize("size", [0.5, 1, 3, 7, 13, 34, 70, 180, 405])
def test_generic_arch_hits_the_size(size):
    arch = generic_arch(size)
    assert arch.params / 1e9 == pytest.approx(size, rel=1e-6)
    assert arch.num_attention_heads % arch.num_key_value_heads == 0
    assert arch.generic


def test_generic_arch_rejects_nonsense():
    with pytest.raises(AdvisorError):
        generic_arch(float("nan"))
    with pytest.raises(AdvisorError):
        generic_arch(-1)


def test_param_counts_are_remembered_but_never_stale():
    from tools.models import resolve_model

    arch = resolve_model("qwen2.5-7b")[0]
    base = arch.params
    assert arch.param_groups() is not arch.param_groups()  # callers get their own copy to change
    deeper = arch.model_copy(update={"num_layers": arch.num_layers * 2})
    assert deeper.params > base and arch.params == base
    wider = arch.model_copy()
    wider.hidden_size = arch.hidden_size * 2
    assert wider.params > base and arch.params == base
    assert len(wider.linears()) == len(arch.linears())


def test_the_fast_yaml_loader_reads_every_data_file_like_the_python_one():
    import yaml

    from tools._data import DATA_DIR, SafeLoader

    for path in sorted(DATA_DIR.glob("*.yaml")):
        text = path.read_text(encoding="utf-8")
        assert yaml.load(text, Loader=SafeLoader) == yaml.safe_load(text), path.name


def test_a_parsed_copy_is_reused_until_the_file_changes_and_a_broken_cache_only_costs_speed(tmp_path, monkeypatch):
    import yaml

    from tools import _data

    monkeypatch.setenv("GPU_ADVISOR_CACHE_DIR", str(tmp_path / "cache"))
    path = tmp_path / "prices.yaml"
    path.write_text("rtx-4090: {usd: 1599, as_of: 2026-11-01}\n", encoding="utf-8")
    first = _data.read_yaml(path)
    assert first == yaml.safe_load(path.read_text()) and len(list((tmp_path / "cache" / "yaml").iterdir())) == 1
    assert _data.read_yaml(path) == first  # from the copy
    path.write_text("rtx-4090: {usd: 1999, as_of: 2026-11-01}\n", encoding="utf-8")  # same size, same second
    assert _data.read_yaml(path)["rtx-4090"]["usd"] == 1999
    assert len(list((tmp_path / "cache" / "yaml").iterdir())) == 1  # the old copy went
    for copy in (tmp_path / "cache" / "yaml").iterdir():
        copy.write_bytes(b"\x80\x05torn")
    assert _data.read_yaml(path)["rtx-4090"]["usd"] == 1999
    monkeypatch.setenv("GPU_ADVISOR_CACHE_DIR", str(path))  # a file where the folder should be: nothing cached
    assert _data.read_yaml(path)["rtx-4090"]["usd"] == 1999
