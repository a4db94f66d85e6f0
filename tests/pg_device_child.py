"""The second device of the two-device test: its own data dir, the same PostgreSQL store.

usage: python pg_device_child.py URL SCHEMA DATA_DIR

Opens ``AppServices`` as device "laptop", adds a memory (prints ``added <id>``), waits for the
desk's memory to arrive on its change channel and in its recall index (prints ``seen <seconds>``
measured from when it read ``go`` on stdin), edits its own memory, prints a JSON summary, closes.
"""

from __future__ import annotations

import asyncio
import json
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))


async def main(url: str, schema: str, data_dir: str) -> None:
    from sonetto_desktop.config.settings import Settings
    from sonetto_desktop.services import AppServices

    settings = Settings(data_dir=data_dir, retrieval_mode="mechanical", store_backend="postgres",
                        postgres_url=url, postgres_schema=schema, device_name="laptop")
    services = await AppServices.open(settings=settings)
    seen = []
    services.subscribe(seen.append)
    await services.warm_up()
    loop = asyncio.get_running_loop()
    added = services.memory.add("用户周末在笔记本上写小说", "爱好").ids[0]
    print("added", added, flush=True)
    await loop.run_in_executor(None, sys.stdin.readline)  # "go": the desk is about to write
    started = time.monotonic()
    while not [c for c in seen if c.kind == "add" and not c.local]:
        if time.monotonic() - started > 10:
            raise SystemExit("the desk's memory never arrived")
        await asyncio.sleep(0.01)
    arrived = time.monotonic() - started
    [change] = [c for c in seen if c.kind == "add" and not c.local]
    found = [m["id"] for m in services.recall.mechanical.retrieve("台式机 爬山")]
    print("seen", f"{arrived:.3f}", flush=True)
    services.memory.update(added, description="用户周末在笔记本上写科幻小说", reason="更具体")
    await asyncio.sleep(0.2)
    await services.close()
    print(json.dumps({"id": change.ids[0], "device": change.extra.get("device"), "actor": change.actor,
                      "recall": found}, ensure_ascii=False), flush=True)


if __name__ == "__main__":
    asyncio.run(main(*sys.argv[1:4]))
