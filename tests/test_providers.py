"""Providers over real HTTP: the real ChatOpenAI / ChatOllama clients against scripted loopback servers."""

from __future__ import annotations

import logging
import socket
import time
from typing import Literal

import pytest
from fakes import (
    Turn,
    delay,
    drop,
    garbage,
    malformed_tool_call,
    status,
    text,
    tool_call,
    tool_calls,
)
from fakes.ollama_server import FakeOllamaServer
from fakes.openai_server import FakeOpenAIServer
from langchain_core.language_models.fake_chat_models import FakeListChatModel
from langchain_core.messages import AIMessage, HumanMessage, ToolMessage
from langchain_core.tools import StructuredTool
from pydantic import BaseModel, Field, ValidationError

from assistant.providers import (
    LlmFailure,
    ProviderError,
    ProviderSpec,
    SecretRedactingFilter,
    build_chat_model,
    describe_llm_failure,
    endpoint_of,
    invalid_tool_call_failure,
    parse_provider,
    redact,
)
from assistant.settings import Settings, settings_from

KEY = "sk-test-Zq7xW2vB9nK4pL6mR1tY"
QUESTION = "Can I QLoRA fine-tune Qwen2.5-7B on a 12 GB card?"


@pytest.fixture(autouse=True)
def isolated_env(monkeypatch: pytest.MonkeyPatch, tmp_path) -> None:
    """No real configuration, keys or proxies leak in; a stray .env in the repo is not read."""
    import os

    for name in list(os.environ):
        if name.startswith(("GPU_ADVISOR_", "OPENAI_", "OLLAMA_", "LANGSMITH_", "LANGCHAIN_")) or name.lower() in {
            "http_proxy",
            "https_proxy",
            "all_proxy",
        }:
            monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("NO_PROXY", "127.0.0.1,localhost")
    monkeypatch.chdir(tmp_path)


class EstimateVramArgs(BaseModel):
    model: str = Field(description="model name, e.g. qwen2.5-7b")
    mode: Literal["inference", "lora", "qlora", "full"] = Field("inference", description="what the GPU does")


class GpuSpecsArgs(BaseModel):
    names: list[str] = Field(description="GPU names, e.g. ['4090', 'A100 80G']")


def _estimate_vram(model: str, mode: str = "inference") -> str:
    return f"{model} {mode}: total 10.3 GiB"


def _gpu_specs(names: list[str]) -> str:
    return ", ".join(f"{n}: 24 GiB" for n in names)


TOOLS = [
    StructuredTool.from_function(
        _estimate_vram, name="estimate_vram", description="GPU memory for a model", args_schema=EstimateVramArgs
    ),
    StructuredTool.from_function(_gpu_specs, name="gpu_specs", description="GPU spec sheet", args_schema=GpuSpecsArgs),
]
TOOLS_BY_NAME = {t.name: t for t in TOOLS}


def openai_model(server: FakeOpenAIServer, **overrides):
    settings = settings_from(
        {"provider": "openai:fake-model", "base_url": server.base_url, "api_key": KEY, "max_retries": 0}
        | {"timeout_s": 5}
        | overrides
    )
    return build_chat_model(settings, _no_offline)


def ollama_model(server: FakeOllamaServer, **overrides):
    settings = settings_from(
        {"provider": "ollama:qwen2.5:7b", "ollama_host": server.base_url, "timeout_s": 5} | overrides
    )
    return build_chat_model(settings, _no_offline)


def _no_offline():
    raise AssertionError("the offline model must not be built here")


def unused_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def failure_of(fn) -> LlmFailure:
    with pytest.raises(Exception) as info:
        fn()
    return describe_llm_failure(info.value)


def aggregate(stream):
    chunks = list(stream)
    total = chunks[0]
    for chunk in chunks[1:]:
        total = total + chunk
    return chunks, total


# --- provider strings and settings ------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("spec", "expected"),
    [
        ("offline", ProviderSpec("offline")),
        (" OpenAI:gpt-4o-mini ", ProviderSpec("openai", "gpt-4o-mini")),
        ("ollama:qwen2.5:7b", ProviderSpec("ollama", "qwen2.5:7b")),
        ("openai:Qwen/Qwen2.5-7B-Instruct", ProviderSpec("openai", "Qwen/Qwen2.5-7B-Instruct")),
    ],
)
def test_parse_provider(spec, expected):
    assert parse_provider(spec) == expected
    assert parse_provider(str(expected)) == expected


@pytest.mark.parametrize(
    ("spec", "hint"),
    [
        ("", "no provider"),
        ("gpt4", "use one of: offline, openai:"),
        ("openai", "needs a model name, e.g. 'openai:gpt-4o-mini'"),
        ("ollama:", "needs a model name, e.g. 'ollama:qwen2.5:7b'"),
        ("openai/gpt-4o", "did you mean 'openai:gpt-4o'"),
        ("offline:smart", "takes no model name"),
    ],
)
def test_parse_provider_errors_say_what_to_do(spec, hint):
    with pytest.raises(ProviderError) as info:
        parse_provider(spec)
    assert hint in str(info.value)


def test_settings_from_env_dotenv_and_overrides(monkeypatch, tmp_path):
    (tmp_path / ".env").write_text("GPU_ADVISOR_PROVIDER=ollama:qwen2.5:7b\nGPU_ADVISOR_TIMEOUT_S=12\nOTHER=1\n")
    monkeypatch.setenv("GPU_ADVISOR_MAX_RETRIES", "4")
    settings = Settings()
    assert (settings.provider, settings.timeout_s, settings.max_retries) == ("ollama:qwen2.5:7b", 12, 4)
    assert settings.ollama_host == "http://127.0.0.1:11434" and settings.fallback_offline is True
    # CLI flags / UI fields win; flags the user did not give (None) keep the configured value.
    flagged = settings_from(
        {"provider": "OpenAI:deepseek-chat", "base_url": "https://api.deepseek.com/v1/", "timeout_s": None}
    )
    assert (flagged.provider, flagged.base_url, flagged.timeout_s) == (
        "openai:deepseek-chat",
        "https://api.deepseek.com/v1",
        12,
    )
    with pytest.raises(ValueError, match=r"unknown setting.*modle"):
        settings_from({"modle": "x"})
    with pytest.raises(ValidationError, match="unknown provider 'gpt-4o'"):
        settings_from({"provider": "gpt-4o"})


def test_api_key_falls_back_to_openai_api_key(monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-from-openai-env-123")
    assert Settings(_env_file=None).api_key.get_secret_value() == "sk-from-openai-env-123"
    monkeypatch.setenv("GPU_ADVISOR_API_KEY", KEY)
    assert Settings(_env_file=None).api_key.get_secret_value() == KEY
    assert settings_from({"api_key": "  "}).api_key.get_secret_value() == KEY  # empty UI box keeps the key


def test_build_offline_and_config_errors():
    offline = FakeListChatModel(responses=["offline answer"])
    assert build_chat_model(settings_from({}), lambda: offline) is offline
    with pytest.raises(ProviderError, match="needs an API key — set GPU_ADVISOR_API_KEY"):
        build_chat_model(settings_from({"provider": "openai:gpt-4o-mini"}), _no_offline)


def test_chat_models_carry_timeout_retries_and_endpoint():
    settings = settings_from(
        {"provider": "openai:deepseek-chat", "base_url": "http://127.0.0.1:9/v1", "api_key": KEY}
        | {"timeout_s": 7.5, "max_retries": 3, "temperature": 0.2}
    )
    model = build_chat_model(settings, _no_offline)
    assert type(model).__name__ == "ChatOpenAI"
    assert (model.model_name, model.openai_api_base, model.request_timeout, model.max_retries) == (
        "deepseek-chat",
        "http://127.0.0.1:9/v1",
        7.5,
        3,
    )
    assert model.temperature == 0.2 and model.use_responses_api is False
    assert endpoint_of(settings) == "http://127.0.0.1:9/v1"
    ollama = build_chat_model(settings_from({"provider": "ollama:qwen2.5:7b", "timeout_s": 9}), _no_offline)
    assert type(ollama).__name__ == "ChatOllama"
    assert (ollama.model, ollama.base_url, ollama.client_kwargs["timeout"]) == (
        "qwen2.5:7b",
        "http://127.0.0.1:11434",
        9,
    )


def test_api_key_never_printed_or_logged(caplog):
    caplog.set_level(logging.DEBUG)
    settings = settings_from(
        {"provider": "openai:fake-model", "api_key": KEY, "base_url": "http://u:pw@127.0.0.1:1/v1"}
    )
    for shown in (repr(settings), str(settings), settings.model_dump_json(), str(settings.model_dump())):
        assert KEY not in shown
    echo = f"Incorrect API key provided: {KEY}. Authorization: Bearer {KEY}"
    with FakeOpenAIServer([status(401, message=echo), text("fine")]) as server:
        model = openai_model(server)
        assert KEY not in repr(model) and KEY not in str(model)
        with pytest.raises(Exception) as info:
            model.invoke(QUESTION)
        assert model.invoke(QUESTION).content == "fine"
        assert server.chat_requests[0].headers["authorization"] == f"Bearer {KEY}"
    failure = describe_llm_failure(info.value)
    assert failure.kind == "auth" and KEY not in failure.message
    assert KEY not in describe_llm_failure(RuntimeError(echo)).message  # even unknown errors are scrubbed
    assert len(caplog.records) > 5, "expected DEBUG logs from openai/httpx"
    assert all(KEY not in record.getMessage() for record in caplog.records)
    # Our own code may log an exception that quotes the server; a SecretRedactingFilter on handlers scrubs it.
    record = logging.LogRecord("assistant", logging.ERROR, __file__, 1, "LLM said: %s", (echo,), None)
    assert SecretRedactingFilter().filter(record) and KEY not in record.getMessage()


def test_redact_patterns():
    text_ = "key sk-abcdef123456 auth Bearer abc.def-123456 url http://me:hunter22@host/v1 api_key=zzzzzzzz"
    cleaned = redact(text_, secrets=["hunter22"])
    for secret in ("sk-abcdef123456", "abc.def-123456", "hunter22", "zzzzzzzz"):
        assert secret not in cleaned
    assert "http://me:***@host/v1" in cleaned


# --- OpenAI-compatible endpoint over HTTP -----------------------------------------------------------------


def test_openai_tool_calls_round_trip():
    script = [
        tool_call("estimate_vram", {"model": "qwen2.5-7b", "mode": "qlora"}),
        text("Final answer: QLoRA on Qwen2.5-7B needs about 10.3 GiB, so a 12 GB card fits."),
    ]
    with FakeOpenAIServer(script) as server:
        model = openai_model(server).bind_tools(TOOLS)
        messages = [HumanMessage(QUESTION)]
        first = model.invoke(messages)
        assert [(c["name"], c["args"]) for c in first.tool_calls] == [
            ("estimate_vram", {"model": "qwen2.5-7b", "mode": "qlora"})
        ]
        call = first.tool_calls[0]
        messages += [first, ToolMessage(TOOLS_BY_NAME[call["name"]].invoke(call["args"]), tool_call_id=call["id"])]
        final = model.invoke(messages)
        assert "10.3 GiB" in final.content and not final.tool_calls

        sent = server.chat_requests[0]
        assert sent.headers["authorization"] == f"Bearer {KEY}"
        assert sent.body["model"] == "fake-model" and sent.body["temperature"] == 0
        schemas = {t["function"]["name"]: t["function"]["parameters"] for t in sent.body["tools"]}
        assert set(schemas) == {"estimate_vram", "gpu_specs"}
        assert schemas["estimate_vram"]["properties"]["mode"]["enum"] == ["inference", "lora", "qlora", "full"]
        assert schemas["gpu_specs"]["required"] == ["names"]
        back = server.chat_requests[1].body["messages"]
        assert back[1]["tool_calls"][0]["function"]["name"] == "estimate_vram"
        assert back[2] == {"role": "tool", "tool_call_id": call["id"], "content": "qwen2.5-7b qlora: total 10.3 GiB"}


def test_openai_streams_text_and_split_tool_call_arguments():
    script = [
        tool_calls(("gpu_specs", {"names": ["4090", "A100 80G"]}), ("estimate_vram", {"model": "llama-3.1-70b"})),
        text("The RTX 4090 has 24 GiB of memory."),
    ]
    with FakeOpenAIServer(script) as server:
        model = openai_model(server).bind_tools(TOOLS)
        chunks, total = aggregate(model.stream(QUESTION))
        assert len(chunks) > 5  # arguments arrive in fragments across several chunks
        assert [(c["name"], c["args"]) for c in total.tool_calls] == [
            ("gpu_specs", {"names": ["4090", "A100 80G"]}),
            ("estimate_vram", {"model": "llama-3.1-70b"}),
        ]
        chunks, total = aggregate(model.stream(QUESTION))
        assert sum(1 for c in chunks if c.content) >= 3 and total.content == "The RTX 4090 has 24 GiB of memory."
        assert all(r.body["stream"] is True for r in server.chat_requests)


def test_openai_local_server_needs_no_key():
    with FakeOpenAIServer([text("hi")]) as server:
        settings = settings_from({"provider": "openai:fake-model", "base_url": server.base_url})
        assert build_chat_model(settings, _no_offline).invoke("hello").content == "hi"
        assert server.chat_requests[0].headers["authorization"] == "Bearer not-needed"


def test_openai_401_is_an_auth_failure_and_not_retried():
    with FakeOpenAIServer([status(401, message="invalid key"), text("unused")]) as server:
        failure = failure_of(lambda: openai_model(server, max_retries=2).invoke(QUESTION))
        assert len(server.chat_requests) == 1
    assert failure == LlmFailure("auth", "the API key was rejected (401) — check GPU_ADVISOR_API_KEY", False, 401)


def test_openai_429_then_success_is_retried_with_backoff():
    with FakeOpenAIServer([status(429, retry_after=0.2), text("after the rate limit")]) as server:
        assert openai_model(server, max_retries=2).invoke(QUESTION).content == "after the rate limit"
        first, second = server.chat_requests
        assert second.at - first.at >= 0.15  # the client honoured Retry-After


def test_openai_429_exhausted_reports_rate_limit():
    with FakeOpenAIServer([status(429, retry_after=0.1)]) as server:
        failure = failure_of(lambda: openai_model(server).invoke(QUESTION))
    assert (failure.kind, failure.retryable, failure.retry_after_s) == ("rate_limit", True, 0.1)
    assert "(429)" in failure.message and "wait 0.1 s" in failure.message


def test_openai_500_is_a_server_failure():
    with FakeOpenAIServer([status(500, message="model crashed")]) as server:
        failure = failure_of(lambda: openai_model(server).invoke(QUESTION))
    assert (failure.kind, failure.retryable) == ("server", True)
    assert (
        failure.message
        == f"the LLM endpoint {server.base_url} had a server error (500): model crashed — try again later"
    )


@pytest.mark.parametrize("streaming", [False, True])
def test_openai_connection_refused_is_quick_and_clear(streaming):
    url = f"http://127.0.0.1:{unused_port()}/v1"
    settings = settings_from({"provider": "openai:fake-model", "base_url": url, "max_retries": 0})
    model = build_chat_model(settings, _no_offline)
    started = time.monotonic()
    failure = failure_of(lambda: list(model.stream(QUESTION)) if streaming else model.invoke(QUESTION))
    assert time.monotonic() - started < 2
    assert failure == LlmFailure(
        "connection", f"the LLM endpoint {url} refused the connection — is the server running?", True
    )


@pytest.mark.parametrize("streaming", [False, True])
def test_openai_slow_server_times_out(streaming):
    with FakeOpenAIServer([delay(3)]) as server:
        model = openai_model(server, timeout_s=0.5)
        started = time.monotonic()
        with pytest.raises(Exception) as info:
            list(model.stream(QUESTION)) if streaming else model.invoke(QUESTION)
        assert time.monotonic() - started < 5
    failure = describe_llm_failure(info.value, timeout_s=0.5)
    assert (failure.kind, failure.retryable) == ("timeout", True)
    assert failure.message.startswith(f"the LLM endpoint {server.base_url} did not answer within 0.5 s")


def test_openai_malformed_tool_call_arguments():
    broken = '{"model": "qwen2.5-7b", "mode": qlora}'
    with FakeOpenAIServer([malformed_tool_call(raw_arguments=broken)] * 2) as server:
        model = openai_model(server).bind_tools(TOOLS)
        # LangChain does not raise: the call lands in invalid_tool_calls, with no valid tool_calls.
        for message in (model.invoke(QUESTION), aggregate(model.stream(QUESTION))[1]):
            assert not message.tool_calls
            assert [(c["name"], c["args"]) for c in message.invalid_tool_calls] == [("estimate_vram", broken)]
            failure = invalid_tool_call_failure(message)
            assert failure is not None and failure.kind == "bad_response"
            assert "estimate_vram" in failure.message
    assert invalid_tool_call_failure(AIMessage("fine")) is None


def test_openai_streaming_silently_repairs_truncated_arguments():
    """Pin LangChain's partial-JSON behaviour: a truncated stream yields a *valid* call missing the cut keys."""
    with FakeOpenAIServer([malformed_tool_call(raw_arguments='{"model": "qwen2.5-7b", "mode": ')] * 2) as server:
        model = openai_model(server).bind_tools(TOOLS)
        assert model.invoke(QUESTION).invalid_tool_calls
        streamed = aggregate(model.stream(QUESTION))[1]
        assert [(c["name"], c["args"]) for c in streamed.tool_calls] == [("estimate_vram", {"model": "qwen2.5-7b"})]


@pytest.mark.parametrize("streaming", [False, True])
def test_openai_dropped_connection(streaming):
    with FakeOpenAIServer([drop()]) as server:
        model = openai_model(server)
        failure = failure_of(lambda: list(model.stream(QUESTION)) if streaming else model.invoke(QUESTION))
    assert (failure.kind, failure.retryable) == ("connection", True)
    assert "closed the connection in the middle of the answer" in failure.message


@pytest.mark.parametrize("streaming", [False, True])
@pytest.mark.parametrize("content_type", ["application/json", "text/html"])
def test_openai_garbage_body_is_a_bad_response(streaming, content_type):
    with FakeOpenAIServer([garbage(content_type=content_type)]) as server:
        model = openai_model(server)
        failure = failure_of(lambda: list(model.stream(QUESTION)) if streaming else model.invoke(QUESTION))
    assert failure.kind == "bad_response", failure


def test_openai_models_route_and_exhausted_script():
    import httpx

    with FakeOpenAIServer(models=["qwen2.5-7b-instruct"]) as server:
        assert httpx.get(f"{server.base_url}/models").json()["data"][0]["id"] == "qwen2.5-7b-instruct"
        failure = failure_of(lambda: openai_model(server).invoke(QUESTION))
        assert failure.kind == "server" and "script exhausted" in failure.message


# --- Ollama over HTTP -------------------------------------------------------------------------------------


def test_ollama_tool_calls_round_trip_and_streaming():
    script = [
        tool_call("estimate_vram", {"model": "qwen2.5-7b", "mode": "qlora"}),
        text("QLoRA on Qwen2.5-7B needs about 10.3 GiB."),
        text("A streamed answer in several pieces."),
    ]
    with FakeOllamaServer(script) as server:
        model = ollama_model(server).bind_tools(TOOLS)
        first = model.invoke([HumanMessage(QUESTION)])
        assert [(c["name"], c["args"]) for c in first.tool_calls] == [
            ("estimate_vram", {"model": "qwen2.5-7b", "mode": "qlora"})
        ]
        call = first.tool_calls[0]
        result = ToolMessage(TOOLS_BY_NAME[call["name"]].invoke(call["args"]), tool_call_id=call["id"])
        final = model.invoke([HumanMessage(QUESTION), first, result])
        assert "10.3 GiB" in final.content
        chunks, total = aggregate(model.stream(QUESTION))
        assert len([c for c in chunks if c.content]) >= 3 and total.content == "A streamed answer in several pieces."

        sent = server.chat_requests[0].body
        assert sent["model"] == "qwen2.5:7b" and sent["stream"] is True  # ChatOllama always streams
        assert {t["function"]["name"] for t in sent["tools"]} == {"estimate_vram", "gpu_specs"}
        back = server.chat_requests[1].body["messages"]
        assert back[1]["tool_calls"][0]["function"] == {
            "name": "estimate_vram",
            "arguments": {"model": "qwen2.5-7b", "mode": "qlora"},
        }
        assert back[2]["role"] == "tool" and back[2]["content"] == "qwen2.5-7b qlora: total 10.3 GiB"


@pytest.mark.parametrize(
    ("turn", "kind", "words"),
    [
        (status(401, message="unauthorized"), "auth", "(401) — check OLLAMA_API_KEY"),
        (status(429), "rate_limit", "(429)"),
        (status(500, message="model requires more system memory"), "server", "requires more system memory"),
        (status(404, message="model 'qwen2.5:7b' not found"), "bad_request", "not found — run `ollama pull"),
        (delay(3), "timeout", "did not answer"),
        (drop(), "connection", "closed the connection"),
        (malformed_tool_call(), "bad_response", "tool call"),
        (garbage(), "bad_response", "not valid JSON"),
    ],
)
def test_ollama_failures(turn: Turn, kind, words):
    with FakeOllamaServer([turn]) as server:
        model = ollama_model(server, timeout_s=0.5).bind_tools(TOOLS)
        started = time.monotonic()
        failure = failure_of(lambda: model.invoke(QUESTION))
        assert time.monotonic() - started < 5
    assert failure.kind == kind and words in failure.message, failure


def test_ollama_is_not_retried_but_reports_retry_after():
    """ChatOllama has no retry option (max_retries drives the openai client only); the failure says how long to wait."""
    with FakeOllamaServer([status(429, retry_after=0.05), text("unused")]) as server:
        failure = failure_of(lambda: ollama_model(server, max_retries=3).invoke(QUESTION))
        assert len(server.chat_requests) == 1
    assert (failure.kind, failure.retryable, failure.retry_after_s) == ("rate_limit", True, 0.05)
    assert "the server asks to wait 0.05 s" in failure.message


def test_ollama_connection_refused():
    host = f"http://127.0.0.1:{unused_port()}"
    model = build_chat_model(settings_from({"provider": "ollama:qwen2.5:7b", "ollama_host": host}), _no_offline)
    failure = failure_of(lambda: model.invoke(QUESTION))
    assert failure.message == f"the LLM endpoint {host} refused the connection — is the server running?"
    assert describe_llm_failure(ConnectionError("Failed to connect to Ollama"), endpoint=host).kind == "connection"


def test_ollama_tags_and_show_for_model_validation():
    from langchain_ollama import ChatOllama

    with FakeOllamaServer(models=["qwen2.5:7b"]) as server:
        ChatOllama(model="qwen2.5:7b", base_url=server.base_url, validate_model_on_init=True)
        with pytest.raises(ValueError, match="not found in Ollama"):
            ChatOllama(model="llama3:70b", base_url=server.base_url, validate_model_on_init=True)


# --- the whole agent loop over HTTP (LangChain 1.x create_agent, streamed as the Advisor streams it) -------


def run_agent(model, question: str = QUESTION) -> tuple[list, list[str]]:
    from langchain.agents import create_agent

    agent = create_agent(model, tools=TOOLS, system_prompt="Numbers only from tools.")
    texts, final = [], None
    for mode, payload in agent.stream({"messages": [HumanMessage(question)]}, stream_mode=["messages", "values"]):
        if mode == "messages" and payload[0].type == "AIMessageChunk" and payload[0].content:
            texts.append(payload[0].content)
        elif mode == "values":
            final = payload["messages"]
    return final, texts


@pytest.mark.parametrize("server_class", [FakeOpenAIServer, FakeOllamaServer])
def test_agent_loop_runs_tools_over_http(server_class):
    script = [
        tool_call("estimate_vram", {"model": "qwen2.5-7b", "mode": "qlora"}),
        text("QLoRA on Qwen2.5-7B needs about 10.3 GiB, so a 12 GB card fits."),
    ]
    with server_class(script) as server:
        model = openai_model(server) if server_class is FakeOpenAIServer else ollama_model(server)
        messages, streamed = run_agent(model)
        assert "".join(streamed) == messages[-1].content  # the answer arrived as several streamed chunks
        assert len(streamed) >= 3
        assert [m.type for m in messages] == ["human", "ai", "tool", "ai"]
        assert messages[2].content == "qwen2.5-7b qlora: total 10.3 GiB"
        assert "10.3 GiB" in messages[-1].content
        sent_back = server.chat_requests[1].body["messages"]
        assert sent_back[0]["role"] == "system" and sent_back[-1]["role"] == "tool"


def test_agent_loop_ends_on_malformed_tool_call():
    """create_agent does not raise on broken arguments: the turn just ends; the caller must check."""
    with FakeOpenAIServer([malformed_tool_call(raw_arguments="not json")]) as server:
        messages, _ = run_agent(openai_model(server))
        assert len(server.chat_requests) == 1
    failure = invalid_tool_call_failure(messages[-1])
    assert failure is not None and failure.kind == "bad_response"


def test_agent_recursion_limit_is_described():
    from langgraph.errors import GraphRecursionError

    assert describe_llm_failure(GraphRecursionError("Recursion limit of 16 reached")).kind == "bad_response"


def test_provider_config_errors_are_described():
    failure = describe_llm_failure(ProviderError("'openai:gpt-4o' needs an API key — set GPU_ADVISOR_API_KEY"))
    assert (failure.kind, failure.retryable) == ("config", False) and "GPU_ADVISOR_API_KEY" in failure.message


def test_installed_redaction_scrubs_every_logger(caplog):
    from assistant.providers import install_log_redaction

    caplog.set_level(logging.WARNING)
    install_log_redaction()
    logging.getLogger("langchain_openai.some.module").warning("retrying with Authorization: Bearer %s", KEY)
    logging.getLogger("assistant.worker").error("the endpoint said: invalid key %s", KEY)
    assert "Bearer" in caplog.text and KEY not in caplog.text
