"""Child process for test_services: opens AppServices with PySide6 and qasync made unimportable,
runs one chat turn against the scripted server given on the command line, waits for the writer,
and prints what the change channel carried as JSON."""

from __future__ import annotations

import asyncio
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from no_qt import block  # noqa: E402 - the tests folder is this script's own

block()


async def main(base_url: str, data_dir: str) -> None:
    from sonetto_desktop.config.settings import Settings
    from sonetto_desktop.services import AppServices

    settings = Settings(base_url=base_url, model="test-model", api_key="sk-test", data_dir=data_dir,
                        retrieval_mode="mechanical")
    services = await AppServices.open(settings=settings, start_agents=True)
    seen = []
    services.subscribe(seen.append)
    events = [event async for event in services.chat.send("s1", "我养了一只叫汤圆的猫")]
    for _ in range(200):
        if services.writer.pending == 0 and not services.writer.busy and seen:
            break
        await asyncio.sleep(0.05)
    await services.close()
    print(json.dumps({
        "events": [e.kind for e in events],
        "changes": [{"kind": c.kind, "ids": list(c.ids), "actor": c.actor, "turn_id": c.turn_id,
                     "reason": c.reason} for c in seen],
        "turn_id": next((e.turn_id for e in events if e.kind == "done"), None),
        "qt_loaded": any(name.startswith(("PySide6", "qasync")) for name in sys.modules),
        "steps": services.shutdown_steps,
    }, ensure_ascii=False))


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1], sys.argv[2]))
