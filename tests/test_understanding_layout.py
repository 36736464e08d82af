"""The message parser is a package of small extractors below the planner and the capabilities.

`assistant/understanding` imports only `assistant.language` and `tools` (besides the standard library and
pydantic); the capabilities take `ParsedQuery` from it, never through the planner; each module stays small.
"""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
UNDERSTANDING = ROOT / "assistant" / "understanding"
CAPABILITIES = ROOT / "assistant" / "capabilities"
MAX_LINES = 400
# What the parser may import from this project; everything else of the assistant sits above it.
ALLOWED_ASSISTANT = ("assistant.language", "assistant.understanding")
HEAVY = ("langchain", "langchain_core", "langgraph", "gradio", "torch", "chromadb", "sentence_transformers")


def _modules(folder: Path) -> list[Path]:
    return sorted(folder.glob("*.py"))


def _imports(path: Path) -> list[tuple[int, str]]:
    """Every module an import statement names (module level or inside functions), with its line."""
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    names: list[tuple[int, str]] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names += [(node.lineno, alias.name) for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names.append((node.lineno, node.module))
            # "from assistant import planner" names assistant.planner
            names += [(node.lineno, f"{node.module}.{alias.name}") for alias in node.names]
    return names


def _under(name: str, package: str) -> bool:
    return name == package or name.startswith(package + ".")


def test_the_package_exists_and_the_old_module_is_gone() -> None:
    assert (UNDERSTANDING / "__init__.py").is_file()
    assert not (ROOT / "assistant" / "planner" / "parse.py").exists()


@pytest.mark.parametrize("path", _modules(UNDERSTANDING), ids=lambda p: p.name)
def test_every_understanding_module_is_small(path: Path) -> None:
    lines = len(path.read_text(encoding="utf-8").splitlines())
    assert lines <= MAX_LINES, f"{path.name} has {lines} lines (at most {MAX_LINES}): split it by what it reads"


@pytest.mark.parametrize("path", _modules(UNDERSTANDING), ids=lambda p: p.name)
def test_understanding_imports_point_down(path: Path) -> None:
    for line, name in _imports(path):
        where = f"{path.name}:{line} imports {name}"
        assert not _under(name, "assistant.planner"), where
        assert not _under(name, "assistant.capabilities"), where
        if _under(name, "assistant") and name != "assistant":
            assert any(_under(name, ok) for ok in ALLOWED_ASSISTANT), where
        assert not any(_under(name, heavy) for heavy in HEAVY), where


@pytest.mark.parametrize("path", _modules(UNDERSTANDING), ids=lambda p: p.name)
def test_understanding_has_no_star_imports(path: Path) -> None:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    stars = [n.lineno for n in ast.walk(tree) if isinstance(n, ast.ImportFrom) and any(a.name == "*" for a in n.names)]
    assert not stars, f"{path.name}: import * on lines {stars}"


@pytest.mark.parametrize("path", _modules(CAPABILITIES), ids=lambda p: p.name)
def test_capabilities_do_not_reach_the_parser_through_the_planner(path: Path) -> None:
    for line, name in _imports(path):
        assert not _under(name, "assistant.planner"), f"{path.name}:{line} imports {name}"


def test_importing_the_parser_loads_nothing_above_it() -> None:
    code = (
        "import sys, assistant.understanding as u\n"
        "u.parse('Qwen2.5-7B LoRA on 2x 4090, budget $3k')\n"
        "print('\\n'.join(sorted(sys.modules)))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True)
    loaded = out.stdout.split()
    above = [m for m in loaded if _under(m, "assistant.planner") or _under(m, "assistant.capabilities")]
    heavy = [m for m in loaded if any(_under(m, h) for h in HEAVY)]
    assert not above, above
    assert not heavy, heavy
