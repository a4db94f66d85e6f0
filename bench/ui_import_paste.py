"""Pasting into File → 导入聊天记录…'s box for ChatGPT's saved memories (issue 35, item 14), in the
real app's dialog (offscreen platform): what a paste and each keystroke after it cost the GUI thread.

    python -m bench.ui_import_paste [--mb 5] [--keys 20]

The pasted text is ``--mb`` MB of lines like a saved-memories list. Reported: the paste (through
the clipboard, as Ctrl+V does, and the loop's next passes) and then ``--keys`` keystrokes typed at
the end of the box (each with the loop's next passes: p50 / max), with what the box then holds. Not a test: the
numbers go to docs/benchmarks.md.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import tempfile
import time
from pathlib import Path

from bench.proc import run_offscreen_app

ROOT = Path(__file__).resolve().parent.parent
for extra in (ROOT, ROOT / "tests", ROOT / "tests" / "ui"):
    if str(extra) not in sys.path:
        sys.path.insert(0, str(extra))


def pasted_text(megabytes: float) -> str:
    lines = []
    size = 0
    n = 0
    while size < megabytes * 1024 * 1024:
        line = f"{n + 1}. User likes green tea and lives in Hangzhou（第 {n} 条，喜欢在西湖边跑步）"
        lines.append(line)
        size += len(line.encode("utf-8")) + 1
        n += 1
    return "\n".join(lines)


async def measure(qapp, megabytes: float, keys: int) -> dict:
    from PySide6.QtCore import Qt
    from PySide6.QtGui import QGuiApplication, QTextCursor
    from PySide6.QtTest import QTest

    from shell_fixtures import app_settings, running_app

    async def settle() -> None:  # the loop's passes after an event: repaints, timers, posted events
        for _ in range(3):
            await asyncio.sleep(0)

    with tempfile.TemporaryDirectory() as folder:
        async with running_app(qapp, app_settings(Path(folder) / "data")) as shell:
            dialog = shell.history_imports.open_dialog(shell.window)
            await dialog.loading
            box = dialog.paste_box
            box.setFocus()
            text = pasted_text(megabytes)
            QGuiApplication.clipboard().setText(text)
            await settle()
            began = time.perf_counter()
            box.paste()
            await settle()
            paste_s = time.perf_counter() - began
            box.moveCursor(QTextCursor.MoveOperation.End)
            times = []
            for _ in range(keys):
                began = time.perf_counter()
                QTest.keyClick(box, Qt.Key.Key_A)
                await settle()
                times.append(time.perf_counter() - began)
            await asyncio.sleep(0.5)  # anything a keystroke started later (a debounce) has run
            await settle()
            held = box.document().characterCount() - 1
            said = dialog.source_error.text()
            dialog.reject()
    return {"pasted_mb": megabytes, "pasted_chars": len(text), "paste_s": round(paste_s, 3),
            "key_ms_p50": round(1000 * statistics.median(times), 1), "key_ms_max": round(1000 * max(times), 1),
            "box_holds_chars": held, "said": said[:160]}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mb", type=float, default=5.0)
    parser.add_argument("--keys", type=int, default=20)
    args = parser.parse_args(argv)
    return run_offscreen_app(lambda qapp: measure(qapp, args.mb, args.keys))


if __name__ == "__main__":
    sys.exit(main())
