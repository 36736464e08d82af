"""`gpu-advisor chat --terminal` in a real subprocess: the questions it must ask come with numbered choices, typing a
number sends that choice, and after the choices the original question is answered."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from assistant.quick_replies import budget_tiers, group
from assistant.strings import catalog

BIN = Path(sys.executable).with_name("gpu-advisor")


def _choices(key: str, lang: str) -> str:
    """The numbered line the terminal prints for a group of quick replies."""
    return "  ".join(f"{i}) {r.label}" for i, r in enumerate(group(key, lang), start=1))


def test_numbers_answer_the_questions_and_the_purchase_is_sized(knowledge_dir: Path) -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith("GPU_ADVISOR_")}
    env |= {"GPU_ADVISOR_DATA_DIR": str(knowledge_dir), "COLUMNS": "200"}  # wide: each line whole
    typed = "我想买张显卡跑大模型，买什么好\n2\n2\n2\n\n"  # fine-tuning, 14B, the second budget tier
    out = subprocess.run(
        [str(BIN), "chat", "--terminal"], input=typed, env=env, capture_output=True, text=True, timeout=300
    )
    assert out.returncode == 0, out.stderr[-2000:]
    text = out.stdout
    asked = [catalog()[key]["zh"][:12] for key in ("need_purpose", "need_model", "need_budget")]
    positions = [text.find(q) for q in asked]
    assert all(p >= 0 for p in positions) and positions == sorted(positions), text[-3000:]  # in this order
    for key in ("need_purpose", "need_model", "need_budget"):
        assert _choices(key, "zh").strip() in text, key
    sent = [r.message for r in (group("need_purpose", "zh")[1], group("need_model", "zh")[1])]
    sent.append(budget_tiers("CNY")[1]["message"]["zh"])
    for message in sent:
        assert f"→ {message}" in text  # what each number sent
    answer = text[text.find(f"→ {sent[-1]}") :]
    assert "Generic-14B" in answer and "微调" in answer  # the original question, with the choices: 14B, fine-tuning
    assert f"¥{budget_tiers('CNY')[1]['top']:,}" in answer  # within the chosen tier's top
    assert answer.count(catalog()["quick_replies_hint"]["zh"]) == 0  # the answer asks nothing more


def test_ask_json_lists_the_quick_replies(knowledge_dir: Path) -> None:
    import json

    env = {k: v for k, v in os.environ.items() if not k.startswith("GPU_ADVISOR_")}
    env |= {"GPU_ADVISOR_DATA_DIR": str(knowledge_dir)}
    out = subprocess.run(
        [str(BIN), "ask", "--json", "which GPU to buy for fine-tuning?"], env=env, capture_output=True, text=True
    )
    assert out.returncode == 0, out.stderr[-2000:]
    replies = json.loads(out.stdout)["quick_replies"]
    assert replies == [r.model_dump() for r in group("need_model", "en")]
