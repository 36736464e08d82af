"""The CLI: JSON contract keys, readable errors, and a light start-up path."""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

BIN = Path(sys.executable).with_name("gpu-advisor")
HEAVY = {"torch", "chromadb", "gradio", "langchain", "langchain_core", "sentence_transformers", "transformers"}


def cli(*args: str, env: dict | None = None) -> subprocess.CompletedProcess:
    return subprocess.run(
        [str(BIN), *args],
        capture_output=True,
        text=True,
        timeout=60,
        env={**os.environ, "COLUMNS": "200", **(env or {})},
    )


def test_vram_json_contract():
    out = cli("vram", "--model", "llama-3.1-70b", "--precision", "q4_k_m", "--context", "8192", "--json")
    assert out.returncode == 0, out.stderr
    data = json.loads(out.stdout)
    for key in ("total_gib", "per_gpu_gib", "breakdown_gib", "params_b", "assumptions", "warnings"):
        assert key in data
    assert set(data["breakdown_gib"]) == {
        "weights",
        "kv_cache",
        "activations",
        "gradients",
        "optimizer",
        "adapters",
        "overhead",
    }


def test_vram_training_flags():
    out = cli(
        "vram",
        "--params",
        "7",
        "--mode",
        "full",
        "--gpus",
        "8",
        "--zero",
        "3",
        "--optimizer",
        "adamw8bit",
        "--grad-checkpointing",
        "--context",
        "2048",
        "--batch",
        "2",
        "--json",
    )
    assert out.returncode == 0, out.stderr
    assert json.loads(out.stdout)["dp"] == 8


def test_speed_json_contract():
    out = cli("speed", "--model", "llama-3.1-8b", "--gpu", "4090", "--precision", "q4_k_m", "--json")
    assert out.returncode == 0, out.stderr
    data = json.loads(out.stdout)
    for key in ("decode_tokens_per_s", "prefill_tokens_per_s", "ttft_s", "bound"):
        assert key in data


def test_human_table_mentions_units():
    out = cli("vram", "--model", "qwen2.5-7b", "--mode", "qlora")
    assert out.returncode == 0
    assert "GiB" in out.stdout and "assumptions" in out.stdout


def test_models_listing():
    out = cli("models", "--json")
    assert len(json.loads(out.stdout)) >= 30
    assert "qwen2.5-72b" in cli("models", "qwen").stdout


@pytest.mark.parametrize(
    ("args", "needle"),
    [
        (["vram", "--model", "lama-3-70"], "did you mean"),
        (["vram", "--model", "llama-90000b"], "20,000B"),
        (["vram", "--params", "-3"], "params_b"),
        (["vram", "--params", "7", "--precision", "int3"], "unknown precision"),
        (["speed", "--model", "llama-2-7b", "--gpu", "H1000"], "did you mean"),
        (["vram", "--params", "7", "--gpus", "3", "--tp", "2"], "multiple of"),
    ],
)
def test_errors_are_one_clear_line(args, needle):
    out = cli(*args)
    assert out.returncode == 2
    text = out.stdout + out.stderr
    assert needle in text
    assert "Traceback" not in text


def test_error_in_json_mode_is_json():
    out = cli("vram", "--model", "nonexistent-model-xyz", "--json")
    assert out.returncode == 2
    assert "error" in json.loads(out.stdout)


def test_vram_imports_no_heavy_package():
    out = cli("vram", "--params", "7", "--json", env={"PYTHONPROFILEIMPORTTIME": "1"})
    assert out.returncode == 0
    imported = {line.rsplit("|", 1)[-1].strip().split(".")[0] for line in out.stderr.splitlines() if "|" in line}
    assert not imported & HEAVY, imported & HEAVY


def test_gpu_json_contract():
    data = json.loads(cli("gpu", "4090", "--json").stdout)
    for key in (
        "name",
        "vram_gib",
        "bandwidth_gbs",
        "fp16_tflops",
        "bf16_tflops",
        "fp8_tflops",
        "nvlink",
        "ecc",
        "mig",
        "tdp_w",
        "sources",
    ):
        assert key in data
    assert data["bf16_tflops"] == 165.2 and data["nvlink"] is False


def test_gpu_compare_table():
    out = cli("gpu", "4090", "A100 80G", "H100 SXM")
    assert out.returncode == 0 and "GPU comparison" in out.stdout


def test_fit_json_contract():
    data = json.loads(cli("fit", "--model", "llama-3.1-8b", "--gpu", "4090", "--json").stdout)
    for key in ("best_precision", "max_context", "max_concurrent_sequences", "limiting_factor"):
        assert key in data


def test_gpus_tco_recommend_commands():
    out = cli("gpus", "--min-vram", "48", "--ecc", "--json")
    assert out.returncode == 0 and json.loads(out.stdout)["gpus"]
    out = cli("tco", "--gpu", "4090", "--gpus", "2", "--currency", "CNY", "--json")
    assert out.returncode == 0 and json.loads(out.stdout)["currency"] == "CNY"
    out = cli("recommend", "--model", "qwen2.5-7b", "--mode", "qlora", "--budget", "15000", "--json")
    assert out.returncode == 0 and "options" in json.loads(out.stdout)


def test_build_command():
    out = cli("build", "--gpu", "4090", "--gpus", "2", "--json")
    assert out.returncode == 0, out.stderr
    data = json.loads(out.stdout)
    assert data["psu_w"] >= 1200 and data["nvlink_bridge_available"] is False
