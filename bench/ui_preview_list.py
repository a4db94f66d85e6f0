"""The history import's preview list at 1,000 / 10,000 / 100,000 conversations (a 2 GB ChatGPT export
holds ~94,000): what showing a plan, a click on a header, a keystroke in the title filter, 全不选
and a new plan cost on the Qt thread.

    QT_QPA_PLATFORM=offscreen python -m bench.ui_preview_list [--sizes 1000,10000,100000]

The plan's rows are the fixture export's first conversation repeated with varied titles, days, turns
and characters; ``ConversationList`` is the dialog's own widget, shown at 700 x 400. Each figure is
the wall time of the call and the events it queues (the repaint included), in ms.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from dataclasses import replace
from datetime import date, timedelta
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
for extra in (ROOT, ROOT / "tests"):
    if str(extra) not in sys.path:
        sys.path.insert(0, str(extra))


def measure(sizes: list[int]) -> list[dict]:
    from PySide6.QtCore import Qt
    from PySide6.QtWidgets import QApplication

    from history_helpers import fixture
    from sonetto_desktop.history_import.plan import make_plan
    from sonetto_desktop.history_import.sources import read_history
    from sonetto_desktop.ui.dialogs.history_preview import ConversationList

    app = QApplication.instance() or QApplication([])
    plan = make_plan(read_history(fixture("chatgpt_conversations.json")))
    first, rng, out = plan.rows[0], random.Random(1), []
    for n in sizes:
        plan.rows = [replace(first, id=f"c{i}", title=f"对话{rng.randint(0, 99_999)}",
                             first_day=date(2022, 1, 1) + timedelta(days=rng.randint(0, 900)), last_day=None,
                             exchanges=rng.randint(1, 40), characters=rng.randint(100, 90_000)) for i in range(n)]
        widget = ConversationList()
        widget.resize(700, 400)
        widget.show()
        app.processEvents()
        row: dict = {"conversations": n}

        def timed(label: str, action) -> None:
            start = time.perf_counter()
            action()
            app.processEvents()
            row[label] = round((time.perf_counter() - start) * 1000, 1)

        timed("show_plan_ms", lambda: widget.show_plan(plan, set()))
        timed("sort_ms", lambda: widget.header().setSortIndicator(3, Qt.SortOrder.DescendingOrder))
        timed("filter_ms", lambda: widget.filter("对话1"))
        timed("sort_filtered_ms", lambda: widget.header().setSortIndicator(2, Qt.SortOrder.AscendingOrder))
        timed("untick_all_ms", lambda: widget.set_all(False))
        timed("clear_filter_ms", lambda: widget.filter(""))
        timed("new_plan_ms", lambda: widget.show_plan(plan, widget.unticked()))
        widget.close()
        widget.deleteLater()
        app.processEvents()
        out.append(row)
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.ui_preview_list", description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", type=lambda s: [int(x) for x in s.split(",")], default=[1000, 10_000, 100_000])
    args = parser.parse_args(argv)
    for row in measure(args.sizes):
        print(json.dumps(row))
    return 0


if __name__ == "__main__":
    sys.exit(main())
