"""Registry round 6 (issue 19): families people ask about (MOSS, RWKV, Tongyi DeepResearch), a recurrent model's
fixed state instead of a KV cache, a name with no size read as its Ollama library's default tag, Chinese names of
publishers (书生, 零一万物, 月之暗面)."""

from __future__ import annotations

import uuid

import pytest

from assistant.events import FinalEvent
from assistant.understanding import parse
from tools.errors import UnknownNameError
from tools.model_match import default_tag_note, library_default, match_model
from tools.models import registry
from tools.vram import VramRequest, estimate_vram


def _ask(advisor, text: str) -> FinalEvent:
    final = advisor.ask(f"t-{uuid.uuid4().hex[:8]}", text)
    assert isinstance(final, FinalEvent)
    return final


@pytest.mark.parametrize(
    ("typed", "model_id"),
    [
        ("moss-moon-003-sft", "moss-moon-003-16b"),
        ("fnlp/moss-moon-003-sft", "moss-moon-003-16b"),
        ("MOSS 16B", "moss-moon-003-16b"),
        ("RWKV-7 7B", "rwkv7-7.2b"),
        ("rwkv7-g1-13.3b", "rwkv7-13.3b"),
        ("RWKV7-G1-1.5B", "rwkv7-1.5b"),
        ("Tongyi-DeepResearch-30B-A3B", "tongyi-deepresearch-30b-a3b"),
        ("alibaba/tongyi-deepresearch-30b-a3b", "tongyi-deepresearch-30b-a3b"),
        ("Tongyi DeepResearch 30B", "tongyi-deepresearch-30b-a3b"),
    ],
)
def test_new_families_resolve_by_their_names(typed: str, model_id: str) -> None:
    assert match_model(typed).arch.id == model_id


def test_rwkv_keeps_a_fixed_state_not_a_kv_cache() -> None:
    rwkv = registry()["rwkv7-7.2b"]
    # per layer: 64 heads x 64 x 64 WKV matrix + two token-shift vectors of 4096
    assert rwkv.state_values_per_sequence == 32 * (64 * 64 * 64 + 2 * 4096)
    assert rwkv.kv_values_per_token(4096) * 4096 == pytest.approx(rwkv.kv_values_per_token(131072) * 131072)
    short = estimate_vram(VramRequest(model="rwkv7-7.2b", mode="inference", context_tokens=4096))
    long = estimate_vram(VramRequest(model="rwkv7-7.2b", mode="inference", context_tokens=131072))
    assert short.breakdown_gib["kv_cache"] == pytest.approx(long.breakdown_gib["kv_cache"])
    assert short.breakdown_gib["kv_cache"] == pytest.approx(32 * (64**3 + 8192) * 4 / 2**30, rel=1e-3)  # fp32
    assert any(n.code == "vram_state" for n in short.assumptions)
    assert registry()["llama-3-8b"].state_values_per_sequence == 0  # a transformer has none


@pytest.mark.parametrize("typed", ["RWKV-7 3B", "RWKV-6 Finch 14B", "RWKV-5 Eagle 7B"])
def test_an_rwkv_size_the_registry_lacks_is_scaled_and_stays_recurrent(typed: str) -> None:
    m = match_model(typed)
    assert m.how == "scaled" and m.arch.attention_free and m.arch.family == "rwkv"


@pytest.mark.parametrize(
    ("typed", "model_id", "tag"),
    [
        ("mistral", "mistral-7b-v0.3", "mistral:latest"),
        ("llama3", "llama-3-8b", "llama3:latest"),
        ("Llama 3.1", "llama-3.1-8b", "llama3.1:latest"),
        ("qwen2.5", "qwen2.5-7b", "qwen2.5:latest"),
        ("gemma2", "gemma-2-9b", "gemma2:latest"),
        ("phi3", "phi-3-mini", "phi3:latest"),
        ("qwen3", "qwen3-8b", "qwen3:latest"),
    ],
)
def test_a_name_with_no_size_is_its_ollama_default(typed: str, model_id: str, tag: str) -> None:
    m = match_model(typed)
    assert m.arch.id == model_id and m.library_default
    said = default_tag_note(typed, model_id)
    assert said is not None and said.params["tag"] == tag


@pytest.mark.parametrize(("typed", "model_id"), [("deepseek-r1", "deepseek-r1"), ("phi4", "phi-4"), ("qwq", "qwq-32b")])
def test_a_name_the_registry_holds_as_one_model_is_that_model(typed: str, model_id: str) -> None:
    m = match_model(typed)
    assert m.arch.id == model_id and not m.library_default
    assert default_tag_note(typed, model_id) is None


@pytest.mark.parametrize("typed", ["qwen", "gemma", "llama", "deepseek"])
def test_a_family_word_still_asks_which_one(typed: str) -> None:
    assert library_default(typed) is None
    with pytest.raises(UnknownNameError):
        match_model(typed)


@pytest.mark.parametrize(
    ("text", "model_id", "precision"),
    [
        ("ollama run mistral on 8GB GPU?", "mistral-7b-v0.3", "q4_k_m"),
        ("ollama run deepseek-r1 on my 4060", "deepseek-r1-0528-qwen3-8b", "q4_k_m"),
        ("ollama pull llama3.2 能在 MacBook Air M2 上跑吗", "llama-3.2-3b", "q4_k_m"),
        ("deepseek-r1 要多少显存", "deepseek-r1", None),
        ("qwen2.5 的 7B、14B、72B 分别要多少显存", "qwen2.5-7b", None),
        ("Qwen3 ... the 14B on a 4090", "qwen3-14b", None),
    ],
)
def test_parser_reads_an_ollama_command_as_its_default_tag(text: str, model_id: str, precision: str | None) -> None:
    q = parse(text)
    assert q.model == model_id and q.precision == precision


@pytest.mark.parametrize("text", ["llama3 要多少显存", "gemma2 on a 12GB card?", "What is GQA in Llama-3 models?"])
def test_a_bare_library_name_is_left_to_the_planner(text: str) -> None:
    q = parse(text)  # sized by the planner when the question sizes or prices it, else a family (a concept question)
    assert q.model is None and q.unknown_model and q.model_family


@pytest.mark.parametrize(
    ("text", "model_id"),
    [
        ("mistral on 8GB GPU?", "mistral-7b-v0.3"),
        ("gemma2 能在 3060 上跑吗", "gemma-2-9b"),
        ("phi3 需要多少显存", "phi-3-mini"),
    ],
)
def test_the_planner_sizes_a_bare_library_name_as_its_default(advisor, text: str, model_id: str) -> None:
    final = _ask(advisor, text)
    assert final.tool_calls and all(c.args.get("model") == model_id for c in final.tool_calls if "model" in c.args)


def test_a_concept_question_about_a_series_sizes_nothing(advisor) -> None:
    final = _ask(advisor, "What is GQA and why does it make Llama-3 models need less KV cache memory?")
    assert not [c for c in final.tool_calls if c.name == "estimate_vram"]


def test_sizes_named_with_a_series_are_still_each_answered() -> None:
    mentioned = parse("qwen2.5 的 7B、14B、72B 分别要多少显存").models_mentioned
    assert mentioned == ["qwen2.5-7b", "qwen2.5-14b", "qwen2.5-72b"]


@pytest.mark.parametrize(
    ("text", "model_id"),
    [
        ("书生 7B 要多少显存", "internlm2.5-7b"),
        ("书生·浦语2.5 7B 要多少显存", "internlm2.5-7b"),
        ("零一万物 34B 显存", "yi-34b"),
        ("月之暗面 K2 要多少显存", "kimi-k2"),
        ("通义DeepResearch 30B 要几张4090", "tongyi-deepresearch-30b-a3b"),
        ("tongyi-deepresearch on a 4090", "tongyi-deepresearch-30b-a3b"),
        ("混元 A13B 要多少显存", "hunyuan-a13b"),
        ("RWKV-7 7B 推理要多少显存", "rwkv7-7.2b"),
        ("can I run moss-moon-003-sft on a 3090", "moss-moon-003-16b"),
    ],
)
def test_chinese_and_new_names_in_questions(text: str, model_id: str) -> None:
    assert parse(text).model == model_id


def test_scholar_alone_is_a_word() -> None:
    assert parse("i am a 书生, which GPU?").model is None


@pytest.mark.parametrize(
    ("text", "said"),
    [
        ("ollama run mistral on 8GB GPU?", "mistral:latest"),
        ("llama3 要多少显存", "llama3:latest"),
        ("ollama run deepseek-r1 能在 4060 上跑吗", "deepseek-r1:latest"),
    ],
)
def test_the_answer_says_which_model_a_bare_name_was_read_as(advisor, text: str, said: str) -> None:
    answer = _ask(advisor, text).answer
    assert said in answer


def test_rwkv_answer_says_there_is_no_kv_cache(advisor) -> None:
    answer = _ask(advisor, "RWKV-7 7B 推理要多少显存").answer
    assert "RWKV7-G1-7.2B" in answer and "没有 KV 缓存" in answer


@pytest.mark.parametrize(
    ("text", "said", "model_id"),
    [
        ("文心一言 能本地部署吗", "权重没有公开", "ernie-4.5-21b-a3b"),
        ("Can I run ERNIE Bot locally on a 4090?", "weights are not published", "ernie-4.5-21b-a3b"),
        ("豆包大模型要多少显存", "权重没有公开", "seed-oss-36b"),
    ],
)
def test_a_closed_service_is_said_to_be_one_and_its_open_models_sized(advisor, text, said, model_id) -> None:
    final = _ask(advisor, text)
    assert said in final.answer
    assert any(c.args.get("model") == model_id for c in final.tool_calls)


def test_open_ernie_is_still_the_open_model() -> None:
    assert parse("文心 4.5 300B 要多少显存").model == "ernie-4.5-300b-a47b"


@pytest.mark.parametrize(
    ("text", "family"),
    [
        ("[Alibaba-NLP/DeepResearch] 后面会不会上官方api啊，自己部署成本有点高", "series:tongyideepresearch"),
        ("[QwenLM/Qwen] 2080Ti 能跑吗", "series:qwen1"),
    ],
)
def test_a_repository_names_its_model_when_the_message_names_none(text: str, family: str) -> None:
    assert parse(text).model_family == family


def test_minimind_counts() -> None:
    assert registry()["minimind2-small"].params == 25_829_888  # README: 25.8M
    assert match_model("MiniMind2-Small").arch.id == "minimind2-small"
