"""The golden-scenario eval suite: run against the offline planner in CI, and against an LLM over HTTP."""

import json
import os
import subprocess
import sys
from pathlib import Path

import yaml
from fakes import text, tool_call
from fakes.openai_server import FakeOpenAIServer

from evals.runner import SCENARIO_DIR, load_scenarios, report_markdown, run_eval

MIN_PASS = 0.9


def test_scenarios_cover_the_issue():
    scenarios = load_scenarios()
    assert len(scenarios) >= 80
    langs = [s.language for s, _ in scenarios]
    assert abs(langs.count("zh") - langs.count("en")) <= len(langs) * 0.1
    assert sum(len(s.turns) > 1 for s, _ in scenarios) >= 20
    tools = {c.name for s, _ in scenarios for t in s.turns for c in t.tools}
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
    }


def test_offline_planner_passes_the_gate(advisor, tmp_path):
    report = run_eval([SCENARIO_DIR], advisor=advisor)
    (tmp_path / "report.md").write_text(report_markdown(report), encoding="utf-8")
    failures = [r.id for r in report.results if not r.passed]
    assert report.pass_rate >= MIN_PASS, f"pass rate {report.pass_rate:.1%}; failing: {failures}"
    assert report.untraceable_numbers == 0, [t.untraceable for r in report.results for t in r.turns if t.untraceable]
    for lang, row in report.by_language.items():
        assert row["pass_rate"] >= MIN_PASS - 0.05, lang


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
