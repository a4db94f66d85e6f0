"""What the memory store says about its files reaches the person once (issue 35 item 1): memory.yaml
deleted while the app runs keeps every card on the wall, is written again, and one toast says so;
a save made from an older copy that conflicts with Sonetto is said with a click to the memory."""

from __future__ import annotations

import asyncio
import os

import yaml

from sonetto_desktop import ops
from shell_fixtures import app_settings, running_app


def _on_disk(path) -> dict:
    try:
        return yaml.safe_load(path.read_text(encoding="utf-8")) or {}
    except FileNotFoundError:
        return {}


async def test_memory_yaml_deleted_while_the_app_runs_keeps_the_wall_and_is_said_once(qapp, tmp_path, wait):
    data = tmp_path / "data"
    path = data / "memory.yaml"
    async with running_app(qapp, app_settings(data)) as app:
        await app.wall_loaded
        for n in range(5):
            await app.service.submit(ops.AddMemory(f"第{n}条记忆", "测试"))
        await wait(lambda: len(_on_disk(path)) == 5, message="memory.yaml holds the five")
        os.unlink(path)
        said = lambda: [t for t in app.toasts.toasts() if "memory.yaml" in t.text and "不见了" in t.text]  # noqa: E731
        await wait(said, message="the toast")
        await wait(lambda: len(_on_disk(path)) == 5, message="memory.yaml written again")
        await asyncio.sleep(1.2)  # the watcher looks a few more times
        assert len(said()) == 1 and app.wall.model.rowCount() == 5
        assert len(await app.service.submit(ops.Snapshot())) == 5


async def test_a_conflicting_save_is_said_and_opens_the_memory(qapp, tmp_path, wait):
    data = tmp_path / "data"
    path = data / "memory.yaml"
    async with running_app(qapp, app_settings(data)) as app:
        await app.wall_loaded
        memory_id = await app.service.submit(ops.AddMemory("喜欢喝绿茶", "饮食"))
        await wait(lambda: memory_id in _on_disk(path), message="on disk")
        buffer = path.read_text(encoding="utf-8")
        await app.service.submit(ops.EditMemory(memory_id, "喜欢喝红茶", None))
        await wait(lambda: "红茶" in path.read_text(encoding="utf-8"), message="the update on disk")
        with open(path, "w", encoding="utf-8") as fh:  # an editor that read the file before the update
            fh.write(buffer.replace("绿茶", "乌龙茶"))
        said = lambda: [t for t in app.toasts.toasts() if "冲突" in t.text]  # noqa: E731
        await wait(said, message="the conflict said")
        assert "乌龙茶" in said()[0].text and "红茶" in said()[0].text
        await wait(lambda: app.wall.model.rowCount() == 2, message="both versions on the wall")


async def test_a_memory_yaml_edit_with_a_yaml_error_is_said_once_with_where(qapp, tmp_path, wait):
    """Issue 38 item 8: a hand edit that breaks the YAML is shown in the window, once, with the line."""
    data = tmp_path / "data"
    path = data / "memory.yaml"
    async with running_app(qapp, app_settings(data)) as app:
        await app.wall_loaded
        memory_id = await app.service.submit(ops.AddMemory("喜欢喝绿茶", "饮食"))
        await wait(lambda: memory_id in _on_disk(path), message="on disk")
        good = path.read_text(encoding="utf-8")
        lines = good.splitlines()
        broken_line = next(n for n, line in enumerate(lines) if "description:" in line)
        lines[broken_line] = lines[broken_line].replace("description:", "description: [未闭合")
        path.write_text("\n".join(lines) + "\n", encoding="utf-8")
        said = lambda: [t for t in app.toasts.toasts() if "memory.yaml" in t.text and "读不了" in t.text]  # noqa: E731
        await wait(said, message="the error said")
        text = said()[0].text
        assert "line" in text and str(broken_line + 1) in text, text  # where the error is
        await asyncio.sleep(1.2)  # the watcher looks a few more times: still one toast
        assert len(said()) == 1 and said()[0].repeats == 1
        assert app.wall.model.rowCount() == 1  # the wall keeps its last good state
        path.write_text(good, encoding="utf-8")
        await wait(lambda: [t for t in app.toasts.toasts() if "又能读取" in t.text], message="readable again")


async def test_a_write_waiting_for_another_process_is_said_in_the_window(qapp, tmp_path, wait):
    """A write that waits long for another process holding the store (a suspended sonetto mcp) is said
    as a toast, although the wait is on a worker thread (before: the window said nothing for the minute
    until the write gave up)."""
    import threading

    from sonetto_desktop.memory.stores import lock_wait

    data = tmp_path / "data"
    before = len(lock_wait._listeners)  # (a command line run in this process keeps its own)
    async with running_app(qapp, app_settings(data)) as app:
        await app.wall_loaded
        waiter = threading.Thread(target=lock_wait.say_waiting, args=(data / "memory.yaml.lock", data / "memory.yaml"))
        waiter.start()
        said = lambda: [t for t in app.toasts.toasts() if "正占着 memory.yaml" in t.text]  # noqa: E731
        await wait(said, message="the wait said")
        waiter.join()
        assert "最多等 1 分钟" in said()[0].text
    assert len(lock_wait._listeners) == before, "the window's listener goes with it"


async def test_a_full_disk_is_said_once_and_taken_down_when_memory_yaml_saves_again(qapp, tmp_path, wait, monkeypatch):
    """Edges 18 item 1: the data folder's disk fills: the writes land in the change log, and the window
    says once that memory.yaml is not saved and what is safe; once there is room it says so."""
    from helpers import SmallDisk
    from sonetto_desktop.memory import MemoryItem, YamlMemoryManager
    from sonetto_desktop.memory.stores.yaml import writer as yaml_writer

    monkeypatch.setattr(yaml_writer, "RETRY_DELAY", 0.3)
    disk = SmallDisk(tmp_path / "data")
    try:
        path = disk.path / "memory.yaml"
        seed = YamlMemoryManager(path)
        seed.import_items({f"m{i:07d}": MemoryItem(f"第{i}条记忆：" + "很长的描述" * 40, "品味") for i in range(300)})
        seed.close()
        async with running_app(qapp, app_settings(disk.path)) as app:
            await app.wall_loaded
            disk.fill(leave=16 * 1024)
            new = await app.service.submit(ops.AddMemory("磁盘满时写的", "瞬间"))
            unsaved = lambda: [t for t in app.toasts.toasts() if "保存不了" in t.text]  # noqa: E731
            await wait(unsaved, message="the failed save said")
            assert "磁盘已满" in unsaved()[0].text and "memory.yaml.log" in unsaved()[0].text
            await asyncio.sleep(1.0)  # retried meanwhile: still one toast, said once
            assert len(unsaved()) == 1 and unsaved()[0].repeats == 1 and new not in _on_disk(path)
            disk.free()
            await wait(lambda: [t for t in app.toasts.toasts() if "又能保存" in t.text], message="saving again said")
            assert new in _on_disk(path) and not unsaved()
    finally:
        disk.unmount()
