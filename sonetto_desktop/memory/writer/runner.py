"""A private event loop on a daemon thread for the writer agent.

LangChain does real CPU work on the loop that awaits it (building and parsing requests, checkpoint
copies of the growing message list): tens of milliseconds per call once the memory list is long.
On the Qt thread that is visible jank, so the writer agent runs here instead. The caller awaits
``run(coro)``; cancelling that await cancels the coroutine on the private loop (and so the HTTP
request), which is what makes ``LongTermMemory.stop()`` bounded.
"""

from __future__ import annotations

import asyncio
import logging
import threading
from collections.abc import Coroutine
from typing import Any, TypeVar

T = TypeVar("T")

log = logging.getLogger(__name__)


def safe_to_isolate(llm: Any) -> bool:
    """May ``llm`` be used from the private loop while the app uses other models on its own loop?

    Not a ``ChatOpenAI`` without its own ``http_async_client``: langchain-openai then uses a
    process-wide cached httpx client (per base URL and timeout), shared with the chat model, and an
    httpx client's connections belong to the event loop that opened them.
    """
    return not (hasattr(llm, "http_async_client") and llm.http_async_client is None)


class LoopThread:
    def __init__(self, name: str = "sonetto-memory-writer") -> None:
        self._name = name
        self._loop: asyncio.AbstractEventLoop | None = None
        self._thread: threading.Thread | None = None
        self._lock = threading.Lock()
        self._refused_for: Any = None

    def use_for(self, llm: Any, wanted: bool) -> bool:
        """Should a run with ``llm`` go through this thread? Only if ``wanted`` and safe (logged once
        per model when refused)."""
        if not wanted:
            return False
        if safe_to_isolate(llm):
            return True
        if self._refused_for is not llm:
            self._refused_for = llm
            log.warning("isolate_loop ignored: give the writer's ChatOpenAI its own http_async_client")
        return False

    def _ensure(self) -> asyncio.AbstractEventLoop:
        with self._lock:
            if self._loop is None:
                loop = asyncio.new_event_loop()
                ready = threading.Event()

                def main() -> None:
                    asyncio.set_event_loop(loop)
                    loop.call_soon(ready.set)
                    loop.run_forever()
                    loop.run_until_complete(loop.shutdown_asyncgens())
                    loop.close()

                self._thread = threading.Thread(target=main, name=self._name, daemon=True)
                self._thread.start()
                ready.wait()
                self._loop = loop
            return self._loop

    async def run(self, coro: Coroutine[Any, Any, T]) -> T:
        """Run ``coro`` on the private loop and await its result from the calling loop."""
        future = asyncio.run_coroutine_threadsafe(coro, self._ensure())
        return await asyncio.wrap_future(future)

    def close(self, timeout: float = 5.0) -> None:
        """Cancel what still runs on the private loop, let it finish, then stop the loop and thread.
        The loop lives as long as its owner: the HTTP connections opened on it belong to it."""
        with self._lock:
            loop, thread = self._loop, self._thread
            self._loop = self._thread = None
        if loop is None:
            return

        async def cancel_all() -> None:
            tasks = [t for t in asyncio.all_tasks() if t is not asyncio.current_task()]
            for task in tasks:
                task.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)

        try:
            asyncio.run_coroutine_threadsafe(cancel_all(), loop).result(timeout)
        except Exception:  # noqa: BLE001 - closing must not fail; the thread is a daemon
            pass
        loop.call_soon_threadsafe(loop.stop)
        if thread is not None:
            thread.join(timeout)
