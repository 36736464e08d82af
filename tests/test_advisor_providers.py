"""The Advisor facade over real HTTP: ChatOpenAI / ChatOllama clients against scripted local servers."""

import socket

import pytest
from fakes import malformed_tool_call, status, text, tool_call
from fakes.ollama_server import FakeOllamaServer
from fakes.openai_server import FakeOpenAIServer

from assistant.advisor import Advisor
from assistant.events import ErrorEvent, FinalEvent, TextEvent, ToolCallEvent, ToolResultEvent
from assistant.settings import settings_from

KEY = "sk-test-secret-0123456789"


def openai_settings(server, **kw):
    return settings_from(
        {
            "provider": "openai:fake-model",
            "base_url": server.base_url,
            "api_key": KEY,
            "timeout_s": 5,
            "max_retries": 0,
            **kw,
        }
    )


def test_openai_tool_call_runs_the_real_tool_and_streams_the_answer(knowledge_dir):
    script = [
        tool_call("estimate_vram", {"model": "qwen2.5-7b", "mode": "qlora", "context_tokens": 2048}),
        text("Qwen2.5-7B QLoRA needs about 10.3 GiB per GPU."),
    ]
    with FakeOpenAIServer(script) as server:
        advisor = Advisor(openai_settings(server))
        events = list(advisor.stream_turn("s1", "Qwen2.5-7B QLoRA memory?"))
    calls = [e for e in events if isinstance(e, ToolCallEvent)]
    results = [e for e in events if isinstance(e, ToolResultEvent)]
    final = events[-1]
    assert calls[0].name == "estimate_vram" and calls[0].args["mode"] == "qlora"
    assert results[0].ok and results[0].result.per_gpu_gib > 0
    assert any(isinstance(e, TextEvent) for e in events)
    assert isinstance(final, FinalEvent) and final.provider.startswith("openai")
    assert "10.3" in final.answer
    first, second = server.chat_requests[0], server.chat_requests[1]
    assert first.headers["authorization"] == f"Bearer {KEY}"
    assert any(t["function"]["name"] == "estimate_vram" for t in first.body["tools"])
    assert second.body["messages"][-1]["role"] == "tool"
    assert "per_gpu_gib" in second.body["messages"][-1]["content"]


def test_tool_validation_error_goes_back_to_the_model(knowledge_dir):
    script = [
        tool_call("estimate_vram", {"model": "qwen2.5-7b", "context_tokens": -5}),
        tool_call("estimate_vram", {"model": "qwen2.5-7b", "context_tokens": 4096}),
        text("Fixed: 16.0 GiB."),
    ]
    with FakeOpenAIServer(script) as server:
        final = Advisor(openai_settings(server)).ask("s2", "memory for qwen 7b?")
    tool_msg = server.chat_requests[1].body["messages"][-1]
    assert tool_msg["role"] == "tool" and "error" in tool_msg["content"] and "context_tokens" in tool_msg["content"]
    assert "Traceback" not in tool_msg["content"]
    assert final.tool_calls[0].error and final.tool_calls[1].result


def test_ollama_protocol(knowledge_dir):
    script = [tool_call("gpu_specs", {"names": ["4090"]}), text("The RTX 4090 has 24 GiB.")]
    with FakeOllamaServer(script) as server:
        settings = settings_from({"provider": "ollama:qwen2.5:7b", "ollama_host": server.url, "timeout_s": 5})
        final = Advisor(settings).ask("s3", "4090 memory?")
    assert final.provider.startswith("ollama")
    assert final.tool_calls[0].name == "gpu_specs" and final.tool_calls[0].result.gpus[0].vram_gib == 24
    assert "24 GiB" in final.answer


@pytest.mark.parametrize(("turns", "kind"), [([status(401)], "auth"), ([status(500)] * 3, "server")])
def test_failures_become_messages_and_fall_back_offline(knowledge_dir, turns, kind):
    with FakeOpenAIServer(turns) as server:
        events = list(Advisor(openai_settings(server)).stream_turn("s4", "Qwen2.5-7B QLoRA 微调需要多少显存？"))
    errors = [e for e in events if isinstance(e, ErrorEvent)]
    final = events[-1]
    assert errors and errors[0].kind == kind
    assert KEY not in errors[0].message
    assert isinstance(final, FinalEvent) and final.fell_back and final.provider == "offline"
    assert any(c.name == "estimate_vram" for c in final.tool_calls)


def test_connection_refused_without_fallback_is_a_clear_answer(knowledge_dir):
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    settings = settings_from(
        {
            "provider": "openai:x",
            "base_url": f"http://127.0.0.1:{port}/v1",
            "api_key": KEY,
            "timeout_s": 2,
            "max_retries": 0,
            "fallback_offline": False,
        }
    )
    advisor = Advisor(settings)
    final = advisor.ask("s5", "hello")
    assert "refused" in final.answer or "connect" in final.answer.lower()
    assert KEY not in final.answer
    # the session stays usable: the next turn works with the offline planner
    ok = advisor.ask("s5", "How much memory for Qwen2.5-7B inference?", provider="offline")
    assert any(c.name == "estimate_vram" for c in ok.tool_calls)


def test_malformed_tool_call_json_never_crashes_the_turn(knowledge_dir):
    """Streaming ChatOpenAI repairs cut-off arguments into a partial call; the tool's validation then decides."""
    with FakeOpenAIServer([malformed_tool_call(), text("Here is what I could compute.")]) as server:
        events = list(Advisor(openai_settings(server)).stream_turn("s6", "Qwen2.5-7B memory?"))
    final = events[-1]
    assert isinstance(final, FinalEvent) and final.answer
    errors = [e for e in events if isinstance(e, ErrorEvent)]
    assert errors or final.tool_calls  # either reported as a bad response, or the partial call was validated
    assert all("Traceback" not in e.message for e in errors)
