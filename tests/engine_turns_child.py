"""Child process for the two-app-instances test: chat COUNT turns in one session, then exit.

Usage: python engine_turns_child.py DATA_DIR MEMORY_DIR BASE_URL SESSION_ID NAME COUNT GO_FILE
DATA_DIR holds the shared ``sessions.db``; MEMORY_DIR this child's own memory store and journal.
Waits for GO_FILE (so that both children chat at the same time), sends ``NAME-<i>`` COUNT times
and prints one JSON line: ``{"kinds": [last event kind per turn], "journaled": [turn ids]}``.
"""

from __future__ import annotations

import asyncio
import json
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from langchain_openai import ChatOpenAI  # noqa: E402

from sonetto_desktop.agent.engine import ChatEngine  # noqa: E402
from sonetto_desktop.memory import YamlMemoryManager  # noqa: E402

sys.path.insert(0, str(ROOT / "tests"))
from ltm_helpers import make_ltm  # noqa: E402


async def main(data_dir: Path, memory_dir: Path, base_url: str, session_id: str, name: str, count: int,
               go: Path) -> int:
    mm = YamlMemoryManager(memory_dir / "memory.yaml")
    ltm = make_ltm(mm, start=True)  # no model: turns stay journaled
    engine = ChatEngine(
        ltm,
        data_dir=data_dir,
        llm_factory=lambda: ChatOpenAI(
            base_url=base_url, api_key="sk-test", model="test-model", max_retries=0, timeout=20, streaming=True
        ),
    )
    await engine.start()
    last: list[str] = []
    try:
        deadline = time.monotonic() + 30
        while not go.exists() and time.monotonic() < deadline:
            await asyncio.sleep(0.005)
        for i in range(count):
            events = [event async for event in engine.send(session_id, f"{name}-{i}")]
            last.append(events[-1].kind if events[-1].kind == "done" else f"{events[-1].error_code}: {events[-1].error_en}")
        journaled = [entry.turn_id for entry in ltm.writer.journal.pending()]
    finally:
        await engine.close()
        await ltm.writer.stop(timeout=1)
        ltm.recall.close()
        mm.close()
    print(json.dumps({"kinds": last, "journaled": journaled}))
    return 0


if __name__ == "__main__":
    args = sys.argv[1:8]
    sys.exit(asyncio.run(main(Path(args[0]), Path(args[1]), args[2], args[3], args[4], int(args[5]), Path(args[6]))))
