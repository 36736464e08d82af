"""check_support: will engine / kernel / feature X run on GPU Y — the table, the tool, the parser and the answer.

Every expected verdict below is written from the sourced facts in knowledge/data/support.yaml (the sources are
named in the comments), not copied from the tool's output.
"""

from __future__ import annotations

import pytest
from asking import planned_turn

from assistant.capabilities.support import support_lines
from assistant.language_check import check
from assistant.scenario import Scenario
from assistant.strings import Writer
from assistant.toolset import ToolName
from assistant.understanding import parse
from tools.errors import UnknownNameError
from tools.notes import codes
from tools.support import SupportRequest, SupportResult, check_support, resolve_subject, subjects, table

LANGS = ("zh", "en")


def support(engine: str, gpu: str, precision: str | None = None) -> SupportResult:
    return check_support(SupportRequest(engine=engine, gpu=gpu, precision=precision))


def codes_of(notes) -> list[str]:
    return [n.code for n in notes]


# ---- the table ------------------------------------------------------------------------------------------


def _rules(subject: dict) -> list[dict]:
    out = list(subject["rules"])
    for entry in subject.get("precisions", {}).values():
        if isinstance(entry, list):
            out += entry
    return out


def test_the_table_is_dated_and_every_rule_cites_sources_that_exist() -> None:
    t = table()
    assert t["schema_version"] == 1 and str(t["as_of"])
    for sid, source in t["sources"].items():
        assert source["url"] and str(source["date"]) and source["title"], sid
    for sid, subject in subjects().items():
        assert subject["rules"], sid
        for rule in _rules(subject):
            assert rule["verdict"] in ("yes", "no", "caveat"), (sid, rule)
            assert rule["sources"] and set(rule["sources"]) <= set(t["sources"]), (sid, rule)
            assert rule["why"], (sid, rule)
            refs = [*rule.get("why", []), *rule.get("instead", []), *rule.get("warnings", [])]
            for ref in refs:
                assert (ref if isinstance(ref, str) else ref["code"]) in codes(), (sid, ref)
    for row in t["targets"]:
        assert row["sources"] and set(row["sources"]) <= set(t["sources"]), row["id"]


@pytest.mark.parametrize(
    ("typed", "sid"),
    [
        ("vLLM", "vllm"),
        ("llama.cpp", "llama_cpp"),
        ("FlashAttention-2", "flash_attention_2"),
        ("flash-attn", "flash_attention_2"),
        ("FA3", "flash_attention_3"),
        ("bnb", "bitsandbytes"),
        ("TensorRT-LLM", "tensorrt_llm"),
        ("exllama", "exllamav2"),
        ("bfloat16", "bf16"),
        ("PyTorch", "transformers"),
    ],
)
def test_names_resolve_fuzzily(typed: str, sid: str) -> None:
    assert resolve_subject(typed) == sid


def test_an_unknown_engine_names_the_close_ones() -> None:
    with pytest.raises(UnknownNameError) as err:
        resolve_subject("vlm")
    assert "vLLM" in str(err.value)


# ---- engines --------------------------------------------------------------------------------------------


def test_vllm_does_not_run_on_pascal_and_llama_cpp_is_the_way() -> None:
    # vLLM docs: compute capability 7.5 or higher; official wheels never had Pascal (issue #963)
    for gpu, cc in (("P40", "6.1"), ("P100", "6.0")):
        r = support("vllm", gpu)
        assert (r.verdict, r.compute_capability) == ("no", cc)
        assert "sup_use_llamacpp_gguf" in codes_of(r.instead)
        assert any(s.id == "vllm_gpu_docs" for s in r.sources)


def test_vllm_on_volta_is_a_caveat_older_releases_only() -> None:
    # current docs 7.5+; docs up to v0.14 said 7.0; default wheels CUDA 13.0 since PR #39878 (2026-04)
    r = support("vllm", "V100")
    assert r.verdict == "caveat" and r.compute_capability == "7.0"
    assert {"sup_use_older_vllm", "sup_use_llamacpp_gguf"} <= set(codes_of(r.instead))


def test_awq_in_vllm_on_t4_runs_without_marlin_and_not_on_volta() -> None:
    # vLLM quantization table: AWQ from Turing, Marlin from Ampere; no BF16 below 8.0
    r = support("vllm", "T4", "awq")
    assert r.verdict == "yes" and r.precision == "AWQ"
    assert {"sup_awq_turing", "sup_fp16_below_80"} <= set(codes_of(r.why))
    assert support("vllm", "A100", "awq").why[-1].code == "sup_marlin_fast"
    assert support("vllm", "V100", "awq").verdict == "no"


def test_fp8_checkpoints_in_vllm_on_ampere_load_weight_only() -> None:
    # vLLM FP8 docs: FP8 compute from 8.9; weight-only W8A16 (FP8 Marlin) below that
    r = support("vllm", "3090", "fp8")
    assert r.verdict == "caveat" and r.why[0].code == "sup_fp8_no_hw"
    assert "sup_fp8_weight_only" in codes_of(r.why)
    assert support("vllm", "4090", "fp8").verdict == "yes"


def test_gguf_in_vllm_is_a_caveat() -> None:
    # vLLM GGUF docs: highly experimental and under-optimized
    r = support("vllm", "A100", "q4_k_m")
    assert r.verdict == "caveat" and r.precision == "GGUF"


@pytest.mark.parametrize(
    ("engine", "gpu", "verdict"),
    [
        ("vllm", "RX 7900 XTX", "yes"),  # vLLM ROCm targets include gfx1100
        ("vllm", "MI50", "no"),  # gfx906 is not in vLLM's ROCm list
        ("vllm", "MI300X", "yes"),
        ("vllm", "M2 Max", "caveat"),  # only the community vLLM-Metal plugin
        ("sglang", "V100", "no"),  # "SGLang only supports sm75 and above."
        ("sglang", "T4", "yes"),
        ("tensorrt_llm", "T4", "no"),  # support matrix: Ampere, Ada, Hopper, Blackwell
        ("tensorrt_llm", "A100", "yes"),
        ("tensorrt_llm", "MI300X", "no"),
        ("llama.cpp", "P40", "yes"),  # CUDA 12 builds still cover 5.0-7.0
        ("llama.cpp", "K80", "no"),  # below 5.0
        ("llama.cpp", "MI50", "yes"),  # Vulkan
        ("llama.cpp", "M2 Ultra", "yes"),  # Metal
        ("ollama", "M40", "yes"),  # Ollama: compute capability 5.0+
        ("ollama", "M60", "yes"),  # Tesla M60 (5.2) is in Ollama's own table
        ("ollama", "K80", "no"),
        ("ollama", "RX 7900 XTX", "yes"),
        ("exllamav2", "P40", "caveat"),  # FP16 on GP102 is very slow (maintainer)
        ("exllamav2", "P100", "yes"),
        ("exllamav3", "3090", "yes"),
        ("exllamav3", "T4", "no"),  # kernels need sm_80
        ("bitsandbytes", "P40", "caveat"),  # NF4 from 6.0, LLM.int8 from 7.5
        ("bitsandbytes", "M40", "no"),  # Maxwell dropped in v0.49.0
        ("bitsandbytes", "3090", "yes"),
        ("transformers", "P40", "caveat"),  # only the CUDA 12.6 wheel still builds sm_60
        ("transformers", "V100", "caveat"),  # Volta out of CUDA 12.8+ wheels in 2.11
        ("transformers", "4090", "yes"),
        ("unsloth", "V100", "yes"),  # CUDA capability 7.0+
        ("unsloth", "1080 Ti", "caveat"),  # GTX 1070/1080 work, slowly
        ("mlx", "M2 Max", "yes"),
        ("mlx", "M2 Pro", "yes"),  # any Apple M-chip, catalog or not
        ("mlx", "4090", "caveat"),  # the CUDA back-end on Linux
        ("mlx", "MI50", "no"),
        ("xformers", "P100", "yes"),  # CUTLASS kernels from sm_60
    ],
)
def test_engine_verdicts(engine: str, gpu: str, verdict: str) -> None:
    assert support(engine, gpu).verdict == verdict


def test_mi50_with_ollama_points_to_vulkan() -> None:
    # Ollama issue #11569: gfx906 "amdgpu is not supported"; Ollama docs: Vulkan covers more AMD cards
    r = support("ollama", "MI50")
    assert (r.verdict, r.gfx_target) == ("caveat", "gfx906")
    assert r.why[0].code == "sup_ollama_gfx906"
    assert "sup_use_ollama_vulkan" in codes_of(r.instead)


def test_old_cards_carry_the_driver_warning() -> None:
    # NVIDIA: the 580 driver branch is the last for Maxwell, Pascal and Volta; Ollama: driver 570+ for 5.0-6.2
    r = support("ollama", "M40")
    assert "sup_ollama_old_driver" in codes_of(r.why)
    assert "sup_driver_r580" in codes_of(r.warnings)
    assert not support("ollama", "4090").warnings


def test_bitsandbytes_8bit_loading_needs_turing() -> None:
    assert support("bitsandbytes", "P40", "int8").verdict == "no"
    # NF4 needs 6.0 (bitsandbytes v0.50.0 table): yes on Pascal; the library's LLM.int8() note still follows
    r = support("bitsandbytes", "P40", "nf4")
    assert r.verdict == "yes" and "sup_bnb_pascal" in codes_of(r.why)
    assert support("bitsandbytes", "P40").verdict == "caveat"  # the library as a whole keeps its Pascal caveat
    assert support("bitsandbytes", "T4", "int8").verdict == "yes"


# ---- kernels and features -------------------------------------------------------------------------------


def test_flash_attention_2_on_volta_and_turing_points_to_sdpa() -> None:
    # FlashAttention README: FA2 supports Ampere, Ada, Hopper; Turing -> FA 1.x or flash-attention-turing
    v100 = support("flash-attention-2", "V100")
    assert v100.verdict == "no" and "sup_use_sdpa" in codes_of(v100.instead)
    t4 = support("flash-attention-2", "T4")
    assert t4.verdict == "no" and "sup_use_fa1_turing" in codes_of(t4.instead)
    assert support("flash-attention-2", "3090").verdict == "yes"
    assert support("flash-attention-2", "MI300X").verdict == "yes"  # ROCm build: MI200, MI300
    # the README's ROCm CK back end now lists RDNA 3/4 too (knowledge/data/support_published.yaml, 2026-12-05)
    assert support("flash-attention-2", "RX 7900 XTX").verdict == "caveat"  # RDNA 3: forward pass only
    assert support("flash-attention-2", "MI50").verdict == "no"


def test_flash_attention_3_is_hopper_only() -> None:
    assert support("fa3", "H100").verdict == "yes"
    assert support("fa3", "4090").verdict == "no"
    assert "sup_use_fa4" in codes_of(support("fa3", "B200").instead)


@pytest.mark.parametrize(
    ("feature", "gpu", "verdict"),
    [
        ("fp8", "3090", "no"),  # FP8 tensor cores from 8.9
        ("fp8", "4090", "yes"),
        ("fp8", "L4", "yes"),
        ("fp8", "H100", "yes"),
        ("fp8", "A100", "no"),
        ("fp8", "MI300X", "yes"),  # the catalog lists MI300X FP8 throughput
        ("bf16", "2080 Ti", "no"),  # BF16 from 8.0
        ("bf16", "T4", "no"),
        ("bf16", "3090", "yes"),
        ("bf16", "MI300X", "yes"),
        ("fp4", "H100", "no"),  # FP4 tensor cores from Blackwell
        ("fp4", "B200", "yes"),
        ("fp4", "5090", "yes"),
        ("marlin", "A100", "yes"),
        ("marlin", "V100", "no"),
    ],
)
def test_feature_verdicts(feature: str, gpu: str, verdict: str) -> None:
    assert support(feature, gpu).verdict == verdict


def test_fp8_on_a_3090_says_what_to_use_instead() -> None:
    r = support("fp8", "3090")
    assert r.why[0].code == "sup_fp8_no_hw" and r.why[0].params["target"] == "8.6"
    assert {"sup_fp8_weight_only", "sup_use_int8_w8a8"} <= set(codes_of(r.instead))


def test_bf16_on_turing_means_fp16() -> None:
    r = support("bf16", "2080 Ti")
    assert r.compute_capability == "7.5" and codes_of(r.instead) == ["sup_use_fp16"]


# ---- platforms ------------------------------------------------------------------------------------------


def test_rocm_official_list_override_and_dropped_targets() -> None:
    # ROCm system requirements (6.4.1): gfx1100 listed, gfx906 unsupported; gfx1031 not listed (override 10.3.0)
    assert support("rocm", "RX 7900 XTX").verdict == "yes"
    mi50 = support("rocm", "MI50")
    assert mi50.verdict == "no" and mi50.why[0].code == "sup_rocm_gfx906"
    rx6700 = support("rocm", "RX 6700 XT")
    assert (rx6700.verdict, rx6700.gfx_target) == ("caveat", "gfx1031")
    override = next(n for n in rx6700.instead if n.code == "sup_hsa_override")
    assert override.params["value"] == "10.3.0"
    assert "sup_override_unofficial" in codes_of(rx6700.warnings)
    assert support("rocm", "RX 6800 XT").verdict == "caveat"  # gfx1030 listed through the PRO W6800 / V620 only
    assert support("rocm", "4090").verdict == "no"


def test_cuda_toolkits_and_drivers_by_generation() -> None:
    # CUDA 13.0 drops offline compilation below 7.5; Kepler left after CUDA 11.x (driver 470)
    assert support("cuda", "4090").verdict == "yes"
    assert support("cuda", "P40").verdict == "caveat"
    assert support("cuda", "K80").verdict == "no"
    assert support("cuda", "MI50").verdict == "no"


# ---- how a GPU is named ----------------------------------------------------------------------------------


def test_targets_named_directly_families_and_cards_the_catalog_lacks() -> None:
    assert support("ollama", "gfx906").gfx_target == "gfx906"
    assert support("vllm", "sm_61").compute_capability == "6.1"
    family = support("vllm", "RTX 40 series")
    assert family.compute_capability == "8.9" and "sup_family" in codes_of(family.assumptions)
    assert support("ollama", "Tesla M60").compute_capability == "5.2"
    assert support("mlx", "M3 Pro").vendor == "apple"


def test_a_gpu_with_no_known_target_is_a_caveat_not_a_guess() -> None:
    from tools.support import Target, _verdict

    unknown = Target(name="NVIDIA Mystery", id=None, vendor="nvidia", arch=None)
    found = _verdict(subjects()["vllm"], unknown, None)
    assert found.verdict == "caveat" and found.why[0].code == "sup_target_unknown"


# ---- every sentence in both languages --------------------------------------------------------------------

CASES = [
    ("vllm", "P40", None),
    ("vllm", "V100", None),
    ("vllm", "T4", "awq"),
    ("vllm", "3090", "fp8"),
    ("vllm", "A100", "q4_k_m"),
    ("vllm", "MI50", None),
    ("vllm", "M2 Max", None),
    ("ollama", "MI50", None),
    ("ollama", "M40", None),
    ("ollama", "RX 6700 XT", None),
    ("rocm", "RX 6700 XT", None),
    ("rocm", "MI50", None),
    ("flash-attention-2", "V100", None),
    ("flash-attention-2", "T4", None),
    ("fa3", "4090", None),
    ("fp8", "3090", None),
    ("bf16", "2080 Ti", None),
    ("bf16", "MI300X", None),
    ("bitsandbytes", "P40", None),
    ("transformers", "P40", None),
    ("transformers", "M2 Max", None),
    ("exllamav2", "P40", None),
    ("exllamav3", "T4", None),
    ("sglang", "V100", None),
    ("tensorrt_llm", "T4", None),
    ("unsloth", "MI300X", None),
    ("mlx", "4090", None),
    ("cuda", "P40", None),
    ("vllm", "RTX 40 series", None),
]


@pytest.mark.parametrize(("engine", "gpu", "precision"), CASES)
@pytest.mark.parametrize("lang", LANGS)
def test_every_sentence_reads_in_one_language(engine: str, gpu: str, precision: str | None, lang: str) -> None:
    r = support(engine, gpu, precision)
    for n in [*r.why, *r.instead, *r.warnings, *r.assumptions, *([r.card] if r.card else [])]:
        text = n.render(lang)
        assert not check(text, lang), (n.code, text)
        assert n.text == n.render("en")
    w = Writer(lang)
    support_lines(w, [r])
    assert not check(w.text(), lang), [str(v) for v in check(w.text(), lang)]


def test_the_overview_reads_in_one_language() -> None:
    results = [support(e, "MI50") for e in ("rocm", "llama.cpp", "ollama", "vllm")]
    for lang in LANGS:
        w = Writer(lang)
        support_lines(w, results, overview=True)
        assert not check(w.text(), lang), [str(v) for v in check(w.text(), lang)]


# ---- the parser ------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "subjects_", "targets"),
    [
        ("vLLM 能在 P40 上跑吗？", ["vllm"], ["tesla-p40"]),
        ("llama.cpp 能在 MI50 上跑吗", ["llama_cpp"], ["mi50-32gb"]),
        ("ROCm on RX 6700 XT?", ["rocm"], ["RX 6700 XT"]),
        ("MLX on an M2 Pro?", ["mlx"], ["M2 Pro"]),
        ("Is the M60 supported by Ollama?", ["ollama"], ["M60"]),
        ("gfx906 not supported", [], ["gfx906"]),
        ("Does it support RTX 40 series?", [], ["RTX 40 series"]),
        ("FP8 on a 3090?", ["fp8"], ["rtx-3090"]),
        ("RTX 6000 Ada 能用 FlashAttention-3 吗", ["flash_attention_3"], ["rtx-6000-ada"]),
    ],
)
def test_the_parser_reads_software_and_targets(text: str, subjects_: list[str], targets: list[str]) -> None:
    q = parse(text)
    assert q.support_subjects == subjects_ and q.support_targets == targets
    assert "support" in q.intents and not q.unknown_gpu


def test_llama_cpp_is_no_model_and_a_feature_stays_a_precision() -> None:
    q = parse("llama.cpp 能在 MI50 上跑吗")
    assert q.model is None and q.unknown_model is None
    assert parse("FP8 on a 3090?").precision == "fp8"


@pytest.mark.parametrize(
    ("text", "intents"),
    [
        ("4090 支持 BF16 吗", ["gpu_info"]),  # the card's fact: the spec answer gives it
        ("Does the RTX 4090 support BF16 and NVLink?", ["gpu_info"]),
        ("serve Llama-3.1-8B with vLLM on 2x 4090, how fast?", ["speed"]),  # the engine is context
        ("Ollama 跑 Qwen2.5-7B 要多少显存", ["memory"]),
        ("FP8 vs BF16 for Llama-3.1-70B on H100", ["compare"]),
    ],
)
def test_engine_or_feature_words_alone_do_not_make_a_support_question(text: str, intents: list[str]) -> None:
    assert parse(text).intents == intents


# ---- the question type -----------------------------------------------------------------------------------


def _turn(question: str, previous: Scenario | None = None):
    return planned_turn(question, previous)


def _support_calls(plan) -> list[dict]:
    return [c.args for c in plan.calls if c.name == ToolName.CHECK_SUPPORT]


def test_a_chinese_support_question_leads_with_the_verdict_in_chinese() -> None:
    plan, answer = _turn("vLLM 能在 P40 上跑吗？")
    assert plan.intents[0] == "support"
    assert _support_calls(plan) == [{"engine": "vllm", "gpu": "tesla-p40"}]
    assert answer.startswith("**不能：**") and "6.1" in answer.split("\n")[0]
    assert "llama.cpp" in answer
    assert not check(answer, "zh"), [str(v) for v in check(answer, "zh")]


def test_an_english_support_question_leads_with_the_verdict_in_english() -> None:
    plan, answer = _turn("Is the MI50 supported by Ollama? it says gfx906 not supported")
    assert plan.intents[0] == "support"
    assert _support_calls(plan) == [{"engine": "ollama", "gpu": "mi50-32gb"}]
    assert answer.startswith("**With a caveat:**") and "gfx906" in answer.split("\n")[0]
    assert "Vulkan" in answer
    assert not check(answer, "en"), [str(v) for v in check(answer, "en")]


def test_a_weight_format_named_is_checked_with_the_engine() -> None:
    plan, answer = _turn("T4 上用 vLLM 跑 AWQ 可以吗")
    assert _support_calls(plan) == [{"engine": "vllm", "gpu": "t4", "precision": "awq"}]
    assert answer.startswith("**能：**")


def test_several_cards_each_get_a_verdict() -> None:
    plan, answer = _turn("flash-attn 能在 4090、V100 和 A40 上用吗")
    assert [a["gpu"] for a in _support_calls(plan)] == ["rtx-4090", "v100-sxm2-32gb", "a40"]
    assert answer.count("**能：**") == 2 and answer.count("**不能：**") == 1


def test_a_target_with_no_engine_checks_the_usual_engines() -> None:
    plan, answer = _turn("gfx906 not supported")
    assert [a["engine"] for a in _support_calls(plan)] == ["rocm", "llama_cpp", "ollama", "vllm"]
    assert "Vulkan" in answer


def test_a_follow_up_keeps_the_engine() -> None:
    first, _ = _turn("vLLM 能在 P40 上跑吗？")
    scenario = first.scenario
    for call in first.calls:
        scenario.apply_tool_call(call.name, call.args)
    plan, answer = _turn("那 T4 呢？", scenario)
    assert _support_calls(plan) == [{"engine": "vllm", "gpu": "t4"}]
    assert answer.startswith("**能：**")


def test_a_platform_among_several_cards_is_checked_on_its_vendor() -> None:
    plan, _ = _turn("Is the AMD MI300X a good alternative to the H100 for LLM inference? How mature is ROCm?")
    assert _support_calls(plan) == [{"engine": "rocm", "gpu": "mi300x"}]
    assert plan.intents[0] == "compare"  # the comparison leads, ROCm's state follows


def test_p2p_between_geforce_cards_is_a_caveat_with_ways_around_it() -> None:
    # the stock driver does not enable P2P on recent GeForce cards; NCCL_P2P_DISABLE=1 or a layer split work
    for gpu in ("RTX 4090", "RTX 3090", "rtx-4090-d"):
        r = support("p2p", gpu)
        assert r.verdict == "caveat" and {"sup_p2p_disable", "sup_p2p_layer_split"} <= set(codes_of(r.instead))
    assert support("p2p", "A6000").verdict == "yes" and support("p2p", "H100").verdict == "yes"
    q = parse("两张4090做张量并行，P2P 报错怎么办？")
    assert "p2p" in q.support_subjects and q.intents[0] == "support"


def test_vllm_on_volta_names_the_quantized_formats_that_run() -> None:
    # vLLM's quantization table: GPTQ from Volta, AWQ and INT8 W8A8 from Turing
    assert "sup_vllm_volta_quant" in codes_of(support("vllm", "V100").instead)
    assert support("vllm", "V100", "gptq").verdict != "no" and support("vllm", "V100", "awq").verdict == "no"


@pytest.mark.parametrize("gpu", ["RTX 5090", "RTX 5060 Ti", "B200"])
def test_ollama_on_blackwell_names_the_r570_driver(gpu: str) -> None:
    """Ollama's floor is driver 550, but no branch before R570 knows a Blackwell card (NVIDIA's driver tables)."""
    r = support("ollama", gpu)
    assert r.verdict == "yes" and "sup_driver_blackwell" in codes_of(r.why)
    assert "sup_driver_blackwell" not in codes_of(support("ollama", "RTX 4090").why)


@pytest.mark.parametrize(
    ("gpu", "target"), [("R9 380", "gfx802"), ("R9 285", "gfx802"), ("R7 260X", "gfx704"), ("HD 7790", "gfx704")]
)
def test_gcn_2_and_3_radeons_are_no_for_rocm(gpu: str, target: str) -> None:
    """GCN 2-3 Radeons (LLVM targets gfx704, gfx802) were never on ROCm's list: no, Vulkan instead."""
    r = support("rocm", gpu)
    assert r.verdict == "no" and r.gfx_target == target
    assert support("vulkan", gpu).verdict == "yes"
