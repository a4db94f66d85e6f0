"""The chat providers' presets (config/providers.py: an address back to its provider, one server or
two) and the search for model servers on this computer (agent/local_servers.py), over real HTTP to
the scripted OpenAI-compatible server."""

from __future__ import annotations

import socket
import time

import pytest

from sonetto_desktop.agent.local_servers import LocalServer, find_local_servers, find_local_servers_now, model_ids
from sonetto_desktop.config.providers import PROVIDERS, by_key, local_providers, provider_for, same_server


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_the_presets_name_each_providers_endpoint():
    urls = {p.key: p.base_url for p in PROVIDERS}
    assert urls == {
        "deepseek": "https://api.deepseek.com/v1",
        "dashscope": "https://dashscope.aliyuncs.com/compatible-mode/v1",
        "siliconflow": "https://api.siliconflow.cn/v1",
        "moonshot": "https://api.moonshot.cn/v1",
        "zhipu": "https://open.bigmodel.cn/api/paas/v4",
        "openai": "https://api.openai.com/v1",
        "ollama": "http://127.0.0.1:11434/v1",
        "lm-studio": "http://127.0.0.1:1234/v1",
        "llama-cpp": "http://127.0.0.1:8080/v1",
    }
    for provider in PROVIDERS:
        assert provider.local == (not provider.needs_key), provider.key
        assert provider.local or provider.models, provider.key  # a cloud provider suggests its models
        assert provider_for(provider.base_url) is provider
        assert provider.zh and provider.en and provider.label("en") == provider.en and provider.label("zh") == provider.zh
    assert "deepseek-chat" not in by_key("deepseek").models  # retired by DeepSeek on 2026-07-24
    assert [url for _, url in local_providers()] == ["http://127.0.0.1:11434/v1", "http://127.0.0.1:1234/v1",
                                                     "http://127.0.0.1:8080/v1", "http://127.0.0.1:9931/v1"]


@pytest.mark.parametrize(("url", "key"), [
    ("https://api.deepseek.com", "deepseek"),  # DeepSeek's own form, without /v1
    ("https://API.DeepSeek.com/v1/", "deepseek"),
    ("https://dashscope-intl.aliyuncs.com/compatible-mode/v1", "dashscope"),  # the international region
    ("https://api.moonshot.ai/v1", "moonshot"),
    ("https://api.siliconflow.com/v1", "siliconflow"),
    ("http://localhost:11434/v1", "ollama"),
    ("http://127.0.0.1:11434", "ollama"),
    ("http://[::1]:1234/v1", "lm-studio"),
    ("http://127.0.0.1:9931/v1", "llama-cpp"),  # llama-server's announced new default port
    ("http://192.168.1.20:11434/v1", None),  # Ollama on another computer: an address of its own
    ("http://127.0.0.1:5000/v1", None),
    ("https://deepseek.example.com/v1", None),
    ("api.deepseek.com/v1", None),  # not an http(s) address
    ("", None),
])
def test_an_address_is_recognised_by_its_host_or_local_port(url, key):
    found = provider_for(url)
    assert (found.key if found else None) == key


def test_one_server_or_two():
    assert same_server("https://api.deepseek.com", "https://api.deepseek.com/v1")
    assert same_server("http://localhost:11434/v1", "http://127.0.0.1:11434")
    assert not same_server("https://api.deepseek.com/v1", "https://api.openai.com/v1")
    assert not same_server("http://127.0.0.1:11434/v1", "http://127.0.0.1:1234/v1")
    assert not same_server("", "")  # no address is no server


def test_a_model_list_is_read_as_openai_writes_it():
    assert model_ids({"object": "list", "data": [{"id": "a"}, {"id": " b "}, {"id": "a"}, {"x": 1}, "c"]}) == ("a", "b")
    assert model_ids({"data": []}) == ()
    assert model_ids({"models": [{"name": "a"}]}) is None and model_ids([1]) is None


async def test_the_servers_that_answer_are_found_with_their_models(llm_server):
    llm_server.models = ["qwen2.5:7b", "bge-m3"]
    closed = f"http://127.0.0.1:{_free_port()}/v1"
    found = await find_local_servers([("lm-studio", closed), ("ollama", llm_server.base_url)])
    assert found == [LocalServer("ollama", llm_server.base_url, ("qwen2.5:7b", "bge-m3"))]
    assert await find_local_servers([]) == []


async def test_a_server_that_lists_no_models_is_not_taken_for_one(llm_server):
    llm_server.models = None  # GET /models answers 404
    assert await find_local_servers([("ollama", llm_server.base_url)]) == []


async def test_a_server_that_does_not_answer_is_given_up_on_in_time(llm_server):
    llm_server.delay = 2.0
    start = time.monotonic()
    assert await find_local_servers([("ollama", llm_server.base_url)], timeout=0.3) == []
    assert time.monotonic() - start < 1.5


def test_the_search_runs_to_the_end_in_a_worker_of_its_own(llm_server):
    found = find_local_servers_now([("ollama", llm_server.base_url)])
    assert [s.models for s in found] == [("test-model",)]


def test_the_models_a_server_says_only_embed_are_left_out_of_the_chats(llm_server):
    """What the chat is offered: Ollama's /api/show capabilities, LM Studio's model types; a server that
    says neither is judged by the names ("embed")."""
    llm_server.models = ["nomic-embed-text", "qwen2.5:7b", "bge-m3"]
    llm_server.embedding_models = ["nomic-embed-text", "bge-m3"]
    for api in ("ollama", "lm-studio"):
        llm_server.context_api = api
        assert [s.models for s in find_local_servers_now([("ollama", llm_server.base_url)])] == [("qwen2.5:7b",)], api
    llm_server.context_api = None  # only /v1/models: bge-m3 cannot be told from a chat model by its name
    assert [s.models for s in find_local_servers_now([("ollama", llm_server.base_url)])] == [("qwen2.5:7b", "bge-m3")]
