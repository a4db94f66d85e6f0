"""Child process for test_start_order's settings test: the app (offscreen, the config and data folders
the environment names, no model) started until its start-up work is done, then 设置 opened. Reports,
as JSON on stdout, which of the settings dialog's modules (and the language switch's) were imported
at that point, and which the
Qt thread imported during start-up and during the opening (a fresh process: the test run has
imported the dialog long ago)."""

from __future__ import annotations

import asyncio
import json
import sys
import threading
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

PREFIX = ("sonetto_desktop.ui.settings", "sonetto_desktop.ui.language_switch")


def main() -> None:
    import qasync

    from sonetto_desktop.config.settings import load_settings
    from sonetto_desktop.ui.app import create_qapp
    from sonetto_desktop.ui.shell import SonettoApp

    on_qt_thread: list[str] = []
    main_thread = threading.main_thread()
    sys.addaudithook(lambda event, args: event == "import" and str(args[0]).startswith(PREFIX)
                     and threading.current_thread() is main_thread and on_qt_thread.append(args[0]))
    out: dict = {}

    async def run(qapp) -> None:
        app = SonettoApp(qapp, load_settings(), interactive=False, use_tray=False)
        try:
            await app.start()
            await app.wait_until_ready()
            out["loaded"] = sorted(name for name in sys.modules if name.startswith(PREFIX))
            out["start_on_qt_thread"] = list(on_qt_thread)
            on_qt_thread.clear()
            dialog = app.open_settings()
            out["opened"] = dialog.isVisible() and dialog.recall_page is not None
            out["open_on_qt_thread"] = list(on_qt_thread)
            dialog.reject()
        finally:
            await app.shutdown()

    qapp = create_qapp([])
    with asyncio.Runner(loop_factory=lambda: qasync.QEventLoop(qapp)) as runner:
        runner.run(run(qapp))
    print(json.dumps(out))


if __name__ == "__main__":
    main()
