"""Child process for the key-in-logs test: the app's own ``--verbose`` logging, a qasync loop, and
chat turns against a server that echoes the API key. Everything logged goes to stderr.

Usage: python verbose_log_child.py DATA_DIR BASE_URL API_KEY
Prints the error code of each turn on stdout (one line each), then ``writer_failed`` when the
memory writer's call has failed too, then ``logged`` after two failures logged the app's way.
"""

from __future__ import annotations

import asyncio
import gc
import os
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
os.environ.setdefault("QT_API", "pyside6")

from sonetto_desktop.agent.engine import ChatEngine  # noqa: E402
from sonetto_desktop.agent.llm import build_llm  # noqa: E402
from sonetto_desktop.ui.app import _setup_logging, install_excepthook, loop_exception_handler  # noqa: E402
from sonetto_desktop.config.settings import Settings  # noqa: E402
from sonetto_desktop.memory import YamlMemoryManager  # noqa: E402

sys.path.insert(0, str(ROOT / "tests"))
from ltm_helpers import make_ltm  # noqa: E402


async def chat(data_dir: Path, base_url: str, key: str) -> None:
    settings = Settings(base_url=base_url, model="test-model", api_key=key, request_timeout=5)
    mm = YamlMemoryManager(data_dir / "memory.yaml")
    ltm = make_ltm(mm, build_llm(settings))  # the writer uses the same endpoint and key, as in the app
    failed = asyncio.Event()
    ltm.writer.events.subscribe(lambda event: failed.set() if event.kind == "failed" else None)
    ltm.writer.start()
    engine = ChatEngine(ltm, data_dir=data_dir, settings_provider=lambda: settings)
    await engine.start()
    try:
        for text in ("你好", "在吗", "还在吗"):
            events = [event async for event in engine.send("s1", text)]
            print(events[-1].error_code or events[-1].kind, flush=True)
        await asyncio.wait_for(failed.wait(), 30)  # the writer's call failed too
        print("writer_failed", flush=True)
        await failures_the_app_logs(build_llm(settings))
    finally:
        await engine.close()
        await ltm.writer.stop(timeout=1)
        ltm.recall.close()
        mm.close()


async def failures_the_app_logs(llm) -> None:
    """A failed call whose exception nobody retrieves (the loop's exception handler logs it), and
    one that escapes a slot (``sys.excepthook`` logs it): both carry the server's echo of the key."""
    asyncio.get_running_loop().set_exception_handler(loop_exception_handler)
    task = asyncio.ensure_future(llm.ainvoke("你好"))
    await asyncio.wait([task])
    del task
    gc.collect()  # "Task exception was never retrieved", through the app's handler
    try:
        await llm.ainvoke("你好")
    except Exception as exc:  # noqa: BLE001 - handed to the hook as Qt does for a failing slot
        sys.excepthook(type(exc), exc, exc.__traceback__)
    print("logged", flush=True)


def main(data_dir: Path, base_url: str, key: str) -> int:
    _setup_logging(True)
    install_excepthook()
    import qasync
    from PySide6.QtWidgets import QApplication

    app = QApplication.instance() or QApplication([])
    with asyncio.Runner(loop_factory=lambda: qasync.QEventLoop(app)) as runner:
        runner.run(chat(data_dir, base_url, key))
    return 0


if __name__ == "__main__":
    sys.exit(main(Path(sys.argv[1]), sys.argv[2], sys.argv[3]))
