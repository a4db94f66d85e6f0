"""ui/deferred.py: a deferred call never runs against an object deleted before it fires (issue 18)."""

from __future__ import annotations

import re
from pathlib import Path

from PySide6.QtCore import QCoreApplication, QEvent
from PySide6.QtWidgets import QWidget

from sonetto_desktop.ui.widgets.deferred import alive, later

UI = Path(__file__).resolve().parents[2] / "sonetto_desktop" / "ui"


def _turns(n: int = 3) -> None:
    for _ in range(n):
        QCoreApplication.processEvents()


def test_later_runs_while_the_owner_lives_and_is_dropped_with_it(qapp):
    kept, gone = QWidget(), QWidget()
    calls: list[str] = []
    later(kept, lambda: calls.append(kept.objectName() or "kept"))
    later(gone, lambda: calls.append(gone.objectName() or "gone"))
    gone.deleteLater()
    QCoreApplication.sendPostedEvents(None, QEvent.Type.DeferredDelete)
    _turns()
    assert calls == ["kept"]
    assert not alive(gone) and alive(kept)
    kept.deleteLater()


def test_a_child_owner_is_dropped_when_its_parent_is_deleted(qapp):
    parent = QWidget()
    child = QWidget(parent)
    calls: list[int] = []
    later(child, lambda: calls.append(1))
    parent.deleteLater()
    QCoreApplication.sendPostedEvents(None, QEvent.Type.DeferredDelete)
    _turns()
    assert calls == []


def test_no_bare_single_shot_left_in_ui():
    bare = [
        f"{path.relative_to(UI)}:{number}"
        for path in sorted(UI.rglob("*.py")) if path.name != "deferred.py"
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
        if re.search(r"QTimer\.singleShot\(", line)
    ]
    assert bare == [], f"use ui.widgets.deferred.later(owner, fn) instead: {bare}"
