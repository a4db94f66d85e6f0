"""Child process for the key-in-logs test: the app's own ``--verbose`` logging, a qasync loop, and
chat turns against a server that echoes the API key. Everything logged goes to stderr.

Usage: python verbose_log_child.py DATA_DIR BASE_URL API_KEY
Prints the error code of each turn on stdout (one line each).
"""

from __future__ import annotations

import asyncio
import os
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
os.environ.setdefault("QT_API", "pyside6")

from sonetto_desktop.agent.engine import ChatEngine  # noqa: E402
from sonetto_desktop.agent.llm import build_llm  # noqa: E402
from sonetto_desktop.app import _setup_logging  # noqa: E402
from sonetto_desktop.config.settings import Settings  # noqa: E402
from sonetto_desktop.memory import YamlMemoryManager  # noqa: E402
from sonetto_desktop.memory.writer.ltm import LongTermMemory  # noqa: E402


async def chat(data_dir: Path, base_url: str, key: str) -> None:
    settings = Settings(base_url=base_url, model="test-model", api_key=key, request_timeout=5)
    mm = YamlMemoryManager(data_dir / "memory.yaml")
    ltm = LongTermMemory(mm, build_llm(settings))  # the writer uses the same endpoint and key, as in the app
    failed = asyncio.Event()
    ltm.events.subscribe(lambda event: failed.set() if event.kind == "turn_failed" else None)
    ltm.start()
    engine = ChatEngine(ltm, data_dir=data_dir, settings_provider=lambda: settings)
    await engine.start()
    try:
        for text in ("你好", "在吗", "还在吗"):
            events = [event async for event in engine.send("s1", text)]
            print(events[-1].error_code or events[-1].kind, flush=True)
        await asyncio.wait_for(failed.wait(), 30)  # the writer's call failed too
        print("writer_failed", flush=True)
    finally:
        await engine.close()
        await ltm.stop(timeout=1)
        mm.close()


def main(data_dir: Path, base_url: str, key: str) -> int:
    _setup_logging(True)
    import qasync
    from PySide6.QtWidgets import QApplication

    app = QApplication.instance() or QApplication([])
    with asyncio.Runner(loop_factory=lambda: qasync.QEventLoop(app)) as runner:
        runner.run(chat(data_dir, base_url, key))
    return 0


if __name__ == "__main__":
    sys.exit(main(Path(sys.argv[1]), sys.argv[2], sys.argv[3]))
