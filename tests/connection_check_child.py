"""Child process for test_llm's connection-check test: a fresh interpreter runs ``test_connection``
(the scripted server on the command line) and reports, as JSON, the result and what was imported or
TLS-set-up on the loop thread meanwhile (the settings dialog runs the check on the UI's loop)."""

from __future__ import annotations

import asyncio
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))

from lazy_llm_child import LoopThreadWork  # noqa: E402


async def main(base_url: str) -> None:
    from sonetto_desktop.agent.llm import test_connection
    from sonetto_desktop.config.settings import Settings

    watch = LoopThreadWork()
    watch.on = True
    result = await test_connection(Settings(base_url=base_url, model="test-model", api_key="sk-test"))
    watch.on = False
    print(json.dumps({"ok": result.ok, "tools": result.tools, "loop_thread_work": watch.seen}))


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1]))
