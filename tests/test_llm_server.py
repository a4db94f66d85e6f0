"""The scripted OpenAI-compatible server, exercised through the real langchain-openai client."""

from __future__ import annotations

import json
import threading
import urllib.request

import openai
import pytest
from langchain_core.messages import AIMessageChunk, HumanMessage
from langchain_core.tools import tool

from llm_server import ScriptedLLMServer, TextResponse, estimate_tokens


@tool
def create_memory(content: str, section: str) -> str:
    """记录一条关于用户的新记忆。"""
    return "ok"


@tool
def hit_memory(id: str) -> str:
    """标记一条记忆被用到了。"""
    return "ok"


CALLS = [("create_memory", {"content": "用户喜欢猫", "section": "身份"}), ("hit_memory", {"id": "m-1"})]


# -- plain text ---------------------------------------------------------------------------------


def test_invoke_returns_scripted_text_with_usage(llm_server, make_llm):
    llm_server.add_text("你好呀，今天过得怎么样？")
    reply = make_llm().invoke("你好")
    assert reply.content == "你好呀，今天过得怎么样？"
    usage = reply.usage_metadata
    assert usage["output_tokens"] == estimate_tokens("你好呀，今天过得怎么样？")
    assert usage["input_tokens"] > 0
    assert llm_server.last_messages() == [{"role": "user", "content": "你好"}]
    assert llm_server.last_request()["model"] == "test-model"


async def test_ainvoke_consumes_queue_in_order(llm_server, make_llm):
    llm_server.add_text("第一")
    llm_server.add_text("第二")
    llm = make_llm()
    assert (await llm.ainvoke("a")).content == "第一"
    assert (await llm.ainvoke("b")).content == "第二"
    assert [r["messages"][-1]["content"] for r in llm_server.requests] == ["a", "b"]
    assert llm_server.pending() == 0


async def test_astream_yields_several_text_chunks(llm_server, make_llm):
    reply = "今天天气真好，我们去公园散步吧！"
    llm_server.add_text(reply)
    pieces = [chunk.content async for chunk in make_llm().astream("hi")]
    text_pieces = [p for p in pieces if p]
    assert "".join(text_pieces) == reply
    assert len(text_pieces) >= 3
    assert llm_server.last_request()["stream"] is True


async def test_stream_reports_usage_when_asked(llm_server, make_llm):
    llm_server.add_text("好的")
    full = None
    async for chunk in make_llm(stream_usage=True).astream("hi"):
        full = chunk if full is None else full + chunk
    assert llm_server.last_request()["stream_options"] == {"include_usage": True}
    assert full.usage_metadata["output_tokens"] == estimate_tokens("好的")


def test_sync_stream(llm_server, make_llm):
    llm_server.add_text("abcdefghij")
    assert "".join(c.content for c in make_llm().stream("hi")) == "abcdefghij"


# -- tool calls ---------------------------------------------------------------------------------


def test_tool_calls_non_streaming(llm_server, make_llm):
    llm_server.add_tool_calls(CALLS)
    msg = make_llm().bind_tools([create_memory, hit_memory]).invoke("记住我喜欢猫")
    assert [(c["name"], c["args"]) for c in msg.tool_calls] == CALLS
    ids = [c["id"] for c in msg.tool_calls]
    assert len(set(ids)) == 2 and all(i.startswith("call_") for i in ids)
    sent_tools = [t["function"]["name"] for t in llm_server.last_request()["tools"]]
    assert sent_tools == ["create_memory", "hit_memory"]


async def test_tool_calls_streaming_with_text(llm_server, make_llm):
    llm_server.add_tool_calls(CALLS, text="我记下了")
    full: AIMessageChunk | None = None
    async for chunk in make_llm().bind_tools([create_memory, hit_memory]).astream("记住我喜欢猫"):
        full = chunk if full is None else full + chunk
    assert full is not None
    assert full.content == "我记下了"
    assert [(c["name"], c["args"]) for c in full.tool_calls] == CALLS
    assert full.response_metadata.get("finish_reason") == "tool_calls"


def test_tool_call_ids_unique_across_responses(llm_server, make_llm):
    llm = make_llm().bind_tools([hit_memory])
    llm_server.add_tool_calls([("hit_memory", {"id": "a"})])
    llm_server.add_tool_calls([("hit_memory", {"id": "b"})])
    first = llm.invoke("x").tool_calls[0]["id"]
    second = llm.invoke("y").tool_calls[0]["id"]
    assert first != second


def test_tool_arguments_are_utf8_not_escaped(llm_server):
    llm_server.add_tool_calls([("create_memory", {"content": "喜欢猫", "section": "身份"})])
    body = json.dumps({"model": "test-model", "messages": [{"role": "user", "content": "x"}]}).encode()
    req = urllib.request.Request(f"{llm_server.base_url}/chat/completions", body, {"Content-Type": "application/json"})
    with urllib.request.urlopen(req, timeout=5) as resp:
        data = json.loads(resp.read())
    args = data["choices"][0]["message"]["tool_calls"][0]["function"]["arguments"]
    assert "喜欢猫" in args and "\\u" not in args


def test_tool_result_messages_reach_the_server(llm_server, make_llm):
    llm = make_llm().bind_tools([hit_memory])
    llm_server.add_tool_calls([("hit_memory", {"id": "m-9"})])
    llm_server.add_text("完成")
    first = llm.invoke([HumanMessage("hi")])
    tool_msg = hit_memory.invoke(first.tool_calls[0])
    assert llm.invoke([HumanMessage("hi"), first, tool_msg]).content == "完成"
    roles = [m["role"] for m in llm_server.last_messages()]
    assert roles == ["user", "assistant", "tool"]
    assert llm_server.last_messages()[2]["tool_call_id"] == first.tool_calls[0]["id"]


# -- failures -----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("status", "exc"),
    [
        (401, openai.AuthenticationError),
        (404, openai.NotFoundError),
        (429, openai.RateLimitError),
        (500, openai.InternalServerError),
    ],
)
async def test_errors_raise_openai_exceptions(llm_server, make_llm, status, exc):
    llm_server.add_error(status, "出错了 boom")
    with pytest.raises(exc) as info:
        await make_llm().ainvoke("hi")
    assert info.value.status_code == status
    assert "出错了 boom" in str(info.value)


def test_error_body_is_openai_shaped(llm_server, make_llm):
    llm_server.add_error(404, "no such model")
    with pytest.raises(openai.NotFoundError) as info:
        make_llm().invoke("hi")
    assert info.value.code == "model_not_found"
    assert info.value.body["message"] == "no such model"


def test_retries_consume_scripted_errors(llm_server, make_llm):
    llm_server.add_error(500, "boom")
    llm_server.add_text("恢复了")
    assert make_llm(max_retries=1).invoke("hi").content == "恢复了"
    assert len(llm_server.requests) == 2


def test_script_exhausted_is_a_500(llm_server, make_llm):
    with pytest.raises(openai.InternalServerError, match="script exhausted"):
        make_llm().invoke("hi")


def test_hang_times_out_the_client(llm_server, make_llm):
    llm_server.add_hang(10)
    with pytest.raises(openai.APITimeoutError):
        make_llm(timeout=0.5).invoke("hi")


async def test_hang_times_out_the_async_stream(llm_server, make_llm):
    llm_server.add_hang(10)
    with pytest.raises(openai.APITimeoutError):
        async for _ in make_llm(timeout=0.5).astream("hi"):
            pass


def test_garbage_body_raises(llm_server, make_llm):
    llm_server.add_garbage()
    # langchain-openai rejects the non-JSON body with a ValueError that quotes it.
    with pytest.raises(ValueError, match="not JSON"):
        make_llm().invoke("hi")
    assert len(llm_server.requests) == 1


async def test_malformed_stream_raises_after_first_chunk(llm_server, make_llm):
    llm_server.add_malformed_stream("好的")
    seen = []
    with pytest.raises(ValueError):  # json.JSONDecodeError is a ValueError
        async for chunk in make_llm().astream("hi"):
            seen.append(chunk.content)
    assert "好的" in seen


# -- models, fallbacks, delay -------------------------------------------------------------------


def test_models_listing(llm_server):
    llm_server.models = ["test-model", "qwen-plus"]
    client = openai.OpenAI(base_url=llm_server.base_url, api_key="sk-test", max_retries=0)
    assert [m.id for m in client.models.list()] == ["test-model", "qwen-plus"]
    assert llm_server.models_requests == 1


def test_strict_models_rejects_unknown_model(llm_server, make_llm):
    llm_server.strict_models = True
    llm_server.add_text("never sent")
    with pytest.raises(openai.NotFoundError) as info:
        make_llm(model="gpt-nope").invoke("hi")
    assert info.value.code == "model_not_found"
    assert llm_server.pending() == 1  # the script was not consumed
    assert make_llm().invoke("hi").content == "never sent"


def test_unknown_model_accepted_when_not_strict(llm_server, make_llm):
    llm_server.add_text("ok")
    assert make_llm(model="anything").invoke("hi").content == "ok"


def test_responder_used_when_queue_empty(llm_server, make_llm):
    llm_server.add_text("from queue")
    llm_server.responder = lambda body: f"echo:{body['messages'][-1]['content']}"
    llm = make_llm()
    assert llm.invoke("one").content == "from queue"
    assert llm.invoke("two").content == "echo:two"


def test_failing_responder_is_a_readable_500(llm_server, make_llm):
    llm_server.responder = lambda body: 1 / 0
    with pytest.raises(openai.InternalServerError, match="ZeroDivisionError"):
        make_llm().invoke("hi")


def test_default_used_when_queue_empty_and_no_responder(llm_server, make_llm):
    llm_server.default = TextResponse("默认")
    llm = make_llm()
    assert [llm.invoke(str(i)).content for i in range(3)] == ["默认"] * 3


def test_delay_applies_before_response(llm_server, make_llm):
    # A delay longer than the client timeout must time out: proves the delay is applied.
    llm_server.delay = 1.0
    llm_server.add_text("late")
    with pytest.raises(openai.APITimeoutError):
        make_llm(timeout=0.3).invoke("hi")


def test_concurrent_requests_are_all_recorded(llm_server, make_llm):
    llm_server.default = TextResponse("ok")
    llm = make_llm()
    threads = [threading.Thread(target=llm.invoke, args=(f"m{i}",)) for i in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(10)
    assert llm_server.wait_for_requests(8, timeout=1)
    assert sorted(r["messages"][-1]["content"] for r in llm_server.requests) == sorted(f"m{i}" for i in range(8))


def test_authorization_header_recorded(llm_server, make_llm):
    llm_server.add_text("ok")
    make_llm(api_key="sk-abc").invoke("hi")
    assert llm_server.headers[-1]["authorization"] == "Bearer sk-abc"


def test_context_manager_stops_server():
    with ScriptedLLMServer() as server:
        url = server.base_url
        with urllib.request.urlopen(f"{url}/models", timeout=5) as resp:
            assert resp.status == 200
    with pytest.raises(OSError):
        urllib.request.urlopen(f"{url}/models", timeout=2)


def test_stop_wakes_hanging_handler():
    server = ScriptedLLMServer().start()
    server.add_hang(60)
    body = json.dumps({"model": "test-model", "messages": []}).encode()
    errors: list[BaseException] = []

    def call() -> None:
        try:
            urllib.request.urlopen(urllib.request.Request(f"{server.base_url}/chat/completions", body), timeout=30)
        except BaseException as exc:  # noqa: BLE001 - recorded for the assertion
            errors.append(exc)

    t = threading.Thread(target=call)
    t.start()
    assert server.wait_for_requests(1, timeout=5)
    server.stop()
    t.join(10)
    assert not t.is_alive()
    assert errors  # the connection closed without an answer


def test_estimate_tokens_grows_with_text():
    assert estimate_tokens("") == 0
    assert estimate_tokens("你好") == 2
    assert estimate_tokens("hello world") < estimate_tokens("hello world, hello world")


def test_addressed_responses_go_to_their_caller_whatever_the_order(llm_server, make_llm):
    @tool
    def create_memory(content: str, section: str) -> str:
        """Save a memory (named as the writer's tool)."""
        return "ok"

    @tool
    def get_current_time() -> str:
        """The time (named as a chat tool)."""
        return "now"

    writer = make_llm().bind_tools([create_memory])
    chat = make_llm().bind_tools([get_current_time])
    llm_server.add_text("for the writer", to="writer")
    llm_server.add_text("for the chat", to="chat")
    llm_server.add_text("shared")
    assert llm_server.pending() == 3
    assert chat.invoke("hi").content == "for the chat"  # not the writer's, though it was queued first
    assert writer.invoke("turn").content == "for the writer"
    assert writer.invoke("turn").content == "shared"  # nothing addressed left: the shared queue
    assert llm_server.pending() == 0
    with pytest.raises(ValueError):
        llm_server.add_text("x", to="retriever")


def test_the_app_s_own_tool_sets_are_told_apart(tmp_path):
    from llm_server import caller
    from sonetto_desktop.agent.companion_tools import build_companion_tools
    from sonetto_desktop.memory import YamlMemoryManager
    from sonetto_desktop.memory.writer.tools import make_memory_tools
    from langchain_core.utils.function_calling import convert_to_openai_tool

    store = YamlMemoryManager(tmp_path / "memory.yaml")
    try:
        writer = [convert_to_openai_tool(t) for t in make_memory_tools(store)]
        chat = [convert_to_openai_tool(t) for t in build_companion_tools(None)]
    finally:
        store.close()
    assert caller({"tools": writer}) == "writer"
    assert caller({"tools": chat}) == "chat"
    assert caller({"messages": []}) == "chat"  # no tools (a title, the LLM retriever)
