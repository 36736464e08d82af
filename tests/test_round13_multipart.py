"""Round 13, questions of several parts and their follow-ups, read as a user:

- a family with a list of sizes, only the last carrying its "B" ("llama7/13/70b", "千问7/14/72b") or read loosely
  ("llama 7B, 13B and 70B"): one model per size, each answered;
- several models asked at once lead with each model's count, not the first model's count per format;
- each job named with its own cards ("微调8卡a800够吗，推理8卡4090够吗"): each job sized on its own cards, no
  comparison of one card against the other;
- a bare bit width asked after an answer already sized at that width ("那用4-bit呢？" after Q4_K_M) keeps that format.
"""

import uuid

import pytest
from asking import ask_checked, lead_of

from assistant.understanding import _parse
from assistant.understanding.size_list import expand_size_lists


@pytest.mark.parametrize(
    ("text", "models"),
    [
        ("How much resource it took to fine tune llama7/13/70b?", ["llama-2-7b", "llama-2-13b", "llama-2-70b"]),
        ("fine-tune llama 7/13/70B on A100s, how many?", ["llama-2-7b", "llama-2-13b", "llama-2-70b"]),
        ("千问7/14/72b分别需要多少显存", ["qwen2.5-7b", "qwen2.5-14b", "qwen2.5-72b"]),
        (
            "deepseek-r1 7/14/32b 能在4090上跑吗",
            ["deepseek-r1-distill-qwen-7b", "deepseek-r1-distill-qwen-14b", "deepseek-r1-distill-qwen-32b"],
        ),
        ("How much VRAM for llama 7B, 13B and 70B?", ["llama-2-7b", "llama-2-13b", "llama-2-70b"]),
        ("gpt-oss 20/120b 要什么卡", ["gpt-oss-20b", "gpt-oss-120b"]),
    ],
)
def test_a_family_with_a_list_of_sizes_is_one_model_per_size(text, models) -> None:
    assert _parse(text).models_mentioned == models


@pytest.mark.parametrize(
    ("text", "same"),
    [("llama3/70b", True), ("2024/05/06b", True), ("3090/4090", True), ("llama 7/13/70b", False)],
)
def test_a_version_and_a_size_or_a_date_is_no_size_list(text, same) -> None:
    assert (expand_size_lists(text) == text) is same


@pytest.mark.parametrize(
    ("text", "names"),
    [
        ("How much resource it took to fine tune llama7/13/70b? (the number of A100 80Gs)", ("7B", "13B", "70B")),
        ("千问7/14/72b分别需要几张4090", ("7B", "14B", "72B")),
        ("Qwen2.5-7B、14B、72B 分别需要多少显存，用4090推理", ("7B", "14B", "72B")),
    ],
)
def test_several_models_lead_with_each_models_count(advisor, text, names) -> None:
    final = ask_checked(advisor, text)
    lead = lead_of(final.answer)
    assert all(n in lead for n in names), final.answer
    assert "看用什么精度" not in lead and "depends on the format" not in lead, final.answer


@pytest.mark.parametrize(
    ("text", "cards"),
    [
        (
            "qwen3.5 397b的模型，微调8卡a800（80G）够吗，推理至少需要什么显卡呢，8卡4090够吗",
            {"lora": ("a800-80gb-sxm", 8), "inference": ("rtx-4090", 8)},
        ),
        (
            "用4张A100微调Qwen2.5-72B，推理用2张4090，够吗",
            {"lora": ("a100-80gb-sxm", 4), "inference": ("rtx-4090", 2)},
        ),
        (
            "I want to fine-tune Llama 3 70B on 8x A100 80GB and then serve it on 4x RTX 4090, will both work?",
            {"lora": ("a100-80gb-sxm", 8), "inference": ("rtx-4090", 4)},
        ),
        (
            "8张H100做推理和2张4090做LoRA微调，Qwen2.5-32B可以吗",
            {"inference": ("h100-sxm", 8), "lora": ("rtx-4090", 2)},
        ),
    ],
)
def test_each_job_is_sized_on_its_own_cards(advisor, text, cards) -> None:
    parsed = _parse(text)
    assert {job: gpu for job, (gpu, _) in cards.items()} == parsed.job_cards
    assert "compare" not in parsed.intents
    final = ask_checked(advisor, text)
    sized = {
        (c.args.get("mode"), c.args.get("gpu"), c.args.get("num_gpus"))
        for c in final.tool_calls
        if c.name == "estimate_vram"
    }
    for job, (gpu, n) in cards.items():
        assert (job, gpu, n) in sized, (job, sized)
    for job in cards:  # no job sized on the other job's cards
        others = {g for j, (g, _) in cards.items() if j != job}
        assert not any(m == job and g in others for m, g, _ in sized), (job, sized)


@pytest.mark.parametrize(
    "text",
    [
        "A100 和 4090 哪个适合推理和微调 Qwen2.5-7B",
        "Should I buy an A100 or a 4090 for fine-tuning and inference of 7B?",
    ],
)
def test_cards_offered_as_options_for_both_jobs_stay_a_comparison(text) -> None:
    assert _parse(text).job_cards == {}


@pytest.mark.parametrize(
    ("first", "then"),
    [
        ("我有两张3090，能跑Qwen2.5-72B吗", "那用4-bit呢？"),
        ("I have two RTX 3090s. Can they run Qwen2.5-72B?", "What if I use 4-bit?"),
        ("两张3090能跑Llama-3-70B吗", "量化到4bit呢"),
    ],
)
def test_a_bare_width_after_an_answer_at_that_width_keeps_its_format(advisor, first, then) -> None:
    session = "mp13-" + uuid.uuid4().hex[:6]
    before = advisor.ask(session, first)
    after = advisor.ask(session, then)
    formats = [c.args.get("precision") for c in before.tool_calls if c.name == "estimate_vram"]
    kept = [c.args.get("precision") for c in after.tool_calls if c.name == "estimate_vram"]
    assert formats and kept and kept[0] == formats[0], (formats, kept)


def test_a_width_after_a_full_precision_answer_changes_the_format(advisor) -> None:
    session = "mp13-" + uuid.uuid4().hex[:6]
    advisor.ask(session, "Can 2x A100 80GB serve Llama 3 70B with vLLM?")
    after = advisor.ask(session, "what about 4-bit?")
    kept = [c.args.get("precision") for c in after.tool_calls if c.name == "estimate_vram"]
    assert kept and kept[0] == "int4", kept


@pytest.mark.parametrize(
    ("text", "pairs"),
    [
        ("两张3090能推理Qwen2.5-72B吗，能LoRA微调Qwen2.5-14B吗", {"inference": "qwen2.5-72b", "lora": "qwen2.5-14b"}),
        (
            "I want to serve Llama 3 70B and fine-tune Llama 3 8B with QLoRA on two 4090s",
            {"inference": "llama-3-70b", "qlora": "llama-3-8b"},
        ),
        ("用一张4090微调Qwen2.5-7B，再部署Qwen2.5-32B推理，够吗", {"lora": "qwen2.5-7b", "inference": "qwen2.5-32b"}),
    ],
)
def test_each_model_is_sized_for_its_own_job(advisor, text, pairs) -> None:
    assert _parse(text).job_models == pairs
    final = ask_checked(advisor, text)
    sized = {(c.args.get("model"), c.args.get("mode")) for c in final.tool_calls if c.name == "estimate_vram"}
    assert {(m, j) for j, m in pairs.items()} <= sized, sized
    crossed = {(m, j) for j in pairs for m in pairs.values() if pairs[j] != m and j != "inference"}
    assert not crossed & sized, sized  # no model trained for the other model's job (a smaller one may run)


@pytest.mark.parametrize(
    "text",
    [
        "推理和微调 Qwen2.5-7B 和 Qwen2.5-14B 分别要多少显存",
        "How many H100s do I need to run and fine-tune Llama 3.1 70B?",
    ],
)
def test_jobs_asked_of_every_model_are_no_pairs(text) -> None:
    assert _parse(text).job_models == {}
