"""The LLM stack (LangChain, LangGraph, the OpenAI client: ~100 MB resident) is imported when a
model is first used, not when the app starts (issue 14, idle memory). Checked in a fresh process,
since this test run has imported it long ago."""

from __future__ import annotations

import json
import types
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent


def test_an_idle_app_with_an_endpoint_never_imports_the_llm_stack_until_the_first_message(llm_server, tmp_path):
    llm_server.add_text("汤圆真聪明！")  # the chat reply
    llm_server.add_tool_calls([("create_memory", {"content": "汤圆学会了开门", "section": "瞬间"})])
    llm_server.add_text("已记录。")  # the writer
    done = subprocess.run([sys.executable, str(HERE / "lazy_llm_child.py"), llm_server.base_url,
                           str(tmp_path / "data")], capture_output=True, text=True, timeout=180)
    assert done.returncode == 0, done.stderr
    out = json.loads(done.stdout.strip().splitlines()[-1])
    assert out["configured"] and out["writer_configured"]  # known from the settings, no model built
    # the start imported its modules (httpx ~0.1-0.2 s) and made its TLS context off the loop thread;
    # only the worker pool's own modules are imported where the first worker is started
    assert set(out["loop_thread_work"]) <= {"concurrent.futures.thread", "queue", "_queue"}, out["loop_thread_work"]
    assert out["deleted"] is True and out["sessions"] == ["第一次"] and out["transcript"] == []
    assert out["recalled"] == ["用户养了一只叫汤圆的猫"]
    assert out["hygiene"] == "没有过期待办或相近的条目"
    assert out["idle_loaded"] == []
    assert {"langchain_core", "langgraph", "openai", "langchain_openai"} <= set(out["prepared_loaded"])
    assert out["events"][0] == "memories" and out["events"][-1] == "done"
    # what the clients import lazily on a first request (LangChain's tracing, anyio's streams) too
    third_party = [n for n in out["turn_loop_imports"] if n.split(".")[0] in ("langchain_core", "langchain",
                   "langgraph", "openai", "langchain_openai", "httpx", "httpcore", "anyio")]
    assert third_party == [], third_party
    assert out["reply"] == "汤圆真聪明！"
    assert {"langchain_core", "langgraph", "openai", "langchain_openai"} <= set(out["after_send_loaded"])
    assert out["memories"] == 2 and out["writer_error"] is None  # the writer imported its agent and wrote


def test_the_writers_first_turn_imports_nothing_on_the_loop(llm_server, tmp_path):
    """The memory writer's first turn, before any chat message: it imports the LLM stack and builds its
    model in a worker, with what the clients import lazily on a first request (LangChain's tracing,
    anyio's streams), so the loop imports none of it at the turn's first request (issue 29)."""
    llm_server.add_tool_calls([("create_memory", {"content": "汤圆学会了开门", "section": "瞬间"})])
    llm_server.add_text("已记录。")
    done = subprocess.run([sys.executable, str(HERE / "writer_first_turn_child.py"), llm_server.base_url,
                           str(tmp_path / "data")], capture_output=True, text=True, timeout=180)
    assert done.returncode == 0, done.stderr
    out = json.loads(done.stdout.strip().splitlines()[-1])
    assert out["before_turn"] == [] and {"langchain_core", "openai", "langchain_openai"} <= set(out["after_turn"])
    assert out["memories"] == 1 and out["writer_error"] is None
    third_party = [n for n in out["turn_loop_imports"] if n.split(".")[0] in ("langchain_core", "langchain",
                   "langgraph", "openai", "langchain_openai", "httpx", "httpcore", "anyio")]
    assert third_party == [], third_party


def test_a_module_half_imported_on_another_thread_is_not_used_before_it_is_ready(monkeypatch):
    """The first turn imports the stack on a worker thread; meanwhile the loop thread sees its modules
    in sys.modules, still without their classes (a bench run failed on exactly that)."""
    from sonetto_desktop.memory.retrieval.llm_retriever import classify_error
    from sonetto_desktop.memory.writer.turns import normalize_turn

    for name in ("langchain_core.messages", "langchain_core.messages.base", "openai"):
        monkeypatch.setitem(sys.modules, name, types.ModuleType(name))  # as while it is being imported
    assert normalize_turn([{"role": "user", "content": "你好"}]) == [{"role": "user", "content": "你好"}]
    assert classify_error(RuntimeError("boom"), 8.0).kind == "error"
