"""tests/helpers.py's ``settle()``: the tests' way to let Qt and the loop run inside a coroutine, where
``process_events()`` refuses to (a Qt loop inside a coroutine's step strands other tasks; the rule is
tests/test_import_rule.py::test_no_coroutine_runs_a_nested_qt_loop)."""

from __future__ import annotations

import asyncio

import pytest
from PySide6.QtWidgets import QLabel, QVBoxLayout, QWidget

from helpers import process_events, settle


async def test_settle_lets_qt_lay_out_and_other_tasks_run(qapp, qtbot):
    ran: list[str] = []

    async def other() -> None:
        await asyncio.sleep(0)
        ran.append("other")

    task = asyncio.ensure_future(other())
    outer = QWidget()
    qtbot.addWidget(outer)
    QVBoxLayout(outer).addWidget(label := QLabel("一行字"))
    outer.show()
    label.setText("长一点的一行字，长到布局要重新算一次宽度")  # a layout request, posted
    await settle()
    assert ran == ["other"] and task.done()
    assert label.width() >= label.sizeHint().width()  # laid out for its new text


async def test_process_events_refuses_to_run_inside_a_coroutine(qapp):
    def from_this_coroutine() -> None:  # (a nested function: the source rule reads coroutines' own calls)
        process_events()

    with pytest.raises(RuntimeError, match="settle"):
        from_this_coroutine()


def test_process_events_runs_outside_a_coroutine(qapp):
    from PySide6.QtCore import QTimer

    fired: list[int] = []
    QTimer.singleShot(0, lambda: fired.append(1))
    process_events()
    assert fired == [1]
