"""Two devices — two processes with their own data dirs — sharing one PostgreSQL store: each sees
the other's changes live (change channel, recall index), within 2 s, attributed to the device."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
from pathlib import Path

from sonetto_desktop.config.settings import Settings
from sonetto_desktop.memory.changes import MemoryChange
from sonetto_desktop.services import AppServices

HERE = Path(__file__).resolve().parent


async def _line(proc: subprocess.Popen) -> str:
    line = await asyncio.to_thread(proc.stdout.readline)
    assert line, f"the other device stopped: {proc.stderr.read()}"
    return line.strip()


async def _arrives(seen: list[MemoryChange], predicate, timeout: float = 2.0) -> MemoryChange:
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while loop.time() < deadline:
        found = [c for c in seen if predicate(c)]
        if found:
            return found[-1]
        await asyncio.sleep(0.01)
    raise AssertionError(f"no such change within {timeout} s: {[(c.kind, c.ids) for c in seen]}")


async def test_two_devices_see_each_others_changes_live(pg_url, pg_schema, tmp_path):
    settings = Settings(data_dir=str(tmp_path / "desk"), retrieval_mode="mechanical", store_backend="postgres",
                        postgres_url=pg_url, postgres_schema=pg_schema, device_name="desk")
    desk = await AppServices.open(settings=settings)
    laptop = subprocess.Popen([sys.executable, str(HERE / "pg_device_child.py"), pg_url, pg_schema,
                               str(tmp_path / "laptop")], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, text=True)
    try:
        seen: list[MemoryChange] = []
        desk.subscribe(seen.append)
        await desk.warm_up()
        assert desk.store_status.online
        # laptop -> desk
        added = (await _line(laptop)).split()[1]
        change = await _arrives(seen, lambda c: c.kind == "add" and c.ids == (added,))
        assert not change.local and change.extra["device"] == "laptop" and change.actor == "user"
        assert [m["id"] for m in desk.recall.mechanical.retrieve("笔记本 小说")] == [added]
        # desk -> laptop
        laptop.stdin.write("go\n")
        laptop.stdin.flush()
        mine = desk.memory.add("用户周末常去台式机旁的山上爬山", "爱好").ids[0]
        seconds = float((await _line(laptop)).split()[1])
        assert seconds < 2.0
        update = await _arrives(seen, lambda c: c.kind == "update" and c.ids == (added,))
        assert update.state(added)["description"] == "用户周末在笔记本上写科幻小说"
        assert desk.memory.get(added).description == "用户周末在笔记本上写科幻小说"
        report = json.loads(await _line(laptop))
        assert report["id"] == mine and report["device"] == "desk" and report["recall"][0] == mine
        assert laptop.wait(30) == 0
        assert (tmp_path / "desk" / "memory.pgcache.db").exists()  # each device keeps its own copy
        assert (tmp_path / "laptop" / "memory.pgcache.db").exists()
    finally:
        if laptop.poll() is None:
            laptop.kill()
        laptop.wait()
        for pipe in (laptop.stdin, laptop.stdout, laptop.stderr):
            pipe.close()
        await desk.close()
