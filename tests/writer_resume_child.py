"""Child process for the resume-after-kill test: a writer turn whose model asked for several
creates is frozen right after the store committed the Nth of them (before the journal could say
"done"), then killed -9 by the test.

Usage: python writer_resume_child.py STORE_PATH BASE_URL N
Prints "FROZEN <turn_id>" once the Nth memory is committed, then waits to be killed.
"""

from __future__ import annotations

import asyncio
import sys
import threading
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from langchain_openai import ChatOpenAI

from sonetto_desktop.memory import YamlMemoryManager
from sonetto_desktop.memory.writer import MemoryWriter


async def main(store_path: str, base_url: str, freeze_at: int) -> None:
    llm = ChatOpenAI(base_url=base_url, api_key="sk-test", model="test-model", max_retries=0, timeout=60)
    store = YamlMemoryManager(store_path)
    adds: list[str] = []
    turn: list[str] = []

    def on_change(change) -> None:  # runs on the tool's worker thread, right after the commit
        if change.kind == "add":
            adds.append(change.ids[0])
            if len(adds) == freeze_at:
                print(f"FROZEN {turn[0]}", flush=True)
                threading.Event().wait(600)  # the journal never hears that this call was done

    store.subscribe(on_change)
    writer = MemoryWriter(store, llm)
    writer.start()
    turn.append(await writer.send_history(
        [{"role": "user", "content": "我叫小林，在杭州读大学，养了一只猫，喜欢周杰伦"}], session_id="resume"))
    await asyncio.sleep(600)


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1], sys.argv[2], int(sys.argv[3])))
