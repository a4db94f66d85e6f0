"""Widgets and their parts form no reference cycles (issue 39, item 6): a closed window and every
part it made are freed by reference counting, on the Qt thread, the moment the last reference goes —
not later by Python's cyclic collector on whichever thread happens to allocate (a worker's, where
destroying a Qt object is wrong). That is what lets the app leave the collector on.

Each test switches automatic collection off for its own duration (only so that nothing is freed by
the collector behind its back) and checks, with weak references, that what it closed is gone
without a collection: a cycle anywhere among the parts keeps them all alive."""

from __future__ import annotations

import asyncio
import contextlib
import gc
import time
import weakref

from PySide6.QtCore import QCoreApplication, QEvent, QObject
from PySide6.QtWidgets import QApplication

from sonetto_desktop.aio import TaskScope
from helpers import settle


@contextlib.contextmanager
def collector_off():
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


def _python_parts(root: object, depth: int = 3, *, outside: object = None) -> dict[str, weakref.ref]:
    """Weak references to ``root`` and every Qt object or UI part its attributes hold, ``depth`` attributes deep
    (the parts' parts, the sections' views and delegates…), by attribute path; not ``outside`` and
    what it holds (what the test made and keeps, e.g. the memory service)."""
    found: dict[str, weakref.ref] = {}
    seen: set[int] = set()
    if outside is not None:
        seen.update(id(ref()) for ref in _python_parts(outside, depth).values())

    def walk(obj: object, path: str, left: int) -> None:
        if id(obj) in seen or not hasattr(obj, "__dict__") or isinstance(obj, type):
            return
        if not (isinstance(obj, QObject) or type(obj).__module__.startswith("sonetto_desktop.ui")):
            return
        seen.add(id(obj))
        try:
            found[path] = weakref.ref(obj)
        except TypeError:
            return
        if left:
            for name, value in list(vars(obj).items()):
                values = value.values() if isinstance(value, dict) else value if isinstance(value, (list, tuple)) else [value]
                for i, item in enumerate(values):
                    walk(item, f"{path}.{name}" + (f"[{i}]" if item is not value else ""), left - 1)

    walk(root, "root", depth)
    return found


def _alive(refs: dict[str, weakref.ref]) -> list[str]:
    return sorted(path for path, ref in refs.items() if ref() is not None)


async def _left_alive(refs: dict[str, weakref.ref]) -> list[str]:
    """What is still alive once the loop has run a little (a task or a queued call that still holds a
    part lets it go when it ends; a cycle never does: the collector is off)."""
    for _ in range(3):
        QCoreApplication.sendPostedEvents(None, QEvent.Type.DeferredDelete)
        await settle()
    deadline = time.monotonic() + 10.0  # (returns as soon as they are gone; a loaded machine is slow to end tasks)
    while (left := _alive(refs)) and time.monotonic() < deadline:
        await asyncio.sleep(0.02)  # (the loop runs Qt's events meanwhile)
        QCoreApplication.sendPostedEvents(None, QEvent.Type.DeferredDelete)
    return left


async def _fill_and_search(wall, wait) -> None:
    await wall.reload()
    await wall.loader.wait()
    await wait(lambda: wall.theme_sections.all(), message="sections")
    wall.search_edit.setText("咖啡")  # the search, the loader and the sections' views all ran
    await wait(lambda: wall.search.text == "咖啡", message="the search")
    await wall.loader.wait()
    if wall.search.warming is not None:  # a running task holds what it works on: not a cycle, let it end
        await wall.search.warming


async def test_closing_the_only_window_leaves_the_loop_running(qapp):
    """The tests' application is set up as the app's own: closing the last window quits nothing (a test
    that closed its only window used to stop the loop it was awaiting on, when nothing before it in its
    worker had left a window open or switched this off)."""
    from PySide6.QtWidgets import QWidget

    assert not QApplication.instance().quitOnLastWindowClosed()
    window = QWidget()
    window.show()
    window.close()
    await asyncio.sleep(0.05)  # a quit would stop the loop here: "Event loop stopped before Future completed"
    assert asyncio.get_running_loop().is_running()


async def test_a_closed_wall_and_all_its_parts_are_freed_without_the_collector(service, wait):
    from sonetto_desktop.ui.wall.memory_wall import MemoryWall

    with collector_off():
        wall = MemoryWall(service)
        wall.resize(900, 700)
        wall.show()
        await _fill_and_search(wall, wait)
        parts = _python_parts(wall, outside=service)
        assert len(parts) > 40  # the toolbar, loader, search, navigation, sections, their views and delegates…
        assert any(".theme_sections._sections" in path for path in parts)
        wall.close()
        wall.deleteLater()
        del wall
        assert await _left_alive(parts) == []


async def test_a_closed_settings_dialog_and_its_pages_are_freed_without_the_collector(qtbot):
    from sonetto_desktop.config.settings import Settings
    from sonetto_desktop.ui.settings.dialog import SettingsDialog

    with collector_off():
        dialog = SettingsDialog(Settings.load())
        dialog.show()
        parts = _python_parts(dialog)
        assert any(path.startswith("root.recall_page") for path in parts)
        assert any(path.startswith("root.postgres_page") for path in parts)
        dialog.close()
        dialog.deleteLater()
        del dialog
        assert await _left_alive(parts) == []


def test_a_closed_task_scope_is_freed_without_the_collector():
    with collector_off():
        root = TaskScope("root")
        child = root.child("dialog")
        ref = weakref.ref(child)
        child.cancel_all()  # what a destroyed widget's scope does
        del child
        assert ref() is None
        grandchild = weakref.ref(root.child("view").child("list"))
        del root  # the whole tree goes with its root
        assert grandchild() is None


async def test_a_closed_chat_panel_and_its_bars_are_freed_without_the_collector(qtbot):
    from sonetto_desktop.ui.chat.controller import ChatController
    from sonetto_desktop.ui.chat.panel import ChatPanel

    controller = ChatController()
    try:
        with collector_off():
            panel = ChatPanel(controller)
            panel.show()
            parts = _python_parts(panel, outside=controller)
            assert any(path.startswith("root.memory_bar") for path in parts)
            panel.close()
            panel.deleteLater()
            del panel
            assert await _left_alive(parts) == []
    finally:
        controller.deleteLater()
