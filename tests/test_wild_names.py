"""Every Ollama tag and Hugging Face id people wrote in the wild set resolves to a model we can size (issue 19).

The candidates are found by patterns of their own, not by the parser, so a tag or id the parser fails to see
still counts: an Ollama tag is `name:<size>b...` or `name:latest`; a Hugging Face id is `owner/Name-<size>B...`.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
import yaml

from assistant.understanding import parse
from tools.errors import UnknownNameError
from tools.model_match import match_model, series_in_name

WILD = Path(__file__).resolve().parent.parent / "evals" / "wild"
_URL = re.compile(r"https?://\S+|\b[\w.-]+\.(?:com|co|io|org|ai|cn)/\S*")
_TAG = re.compile(r"(?<![\w./-])([a-z][a-z0-9.-]*:(?:\d+(?:\.\d+)?[bm](?![a-z])[\w.-]*|e\d+b[\w.-]*|latest))", re.I)
_HF = re.compile(r"(?<![\w./-])([A-Za-z0-9][\w.-]{1,40}/[A-Za-z][\w.-]*\d[\w.-]*)")
_FILE = re.compile(r"\.(?:json|md|py|hip|o|go|cu|cpp|h|txt|yaml|gguf)$|^(?:configs?|src|csrc|docs?|tests?|path)/", re.I)


# Named in the wild set but not resolvable, each with the reason; the closing note of issue 19 lists them too.
NOT_HELD = {
    "FlagAI-Open/Aquila2": "the Aquila2 GitHub repository (7B / 34B / 70B); no config.json could be verified offline",
}


def _is_model_name(name: str) -> bool:
    """A model's id, not another repository ("weicj/vLLM-2080Ti-Definitive"): a size in it, or a family word."""
    from assistant.understanding.lexicon import _lex

    repo = name.split("/")[-1].split(":")[0]
    return (
        bool(re.search(r"\d+(?:\.\d+)?[bBmM](?![a-zA-Z])", name))
        or any(rx.match(part) for part in re.split(r"[-_.]", repo.lower()) for rx, _, _ in _lex().families)
        or any(rx.match(re.sub(r"\d.*", "", repo.lower())) for rx, _, _ in _lex().families)
    )


def _names() -> list[str]:
    found: set[str] = set()
    for path in sorted(WILD.glob("*.yaml")):
        for case in yaml.safe_load(path.read_text(encoding="utf-8"))["scenarios"]:
            for turn in case["turns"]:
                text = _URL.sub(" ", turn["user"])
                found |= {
                    m.rstrip(".-")
                    for rx in (_TAG, _HF)
                    for m in rx.findall(text)
                    if not _FILE.search(m) and _is_model_name(m)
                }
    return sorted(found - set(NOT_HELD))


def test_the_wild_set_names_models_as_tags_and_ids():
    names = _names()
    assert sum(":" in n for n in names) >= 2 and sum("/" in n for n in names) >= 10, names


@pytest.mark.parametrize("name", _names())
def test_every_tag_and_id_resolves(name: str):
    try:
        m = match_model(name)
    except UnknownNameError:
        # a fine-tune named without its size ("CrazyBoyM/llama3-Chinese-chat") is its series' sizes, each sized; one
        # published under a name of its own ("GPT-4-LLM" is LLaMA-7B) is sized as its base by the parser
        assert series_in_name(name) or parse(name).model, f"{name} resolves to nothing"
        return
    assert m.arch.params > 0
    # a family's name resolves to that family, never to a generic decoder of the same size
    assert m.how != "generic" or not re.search(r"llama|qwen|deepseek|mistral|gemma|glm|yi-|phi", name, re.I), m.how
