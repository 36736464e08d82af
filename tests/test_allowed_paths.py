"""Which files GPU Advisor reads for someone (knowledge/allowed.py): ingest and the chat's tool calls."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from test_knowledge_support import HashEmbedder
from typer.testing import CliRunner

from assistant import cli
from assistant.toolset import refuse_local_paths
from knowledge.allowed import ENV, PathNotAllowed, chat_roots, check_path, ingest_roots
from knowledge.ingest import ingest_paths
from knowledge.store import KnowledgeConfig, KnowledgeStore


def test_a_path_inside_a_root_is_allowed_and_resolved(tmp_path: Path) -> None:
    doc = tmp_path / "notes" / "gpu.md"
    doc.parent.mkdir()
    doc.write_text("# GPUs\n")
    assert check_path(doc, [tmp_path]) == doc.resolve()
    assert check_path(tmp_path / "notes", [tmp_path]) == doc.parent.resolve()


@pytest.mark.parametrize("name", ["/etc/passwd", "/proc/self/environ", "/sys/kernel", "/dev/null"])
def test_system_folders_are_never_read_even_when_a_root_covers_them(name: str) -> None:
    with pytest.raises(PathNotAllowed, match="system folder"):
        check_path(name, [Path("/")])


def test_hidden_files_and_folders_are_never_read(tmp_path: Path) -> None:
    (tmp_path / ".ssh").mkdir()
    (tmp_path / ".ssh" / "id_rsa").write_text("secret")
    (tmp_path / ".env").write_text("OPENAI_API_KEY=sk-secret")
    for path in (tmp_path / ".ssh" / "id_rsa", tmp_path / ".env"):
        with pytest.raises(PathNotAllowed, match="hidden"):
            check_path(path, [tmp_path])


def test_a_path_outside_the_roots_names_them_and_the_setting(tmp_path: Path) -> None:
    inside, outside = tmp_path / "a", tmp_path / "b"
    inside.mkdir()
    outside.mkdir()
    with pytest.raises(PathNotAllowed, match=f"outside the folders GPU Advisor may read .*{ENV}") as info:
        check_path(outside / "x.md", [inside])
    assert str(inside.resolve()) in str(info.value)


def test_a_symlink_counts_where_it_points(tmp_path: Path) -> None:
    inside, outside = tmp_path / "a", tmp_path / "b"
    inside.mkdir()
    outside.mkdir()
    (outside / "secret.md").write_text("# secret\n")
    (inside / "link.md").symlink_to(outside / "secret.md")
    with pytest.raises(PathNotAllowed, match="outside"):
        check_path(inside / "link.md", [inside])


def test_the_setting_replaces_the_default_folders(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(ENV, raising=False)
    defaults = ingest_roots(tmp_path / "data")
    assert Path.home().resolve() in defaults and (tmp_path / "data").resolve() in defaults
    assert chat_roots(tmp_path / "data") == [(tmp_path / "data" / "uploads").resolve()]
    monkeypatch.setenv(ENV, os.pathsep.join([str(tmp_path / "x"), str(tmp_path / "y")]))
    assert ingest_roots(tmp_path / "data") == [(tmp_path / "x").resolve(), (tmp_path / "y").resolve()]
    assert (tmp_path / "x").resolve() in chat_roots(tmp_path / "data")


def _store(tmp_path: Path) -> KnowledgeStore:
    return KnowledgeStore(KnowledgeConfig(data_dir=tmp_path / "data"))


def _folders(tmp_path: Path) -> tuple[Path, Path]:
    """docs/ (allowed, one document) and elsewhere/ (not allowed, one document)."""
    docs, elsewhere = tmp_path / "docs", tmp_path / "elsewhere"
    docs.mkdir()
    elsewhere.mkdir()
    (docs / "a.md").write_text("# A\n\nThe RTX 4090 has 24 GB of GDDR6X.\n")
    (elsewhere / "secret.md").write_text("# Secret\n\nnot for the knowledge base\n")
    return docs, elsewhere


def test_ingest_refuses_a_path_outside_and_keeps_the_store(tmp_path: Path) -> None:
    docs, elsewhere = _folders(tmp_path)
    store, embedder = _store(tmp_path), HashEmbedder()
    first = ingest_paths([docs], store=store, embedder=embedder, allowed=[docs])
    assert len(first.added) == 1
    with pytest.raises(PathNotAllowed, match="outside"):
        ingest_paths([elsewhere], store=store, embedder=embedder, allowed=[docs], replace=True)
    manifest = store.read_manifest("user")
    assert manifest is not None and sorted(manifest.docs) == first.added  # the store is as it was


def test_a_link_out_of_an_ingested_folder_is_skipped_with_a_note(tmp_path: Path) -> None:
    docs, elsewhere = _folders(tmp_path)
    (docs / "link.md").symlink_to(elsewhere / "secret.md")
    report = ingest_paths([docs], store=_store(tmp_path), embedder=HashEmbedder(), allowed=[docs])
    assert len(report.added) == 1 and any("outside" in note for note in report.skipped)


def test_cli_ingest_outside_the_allowed_folders_fails_with_the_reason(tmp_path: Path) -> None:
    allowed, outside = tmp_path / "allowed", tmp_path / "outside"
    allowed.mkdir()
    outside.mkdir()
    (outside / "doc.md").write_text("# Doc\n\ntext\n")
    result = CliRunner().invoke(
        cli.app,
        ["ingest", str(outside / "doc.md"), "--data-dir", str(tmp_path / "data"), "--json"],
        env={ENV: str(allowed), "NO_COLOR": "1"},
    )
    assert result.exit_code != 0
    assert "outside the folders GPU Advisor may read" in result.output and ENV in result.output
    assert "Traceback" not in result.output


def test_a_chat_tool_call_may_not_read_local_files(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GPU_ADVISOR_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.delenv(ENV, raising=False)
    config = tmp_path / "config.json"
    config.write_text(json.dumps({"hidden_size": 4096}))
    refused = refuse_local_paths({"model": None, "config_path": str(config)})
    assert refused and "outside" in refused and "upload the file" in refused
    assert "system folder" in (refuse_local_paths({"prices_file": "/etc/passwd"}) or "")
    uploads = tmp_path / "data" / "uploads"
    uploads.mkdir(parents=True)
    (uploads / "config.json").write_text("{}")
    assert refuse_local_paths({"config_path": str(uploads / "config.json")}) is None
    assert refuse_local_paths({"model": "qwen2.5-7b", "mode": "qlora"}) is None


def test_the_agent_gets_the_refusal_as_the_tool_result(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from assistant.toolset import as_langchain_tools

    monkeypatch.setenv("GPU_ADVISOR_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.delenv(ENV, raising=False)
    vram = next(t for t in as_langchain_tools() if t.name == "estimate_vram")
    out = json.loads(vram.invoke({"config_path": "/etc/hostname", "mode": "inference"}))
    assert "system folder" in out["error"]
