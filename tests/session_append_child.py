"""Child process for the two-instances test: append transcript entries to one session.

Usage: python session_append_child.py DB SESSION_ID NAME COUNT GO_FILE
Waits until GO_FILE exists (so that both children start together), then appends COUNT user
entries ``NAME-<i>`` to SESSION_ID, one commit each, as the chat engine does. Prints one line per
failed append to stderr and exits 1 if any failed.
"""

from __future__ import annotations

import asyncio
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from sonetto_desktop.agent.sessions import SessionStore  # noqa: E402


async def main(db: Path, session_id: str, name: str, count: int, go: Path) -> int:
    store = SessionStore(db)
    await store.open()
    failures = 0
    try:
        deadline = time.monotonic() + 30
        while not go.exists() and time.monotonic() < deadline:
            await asyncio.sleep(0.005)
        for i in range(count):
            try:
                await store.append(session_id, "user", f"{name}-{i}", turn_id=f"{name}-{i}")
            except Exception as exc:  # noqa: BLE001 - counted and reported
                failures += 1
                print(f"{name}-{i}: {type(exc).__name__}: {exc}", file=sys.stderr)
    finally:
        await store.close()
    return 1 if failures else 0


if __name__ == "__main__":
    db, session_id, name, count, go = sys.argv[1:6]
    sys.exit(asyncio.run(main(Path(db), session_id, name, int(count), Path(go))))
