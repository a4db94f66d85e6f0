"""The PostgreSQL backend through AppServices: a conversation continues on another device; an
offline device keeps chatting, journals its turns and writes them once the server is back."""

from __future__ import annotations


from sonetto_desktop.config.settings import Settings
from sonetto_desktop.memory.changes import MemoryChange
from sonetto_desktop.memory.stores.postgres.store import PostgresMemoryManager
from sonetto_desktop.services import AppServices
from tcp_proxy import TcpProxy, proxied_url
from waiting import until


def pg_settings(tmp_path, name: str, url: str, schema: str, llm_url: str, **changes) -> Settings:
    return Settings(data_dir=str(tmp_path / name), retrieval_mode="mechanical", store_backend="postgres",
                    postgres_url=url, postgres_schema=schema, device_name=name, base_url=llm_url,
                    model="test-model", api_key="sk-test", **changes)


async def test_a_conversation_started_on_one_device_continues_on_another(llm_server, pg_url, pg_schema, tmp_path):
    desk = await AppServices.open(settings=pg_settings(tmp_path, "desk", pg_url, pg_schema, llm_server.base_url,
                                                       postgres_sessions=True), start_agents=True)
    laptop = await AppServices.open(settings=pg_settings(tmp_path, "laptop", pg_url, pg_schema, llm_server.base_url,
                                                         postgres_sessions=True), start_agents=True)
    try:
        desk.writer.pause()  # only the replies use the script here
        laptop.writer.pause()
        llm_server.add_text("你好小林，很高兴认识你！")
        events = [e async for e in desk.chat.send("s1", "我叫小林，住在上海")]
        assert events[-1].kind == "done"
        assert [s.id for s in await laptop.chat.list_sessions()] == ["s1"]
        assert [e["content"] for e in await laptop.chat.transcript("s1")] == ["我叫小林，住在上海", "你好小林，很高兴认识你！"]
        llm_server.add_text("你叫小林呀。")
        events = [e async for e in laptop.chat.send("s1", "我叫什么？")]
        assert events[-1].kind == "done"
        sent = [m.get("content") for m in llm_server.last_messages()]
        assert "我叫小林，住在上海" in str(sent) and "你好小林，很高兴认识你！" in str(sent)  # the model's history came along
        assert not (tmp_path / "laptop" / "sessions.db").exists()
        assert len(await desk.chat.transcript("s1")) == 4
    finally:
        await laptop.close()
        await desk.close()


async def test_an_offline_device_keeps_its_turns_and_writes_them_when_the_server_is_back(
        llm_server, pg_server, pg_schema, tmp_path):
    proxy = TcpProxy(pg_server.port)
    url = proxied_url(pg_server, proxy)
    services = await AppServices.open(settings=pg_settings(tmp_path, "laptop", url, pg_schema, llm_server.base_url),
                                      start_agents=True)
    statuses = []
    seen: list[MemoryChange] = []
    services.subscribe_store_status(statuses.append)
    services.subscribe(seen.append)
    try:
        await until(lambda: services.store.feed.listener.connected, 10, "the listener")
        proxy.cut()
        await until(lambda: statuses and not statuses[-1].online, 15, "the offline status")
        assert services.writer.paused and services.store_status.read_only
        llm_server.add_text("汤圆这个名字真可爱！")
        events = [e async for e in services.chat.send("s1", "我养了一只叫汤圆的猫")]
        assert events[-1].kind == "done"  # chatting goes on: the sessions are this device's
        await until(lambda: services.writer.pending == 1, 5, "the turn in the journal")
        # Scripted for one attempt: once the store reports online its (renewed) pool connects at once,
        # so the first write attempt succeeds even when the old pool was still in its reconnect backoff.
        llm_server.add_tool_calls([("create_memory", {"content": "用户养了一只叫汤圆的猫", "section": "身份"})])
        llm_server.add_text("已记录。")
        proxy.restore()
        await until(lambda: statuses[-1].online, 15, "the online status")
        await until(lambda: any(c.kind == "add" and c.actor == "agent" for c in seen), 20, "the journaled turn written")
        await until(lambda: services.writer.pending == 0, 20, "the journal emptied")
        assert not services.writer.paused
        check = PostgresMemoryManager(pg_server.url, schema=pg_schema, listen=False)
        try:
            assert [i.description for i in check.all_items().values()] == ["用户养了一只叫汤圆的猫"]
        finally:
            check.close()
    finally:
        await services.close()
        proxy.close()
