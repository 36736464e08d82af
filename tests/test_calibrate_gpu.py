"""CPU smoke test of evals/calibrate_gpu.py: tiny preset, short contexts, no network.

On CPU the script records tensor byte counts (weights, KV cache, logits, grads, optimizer states, tensors
saved for backward) instead of CUDA peaks and marks every entry ``type: smoke``.
"""

from __future__ import annotations

import contextlib
import importlib.util
import io
import os
import re
import socket
from pathlib import Path

import pytest

os.environ["HF_HUB_OFFLINE"] = "1"  # before transformers / huggingface_hub read it
torch = pytest.importorskip("torch")
pytest.importorskip("transformers")
pytest.importorskip("peft")
yaml = pytest.importorskip("yaml")

SCRIPT = Path(__file__).resolve().parents[1] / "evals" / "calibrate_gpu.py"
CONTEXTS, BATCH, TRAIN_SEQ = (32, 64), 2, 32
ENTRY_KEYS = [
    "id",
    "title",
    "kind",
    "tool",
    "request",
    "metric",
    "published",
    "unit",
    "type",
    "source",
    "quote",
    "conditions",
]
ARCH_KEYS = {
    "num_layers",
    "hidden_size",
    "num_attention_heads",
    "num_key_value_heads",
    "head_dim",
    "intermediate_size",
    "vocab_size",
    "tie_word_embeddings",
    "mlp",
}
KINDS = {"weights", "kv_cache", "vram_inference", "vram_training"}
METRICS = {"total_gib", "breakdown_gib.weights", "breakdown_gib.kv_cache"}
OPTIMIZERS = {"adamw", "adamw_no_master", "adamw8bit", "sgd"}


def load_script():
    spec = importlib.util.spec_from_file_location("calibrate_gpu", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    """Run main() once on CPU with every way out to the network replaced by a recorder that refuses."""
    out = tmp_path_factory.mktemp("calib") / "calib.yaml"
    attempts: list[str] = []

    def refuse(name):
        def blocked(*args, **kwargs):
            attempts.append(f"{name}{args[:2]}")
            raise OSError(f"network access attempted in a test: {name}")

        return blocked

    stdout = io.StringIO()
    with pytest.MonkeyPatch.context() as mp, contextlib.redirect_stdout(stdout):
        for name in ("connect", "connect_ex"):
            mp.setattr(socket.socket, name, refuse(f"socket.{name}"))
        mp.setattr(socket, "create_connection", refuse("create_connection"))
        mp.setattr(socket, "getaddrinfo", refuse("getaddrinfo"))
        module = load_script()
        contexts = ",".join(map(str, CONTEXTS))
        records = module.main(
            [
                "--device",
                "cpu",
                "--sizes",
                "tiny",
                "--contexts",
                contexts,
                "--batch",
                str(BATCH),
                "--decode",
                "4",
                "--train-seq",
                str(TRAIN_SEQ),
                "--out",
                str(out),
            ]
        )
    entries = yaml.safe_load(out.read_text(encoding="utf-8"))
    return {"module": module, "records": records, "entries": entries, "attempts": attempts, "stdout": stdout.getvalue()}


def by_id(entries, pattern):
    return {e["id"]: e for e in entries if re.fullmatch(pattern, e["id"])}


def published(entries, entry_id):
    (entry,) = by_id(entries, re.escape(entry_id)).values()
    return entry["published"]


def test_entries_follow_the_references_schema(run):
    entries = run["entries"]
    assert isinstance(entries, list) and entries
    assert len({e["id"] for e in entries}) == len(entries)
    for e in entries:
        assert list(e) == ENTRY_KEYS, e["id"]
        assert e["id"].startswith("calib-tiny-") and e["id"].endswith("-cpu")
        assert e["kind"] in KINDS and e["metric"] in METRICS and e["tool"] == "estimate_vram"
        assert e["unit"] == "GiB" and isinstance(e["published"], float)
        assert e["type"] == "smoke", "CPU runs must never look like measured references"
        assert e["source"].startswith("evals/calibrate_gpu.py on CPU")
        assert f"torch {torch.__version__}" in e["source"]
        assert all(isinstance(e[k], str) and e[k] for k in ("title", "quote", "conditions"))
        req = e["request"]
        assert set(req["arch"]) == ARCH_KEYS
        assert req["arch"]["num_layers"] == 2 and req["arch"]["hidden_size"] == 256
        assert "params_b" not in req and req["precision"] == "bf16"  # the estimator takes arch XOR params_b
        assert req.get("overhead_gib", 0) == 0 and ("overhead_gib" in req) == (e["metric"] == "total_gib")
        if e["kind"] in ("vram_inference", "kv_cache"):
            assert req["mode"] == "inference" and req["kv_dtype"] == "bf16"
            assert req["context_tokens"] in CONTEXTS and req["batch"] in (1, BATCH)
        if e["kind"] == "vram_training":
            assert req["mode"] in ("full", "lora") and req["optimizer"] in OPTIMIZERS
            assert isinstance(req["grad_checkpointing"], bool)
            assert req["context_tokens"] == TRAIN_SEQ and req["batch"] == 1
            if req["mode"] == "lora":
                assert req["lora_rank"] == 16 and req["lora_targets"] == "all"
    kinds = {e["kind"] for e in entries}
    assert kinds == KINDS
    assert len(by_id(entries, r"calib-tiny-infer-.*")) == len(CONTEXTS) * 2


def test_memory_is_positive_and_grows_with_context_and_batch(run):
    entries = run["entries"]
    assert all(e["published"] > 0 for e in entries)
    weights = published(entries, "calib-tiny-weights-bf16-cpu")
    for kind in ("infer", "kv"):
        got = {(c, b): published(entries, f"calib-tiny-{kind}-ctx{c}-b{b}-cpu") for c in CONTEXTS for b in (1, BATCH)}
        for b in (1, BATCH):
            assert got[(CONTEXTS[0], b)] < got[(CONTEXTS[1], b)], (kind, b)
        for c in CONTEXTS:
            assert got[(c, 1)] < got[(c, BATCH)], (kind, c)
        if kind == "infer":
            assert min(got.values()) > weights


def test_kv_cache_matches_the_formula(run):
    arch = run["module"].arch_of("tiny")
    for e in by_id(run["entries"], r"calib-tiny-kv-.*").values():
        r = e["request"]
        expected = 2 * arch["num_layers"] * arch["num_key_value_heads"] * arch["head_dim"] * 2  # bytes/token
        expected *= r["context_tokens"] * r["batch"]
        assert e["published"] == pytest.approx(expected / 2**30, rel=1e-4), e["id"]


def test_training_cases(run):
    train = {r["case"]: r for r in run["records"] if r["kind"] == "vram_training"}
    assert all(r["error"] is None for r in train.values())
    names = {
        f"train-{n}-{gc}-seq{TRAIN_SEQ}-mb1" for n in ("full-no_master", "full-master", "lora") for gc in ("gc", "nogc")
    }
    assert set(train) == names
    full = train[f"train-full-no_master-nogc-seq{TRAIN_SEQ}-mb1"]["result"]
    lora = train[f"train-lora-nogc-seq{TRAIN_SEQ}-mb1"]["result"]
    assert full["trainable"] == full["total"]
    assert 0 < lora["trainable"] < 0.1 * full["trainable"], "LoRA r=16 trains far fewer params than full FT"
    assert lora["allocated"] < full["allocated"]
    for regime in ("full-no_master", "full-master", "lora"):
        nogc, gc = (train[f"train-{regime}-{g}-seq{TRAIN_SEQ}-mb1"]["result"] for g in ("nogc", "gc"))
        assert gc["act"] < nogc["act"] and gc["allocated"] < nogc["allocated"], regime
    master = train[f"train-full-master-nogc-seq{TRAIN_SEQ}-mb1"]["result"]
    assert master["allocated"] > full["allocated"]  # fp32 params + fp32 grads vs bf16
    # adamw_no_master keeps fp32 Adam states: 8 bytes per parameter
    assert full["states"] == 8 * full["trainable"]


def test_requests_are_valid_estimator_requests(run, monkeypatch):
    monkeypatch.syspath_prepend(str(SCRIPT.parents[1]))
    vram = pytest.importorskip("tools.vram", reason="the estimator package is not importable")
    for e in run["entries"]:
        vram.VramRequest(**e["request"]).resolve()


def test_prints_a_table(run):
    lines = run["stdout"].splitlines()
    assert lines[0].startswith("evals/calibrate_gpu.py on CPU")
    assert any(line.split()[:2] == ["size", "case"] for line in lines)
    for r in run["records"]:
        if r["kind"] != "kv_cache":
            assert any(line.split()[:2] == ["tiny", r["case"]] for line in lines), r["case"]


def test_nothing_touched_the_network(run):
    assert run["attempts"] == []
    assert os.environ.get("HF_HUB_OFFLINE") == "1"


def test_rejects_unknown_preset_and_missing_gpu(run):
    with pytest.raises(SystemExit):
        run["module"].main(["--device", "cpu", "--sizes", "13b"])
    if not torch.cuda.is_available():
        with pytest.raises(SystemExit):
            run["module"].main(["--sizes", "tiny"])
