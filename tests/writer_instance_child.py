"""Child process: a second app instance on the same store. Another instance holds the journal, so
this one writes only the turns it is sent; its one turn hangs in the model call (the scripted server
hangs it) until the test kills this process.

Usage: python writer_instance_child.py STORE_PATH BASE_URL
Prints "SENT <turn_id>" once the turn is journaled and "STARTED" once the writer is working on it.
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
    llm = ChatOpenAI(base_url=base_url, api_key="sk-test", model="test-model", max_retries=0, timeout=120)
    writer = MemoryWriter(YamlMemoryManager(store), llm)
    started = asyncio.Event()
    writer.events.subscribe(lambda e: e.kind == "started" and started.set())
    writer.start()
    turn_id = await writer.send_history([{"role": "user", "content": "我喜欢猫"}], session_id="other-instance")
    print(f"SENT {turn_id}", flush=True)
    await started.wait()
    print("STARTED", flush=True)
    await asyncio.sleep(600)


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1], sys.argv[2]))
