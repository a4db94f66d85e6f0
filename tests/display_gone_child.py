"""Child process for test_display_gone: the app's own ``main`` (offscreen) on the config and data
folders the environment names; ``argv[1]`` seconds after the window is shown, Qt's event loop is ended
from under the app at every turn, as Qt's X11 plugin ends it again and again once the display has
gone away ("The X11 connection broke"). With ``argv[2]`` = ``quitting``, the app is asked to quit
(SIGTERM: a logout ends the session's apps and its X server at once) just before. The process must end."""

from __future__ import annotations

import os
import signal
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


def main() -> int:
    from PySide6.QtCore import QTimer

    from sonetto_desktop.ui import app as app_module

    after_ms = int(float(sys.argv[1]) * 1000)
    real = app_module.create_qapp

    def create_qapp(argv):
        qapp = real(argv)
        gone = QTimer(qapp)  # from then on every turn of Qt's loop ends it, as a broken X connection does
        gone.setInterval(0)
        gone.timeout.connect(lambda: qapp.exit(1))
        def go() -> None:
            if sys.argv[2:] == ["quitting"]:  # the quit asked for, its steps to run on the loop's next turns
                os.kill(os.getpid(), signal.SIGTERM)
            print("quitting Qt's loop", flush=True)
            gone.start()

        QTimer.singleShot(after_ms, go)
        return qapp

    app_module.create_qapp = create_qapp
    return app_module.main([])


if __name__ == "__main__":
    sys.exit(main())
