"""Child process for test_ops: a front end with no Qt at all (PySide6, shiboken6 and qasync made
unimportable) runs the window's operations through ``AppServices.run`` on a plain asyncio loop and
prints what came back as JSON: results, failures' wording, the changes on the feed."""

from __future__ import annotations

import asyncio
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from no_qt import block  # noqa: E402 - the tests folder is this script's own

block()


async def main(data_dir: str) -> None:
    from sonetto_desktop import ops
    from sonetto_desktop.config.settings import Settings
    from sonetto_desktop.services import AppServices

    services = await AppServices.open(settings=Settings(data_dir=data_dir, retrieval_mode="mechanical"), watch=False)
    changes = []
    services.subscribe(lambda change: changes.append(change))
    out: dict = {}
    try:
        added = await services.run(ops.AddMemory("小林喜欢猫", "品味"))
        memory_id = added.value
        edited = await services.run(ops.EditMemory(memory_id, "小林喜欢橘猫", None))
        edit_turn = changes[-1].turn_id
        undone = await services.run(ops.UndoTurn(edit_turn))
        snapshot = await services.run(ops.Snapshot())
        forgot = await services.run(ops.ForgetTurn("turn-1", "别记住我的生日"))
        out["done"] = {
            "add": [added.ok, memory_id],
            "edit": [edited.ok, edited.value],
            "undo": [undone.ok, len(undone.value.changes)],
            "snapshot": [snapshot.ok, {mid: item.description for mid, item in snapshot.value.items()}],
            "forget": [forgot.ok, [entry.text for entry in services.dont_remember.entries()]],
        }
        out["changes"] = [[c.kind, c.actor, c.turn_id or ""] for c in changes]
        (Path(data_dir) / "dont_remember.json").write_text("{damaged", encoding="utf-8")
        failures = {
            "edit": await services.run(ops.EditMemory("no-such-id", "x", None)),
            "read": await services.run(ops.Item("no-such-id")),
            "call": await services.run(ops.Call.of(Path(data_dir, "missing.txt").read_text)),
            "services": await services.run(ops.ForgetTurn("turn-2", "也别记住这个")),
        }
        out["failed"] = {name: [outcome.ok, outcome.message, type(outcome.error).__name__]
                         for name, outcome in failures.items()}
        from sonetto_desktop.presentation.errors import describe_error

        out["one_wording"] = all(outcome.message == describe_error(outcome.error) for outcome in failures.values())
        out["after"] = {mid: item.description for mid, item in services.memory.all_items().items()}
    finally:
        await services.close()
    out["qt_loaded"] = any(name.split(".")[0] in ("PySide6", "qasync") for name in sys.modules)
    print(json.dumps(out, ensure_ascii=False))


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1]))
