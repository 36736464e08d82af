"""The golden-scenario eval suite: run against the offline planner in CI, and against an LLM over HTTP."""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from fakes import text, tool_call
from fakes.openai_server import FakeOpenAIServer

from evals.runner import SCENARIO_DIR, WILD_DIR, load_scenarios, report_markdown, run_eval, score_turn
from evals.scenarios_schema import RUBRIC_CHECKS, Turn

MIN_PASS = 0.9


def test_scenarios_cover_the_issue():
    scenarios = load_scenarios()
    assert len(scenarios) >= 170
    langs = [s.language for s, _ in scenarios]
    assert abs(langs.count("zh") - langs.count("en")) <= len(langs) * 0.1
    assert sum(len(s.turns) > 1 for s, _ in scenarios) >= 20
    tools = {n for s, _ in scenarios for t in s.turns for c in t.tools for n in c.names}
    assert tools >= {
        "estimate_vram",
        "estimate_speed",
        "recommend_gpus",
        "calculate_tco",
        "gpu_specs",
        "plan_workstation",
        "fit_on_gpu",
        "find_gpus",
        "search_guides",
        "compare_gpus",
    }
    # the expert scenarios (issue "Advice an expert would sign"): at least 40, both languages, written with the
    # rubric's inputs (stated quantities, hard constraints) and a verdict that leads
    expert = [(s, f) for s, f in scenarios if f.startswith("expert_")]
    assert len(expert) >= 40
    expert_langs = [s.language for s, _ in expert]
    assert abs(expert_langs.count("zh") - expert_langs.count("en")) <= len(expert) * 0.1
    turns = [t for s, _ in expert for t in s.turns]
    assert sum(t.stated is not None for t in turns) >= 25
    assert sum(t.constraints is not None for t in turns) >= 10
    assert sum(bool(t.lead or t.lead_not) for t in turns) >= 40
    assert all(t.numbers or t.must_contain or t.must_contain_any or t.lead for t in turns)
    assert {s.category for s, _ in expert} >= {"buy", "rent", "finetune", "guides", "compare"}


def _inconsistencies(report) -> list[tuple[str, str]]:
    """(scenario, detail) of every answer the one-story check (assistant/consistency.py) flags."""
    return [
        (r.id, c.detail)
        for r in report.results
        for t in r.turns
        for c in t.checks
        if c.check.startswith("one story") and not c.passed
    ]


def test_offline_planner_passes_the_gate(advisor, tmp_path):
    report = run_eval([SCENARIO_DIR], advisor=advisor)
    (tmp_path / "report.md").write_text(report_markdown(report), encoding="utf-8")
    assert set(report.by_rubric) == set(RUBRIC_CHECKS)
    assert all(row["applied"] > 0 for row in report.by_rubric.values()), report.by_rubric
    failures = [r.id for r in report.results if not r.passed]
    assert report.pass_rate >= MIN_PASS, f"pass rate {report.pass_rate:.1%}; failing: {failures}"
    assert report.untraceable_numbers == 0, [t.untraceable for r in report.results for t in r.turns if t.untraceable]
    # One language, one voice: a Chinese answer has no English sentence and an English answer no Chinese.
    assert report.language_violations == 0, report.language_violations_by_scenario
    # One story: nothing after the lead contradicts it (assistant/consistency.py), on every scenario.
    assert report.inconsistent_answers == 0, _inconsistencies(report)
    for lang, row in report.by_language.items():
        assert row["pass_rate"] >= MIN_PASS - 0.05, lang


# The wild set (evals/wild/, issue 19): real questions from public threads. Its target is 85% overall and on the
# held-aside quarter; until it is reached these floors are a ratchet at the last measured level (a fix may raise them,
# no change to the product may lower them; only new, harder cases may, and then the note says so: round 8 added 84
# real questions, 25 of which passed before any fix; after rounds 8-10 the set of 413 is at 0.86 and the aside set at
# 0.35; round 12 added 79 more, 26 passing before any fix, and the set of 492 is at 0.856; round 13 added 75 more, 29
# passing before any fix, and the set of 567 is at 0.864, the aside set still 14/40; round 14 added 59 more, 17
# passing before any fix, and the set of 626 is at 0.88, the aside set 15/40), and what must hold on every answer
# already holds: one language, one story.
WILD_FLOOR = 0.85
WILD_HELD_OUT_FLOOR = 0.375


def test_the_wild_set_is_gated(advisor):
    report = run_eval([WILD_DIR], advisor=advisor)
    wild = report.wild
    assert wild is not None and wild.total >= 150
    assert wild.by_language["zh"]["total"] >= 60 and wild.by_language["en"]["total"] >= 60
    assert set(wild.by_category) >= {"purchase", "fit", "compare", "buy_vs_rent", "fine_tuning", "troubleshooting"}
    assert wild.held_out["total"] >= 30  # a set kept aside while fixing (evals/wild/README.md)
    assert report.language_violations == 0, report.language_violations_by_scenario
    assert report.inconsistent_answers == 0, _inconsistencies(report)
    assert wild.pass_rate >= WILD_FLOOR, wild.by_category
    assert wild.held_out["pass_rate"] >= WILD_HELD_OUT_FLOOR, wild.held_out


@pytest.mark.parametrize(
    ("labels", "floor"),
    [
        ("citation_labels.yaml", 0.9),  # the sample the citation rules were tuned on
        ("citation_labels_heldout.yaml", 0.85),  # labelled blind, never tuned on: 88.3% when it was labelled
    ],
)
def test_citations_fit_the_answers_on_the_hand_labelled_samples(advisor, labels, floor):
    from evals.citation_precision import load_labels, measure

    report = measure(advisor, load_labels(Path(SCENARIO_DIR).parent / labels))
    assert not report.missing, report.missing  # a labelled turn renamed or removed: re-label it
    assert report.labelled >= 100 and report.precision >= floor, [c.section for c in report.off_topic]


def _private_scenario(path: Path, expected_gib: str) -> None:
    path.write_text(
        yaml.safe_dump(
            {
                "scenarios": [
                    {
                        "id": "private-qlora",
                        "category": "memory",
                        "language": "en",
                        "turns": [
                            {
                                "user": "How much memory for Qwen2.5-7B QLoRA at 2k?",
                                "tools": [{"name": "estimate_vram", "args": {"model": "qwen2.5-7b", "mode": "qlora"}}],
                                "numbers": [
                                    {
                                        "tool": "estimate_vram",
                                        "path": "per_gpu_gib",
                                        "args": {"model": "qwen2.5-7b", "mode": "qlora", "context_tokens": 2048},
                                    }
                                ],
                                "language": "en",
                            }
                        ],
                    }
                ]
            }
        ),
        encoding="utf-8",
    )


def test_eval_cli_against_an_openai_compatible_llm(knowledge_dir, tmp_path):
    """The documented 'run the suite against a real LLM' path, end to end over HTTP with a scripted server."""
    from tools.vram import VramRequest, estimate_vram

    gib = estimate_vram(VramRequest(model="qwen2.5-7b", mode="qlora", context_tokens=2048)).per_gpu_gib
    scenario = tmp_path / "private.yaml"
    _private_scenario(scenario, f"{gib:.1f}")
    script = [
        tool_call("estimate_vram", {"model": "qwen2.5-7b", "mode": "qlora", "context_tokens": 2048}),
        text(f"Qwen2.5-7B QLoRA at 2,048 tokens needs about {gib:.1f} GiB per GPU."),
    ]
    with FakeOpenAIServer(script) as server:
        out = subprocess.run(
            [
                str(Path(sys.executable).with_name("gpu-advisor")),
                "eval",
                "--scenarios",
                str(scenario),
                "--model",
                "openai:fake-model",
                "--base-url",
                server.base_url,
                "--api-key",
                "sk-eval",
                "--no-extras",
                "--json",
                "--min-pass",
                "1.0",
                "--report",
                str(tmp_path / "r.md"),
            ],
            capture_output=True,
            text=True,
            timeout=300,
            env={**os.environ, "GPU_ADVISOR_DATA_DIR": str(knowledge_dir)},
        )
    assert out.returncode == 0, out.stdout[-2000:] + out.stderr[-2000:]
    data = json.loads(out.stdout)
    assert data["passed"] == data["total"] == 1 and data["provider"].startswith("openai")
    assert (tmp_path / "r.md").read_text().startswith("# GPU Advisor eval")


def test_eval_cli_exits_non_zero_below_min_pass(knowledge_dir, tmp_path):
    scenario = tmp_path / "bad.yaml"
    scenario.write_text(
        yaml.safe_dump(
            {
                "scenarios": [
                    {
                        "id": "impossible",
                        "category": "x",
                        "language": "en",
                        "turns": [
                            {"user": "How much memory for Qwen2.5-7B?", "must_contain": ["this phrase never appears"]}
                        ],
                    }
                ]
            }
        )
    )
    out = subprocess.run(
        [
            str(Path(sys.executable).with_name("gpu-advisor")),
            "eval",
            "--scenarios",
            str(scenario),
            "--no-extras",
            "--min-pass",
            "0.5",
        ],
        capture_output=True,
        text=True,
        timeout=300,
        env={**os.environ, "GPU_ADVISOR_DATA_DIR": str(knowledge_dir)},
    )
    assert out.returncode == 1


# ---- the rubric: checks every turn gets, which must fail on the bad answers the issue lists ---------------


def _final(answer: str, calls: list, language: str = "zh"):
    """A final event as the runner reads it: answer, typed tool calls, citations, grounding."""
    from types import SimpleNamespace

    records = [SimpleNamespace(name=name, args=args, result=result) for name, args, result in calls]
    return SimpleNamespace(
        answer=answer,
        language=language,
        tool_calls=records,
        citations=[],
        grounding=SimpleNamespace(untraceable=[]),
        consistency=SimpleNamespace(contradictions=[]),
    )


def _one_card_14b():
    from tools.recommend import RecommendRequest, recommend_gpus
    from tools.vram import VramRequest

    args = {
        "workload": {"model": "qwen2.5-14b", "mode": "lora", "grad_checkpointing": True},
        "budget": 15000,
        "currency": "CNY",
        "max_gpus": 1,
        "persona": "individual",
        "deployment": "local",
    }
    req = RecommendRequest(**{**args, "workload": VramRequest(**args["workload"])})
    return args, recommend_gpus(req)


_ONE_CARD_TURN = Turn(
    user="我想在家用一张卡微调 Qwen2.5-14B，预算 1.5 万，买什么？",
    stated={"budget": 15000, "currency": "CNY", "max_gpus": 1},
    constraints={"max_gpus": 1, "deployment": "local"},
)


def _rubric(checks) -> dict[str, bool]:
    return {c.rubric: c.passed for c in checks if c.rubric}


def test_rubric_checks_fail_on_the_bad_answer_from_the_issue():
    """ "一张卡 + 1.5 万" answered with 2x/4x rigs under "预算 15,000 CNY 内": every rubric check fails."""
    args, result = _one_card_14b()
    assert result.primary is not None and result.primary.within_budget
    rig = result.primary.model_copy(
        update={"count": 2, "spend": 26500.0, "within_budget": False, "over_budget_by": 11500.0}
    )
    bad = result.model_copy(update={"primary": rig})
    answer = "以下几种配置：\n\n## 预算 15,000 CNY 内\n- 4× RTX 3080：¥26,500\n- 8× RTX 3080：¥44,800\n"
    lost_args = {k: v for k, v in args.items() if k != "max_gpus"}  # "一张卡" never reached the tool
    checks = score_turn(_ONE_CARD_TURN, _final(answer, [("recommend_gpus", lost_args, bad)]))
    assert set(_rubric(checks)) == set(RUBRIC_CHECKS)
    assert not any(_rubric(checks).values()), [c for c in checks if c.rubric]


def test_rubric_checks_pass_on_the_expert_answer():
    args, result = _one_card_14b()
    pick = result.primary
    answer = (
        f"建议买 1 张{pick.gpu}，用 QLoRA 微调 Qwen2.5-14B：每卡需 {pick.memory_per_gpu_gib} GiB，一张卡就够。"
        "bf16 LoRA 要 33.5 GiB，超过 24GB 卡。\n\n其他选择：租用。"
    )
    checks = score_turn(_ONE_CARD_TURN, _final(answer, [("recommend_gpus", args, result)]))
    assert _rubric(checks) == dict.fromkeys(RUBRIC_CHECKS, True), [c for c in checks if c.rubric and not c.passed]


def test_rubric_over_budget_listing_and_stretch():
    """An over-budget price under a within-budget heading fails; the same price labelled as a stretch does not."""
    args, result = _one_card_14b()
    turn = Turn(user="预算 1.5 万买什么卡？")
    head = "建议买一张 RTX 3090。\n\n**预算 ¥15,000 以内：**\n- 1 × RTX 3090：¥5,250\n"
    listed = head + "- 1 × RTX A6000：¥24,445\n"
    stretched = head + "- 如果预算能加 ¥9,445：RTX A6000 ¥24,445\n"
    verdicts = [
        _rubric(score_turn(turn, _final(answer, [("recommend_gpus", args, result)])))["budget"]
        for answer in (listed, stretched)
    ]
    assert verdicts == [False, True]


def test_rubric_names_are_found_in_the_users_words():
    from evals.runner import _mentions

    found = {(m.kind, m.accepted[1]) for m in _mentions("比较一下 L40S 和 A100 80G，跑 qwen2.5 7b 和 llama3 70b")}
    assert found == {
        ("gpu", "NVIDIA L40S"),
        ("gpu", "NVIDIA A100 80GB SXM4"),
        ("model", "Qwen2.5-7B"),
        ("model", "Llama-3-70B"),
    }
    assert not _mentions("a 10 GB card for 1 year, per 1 hour")  # no A10, no R1
    assert {m.accepted[1] for m in _mentions("淘宝上的魔改 4090 48G")} == {
        "NVIDIA GeForce RTX 4090 48GB (unofficial memory mod)"
    }
    turn = Turn(user="full finetune vs lora vs qlora on qwen2.5 7b")
    lora_only = score_turn(turn, _final("Use QLoRA on Qwen2.5-7B: 10.3 GiB.", [], "en"))
    assert _rubric(lora_only)["names"] is False  # neither LoRA nor full fine-tuning is answered


def test_rubric_stated_quantities_accept_equivalent_forms():
    turn = Turn(user="一个月大概用 A100 100 个小时", stated={"hours_per_month": 100})
    by_utilization = _final("租。", [("calculate_tco", {"gpu": "a100-80gb-sxm", "utilization": 100 / 730}, None)])
    at_default = _final("租。", [("calculate_tco", {"gpu": "a100-80gb-sxm"}, None)])  # the tool's 365 h
    assert _rubric(score_turn(turn, by_utilization))["stated"] is True
    assert _rubric(score_turn(turn, at_default))["stated"] is False
    users = Turn(user="公司 300 人用 72B", stated={"users": 300})
    sized = _final("H20。", [("recommend_gpus", {"workload": {"model": "qwen2.5-72b", "batch": 45}}, None)])
    assert _rubric(score_turn(users, sized))["stated"] is True


def test_rubric_verdict_reads_a_comparison_by_attribute():
    """compare_gpus: the verdict row's pick (a card, or a method between methods) must lead the answer."""
    from types import SimpleNamespace

    cards = SimpleNamespace(axis="gpus", rows=[], verdict=SimpleNamespace(pick=0, gpu="NVIDIA A100 80GB SXM4"))
    turn = Turn(user="比较一下 L40S 和 A100 80G，做 13B 推理选哪个", skip_rubric=["names"])
    wrong = _final("L40S 更便宜。它支持 FP8。A100 带宽更高。", [("compare_gpus", {}, cards)])
    right = _final("选 A100 80G：解码快 2.2 倍。L40S 更便宜。", [("compare_gpus", {}, cards)])
    assert _rubric(score_turn(turn, wrong))["verdict"] is False
    assert _rubric(score_turn(turn, right))["verdict"] is True
    row = SimpleNamespace(mode="lora", precision="bf16", gpu_id="rtx-4090", count=1)
    methods = SimpleNamespace(axis="methods", rows=[row], verdict=SimpleNamespace(pick=0, gpu="RTX 4090"))
    qlora_first = _final("Use QLoRA on the RTX 4090. It fits.", [("compare_gpus", {}, methods)], "en")
    assert _rubric(score_turn(Turn(user="lora or qlora?"), qlora_first))["verdict"] is False


def test_an_expected_model_is_found_in_a_recommend_calls_workload():
    """{model: X} names the model sized, whether the call carries it at the top (vram) or in its workload."""
    from evals.scenarios_schema import ExpectedCall

    turn = Turn(user="q", tools=[ExpectedCall(name=["estimate_vram", "recommend_gpus"], args={"model": "llama-2-70b"})])
    nested = [("recommend_gpus", {"workload": {"model": "llama-2-70b", "mode": "lora"}}, None)]
    other = [("recommend_gpus", {"workload": {"model": "llama-2-13b", "mode": "lora"}}, None)]
    assert score_turn(turn, _final("a", nested))[0].passed
    assert not score_turn(turn, _final("a", other))[0].passed
