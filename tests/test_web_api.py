"""The app's HTTP API through gradio_client: the streamed chat endpoint and the calculator endpoints.

A scripted advisor checks what the chat shows while a turn runs (pending tool bubbles, then done) and
that every client gets its own Advisor session; the real Advisor checks the numbers end to end.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from assistant.citations import Citation
from assistant.events import ErrorEvent, FinalEvent, TextEvent, ToolCallEvent, ToolResultEvent
from assistant.grounding import GroundingReport
from assistant.scenario import Scenario
from tools.vram import VramRequest, estimate_vram

pytest_plugins = ["conftest_web"]
# Gradio converts dataframes with a pandas option pandas 3 deprecates; not ours to fix.
pytestmark = pytest.mark.filterwarnings("ignore::pandas.errors.Pandas4Warning")

CITATION = Citation(
    n=1,
    doc_id="training-memory.en",
    title="Training memory",
    section="QLoRA",
    lang="en",
    source="knowledge/guides/training-memory.en.md",
    text="QLoRA keeps a 4-bit base in memory.",
)


class ScriptedAdvisor:
    """Plays one fixed turn; records which session asked what. The tool 'runs' until `release` is set."""

    def __init__(self) -> None:
        self.calls: list[tuple[str, str]] = []
        self.release = threading.Event()
        self.fail_next = False

    def stream_turn(self, session_id: str, text: str, provider: str | None = None, settings: Any = None) -> Iterator:
        self.calls.append((session_id, text))
        if self.fail_next:
            self.fail_next = False
            raise RuntimeError("the planner fell over")
        args = {"model": "qwen2.5-7b", "mode": "qlora", "context_tokens": 2048}
        yield ToolCallEvent(id="c1", name="estimate_vram", args=args)
        self.release.wait(10)
        result = estimate_vram(VramRequest(**args, grad_checkpointing=True)).model_dump(mode="json")
        yield ToolResultEvent(
            id="c1",
            name="estimate_vram",
            ok=True,
            result=result,
            duration_ms=42.0,
            summary="10.3 GiB per GPU (Qwen2.5-7B, qlora)",
        )
        yield ErrorEvent(message="(a warning the chat must show)", kind="note")
        for word in ("About ", "**10.3 GiB** ", "per GPU [1]."):
            yield TextEvent(delta=word)
        scenario = Scenario(model="qwen2.5-7b", mode="qlora", context_tokens=2048)
        yield FinalEvent(
            answer="About **10.3 GiB** per GPU [1].",
            language="en",
            provider="offline",
            tool_calls=[],
            citations=[CITATION],
            grounding=GroundingReport(numbers_checked=1, untraceable=[]),
            scenario=scenario,
            latency_ms=50.0,
        )

    def reset(self, session_id: str) -> None:
        self.calls.append((session_id, "<reset>"))


@pytest.fixture(scope="module")
def scripted() -> Iterator[tuple[ScriptedAdvisor, str]]:
    from conftest_web import serve_app

    advisor = ScriptedAdvisor()
    with serve_app(advisor) as url:
        yield advisor, url


def client(url: str) -> Any:
    from gradio_client import Client

    return Client(url, verbose=False, download_files=False)


def texts(message: dict) -> str:
    content = message["content"]
    return content if isinstance(content, str) else " ".join(part.get("text", "") for part in content)


def test_chat_endpoint_streams_a_pending_tool_bubble_then_done(scripted: tuple[ScriptedAdvisor, str]) -> None:
    advisor, url = scripted
    advisor.release.clear()
    job = client(url).submit("How much VRAM for QLoRA Qwen2.5-7B?", [], api_name="/chat")
    deadline = time.monotonic() + 30
    pending = None
    while pending is None and time.monotonic() < deadline:
        for output in job.outputs():
            bubbles = [m for m in output[0] if (m.get("metadata") or {}).get("title")]
            if bubbles and bubbles[0]["metadata"]["status"] == "pending":
                pending = bubbles[0]
        time.sleep(0.05)
    assert pending is not None, "the tool bubble was never shown as pending"
    assert pending["metadata"]["title"].startswith("🛠️ Memory estimate") and '"mode": "qlora"' in texts(pending)
    advisor.release.set()
    chat, _, scenario, *_, turn = job.result(timeout=30)
    roles = [m["role"] for m in chat]
    assert roles[0] == "user" and texts(chat[0]) == "How much VRAM for QLoRA Qwen2.5-7B?"
    bubble = next(m for m in chat if (m.get("metadata") or {}).get("title"))
    assert bubble["metadata"]["status"] == "done" and bubble["metadata"]["duration"] == pytest.approx(0.042)
    gib = estimate_vram(
        VramRequest(model="qwen2.5-7b", mode="qlora", context_tokens=2048, grad_checkpointing=True)
    ).per_gpu_gib
    assert bubble["metadata"]["title"] == f"🛠️ Memory estimate — {gib:.1f} GiB per GPU (Qwen2.5-7B, QLoRA fine-tuning)"
    joined = "\n".join(texts(m) for m in chat)
    assert "⚠️ (a warning the chat must show)" in joined
    assert 'About **10.3 GiB** per GPU <a href="#cite-1-1" class="cite-link">[1]</a>.' in joined
    assert 'id="cite-1-1"' in joined and "QLoRA keeps a 4-bit base in memory." in joined
    assert "Qwen2.5-7B" in scenario and "QLoRA" in scenario
    assert turn.startswith("#1 · offline")


def test_each_client_is_its_own_advisor_session(scripted: tuple[ScriptedAdvisor, str]) -> None:
    advisor, url = scripted
    advisor.release.set()
    first, second = client(url), client(url)
    advisor.calls.clear()
    first.predict("one", [], api_name="/chat")
    second.predict("two", [], api_name="/chat")
    first.predict("three", [], api_name="/chat")
    sessions = {text: sid for sid, text in advisor.calls}
    assert sessions["one"] == sessions["three"] != sessions["two"]
    first.predict(api_name="/reset")
    assert advisor.calls[-1] == (sessions["one"], "<reset>")


def test_a_crashing_turn_becomes_a_message(scripted: tuple[ScriptedAdvisor, str]) -> None:
    advisor, url = scripted
    advisor.fail_next = True
    chat, *_, turn = client(url).predict("boom?", [], api_name="/chat")
    assert texts(chat[-1]) == "⚠️ RuntimeError: the planner fell over"
    assert "Traceback" not in texts(chat[-1]) and turn.endswith("failed")


def test_real_advisor_answers_and_follows_up_through_the_api(real_app: str) -> None:
    from tools.vram import VramRequest, estimate_vram

    api = client(real_app)
    history: list = []
    for question, context in (("用 QLoRA 微调 Qwen2.5-7B 需要多少显存？", 2048), ("What about 32k context?", 32768)):
        history, *_ = api.predict(question, history, api_name="/chat")
        calls = [m for m in history if "Memory estimate" in ((m.get("metadata") or {}).get("title") or "")]
        every = [json.loads(texts(c).split("```json\n", 1)[1].split("\n```", 1)[0]) for c in calls]
        # the asked job's last estimate (a fine-tune's answer also sizes the other methods after it)
        job = (every[0].get("model"), every[0].get("mode"))
        args = [a for a in every if (a.get("model"), a.get("mode")) == job][-1]
        assert args["context_tokens"] == context and args["mode"] == "qlora"
        want = estimate_vram(VramRequest(**args)).per_gpu_gib
        assert f"{want:.1f} GiB" in texts(history[-2]) + texts(history[-1])


def test_calculator_endpoints(real_app: str, tmp_path: Path) -> None:
    from tools.vram import VramRequest, estimate_vram

    api = client(real_app)
    md, _, data = api.predict(
        "Qwen2.5-7B", None, "qlora", "", "", 2048, 1, 1, True, "", "0", 16, "RTX 4090", api_name="/vram"
    )
    want = estimate_vram(VramRequest(model="Qwen2.5-7B", mode="qlora", context_tokens=2048, grad_checkpointing=True))
    assert data["per_gpu_gib"] == want.per_gpu_gib and f"{want.per_gpu_gib:.2f} GiB per GPU" in md
    md, table, *_ = api.predict(24, None, "USD", "", "", ["bf16"], "price_per_gib", 5, api_name="/gpus")
    assert "5" in md and len(table["data"]) == 5
    md, _, data = api.predict("RTX 4090", 4, 3, 0.5, "CNY", None, None, None, api_name="/tco")
    assert data["break_even_month"] is None or f"**{data['break_even_month']}**" in md
    md, data = api.predict("RTX 4090", 2, "training", api_name="/build")
    assert data["psu_w"] and "power supply" in md
    md, data = api.predict("Llama-3.1-8B", None, "RTX 4090", 1, "inference", "lora", "", 4096, 1, api_name="/speed")
    assert data["decode_tokens_per_s"] > 0
    md, table = api.predict(
        "Qwen2.5-7B", None, "lora", "", None, None, 15000, None, "CNY", "either", "balanced", api_name="/recommend"
    )
    assert len(table["data"]) > 0
    results = api.predict("does the RTX 4090 support NVLink?", api_name="/search")
    assert "NVLink" in results
