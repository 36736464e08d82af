"""`gpu-advisor proposal --session NAME --out FILE` and `gpu-advisor ask ... --proposal FILE`, as real subprocesses
on a saved session: every format from the suffix, the errors people get, and the Markdown when no CJK font exists."""

from __future__ import annotations

import csv
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

BIN = Path(sys.executable).with_name("gpu-advisor")
ZH = "预算 20 万，公司内部 30 人用 Qwen2.5-32B 做知识库问答，服务器怎么配？"
EN = "We need to serve Llama 3.1 70B to 50 users, budget $60,000 — what should we buy?"


def cli(*args: str, env: dict[str, str]) -> subprocess.CompletedProcess:
    return subprocess.run(
        [str(BIN), *args], capture_output=True, text=True, timeout=300, env={**os.environ, "COLUMNS": "200", **env}
    )


@pytest.fixture(scope="module")
def store(knowledge_dir: Path, tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    """A session store holding the Chinese question, asked with --proposal (the guides are ingested once first)."""
    from knowledge.retrieval import get_retriever

    get_retriever().refresh()
    return {"GPU_ADVISOR_SESSIONS_URL": str(tmp_path_factory.mktemp("proposal-cli") / "sessions.sqlite")}


@pytest.fixture(scope="module")
def asked(store: dict[str, str], tmp_path_factory: pytest.TempPathFactory) -> tuple[subprocess.CompletedProcess, Path]:
    out = tmp_path_factory.mktemp("asked") / "建议书.md"
    return cli("ask", ZH, "--session", "zh", "--proposal", str(out), env=store), out


def test_ask_with_proposal_prints_the_answer_and_writes_the_markdown(asked) -> None:
    done, out = asked
    assert done.returncode == 0, done.stderr
    assert "RTX PRO 6000" in done.stdout and f"proposal written: {out}" in done.stderr
    text = out.read_text(encoding="utf-8")
    assert text.startswith("# GPU 选型与采购建议书：Qwen2.5-32B")
    assert "¥60,065" in text and "一次性投入合计: ¥90,097" in text


@pytest.mark.parametrize("suffix", [".pdf", ".xlsx", ".csv", ".md"])
def test_proposal_writes_the_format_its_suffix_names(asked, store, tmp_path: Path, suffix: str) -> None:
    out = tmp_path / f"p{suffix}"
    done = cli("proposal", "--session", "zh", "--out", str(out), env=store)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == f"proposal written: {out}"
    head = out.read_bytes()[:8]
    expected = {".pdf": b"%PDF-", ".xlsx": b"PK", ".csv": "项目".encode("utf-8-sig")[:5], ".md": b"# GPU"}
    assert head.startswith(expected[suffix])
    if suffix == ".csv":
        with out.open(encoding="utf-8-sig", newline="") as f:
            total = list(csv.reader(f))[-1]
        assert total[0] == "合计" and total[3] == "CNY" and float(total[6]) == pytest.approx(90097.47, abs=0.01)


def test_ask_in_english_with_a_json_answer_and_an_xlsx(store, tmp_path: Path) -> None:
    from openpyxl import load_workbook

    out = tmp_path / "proposal.xlsx"
    done = cli("ask", EN, "--session", "en", "--json", "--proposal", str(out), env=store)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["language"] == "en"  # stdout stays the answer's JSON
    rows = list(load_workbook(out).active.iter_rows(values_only=True))
    assert rows[0][0] == "item" and rows[-1][0] == "Total" and rows[-1][6] == pytest.approx(49500)
    assert rows[1][0] == "GPU: new NVIDIA H200 NVL" and rows[1][2] == pytest.approx(31500)
    again = cli("proposal", "--session", "en", "--out", str(tmp_path / "p.md"), "--json", env=store)
    assert json.loads(again.stdout) == {"path": str(tmp_path / "p.md")}
    assert "Up-front total: $49,500" in (tmp_path / "p.md").read_text(encoding="utf-8")


def test_errors_say_what_to_do(asked, store, tmp_path: Path) -> None:
    missing = cli("proposal", "--session", "nobody", "--out", str(tmp_path / "p.md"), env=store)
    assert missing.returncode == 1 and "no session named 'nobody'" in missing.stderr
    wrong = cli("proposal", "--session", "zh", "--out", str(tmp_path / "p.docx"), env=store)
    assert wrong.returncode == 1 and ".md、.pdf、.xlsx 或 .csv" in wrong.stderr
    assert not (tmp_path / "p.docx").exists()
    nothing = cli("ask", "RTX 4090 有多少显存？", "--session", "n", "--proposal", str(tmp_path / "n.md"), env=store)
    assert nothing.returncode == 1 and "24" in nothing.stdout  # the answer is printed all the same
    assert "无法生成建议书" in nothing.stderr and "请先问一个选购问题" in nothing.stderr
    assert not (tmp_path / "n.md").exists()


def test_without_a_cjk_font_the_markdown_still_comes_out(asked, store, tmp_path: Path) -> None:
    bare = {**store, "PATH": str(BIN.parent), "GPU_ADVISOR_CJK_FONT": ""}  # no fc-match on the PATH: no font found
    done = cli("proposal", "--session", "zh", "--out", str(tmp_path / "p.pdf"), env=bare)
    assert done.returncode == 1
    assert "fonts-noto-cjk" in done.stderr and "brew install" in done.stderr and str(tmp_path / "p.md") in done.stderr
    assert not (tmp_path / "p.pdf").exists()
    assert (tmp_path / "p.md").read_text(encoding="utf-8").startswith("# GPU 选型与采购建议书")
