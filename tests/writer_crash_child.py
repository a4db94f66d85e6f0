"""Child process for the kill -9 test: journal one turn, then hang inside its consumption.

Usage: python writer_crash_child.py STORE_PATH BASE_URL
Prints "SENT <turn_id>" once ``send_history`` returned, then "STARTED" once the writer began
consuming (the scripted server hangs it), then waits to be killed.
"""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from langchain_openai import ChatOpenAI

from sonetto_desktop.memory import YamlMemoryManager
from sonetto_desktop.memory.writer import MemoryWriter


async def main(store: str, base_url: str) -> None:
    llm = ChatOpenAI(base_url=base_url, api_key="sk-test", model="test-model", max_retries=0, timeout=60)
    ltm = MemoryWriter(YamlMemoryManager(store), llm)
    started = asyncio.Event()
    ltm.events.subscribe(lambda e: e.kind == "started" and started.set())
    ltm.start()
    turn_id = await ltm.send_history(
        [{"role": "user", "content": "我叫小林，在杭州读大学"}, {"role": "assistant", "content": "你好小林！"}],
        session_id="crash-session",
    )
    print(f"SENT {turn_id}", flush=True)
    await started.wait()
    print("STARTED", flush=True)
    await asyncio.sleep(600)


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1], sys.argv[2]))
