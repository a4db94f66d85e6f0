"""Pytest fixtures for the scripted OpenAI-compatible server (loaded via ``pytest_plugins``)."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable, Iterator
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
async def make_llm(llm_server: ScriptedLLMServer) -> AsyncIterator[Callable[..., Any]]:
    """``make_llm(**kw) -> ChatOpenAI`` pointed at ``llm_server`` (max_retries=0, timeout=5 unless given).

    Each model gets HTTP clients of its own, closed after the test on the test's event loop (an async
    fixture, so its teardown runs before the loop closes): no connection outlives its test."""
    import httpx

    opened: list[Any] = []

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
        if "http_async_client" not in options:
            options["http_async_client"] = httpx.AsyncClient()
            opened.append(options["http_async_client"])
        if "http_client" not in options:
            options["http_client"] = httpx.Client()
            opened.append(options["http_client"])
        return ChatOpenAI(**options)

    yield factory
    for client in opened:
        if isinstance(client, httpx.AsyncClient):
            await client.aclose()
        else:
            client.close()
