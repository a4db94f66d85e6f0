"""What the first chat message pays for the lazily imported LLM stack (issue 14, idle memory).

    python bench/lazy_import.py

In a fresh process (services' modules imported, as in the running app), imports what the chat
engine's first turn imports (``turn_runner.TURN_MODULES`` and langchain-openai) on a worker thread, as
the engine does, while a 5 ms asyncio ticker records how late the event loop wakes up: the import
takes the GIL in bursts, so the loop is slowed, not stopped. Prints the import's wall time, the
loop's worst and p99 lateness, and the RSS before and after.
"""

from __future__ import annotations

import asyncio
import importlib
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.proc import rss_mb

TICK = 0.005




def _import_stack() -> None:
    from sonetto_desktop.agent.turn_runner import TURN_MODULES
    from sonetto_desktop.agent.session_db import CHECKPOINT_MODULES

    for name in (*TURN_MODULES, *CHECKPOINT_MODULES, "langchain_openai", "langchain.agents"):
        importlib.import_module(name)


async def main() -> None:
    import sonetto_desktop.services  # noqa: F401 - what the app has imported before the first message
    from sonetto_desktop.agent_lifecycle import AGENT_MODULES

    for name in AGENT_MODULES:
        importlib.import_module(name)
    before = rss_mb()
    late: list[float] = []
    running = True

    async def ticker() -> None:
        while running:
            start = time.perf_counter()
            await asyncio.sleep(TICK)
            late.append((time.perf_counter() - start - TICK) * 1000)

    task = asyncio.ensure_future(ticker())
    started = time.perf_counter()
    await asyncio.to_thread(_import_stack)
    seconds = time.perf_counter() - started
    running = False
    await task
    late.sort()
    print(f"import of the LLM stack on a worker thread: {seconds:.2f} s; RSS {before:.0f} -> {rss_mb():.0f} MB")
    print(f"event loop lateness meanwhile: max {late[-1]:.1f} ms, p99 {late[int(len(late) * 0.99) - 1]:.1f} ms "
          f"({len(late)} ticks)")


if __name__ == "__main__":
    asyncio.run(main())
