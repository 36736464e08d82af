"""The language check, and every tool's rendered output in Chinese and English passing it."""

from __future__ import annotations

import re
import string
from collections.abc import Callable
from typing import Any

import pytest
from pydantic import BaseModel

from assistant.capabilities.compare import compare_lines
from assistant.capabilities.cost import tco_lines
from assistant.capabilities.fit import fit_lines
from assistant.capabilities.memory import memory_lines
from assistant.capabilities.recommend import recommend_lines
from assistant.capabilities.speed import speed_lines
from assistant.capabilities.workstation import build_lines
from assistant.language_check import check
from assistant.strings import Writer
from tools._data import load_yaml
from tools.compare import CompareRequest, compare_gpus
from tools.fit import FitRequest, fit_on_gpu
from tools.gpu_search import FindGpusRequest, GpuSpecsRequest, find_gpus, gpu_specs
from tools.notes import Note, codes
from tools.recommend import RecommendRequest, recommend_gpus
from tools.speed import SpeedRequest, estimate_speed
from tools.tco import TcoRequest, calculate_tco
from tools.vram import VramRequest, estimate_vram
from tools.workstation import WorkstationRequest, plan_workstation

LANGS = ("zh", "en")

# ---- the checker ---------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "text",
    [
        "PSU 1: 650 W for motherboard, CPU and 0 GPU(s)",
        "计算假设：\n- fits = estimated memory per GPU <= 90% of its memory",
        "注意：\n- NVIDIA H100 SXM5 80GB falls under US export controls: it cannot be bought new in China",
        "需要 20.8 of 24 GiB per GPU",
        "结论（fits on one card with room to spare）",  # a sentence in brackets is no term's gloss
        "- Mainstream desktop (AM5 / LGA1851)",
        "参考资料：\n[1] Cloud GPUs: choosing providers, pricing models and controlling cost (cloud-strategy-cost.en)",
    ],
)
def test_english_sentences_in_a_chinese_answer_are_found(text: str) -> None:
    assert check(text, "zh"), text


@pytest.mark.parametrize(
    "text",
    [
        "**结论：选 1 张 NVIDIA GeForce RTX 4090。**买卡最便宜：¥17,500。",
        "Qwen2.5-14B 用 4-bit（Q4_K_M，8k 上下文）需要 22.6 GiB，超过它可用的 21.6 GiB。",
        "显存带宽 1,008 GB/s，稠密 BF16 165.2 TFLOPS，PCIe 4.0 x16，约 55.9 tokens/s",
        "个人本地推理默认用 4-bit 量化（q4_k_m：llama.cpp/Ollama 用 GGUF，vLLM 用 AWQ）",
        "租用价格来自 AutoDL、RunPod、Lambda 和 Google Cloud；用 `nvidia-smi -pl 300` 限制功耗",
        "AMD Instinct MI300X 之间走 AMD Infinity Fabric；Apple M2 Ultra 用 Thunderbolt 或 Ethernet 组集群",
        "[1] 互联：PCIe、NVLink、NVSwitch、InfiniBand 与 P2P — 4090 能不能用 NVLink？ (interconnect.zh)",
        "配置写在 config.json 里，见 https://example.com/some/page 或 knowledge/data/notes.yaml",
        "ZeRO-3，DeepSpeed 和 FSDP 都行；micro-batch 1、batch 8 的 prefill 很快",
        "每张卡有**计算能力**（compute capability）：A100 8.0",  # a term's English name after it
    ],
)
def test_names_units_code_and_sources_in_a_chinese_answer_pass(text: str) -> None:
    assert not check(text, "zh"), check(text, "zh")


def test_a_name_does_not_hide_the_sentence_around_it() -> None:
    found = check("NVIDIA GeForce RTX 4090 has no NVLink at all", "zh")
    assert found and {"has", "no", "at", "all"} <= set(found[0].words)
    assert check("Qwen2.5-7B 的 weights are kept in bf16", "zh")  # a sentence after a Chinese word
    assert not check("Qwen2.5-7B 的权重为 bf16", "zh")


def test_chinese_in_an_english_answer_is_found_and_names_pass() -> None:
    assert check("Buy one RTX 4090 (约 ¥17,500) for this.", "en")
    assert check("The budget of 1.5 万 covers the cards.", "en")
    assert check("Fits，with room to spare.", "en")  # full-width punctuation
    assert not check("A 4090 48G (魔改4090) is an unofficial card: no warranty.", "en")
    assert not check("One NVIDIA GeForce RTX 4090 holds Qwen2.5-14B at Q4_K_M: 11.4 of 21.6 GiB.", "en")


# ---- the catalog ---------------------------------------------------------------------------------------


def _template_text(template: str) -> str:
    """A catalog sentence with its fields left out: what the language of the sentence itself is."""
    return "".join(literal for literal, *_ in string.Formatter().parse(template))


def test_every_note_has_both_languages_and_each_is_in_its_language() -> None:
    notes = load_yaml("notes.yaml")["notes"]
    for code, entry in notes.items():
        assert set(entry) >= {"en", "zh"}, code
        for lang in LANGS:
            assert not check(_template_text(entry[lang]), lang), (code, lang, check(_template_text(entry[lang]), lang))


def test_every_label_reads_in_chinese() -> None:
    labels = load_yaml("notes.yaml")["labels"]
    for section, names in labels.items():
        for key, entry in names.items():
            assert "zh" in entry, (section, key)
            assert not check(entry["zh"], "zh"), (section, key)


# ---- every tool, rendered -----------------------------------------------------------------------------

VRAM = [
    dict(model="llama3-70b", precision="awq", context_tokens=8192, batch=4, num_gpus=2),
    dict(model="qwen2.5-7b", mode="qlora"),
    dict(model="qwen2.5-14b", mode="lora", num_gpus=2, grad_checkpointing=True),
    dict(model="llama3-8b", mode="full", num_gpus=4, optimizer="adamw8bit", cpu_offload="optimizer"),
    dict(model="deepseek-v3", precision="fp8", num_gpus=8, context_tokens=200_000),
    dict(params_b=70),
    dict(model="llama3-70b", precision="q4_k_m", num_gpus=2, gpu="4090"),
    dict(model="llama3-8b", mode="full", fused_optimizer_step=True, zero_stage=1, chunked_cross_entropy=True),
    dict(model="mixtral-8x7b", num_gpus=16, tp=16),
    dict(model="llama3-70b", num_gpus=3, tp=3),
    dict(model="gemma-2-27b", context_tokens=16_000),
    dict(arch={"hidden_size": 4096, "num_hidden_layers": 32, "num_attention_heads": 32, "vocab_size": 32000}),
]
SPEED = [
    dict(model="qwen2.5-7b", gpu="4090"),
    dict(model="mixtral-8x7b", gpu="3090", num_gpus=2, precision="awq", batch=64),
    dict(model="llama3-70b", gpu="H100 SXM", num_gpus=4, mode="training", method="lora", training_tokens=1e8),
    dict(model="llama3-8b", gpu="V100", precision="fp8"),
    dict(model="qwen2.5-14b", gpu="4060 Ti", mode="training", method="qlora"),
    dict(model="llama3-70b", gpu="4090"),
    dict(model="llama3-8b", gpu="A100 80G", precision="nf4"),
    dict(model="llama3-70b", gpu="A100 80G", num_gpus=2, parallel="pipeline"),
    dict(model="llama3-8b", gpu="4090", num_gpus=2, mode="training", method="full"),
]
TCO = [
    dict(gpu="4090"),
    dict(gpu="H100 SXM", num_gpus=8, utilization=1.0),
    dict(gpu="A100 80G", utilization=0.14, currency="USD"),
    dict(gpu="3090", gpu_price=5000, horizon_years=2),
    dict(gpu="L40S", currency="USD", throughput_tokens_per_s=500),
]
FIT = [
    dict(model="llama3-70b", gpu="4090 48G"),
    dict(model="qwen2.5-14b", gpu="4090"),
    dict(model="llama3-70b", gpu="3060"),
    dict(model="qwen2.5-7b", gpu="M2 Ultra"),
    dict(model="deepseek-v3", gpu="H200", num_gpus=8),
]
BUILD = [
    dict(gpu="4090", num_gpus=4, use="training"),
    dict(gpu="3090", num_gpus=2),
    dict(gpu="3090", num_gpus=3),
    dict(gpu="RTX 6000 Ada", num_gpus=4),
    dict(gpu="H100 SXM", num_gpus=8),
    dict(gpu="GB200", num_gpus=16),
    dict(gpu="M2 Ultra", num_gpus=2),
    dict(gpu="4060 Ti", num_gpus=2),
    dict(gpu="L40S", num_gpus=8),
    dict(gpu="5090", num_gpus=2, legacy_psu=True, circuit="us_120v_15a"),
    dict(gpu="A6000", num_gpus=4, gpu_power_limit_w=250, budget_usd=20_000),
    dict(gpu="MI300X", num_gpus=4),
    dict(gpu="4090", num_gpus=16),
    dict(gpu="H200 NVL", num_gpus=3),
    dict(gpu="T4", num_gpus=1),
]
RECOMMEND = [
    dict(workload=VramRequest(model="qwen2.5-7b", mode="lora"), budget=15_000, currency="CNY"),
    dict(workload=VramRequest(model="llama3-70b"), currency="USD", users=50),
    dict(workload=VramRequest(model="qwen2.5-14b", mode="qlora"), budget=8000, currency="CNY", persona="individual"),
]
COMPARE = [
    dict(workload=VramRequest(params_b=13), gpus=["L40S", "A100 80G"], currency="CNY"),
    dict(gpus=["4090", "A100 80G"], currency="CNY"),
    dict(workload=VramRequest(model="qwen2.5-14b"), gpus=["3090", "4090"], currency="USD"),
]

# (tool, run, request model, the capability lines that print it, requests)
CASES: list[tuple[str, Callable[[Any], Any], type, Callable[[Writer, Any], None] | None, list[dict]]] = [
    ("estimate_vram", estimate_vram, VramRequest, memory_lines, VRAM),
    ("estimate_speed", estimate_speed, SpeedRequest, speed_lines, SPEED),
    ("calculate_tco", calculate_tco, TcoRequest, tco_lines, TCO),
    ("fit_on_gpu", fit_on_gpu, FitRequest, fit_lines, FIT),
    ("plan_workstation", plan_workstation, WorkstationRequest, build_lines, BUILD),
    ("recommend_gpus", recommend_gpus, RecommendRequest, recommend_lines, RECOMMEND),
    ("compare_gpus", compare_gpus, CompareRequest, compare_lines, COMPARE),
    ("find_gpus", find_gpus, FindGpusRequest, None, [dict(min_vram_gib=80, need_nvlink=True), dict(max_price=20_000)]),
    (
        "gpu_specs",
        gpu_specs,
        GpuSpecsRequest,
        None,
        [dict(names=["4090", "A100 80G", "MI300X", "Gaudi 3", "M2 Ultra"])],
    ),
]
RUNS = [(name, run, model, lines, req) for name, run, model, lines, reqs in CASES for req in reqs]


def _notes(obj: Any) -> list[Note]:
    """Every note in a result, nested ones included (a fit's memory estimate, a recommendation's options)."""
    if isinstance(obj, Note):
        return [obj]
    if isinstance(obj, list | tuple):
        return [n for x in obj for n in _notes(x)]
    if isinstance(obj, BaseModel):
        return [n for k in type(obj).model_fields for n in _notes(getattr(obj, k))]
    return []


def _id(run: tuple) -> str:
    return f"{run[0]}-{RUNS.index(run)}"


@pytest.mark.parametrize("run", RUNS, ids=[_id(r) for r in RUNS])
def test_every_note_a_tool_states_renders_in_both_languages(run: tuple) -> None:
    _, fn, model, _, req = run
    notes = _notes(fn(model(**req)))
    assert notes
    for n in notes:
        assert n.code in codes()
        for lang in LANGS:
            text = n.render(lang)
            assert not check(text, lang), (n.code, lang, text)
        assert n.text == n.render("en")


@pytest.mark.parametrize("run", [r for r in RUNS if r[3]], ids=[_id(r) for r in RUNS if r[3]])
@pytest.mark.parametrize("lang", LANGS)
def test_every_tool_answer_is_in_one_language(run: tuple, lang: str) -> None:
    """The planner's lines for each tool (verdict, option lines, plan, assumptions, warnings) in zh and en."""
    _, fn, model, lines, req = run
    w = Writer(lang)
    lines(w, fn(model(**req)))
    assert w.text()
    assert not check(w.text(), lang), [str(v) for v in check(w.text(), lang)]


def test_the_workstation_plan_reads_in_chinese() -> None:
    plan = plan_workstation(WorkstationRequest(gpu="4090", num_gpus=4, use="training"))
    w = Writer("zh")
    build_lines(w, plan)
    text = w.text()
    assert "电源 1：650 W，带主板、CPU 和 0 张卡" in text and "PSU 1" not in text
    assert "工作站平台" in text
    assert re.search(r"2,556 W", text)  # the numbers are the tool's, formatted the same


def test_the_unofficial_card_warning_reads_in_chinese() -> None:
    r = fit_on_gpu(FitRequest(model="llama3-70b", gpu="4090 48G"))
    zh = [n.render("zh") for n in r.warnings]
    assert any("魔改" in t and "保修" in t and "非官方" in t for t in zh), zh


def test_export_controls_warning_reads_in_chinese() -> None:
    r = calculate_tco(TcoRequest(gpu="H100 SXM", currency="CNY"))
    zh = [n.render("zh") for n in r.warnings]
    assert any("出口管制" in t for t in zh) and not any("export" in t for t in zh)
