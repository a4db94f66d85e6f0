"""Child process for test_services: a write waits for another connection's SQLite write lock while
the settings move the services to another data folder; prints the write's outcome as JSON. Run in a
child because closing the store under the waiting statement crashed the process (SIGSEGV)."""

from __future__ import annotations

import asyncio
import json
import sqlite3
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


async def main(before: str, after: str) -> None:
    from sonetto_desktop import ops
    from sonetto_desktop.aio import spawn
    from sonetto_desktop.config.settings import Settings
    from sonetto_desktop.services import AppServices

    services = await AppServices.open(settings=Settings(data_dir=before, store_backend="sqlite"), watch=False)
    await services.run(ops.AddMemory("小林喜欢猫", "品味"))
    other = sqlite3.connect(services.store.path, isolation_level=None)  # another process, writing
    other.execute("BEGIN IMMEDIATE")
    adding = spawn(services.run(ops.AddMemory("小林喜欢狗", "品味"), actor="mcp:Cursor"), name="test-add")
    await asyncio.sleep(0.3)  # (the write waits for the lock meanwhile)
    moving = spawn(services.apply_settings(Settings(data_dir=after, store_backend="sqlite")), name="test-move")
    await asyncio.sleep(0.3)
    other.execute("COMMIT")
    other.close()
    outcome = await adding
    await moving
    later = await services.run(ops.AddMemory("小林喜欢兔子", "品味"))
    print(json.dumps({"added": outcome.ok, "error": "" if outcome.ok else outcome.exact,
                      "store": str(services.store.path), "later": later.ok}), flush=True)
    await services.close()


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1], sys.argv[2]))
