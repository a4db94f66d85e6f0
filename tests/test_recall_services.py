"""Recall through the services, end to end with the scripted server: the token budget from the
settings (and from what a local server says of its context) decides what the recall model reads."""

from __future__ import annotations

import dataclasses
from pathlib import Path

from sonetto_desktop.config.settings import Settings
from sonetto_desktop.memory.item import MemoryItem
from sonetto_desktop.memory.retrieval.budget import REQUEST_RESERVE
from sonetto_desktop.services import AppServices

from recall_banks import parse_listing


def settings_for(tmp_path: Path, base_url: str, **changes) -> Settings:
    values = {"data_dir": str(tmp_path / "data"), "retrieval_mode": "hybrid", "base_url": base_url,
              "model": "test-model", "api_key": "sk-test", "store_backend": "sqlite"}
    return Settings(**(values | changes))


def bank(n: int) -> dict[str, MemoryItem]:
    return {f"m{i:04d}": MemoryItem(f"第{i}条：小林记下了和第{i % 23}个朋友的一次聊天。", "瞬间",
                                    latest_update_time=f"2026-{1 + i % 11:02d}-{1 + i % 27:02d}T10:00:00")
            for i in range(n)}


def recalled_numbers(server) -> dict[int, tuple[str, str, str]]:
    recall_requests = [r for r in server.requests if r["messages"][0]["content"].startswith("你是 Sonetto 的记忆检索助手")]
    return parse_listing(recall_requests[-1]["messages"][1]["content"])


async def test_the_budget_follows_the_settings_and_a_local_servers_context(llm_server, tmp_path):
    llm_server.context_api = "llama.cpp"
    llm_server.context_length = 6_000  # a small local model: 2,000 listing tokens
    services = await AppServices.open(settings=settings_for(tmp_path, llm_server.base_url), watch=False)
    try:
        services.store.import_items(bank(400))
        await services.start_agents()
        services.writer.pause()
        budget = services.recall.budget
        budget.tokens()
        budget.wait(5)  # the server is asked in the background at the first use
        assert budget.tokens() == 6_000 - REQUEST_RESERVE
        llm_server.add_text("[]", to="chat")  # the recall request is the chat's first
        llm_server.add_text("好的。", to="chat")
        [_ async for _ in services.chat.send("s1", "我和朋友聊过什么")]
        small = recalled_numbers(llm_server)
        assert 20 < len(small) < 400 and services.recall.last_listing.tokens <= 2_000

        await services.apply_settings(dataclasses.replace(services.settings, recall_budget_tokens=100_000))
        budget = services.recall.budget
        assert budget.tokens() == 400  # (before the server answers: what a 4,096-token context holds)
        budget.wait(5)
        assert budget.tokens() == 6_000 - REQUEST_RESERVE  # more than the model reads is refused at every recall
        llm_server.context_length = 131_072  # the person loads the model with a longer context
        await services.apply_settings(dataclasses.replace(services.settings, recall_timeout=31.0))
        services.recall.budget.tokens()
        services.recall.budget.wait(5)
        assert services.recall.budget.tokens() == 100_000
        llm_server.add_text("[]", to="chat")
        llm_server.add_text("好的。", to="chat")
        [_ async for _ in services.chat.send("s1", "还有呢")]
        assert len(recalled_numbers(llm_server)) == 400  # every memory fits now
    finally:
        await services.close()


# ── the embeddings model through the services ─────────────────────────

CAT = "小林养了一只叫汤圆的布偶猫。"


def events_of(services, kind):
    seen = []
    services.subscribe_events(lambda event: seen.append(event) if isinstance(event, kind) else None)
    return seen


async def wait_until(predicate, timeout: float = 20.0) -> None:
    import asyncio

    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while not predicate():
        assert loop.time() < deadline, "timed out"
        await asyncio.sleep(0.05)


async def test_an_embeddings_model_brings_what_words_miss_and_its_status_is_published(llm_server, tmp_path):
    from sonetto_desktop.memory.retrieval.vector_status import VectorStatus

    settings = settings_for(tmp_path, llm_server.base_url, recall_budget_tokens=1_500, embeddings_source="endpoint",
                            embeddings_model="scripted-embed")
    services = await AppServices.open(settings=settings, watch=False)
    statuses = events_of(services, VectorStatus)
    try:
        services.store.import_items({**bank(400), "cat": MemoryItem(CAT, "身份", latest_update_time="2025-01-01T10:00:00")})
        await services.start_agents()
        services.writer.pause()
        await wait_until(lambda: statuses and statuses[-1].state == "idle")
        assert (statuses[-1].done, statuses[-1].total) == (401, 401) and statuses[-1].zh == "向量 401/401"
        assert {"running", "idle"} <= {s.state for s in statuses}
        assert llm_server.embedding_headers[0]["authorization"] == "Bearer sk-test"  # the chat's endpoint, its key
        llm_server.add_text("[]", to="chat")
        llm_server.add_text("好的。", to="chat")
        [_ async for _ in services.chat.send("s1", "小老虎最近乖不乖")]
        assert CAT in [text for _, text, _ in recalled_numbers(llm_server).values()]
        assert services.recall.last_listing.dense

        await services.apply_settings(dataclasses.replace(services.settings, embeddings_source="off"))
        assert services.recall.dense is None and statuses[-1].state == "stopped"
        llm_server.add_text("[]", to="chat")
        llm_server.add_text("好的。", to="chat")
        [_ async for _ in services.chat.send("s1", "小老虎最近乖不乖")]
        assert CAT not in [text for _, text, _ in recalled_numbers(llm_server).values()]  # words only again
    finally:
        await services.close()
    assert (Path(settings.data_dir) / "memory.vectors.sqlite3").exists()


async def test_the_chat_key_never_goes_to_another_embeddings_endpoint(llm_server, tmp_path):
    from llm_server import ScriptedLLMServer

    with ScriptedLLMServer() as other:
        settings = settings_for(tmp_path, llm_server.base_url, embeddings_source="endpoint", embeddings_model="bge-m3",
                                embeddings_base_url=other.base_url)
        services = await AppServices.open(settings=settings, watch=False)
        try:
            services.store.import_items(bank(3))
            await services.start_agents()
            services.writer.pause()
            await wait_until(lambda: services._agents.vectors.status.state == "idle")
            assert other.embedding_requests and "authorization" not in other.embedding_headers[0]
            assert llm_server.embedding_requests == []
            asked = len(other.embedding_requests)
            await services.apply_settings(dataclasses.replace(services.settings, embeddings_api_key="sk-embed-own"))
            services.store.add("小林周末去爬山。", "瞬间")
            await wait_until(lambda: len(other.embedding_requests) > asked)
            assert other.embedding_headers[-1]["authorization"] == "Bearer sk-embed-own"
        finally:
            await services.close()


def test_the_embeddings_key_is_a_secret(tmp_path):
    settings = Settings(embeddings_source="endpoint", embeddings_model="text-embedding-v3",
                        embeddings_base_url="https://dashscope.aliyuncs.com/compatible-mode/v1",
                        embeddings_api_key="sk-dashscope-SECRET-42")
    path = tmp_path / "settings.json"
    settings.save(path)
    assert "SECRET" not in path.read_text("utf-8") and "SECRET" not in repr(settings)
    assert Settings.load(path).embeddings_api_key == "sk-dashscope-SECRET-42"
    assert Settings(embeddings_source="endpoint").validate()[0].field == "embeddings_model"
    assert Settings(embeddings_source="endpoint", embeddings_model="m", embeddings_base_url="ftp://x").validate()[0].field == (
        "embeddings_base_url")
    assert Settings(embeddings_source="endpoint", embeddings_model="m").validate()[0].field == "embeddings_base_url"
    assert Settings(embeddings_source="endpoint", embeddings_model="m", base_url="http://127.0.0.1:1/v1",
                    model="x").validate() == []
