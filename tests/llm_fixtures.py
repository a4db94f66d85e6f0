"""Pytest fixtures for the scripted OpenAI-compatible server (loaded via ``pytest_plugins``)."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import pytest

from llm_server import ScriptedLLMServer


@pytest.fixture
def llm_server() -> Iterator[ScriptedLLMServer]:
    """A started scripted server, stopped after the test."""
    server = ScriptedLLMServer()
    server.start()
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture
def make_llm(llm_server: ScriptedLLMServer) -> Callable[..., Any]:
    """``make_llm(**kw) -> ChatOpenAI`` pointed at ``llm_server`` (max_retries=0, timeout=5 unless given)."""

    def factory(**kw: Any) -> Any:
        from langchain_openai import ChatOpenAI

        options: dict[str, Any] = {
            "base_url": llm_server.base_url,
            "api_key": "sk-test",
            "model": "test-model",
            "max_retries": 0,
            "timeout": 5,
        }
        options.update(kw)
        return ChatOpenAI(**options)

    return factory
