"""AppServices: the Qt-free composition root — opened without Qt, one change channel with actors
and turn ids, the recall's one timeout, other processes' writes arriving live, ordered shutdown."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
from pathlib import Path

import pytest

from llm_server import HangResponse
from sonetto_desktop.config.settings import Settings
from sonetto_desktop.memory.changes import MemoryChange
from sonetto_desktop.services import AppServices

HERE = Path(__file__).resolve().parent


def settings_for(tmp_path: Path, base_url: str = "", **changes) -> Settings:
    values = {"data_dir": str(tmp_path / "data"), "retrieval_mode": "mechanical"}
    if base_url:
        values |= {"base_url": base_url, "model": "test-model", "api_key": "sk-test"}
    return Settings(**(values | changes))


def test_services_run_a_chat_turn_without_qt(llm_server, tmp_path):
    llm_server.add_text("汤圆这个名字真可爱！")  # the reply
    llm_server.add_tool_calls([("create_memory", {"content": "用户养了一只叫汤圆的猫", "section": "身份"})])
    llm_server.add_text("已记录。")  # the writer, cold start
    done = subprocess.run([sys.executable, str(HERE / "services_child.py"), llm_server.base_url,
                           str(tmp_path / "data")], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    out = json.loads(done.stdout.strip().splitlines()[-1])
    assert out["qt_loaded"] is False
    assert out["events"][0] == "memories" and out["events"][-1] == "done"
    [change] = out["changes"]
    assert change["kind"] == "add" and change["actor"] == "agent"
    assert change["turn_id"] == out["turn_id"]  # the writer's change names the chat turn it came from
    assert out["steps"] == ["writer_drained", "agents_stopped", "store_closed"]


async def test_every_change_names_its_actor_and_a_turns_changes_share_its_id(llm_server, tmp_path):
    services = await AppServices.open(settings=settings_for(tmp_path, llm_server.base_url), watch=False)
    try:
        seen: list[MemoryChange] = []
        services.subscribe(seen.append)
        keep = services.memory.add("用户住在成都", "身份").ids[0]
        await services.start_agents()
        llm_server.add_text("上海很好呀")
        llm_server.add_tool_calls([("read_memories", {})])
        llm_server.add_tool_calls([
            ("update_memory", {"id": keep, "content": "用户搬到了上海", "reason": "用户说搬家了"}),
            ("create_memory", {"content": "用户在上海的新公司上班", "section": "身份"}),
        ])
        llm_server.add_text("已更新。")
        events = [e async for e in services.chat.send("s1", "我搬到上海了，在新公司上班")]
        turn_id = events[-1].turn_id
        for _ in range(200):
            if services.writer.pending == 0 and not services.writer.busy and len(seen) >= 4:
                break
            await asyncio.sleep(0.05)
        assert seen[0].actor == "user" and seen[0].turn_id is None
        agent = seen[1:]
        assert [c.kind for c in agent] == ["update", "hit", "add"]
        assert {c.actor for c in agent} == {"agent"} and {c.turn_id for c in agent} == {turn_id}
        assert agent[0].reason == "用户说搬家了"
        history = services.memory.history(keep)
        assert history[0]["turn_id"] == turn_id and history[0]["excerpt"].startswith("我搬到上海了")
    finally:
        await services.close()


async def test_the_writer_index_is_built_at_warm_up_and_shared_by_turns_and_the_tidy_up(llm_server, tmp_path):
    """One full read of the store for the writer, at start: not in the first turn (it follows the
    first reply, the Qt thread waited behind it), and not again for the daily tidy-up pass."""
    services = await AppServices.open(settings=settings_for(tmp_path, llm_server.base_url), watch=False)
    try:
        for n in range(30):
            services.memory.add(f"用户第 {n} 次提到的小事", "瞬间")
        await services.start_agents()
        await services.warm_up()
        await services.warm_up_writer()
        index = services.writer.index
        assert index.full_reads == 1 and index.count() == 30
        llm_server.add_tool_calls([("create_memory", {"content": "用户开始学游泳", "section": "爱好"})])
        llm_server.add_text("已记录。")
        await services.writer.send_history([{"role": "user", "content": "我开始学游泳了"},
                                            {"role": "assistant", "content": "加油！"}], session_id="s1")
        for _ in range(200):
            if services.writer.pending == 0 and not services.writer.busy and services.store.count() == 31:
                break
            await asyncio.sleep(0.05)
        assert services.store.count() == 31
        llm_server.add_text("这些都是不同的事，不用合并。")  # the tidy-up pass looks at the alike ones
        report = await services.hygiene.run_once(force=True)
        assert report is not None and report.pairs > 0 and report.changes == []
        assert services.writer.index is index and index.full_reads == 1 and index.count() == 31
    finally:
        await services.close()


async def test_slow_model_recall_falls_back_to_offline_memories(llm_server, tmp_path):
    """Regression: the graph wrapped recall in a second deadline equal to the recall's own, so a slow
    model gave the turn no memories instead of the offline result."""
    settings = settings_for(tmp_path, llm_server.base_url, retrieval_mode="llm", recall_timeout=0.5)
    services = await AppServices.open(settings=settings, watch=False)
    try:
        services.memory.add("用户养了一只叫汤圆的猫", "身份")
        await services.start_agents()
        services.writer.pause()  # only the recall and the reply use the script here
        llm_server.add(HangResponse(3))  # the LLM recall: slower than the recall timeout
        llm_server.add_text("汤圆最近好吗？")
        events = [e async for e in services.chat.send("s1", "我的猫汤圆今天不吃饭")]
        memories = events[0].memories
        assert events[0].kind == "memories"
        assert [m["description"] for m in memories] == ["用户养了一只叫汤圆的猫"]
        assert memories[0]["date"]  # recall hands the date on: nothing re-reads the store
        assert services.recall.last_fallback_reason.startswith("timeout")
        assert events[-1].kind == "done"
    finally:
        await services.close()


@pytest.mark.parametrize("backend", ["yaml", "sqlite"])
async def test_cli_writes_reach_a_running_app_within_two_seconds(tmp_path, backend):
    settings = settings_for(tmp_path, store_backend=backend)
    settings.save(with_secret=False)  # the command line reads the same settings as the app
    services = await AppServices.open(settings=settings)
    try:
        seen: list[MemoryChange] = []
        services.subscribe(seen.append)
        ours = services.memory.add("用户喜欢猫", "品味").ids[0]
        await services.warm_up()
        env = {"SONETTO_DATA_DIR": settings.data_dir}

        async def cli(*args: str) -> str:
            done = await asyncio.to_thread(
                subprocess.run, [sys.executable, "-m", "sonetto_desktop", "memory", *args],
                capture_output=True, text=True, timeout=60, env={**__import__("os").environ, **env})
            assert done.returncode == 0, done.stderr
            return done.stdout.strip()

        async def arrives(predicate) -> MemoryChange:
            loop = asyncio.get_running_loop()
            deadline = loop.time() + 2.0
            while loop.time() < deadline:
                found = [c for c in seen if predicate(c)]
                if found:
                    return found[-1]
                await asyncio.sleep(0.05)
            raise AssertionError(f"no such change within 2 s: {[(c.kind, c.actor) for c in seen]}")

        added_id = (await cli("add", "用户周末去爬山", "--theme", "瞬间")).split()[-1]
        change = await arrives(lambda c: c.kind == "add" and c.ids == (added_id,))
        assert change.actor == "cli" and not change.local
        assert [m["id"] for m in services.recall.mechanical.retrieve("爬山")] == [added_id]
        await cli("update", added_id, "用户周末常去爬山", "--reason", "更准确")
        change = await arrives(lambda c: c.kind == "update" and c.ids == (added_id,))
        assert change.actor == "cli" and change.reason == "更准确"
        assert services.memory.get(added_id).description == "用户周末常去爬山"
        await cli("delete", added_id)
        await arrives(lambda c: c.kind == "delete" and c.ids == (added_id,))
        assert services.recall.mechanical.retrieve("爬山") == []
        assert set(services.memory.all_items()) == {ours}  # nothing lost on either side
    finally:
        await services.close()


@pytest.mark.parametrize("backend", ["yaml", "sqlite"])
async def test_open_can_return_before_the_self_check_and_agents_wait_for_it(tmp_path, backend, llm_server):
    settings = settings_for(tmp_path, llm_server.base_url, store_backend=backend)
    first = await AppServices.open(settings=settings, watch=False)
    first.memory.add("用户喜欢猫", "品味")
    await first.close()

    services = await AppServices.open(settings=settings, watch=False, check_later=True)
    try:
        assert services.memory.count() == 1  # usable at once (the window shows it)
        await services.start_agents()  # waits for the check: the writer only runs on a checked store
        assert services.store_report is not None and services.store_ok and services.writer.running
    finally:
        await services.close()
    again = await AppServices.open(settings=settings, watch=False, check_later=True)
    await again.close()  # closing while the check may still run is safe
    assert again.shutdown_steps == ["agents_stopped", "store_closed"]


def test_moving_to_another_store_while_a_write_waits_finishes_the_write_first(tmp_path):
    """The settings moved the services to another data folder (the window's settings, or ``sonetto
    mcp`` following them) while a write waited for another process's SQLite write lock: the store was
    closed under the waiting statement and the process died (SIGSEGV). The close now waits for the
    operations under way; one that starts meanwhile is refused, nothing is lost."""
    before, after = tmp_path / "before", tmp_path / "after"
    done = subprocess.run([sys.executable, str(HERE / "store_switch_child.py"), str(before), str(after)],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, (done.returncode, done.stderr[-2000:])
    out = json.loads(done.stdout.strip().splitlines()[-1])
    assert out == {"added": True, "error": "", "store": str(after / "memory.db"), "later": True}, out
    from sonetto_desktop.memory.stores.sqlite import SqliteMemoryManager

    kept = SqliteMemoryManager(before / "memory.db")
    try:
        assert sorted(item.description for item in kept.all_items().values()) == ["小林喜欢狗", "小林喜欢猫"]
    finally:
        kept.close()
