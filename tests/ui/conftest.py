"""UI test fixtures: memory stores with content, the wall's service, a polling helper, and a check
that no test leaves a window behind. Tests here run on a qasync loop (see tests/conftest.py)."""

from __future__ import annotations

import asyncio
import gc
import time
from pathlib import Path
from typing import Callable

import pytest
import shiboken6
from PySide6.QtCore import QCoreApplication, QEvent, Qt
from PySide6.QtWidgets import QApplication

from memory_stores import backend_store_fixture, yaml_store_fixture

from service_fixtures import memory_service_over

SAMPLE = [
    ("喜欢手冲咖啡，不加糖", "品味"),
    ("讨厌香菜", "品味"),
    ("最喜欢的乐队是草东没有派对", "品味"),
    ("在一家做机器人的公司当后端工程师", "工作"),
    ("正在用 Rust 重写调度服务", "工作"),
    ("有一只叫年糕的橘猫", "家人"),
]


_HERE = str(Path(__file__).resolve().parent)

# The offscreen platform plugin warns whenever a window's size constraints change; that is the
# test platform talking, not our code, so it is the one Qt warning tests here let through.
_OFFSCREEN_NOISE = r"^This plugin does not support propagateSizeHints\(\)$"


def pytest_collection_modifyitems(config, items):
    for item in items:
        if str(item.path).startswith(_HERE):
            item.add_marker(pytest.mark.qt_log_ignore(_OFFSCREEN_NOISE))


async def wait_until(predicate: Callable[[], object], timeout: float = 5.0,
                     message: str | Callable[[], str] = "") -> None:
    """Poll ``predicate`` while the (qasync) loop keeps running; fail after ``timeout`` seconds
    (``message`` may be a function: what was seen, worded when it fails)."""
    deadline = time.monotonic() + timeout
    while not predicate():
        if time.monotonic() > deadline:
            pytest.fail(f"timed out waiting for {(message() if callable(message) else message) or predicate}")
        await asyncio.sleep(0.01)


def _pointer(widget) -> int:
    return shiboken6.getCppPointer(widget)[0]


def _flush_deletes(collect: bool = False) -> None:
    for _ in range(2):
        QCoreApplication.sendPostedEvents(None, QEvent.Type.DeferredDelete)
        QCoreApplication.processEvents()
    if collect:
        gc.collect()  # slow with big heaps: only when something looks leaked
        QCoreApplication.sendPostedEvents(None, QEvent.Type.DeferredDelete)


def _new_top_levels(before: set[int]) -> list:
    return [w for w in QApplication.topLevelWidgets() if _pointer(w) not in before]


@pytest.fixture(autouse=True)
def no_leaked_windows(qapp):
    """Fail a test that leaves a top-level widget (window, dialog, menu) alive after its teardown."""
    before = {_pointer(w) for w in QApplication.topLevelWidgets()}
    yield
    _flush_deletes()
    if not _new_top_levels(before):
        return
    _flush_deletes(collect=True)  # only Python references may still hold them: collect, then judge
    leaked = _new_top_levels(before)
    names = [f"{type(w).__name__}({w.objectName()!r}, visible={w.isVisible()})" for w in leaked]
    for widget in leaked:  # do not cascade into the next test
        widget.close()
        widget.deleteLater()
    _flush_deletes()
    assert not names, f"leaked top-level widgets: {names}"


@pytest.fixture(autouse=True)
def no_button_left_held(qapp):
    """Let go of a mouse button a test left pressed: a press whose widget went away before its release
    (a click that closes what it clicked) leaves the button held for the whole process, and the next
    test's quiet-moment collector (``ui/quiet_collector.py``) then takes every moment as a drag in
    progress (seen once in a full run: three of its tests timed out on one worker)."""
    yield
    held = QApplication.mouseButtons()
    if held == Qt.MouseButton.NoButton:
        return
    from PySide6.QtTest import QTest
    from PySide6.QtWidgets import QWidget

    spot = QWidget()
    spot.show()
    for button in (Qt.MouseButton.LeftButton, Qt.MouseButton.RightButton, Qt.MouseButton.MiddleButton):
        if held & button:
            QTest.mouseRelease(spot, button)
    spot.close()
    spot.deleteLater()
    _flush_deletes()


store = backend_store_fixture("store")  # an empty memory store of each backend, closed after the test
yaml_store = yaml_store_fixture("yaml_store")


@pytest.fixture
def populated_store(yaml_store):
    """A YAML store holding SAMPLE; ``populated_store.ids`` maps description -> id."""
    yaml_store.ids = {description: yaml_store.add(description, theme) for description, theme in SAMPLE}
    return yaml_store


@pytest.fixture
def service(populated_store, qapp):
    yield from memory_service_over(populated_store)


@pytest.fixture
def wall(service, qtbot):
    """A shown MemoryWall over ``populated_store`` (call ``await wall.reload()`` to fill it)."""
    from sonetto_desktop.ui.wall.memory_wall import MemoryWall

    widget = MemoryWall(service)
    qtbot.addWidget(widget)
    widget.resize(900, 700)
    widget.show()
    return widget


@pytest.fixture
def wait():
    """``await wait(predicate, timeout=5.0, message="")``: the polling helper as a fixture."""
    return wait_until


@pytest.fixture
def theme(qapp):
    """The app's theme controller, light to begin with; the application's style sheet and palette
    put back after the test."""
    from PySide6.QtGui import QPalette

    from sonetto_desktop.ui.theme import ThemeController

    controller = ThemeController(qapp, "light")
    yield controller
    qapp.setStyleSheet("")
    qapp.setPalette(QPalette())
    controller.deleteLater()


@pytest.fixture
def panel_factory(qtbot):
    """``controller, panel = panel_factory()``: a shown ChatPanel over a new ChatController (900×600);
    the controllers are deleted after the test. (Any arguments are ignored: engine parts are attached
    by the test.)"""
    from sonetto_desktop.ui.chat.controller import ChatController
    from sonetto_desktop.ui.chat.panel import ChatPanel

    made = []

    def make(*_ignored):
        controller = ChatController()
        panel = ChatPanel(controller)
        qtbot.addWidget(panel)
        panel.resize(900, 600)
        panel.show()
        made.append(controller)
        return controller, panel

    yield make
    for controller in made:
        controller.deleteLater()


def _translated(qapp, language: str):
    """The translators of ``language`` installed as the app does; removed again after the test."""
    from sonetto_desktop.ui.i18n import install_translators, remove_translators

    translators = install_translators(qapp, language)
    try:
        yield translators
    finally:
        remove_translators(qapp, translators)


@pytest.fixture
def english(qapp):
    """The English translators installed as the app does; removed again after the test."""
    yield from _translated(qapp, "en")


@pytest.fixture
def chinese(qapp):
    """The Chinese translators (the source texts' own) installed as the app does."""
    yield from _translated(qapp, "zh_CN")
