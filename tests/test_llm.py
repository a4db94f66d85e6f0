"""The LLM factory, error descriptions and "test connection", against the scripted server."""

from __future__ import annotations

import asyncio
import json
import socket
import subprocess
import sys
import time

import pytest

from sonetto_desktop.agent.llm import LOCAL_DUMMY_KEY, build_llm, get_default_llm, test_connection
from sonetto_desktop.agent.llm_errors import (CODES, LLMNotConfigured, describe_llm_error, error_info,
                                              retry_after_seconds, scrub)
from sonetto_desktop.config.settings import Settings

KEY = "sk-proj-SECRETSECRET-0123456789"


def closed_port_url() -> str:
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    port = sock.getsockname()[1]
    sock.close()
    return f"http://127.0.0.1:{port}/v1"


def settings_for(server, **kw) -> Settings:
    values = {"base_url": server.base_url, "model": "test-model", "api_key": KEY, "request_timeout": 5.0}
    values.update(kw)
    return Settings(**values)


def tiny_limit(request: dict) -> int | None:
    """The output-token limit of a request (langchain-openai sends max_tokens as max_completion_tokens)."""
    return request.get("max_completion_tokens", request.get("max_tokens"))


def assert_no_key(*texts: str) -> None:
    for text in texts:
        assert KEY not in text
        assert "SECRETSECRET" not in text


# -- build_llm / get_default_llm ----------------------------------------------------------------


def test_build_llm_none_when_unconfigured():
    assert build_llm(Settings()) is None
    assert build_llm(Settings(model="m")) is None
    assert get_default_llm() is None


def test_build_llm_uses_settings(llm_server):
    llm = build_llm(settings_for(llm_server, temperature=0.3), timeout=7, max_retries=3)
    assert llm.model_name == "test-model"
    assert llm.openai_api_base == llm_server.base_url
    assert llm.openai_api_key.get_secret_value() == KEY
    assert llm.temperature == 0.3
    assert llm.request_timeout == 7
    assert llm.max_retries == 3
    assert KEY not in repr(llm)
    llm_server.add_text("你好")
    assert llm.invoke("hi").content == "你好"
    assert llm_server.last_request()["temperature"] == 0.3
    assert llm_server.headers[-1]["authorization"] == f"Bearer {KEY}"


async def test_build_llm_streaming(llm_server):
    llm = build_llm(settings_for(llm_server), streaming=True)
    llm_server.add_text("一二三四五六七")
    reply = await llm.ainvoke("hi")
    assert reply.content == "一二三四五六七"
    assert llm_server.last_request()["stream"] is True


def test_local_server_gets_dummy_key(llm_server):
    llm = build_llm(Settings(base_url=llm_server.base_url, model="qwen2.5"))
    llm_server.add_text("ok")
    assert llm.invoke("hi").content == "ok"
    assert llm_server.headers[-1]["authorization"] == f"Bearer {LOCAL_DUMMY_KEY}"


def test_key_only_goes_to_openai():
    llm = build_llm(Settings(api_key=KEY, model="gpt-4o-mini"))
    assert llm.openai_api_base == "https://api.openai.com/v1"


def test_get_default_llm_from_env(llm_server, monkeypatch):
    monkeypatch.setenv("SONETTO_BASE_URL", llm_server.base_url)
    monkeypatch.setenv("SONETTO_MODEL", "env-model")
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    llm = get_default_llm()
    llm_server.add_text("来自环境变量")
    assert llm.invoke("hi").content == "来自环境变量"
    assert llm_server.last_request()["model"] == "env-model"


def test_get_default_llm_from_saved_settings(llm_server):
    settings_for(llm_server, model="saved-model").save()
    llm = get_default_llm(streaming=True)
    llm_server.add_text("ok")
    assert llm.invoke("hi").content == "ok"
    assert llm_server.last_request()["model"] == "saved-model"
    assert llm_server.headers[-1]["authorization"] == f"Bearer {KEY}"


def test_importing_llm_module_does_not_import_langchain_openai():
    code = (
        "import sys, sonetto_desktop.agent.llm, sonetto_desktop.config.settings, sonetto_desktop.config.secrets;"
        "print(json.dumps(sorted(m for m in sys.modules if m.split('.')[0] in ('langchain_openai', 'openai'))))"
    )
    out = subprocess.run([sys.executable, "-c", "import json;" + code], capture_output=True, text=True, check=True)
    assert json.loads(out.stdout) == []


# -- describe_llm_error with real exceptions from the real client --------------------------------


async def failure_of(make_llm, **kw) -> BaseException:
    with pytest.raises(Exception) as info:
        await make_llm(api_key=KEY, **kw).ainvoke("hi")
    return info.value


@pytest.mark.parametrize(
    ("script", "code", "status"),
    [
        (lambda s: s.add_error(401, f"Incorrect API key provided: {KEY}"), "auth", 401),
        (lambda s: s.add_error(403, "forbidden"), "auth", 403),
        (lambda s: s.add_error(429, "Rate limit reached"), "rate_limit", 429),
        (lambda s: s.add_error(402, "Insufficient Balance"), "rate_limit", 402),
        (lambda s: s.add_error(500, f"boom with {KEY}"), "server", 500),
        (lambda s: s.add_error(503, "overloaded"), "server", 503),
        (lambda s: s.add_error(404, "The model `nope` does not exist"), "unknown_model", 404),
        (lambda s: s.add_error(404, "Not Found", code="not_found"), "bad_response", 404),
        # a refusal in the server's own words (an OpenAI-style error body): said with those words
        (lambda s: s.add_error(400, "bad param"), "refused", 400),
        # Servers refuse a wrong key or an unknown model with a 400 / 404 / 422 too: said by their words.
        (lambda s: s.add_error(400, "Invalid API key provided"), "auth", 400),
        (lambda s: s.add_error(400, "Authentication Fails (no such user)", code="invalid_request_error"), "auth", 400),
        (lambda s: s.add_error(422, "Unauthorized: token is invalid"), "auth", 422),
        (lambda s: s.add_error(400, "The model `nope` does not exist"), "unknown_model", 400),
        (lambda s: s.add_error(400, "Model Not Exist"), "unknown_model", 400),
        (lambda s: s.add_error(404, "model 'nope' not found, try pulling it first"), "unknown_model", 404),
        (lambda s: s.add_error(422, "invalid model name: nope"), "unknown_model", 422),
    ],
)
async def test_status_errors(llm_server, make_llm, script, code, status):
    script(llm_server)
    exc = await failure_of(make_llm)
    info = describe_llm_error(exc, api_key=KEY, model="nope")
    assert info.code == code
    assert f"HTTP {status}" in info.zh and f"HTTP {status}" in info.en
    assert_no_key(info.zh, info.en, info.detail)


async def test_a_rate_limit_says_when_it_can_be_tried_again(llm_server, make_llm):
    from llm_payloads import ErrorResponse

    llm_server.add(ErrorResponse(429, "Rate limit reached", "requests", "rate_limit_exceeded", 30_000))
    info = describe_llm_error(await failure_of(make_llm))
    assert info.code == "rate_limit"
    assert "约 30 秒后再试" in info.zh and "about 30 s" in info.en
    llm_server.add(ErrorResponse(429, "Rate limit reached", "requests", "rate_limit_exceeded", 600_000))
    info = describe_llm_error(await failure_of(make_llm))
    assert "约 10 分钟后再试" in info.zh and "about 10 min" in info.en
    llm_server.add(ErrorResponse(429, "Rate limit reached", "requests", "rate_limit_exceeded", 10))
    info = describe_llm_error(await failure_of(make_llm))  # a wait shorter than a second: not said
    assert "服务要求" not in info.zh and "try again in" not in info.en


def test_retry_after_is_read_in_each_of_its_forms():
    from email.utils import formatdate

    assert retry_after_seconds({"retry-after-ms": "1500", "retry-after": "9"}) == 1.5
    assert retry_after_seconds({"retry-after": "20"}) == 20.0
    assert 55 <= retry_after_seconds({"retry-after": formatdate(time.time() + 60, usegmt=True)}) <= 60
    assert retry_after_seconds({"retry-after": "soon"}) is None
    assert retry_after_seconds({}) is None and retry_after_seconds(None) is None


async def test_server_error_details_are_shown(llm_server, make_llm):
    llm_server.add_error(402, "Insufficient Balance")
    info = describe_llm_error(await failure_of(make_llm), api_key=KEY)
    assert "Insufficient Balance" in info.zh and "Insufficient Balance" in info.en


async def test_unknown_model_names_the_model(llm_server, make_llm):
    llm_server.strict_models = True
    info = describe_llm_error(await failure_of(make_llm, model="gpt-nope"), api_key=KEY, model="gpt-nope")
    assert info.code == "unknown_model"
    assert "gpt-nope" in info.zh and "gpt-nope" in info.en


async def test_timeout(llm_server, make_llm):
    llm_server.add_hang(10)
    info = describe_llm_error(await failure_of(make_llm, timeout=0.3), api_key=KEY)
    assert info.code == "timeout"


async def test_unreachable(make_llm):
    info = describe_llm_error(await failure_of(make_llm, base_url=closed_port_url()), api_key=KEY)
    assert info.code == "unreachable"
    assert "连不上" in info.zh and "reach" in info.en


async def test_garbage_is_bad_response(llm_server, make_llm):
    llm_server.add_garbage()
    assert describe_llm_error(await failure_of(make_llm), api_key=KEY).code == "bad_response"


async def test_malformed_stream_is_bad_response(llm_server, make_llm):
    llm_server.add_malformed_stream()
    with pytest.raises(Exception) as info:
        async for _ in make_llm(api_key=KEY).astream("hi"):
            pass
    assert describe_llm_error(info.value, api_key=KEY).code == "bad_response"


def test_unconfigured():
    assert describe_llm_error(None).code == "unconfigured"
    info = describe_llm_error(LLMNotConfigured())
    assert info.code == "unconfigured" and "设置" in info.zh and "Settings" in info.en


def test_plain_python_exceptions():
    assert describe_llm_error(asyncio.TimeoutError()).code == "timeout"
    assert describe_llm_error(ConnectionRefusedError()).code == "unreachable"
    assert describe_llm_error(json.JSONDecodeError("x", "doc", 0)).code == "bad_response"


def test_wrapped_exception_is_found_in_the_chain():
    try:
        try:
            raise ConnectionResetError("reset")
        except ConnectionResetError as inner:
            raise RuntimeError(f"graph failed, key {KEY}") from inner
    except RuntimeError as outer:
        info = describe_llm_error(outer, api_key=KEY)
    assert info.code == "unreachable"


def test_a_tool_loop_has_its_own_words():
    from langgraph.errors import GraphRecursionError

    info = describe_llm_error(RuntimeError("graph failed").with_traceback(None))
    assert info.code == "bad_response"
    try:
        try:
            raise GraphRecursionError("Recursion limit of 40 reached")
        except GraphRecursionError as inner:
            raise RuntimeError("run failed") from inner
    except RuntimeError as outer:
        info = describe_llm_error(outer)
    assert info.code == "tool_loop" and "/v1" not in info.zh and "反复调用工具" in info.zh


def test_unrecognised_exception_never_leaks_key():
    info = describe_llm_error(RuntimeError(f"weird failure, Authorization: Bearer {KEY}"), api_key=KEY)
    assert info.code == "bad_response"
    assert "weird failure" in info.detail
    assert_no_key(info.zh, info.en, info.detail)


def test_every_code_has_both_languages():
    for code in CODES:
        info = error_info(code)
        assert info.code == code and info.zh and info.en and info.zh != info.en


def test_scrub():
    assert scrub(f"a {KEY} b", [KEY]) == "a *** b"
    assert scrub("key sk-abc***wxyz seen", []) == "key *** seen"
    assert scrub("Authorization: Bearer abc.def", []) == "Authorization: Bearer ***"
    assert scrub("nothing secret here", [""]) == "nothing secret here"
    assert scrub("my-own-key-text", ["own-key-text"]) == "my-***"


# -- test_connection ----------------------------------------------------------------------------


async def test_connection_ok(llm_server):
    llm_server.models = ["test-model", "other"]
    llm_server.add_text("p")
    llm_server.add_tool_calls([("save_note", {"note": "ok"})])
    result = await test_connection(settings_for(llm_server))
    assert result.ok and result.code == "ok" and result.tools == "calls" and not result.warning
    assert result.models == ["test-model", "other"]
    assert result.latency_ms is not None and result.latency_ms > 0
    ping, probe = llm_server.requests
    assert tiny_limit(ping) == 1 and ping["messages"] == [{"role": "user", "content": "ping"}]
    assert [t["function"]["name"] for t in probe["tools"]] == ["save_note"]
    assert "test-model" in result.zh and "工具" in result.zh


async def test_connection_warns_when_the_provider_has_announced_the_models_shutdown(llm_server):
    # OpenAI's GET /models gives a retiring model its ``shutdown_date`` (gpt-4o-mini: 2027-01-14).
    llm_server.models = ["test-model", "newer-model"]
    llm_server.shutdown_dates = {"test-model": "2027-01-14", "newer-model": "not a date"}
    llm_server.add_text("p")
    llm_server.add_tool_calls([("save_note", {"note": "ok"})])
    result = await test_connection(settings_for(llm_server))
    assert result.ok and result.tools == "calls" and result.shutdown == "2027-01-14" and result.warning
    assert "将于 2027年1月14日 停用" in result.zh and "shuts down on 14 January 2027" in result.en

    llm_server.shutdown_dates = {"newer-model": "2027-03-01"}  # another model's date is not this one's
    llm_server.add_text("p")
    llm_server.add_tool_calls([("save_note", {"note": "ok"})])
    result = await test_connection(settings_for(llm_server))
    assert result.ok and result.shutdown == "" and not result.warning and "停用" not in result.zh


async def test_connection_warns_when_the_model_answers_in_words_instead_of_calling_the_tool(llm_server):
    # A model or server that ignores tools (llama.cpp without --jinja, a model without a tool
    # template): the chat works, but the memory writer would never write anything.
    llm_server.add_text("p")
    llm_server.add_text('<tool_call>{"name": "save_note", "arguments": {"note": "ok"}}</tool_call>')
    result = await test_connection(settings_for(llm_server))
    assert result.ok and result.tools == "text" and result.warning
    assert "不会被写入" in result.zh and "nothing would be remembered" in result.en


async def test_connection_warns_when_the_server_refuses_tools(llm_server):
    llm_server.add_text("p")
    llm_server.add_error(400, "registry.ollama.ai/library/gemma:2b does not support tools")
    result = await test_connection(settings_for(llm_server))
    assert result.ok and result.tools == "refused" and result.warning
    assert "不支持工具调用" in result.zh and "does not support tool calling" in result.en


async def test_connection_that_cannot_check_tools_says_so_without_a_warning(llm_server):
    llm_server.add_text("p")
    llm_server.add_error(503, "overloaded")
    result = await test_connection(settings_for(llm_server))
    assert result.ok and result.tools == "unknown" and not result.warning
    assert "未能确认" in result.zh


async def test_connection_auth(llm_server):
    llm_server.add_error(401, f"Incorrect API key provided: {KEY}")
    result = await test_connection(settings_for(llm_server))
    assert not result.ok and result.code == "auth"
    assert_no_key(result.zh, result.en)


async def test_a_gateway_refusing_in_its_own_words_is_not_a_wrong_base_url(llm_server):
    """LiteLLM's proxy answers a key it cannot check with HTTP 400 "No connected db." (issue 38 item 10):
    before, that was worded as a reply that could not be understood, with the "/v1" advice."""
    for _ in range(2):  # the check asks again without max_tokens after a 400
        llm_server.add_error(400, "No connected db.", type="no_db_connection", code="400")
    result = await test_connection(settings_for(llm_server))
    assert not result.ok and result.code == "refused"
    assert "No connected db." in result.zh and "No connected db." in result.en
    assert "/v1" not in result.zh and "/v1" not in result.en and "API 密钥" in result.zh
    assert_no_key(result.zh, result.en)


async def test_connection_unknown_model_from_list(llm_server):
    llm_server.models = ["qwen-plus", "qwen-max"]
    llm_server.strict_models = True
    result = await test_connection(settings_for(llm_server, model="qwen-pluss"))
    assert not result.ok and result.code == "unknown_model"
    assert "qwen-pluss" in result.zh and "qwen-plus" in result.zh and "qwen-max" in result.en
    assert result.models == ["qwen-plus", "qwen-max"]


async def test_connection_unknown_model_without_listing(llm_server):
    llm_server.models = None  # GET /models answers 404, like some servers
    llm_server.add_error(404, "model 'llama9' not found, try pulling it first")
    result = await test_connection(settings_for(llm_server, model="llama9"))
    assert result.code == "unknown_model" and result.models == []


async def test_connection_model_missing_from_list_but_answering(llm_server):
    llm_server.models = ["qwen2.5:latest"]
    llm_server.add_text("p")
    result = await test_connection(settings_for(llm_server, model="qwen2.5"))
    assert result.ok  # Ollama's implicit :latest tag
    llm_server.models = ["something-else"]
    llm_server.add_text("p")
    result = await test_connection(settings_for(llm_server, model="alias"))
    assert result.ok and "列表" in result.zh


async def test_connection_unreachable():
    result = await test_connection(Settings(base_url=closed_port_url(), model="m", api_key=KEY))
    assert not result.ok and result.code == "unreachable"


async def test_connection_timeout(llm_server):
    llm_server.add_hang(10)
    result = await test_connection(settings_for(llm_server), timeout=0.5)
    assert not result.ok and result.code == "timeout"


async def test_connection_timeout_on_model_list(llm_server):
    llm_server.delay = 2.0
    result = await test_connection(settings_for(llm_server, request_timeout=0.4))
    assert result.code == "timeout"
    assert llm_server.requests == []  # it stopped before the chat call


async def test_connection_server_error(llm_server):
    llm_server.add_error(500, "internal")
    result = await test_connection(settings_for(llm_server))
    assert result.code == "server" and "internal" in result.zh


async def test_connection_unconfigured_and_bad_url():
    result = await test_connection(Settings())
    assert not result.ok and result.code == "unconfigured"
    result = await test_connection(Settings(base_url="localhost:1234/v1", model="m"))
    assert not result.ok and result.code == "unconfigured" and "http://" in result.zh


async def test_connection_retries_without_max_tokens_on_400(llm_server):
    llm_server.add_error(400, "max_tokens is too small")
    llm_server.add_text("pong")
    result = await test_connection(settings_for(llm_server))
    assert result.ok
    assert tiny_limit(llm_server.requests[0]) == 1
    assert tiny_limit(llm_server.requests[1]) is None


def test_a_connection_check_imports_and_makes_tls_contexts_off_the_loop(llm_server):
    # The settings dialog runs it on the UI's loop: the first check imported the OpenAI client and
    # LangChain there (a 0.7 s freeze in a fresh process) and made two TLS contexts.
    import json
    import subprocess
    import sys
    from pathlib import Path

    llm_server.add_text("pong")
    llm_server.add_tool_calls([("save_note", {"note": "ok"})])
    child = Path(__file__).with_name("connection_check_child.py")
    done = subprocess.run([sys.executable, str(child), llm_server.base_url], capture_output=True, text=True,
                          timeout=60)
    assert done.returncode == 0, done.stderr
    out = json.loads(done.stdout.strip().splitlines()[-1])
    assert out["ok"] is True and out["tools"] == "calls"
    assert set(out["loop_thread_work"]) <= {"concurrent.futures.thread", "queue", "_queue"}, out["loop_thread_work"]


@pytest.mark.parametrize("api", ["ollama", "lm-studio", None])
async def test_the_models_offered_after_an_unknown_model_are_the_ones_that_chat(llm_server, api):
    """A local server with nomic-embed-text pulled beside the chat model, and a model name mistyped: the
    test said "服务上可用的模型：nomic-embed-text、qwen2.5:7b" (and offered both in the model list): picking
    the first made every message fail. The models the server says only embed are left out (its own API
    says which; a server that says nothing, by the name)."""
    llm_server.models = ["nomic-embed-text", "qwen2.5:7b"]
    llm_server.embedding_models = ["nomic-embed-text"]
    llm_server.context_api = api
    llm_server.strict_models = True
    result = await test_connection(settings_for(llm_server, model="qwen2.5:7"))
    assert not result.ok and result.code == "unknown_model"
    assert result.models == ["qwen2.5:7b"]
    assert "服务上可用的模型：qwen2.5:7b" in result.zh and "nomic" not in result.zh + result.en, result.zh
