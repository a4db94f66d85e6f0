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
        assert services.recall.budget.tokens() == 100_000
        llm_server.add_text("[]", to="chat")
        llm_server.add_text("好的。", to="chat")
        [_ async for _ in services.chat.send("s1", "还有呢")]
        assert len(recalled_numbers(llm_server)) == 400  # every memory fits now
    finally:
        await services.close()
