"""Python's full collections wait for the window's quiet moments (ui/quiet_collector.py, issue 37):
real input events delivered to a real widget keep a due pass back, a reply being written keeps it back,
no window shown lets it run; and in the composed app the policy is in force from start to shutdown and a
due pass runs on its own once the person pauses — never while a reply streams."""

from __future__ import annotations

import asyncio
import gc

import pytest
from PySide6.QtCore import Qt
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QLineEdit

from conftest import wait_until
from shell_fixtures import OFFSCREEN_RAISE, OFFSCREEN_SIZE_HINTS, app_settings, app_whose_chat_cannot_start, running_app
from sonetto_desktop.collector import DUE_AFTER, DUTY, FULL_PASS_EVERY, QuietPasses
from sonetto_desktop.ui.quiet_collector import HELD_S, QuietCollector

OFFSCREEN = pytest.mark.qt_log_ignore(OFFSCREEN_RAISE, OFFSCREEN_SIZE_HINTS)


def _make_due() -> None:
    gc.collect()
    for _ in range(DUE_AFTER):
        gc.collect(1)


class _Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def parts(qapp):
    clock, busy = _Clock(), [False]
    passes = QuietPasses(clock=clock)
    assert passes.install()
    edit = QLineEdit()
    edit.show()
    quiet = QuietCollector(qapp, passes, busy=lambda: busy[0], quiet_s=2.5, clock=clock)
    quiet.start()
    yield quiet, passes, edit, clock, busy
    quiet.close()
    quiet.deleteLater()
    edit.close()
    edit.deleteLater()
    passes.uninstall()


def _due_and_watched(quiet: QuietCollector) -> None:
    """A pass made due and seen by a look: the app's events are watched from now (that look counts as
    input: what came before it was not watched)."""
    _make_due()
    assert not quiet.look() and quiet.watching


def test_typing_keeps_a_due_pass_back_until_the_person_pauses(parts):
    quiet, passes, edit, clock, _busy = parts
    _due_and_watched(quiet)
    QTest.keyClick(edit, Qt.Key.Key_A)  # a real key event through the application's filter
    assert quiet.last_input == clock.now
    clock.now += 1.0
    assert not quiet.look() and passes.passes == 0
    QTest.mouseClick(edit, Qt.MouseButton.LeftButton)
    clock.now += 2.0
    assert not quiet.look() and passes.passes == 0  # 2 s after the click
    clock.now += 0.6
    assert quiet.look() and passes.passes == 1
    assert not quiet.watching  # the events go their way without Python again
    assert not quiet.look()  # nothing due after it


def test_a_reply_being_written_keeps_it_back_and_a_hidden_window_does_not(parts):
    quiet, passes, edit, clock, busy = parts
    _make_due()
    clock.now += 10
    busy[0] = True
    assert not quiet.look()
    busy[0] = False
    edit.hide()
    QTest.keyClick(edit, Qt.Key.Key_B)  # (no window of the app shown: nobody waits for one)
    assert quiet.look() and passes.passes == 1


def test_nothing_runs_and_nothing_is_watched_when_no_pass_is_due(parts):
    quiet, passes, edit, clock, _busy = parts
    gc.collect()
    clock.now += 10
    assert not quiet.look() and passes.passes == 0 and not quiet.watching
    before = quiet.last_input
    clock.now += 1
    QTest.keyClick(edit, Qt.Key.Key_C)
    assert quiet.last_input == before  # no filter: the key went by without entering Python here


@OFFSCREEN
async def test_the_app_runs_a_due_pass_once_the_person_pauses_never_while_a_reply_streams(qapp, tmp_path, llm_server):
    async with running_app(qapp, app_settings(tmp_path / "data", llm_server)) as app:
        quiet = app.quiet_collector
        assert quiet is not None and app.full_passes.installed
        assert gc.get_threshold()[2] == FULL_PASS_EVERY
        quiet.quiet_s = 0.2
        llm_server.chunk_size, llm_server.chunk_delay = 2, 0.05
        llm_server.add_text("从前有一座山，山里有一座庙。" * 4, to="chat")
        app.controller.send("讲个故事")
        await wait_until(lambda: app.controller.busy, timeout=5)
        app.full_passes.last_ms = 0.0  # (a pass run before: its share of the time does not hold this one back)
        _make_due()
        ran = app.full_passes.passes
        while app.controller.busy:  # a second and more of streaming: looked at every half second
            assert app.full_passes.passes == ran, "a full pass ran while the reply was being written"
            await asyncio.sleep(0.02)
        app.full_passes.last_ms = 0.0
        _make_due()
        await wait_until(lambda: app.full_passes.passes > ran, timeout=10)
    assert gc.get_threshold()[2] == 10  # Python's own again after shutdown


@OFFSCREEN
async def test_the_app_watches_its_events_only_while_a_pass_is_due(qapp, tmp_path):
    """Every event the app delivers goes through a Python filter while it watches (a few µs each, more
    while a worker holds the GIL): only from the look that finds a pass due until it has run."""
    import time

    async with running_app(qapp, app_settings(tmp_path / "data")) as app:
        quiet = app.quiet_collector
        assert app.window.isVisible()
        gc.collect()
        assert not quiet.look() and not quiet.watching
        app.full_passes.last_ms = 0.0  # (a pass the app ran before does not hold this one back)
        _make_due()
        assert not quiet.look() and quiet.watching  # a window shown, the look itself counts as input
        before = time.monotonic()
        QTest.keyClick(app.window, Qt.Key.Key_Down)
        assert quiet.last_input >= before
        quiet.quiet_s = 0.0
        assert quiet.look() and not quiet.watching


@OFFSCREEN
async def test_a_chat_that_could_not_start_still_gets_its_passes_at_quiet_moments(qapp, tmp_path):
    """The session database cannot be opened: the chat says so and the wall keeps working, for as long
    as the person likes. The policy that makes automatic full passes a hundred times rarer is in force
    all that time, so the passes it leaves to the quiet moments must run too (old cycles freed)."""
    async with app_whose_chat_cannot_start(qapp, tmp_path / "data") as app:
        assert app.full_passes.installed and gc.get_threshold()[2] == FULL_PASS_EVERY
        app.quiet_collector.quiet_s = 0.2
        _make_due()
        await wait_until(lambda: app.full_passes.passes > 0, timeout=10,
                         message="no full pass ran at a quiet moment after the chat failed to start")
    assert gc.get_threshold()[2] == 10


def test_a_held_mouse_button_keeps_a_due_pass_back(parts):
    """The person holds the button down and keeps still: a scroll bar's arrow repeating, a card held at
    the wall's edge while it scrolls, a drag about to be dropped. No event arrives meanwhile, but the
    person is in the middle of something: a pass of 150-260 ms would stop the scrolling or the drop."""
    quiet, passes, edit, clock, _busy = parts
    _due_and_watched(quiet)
    QTest.mousePress(edit, Qt.MouseButton.LeftButton)
    clock.now += 10
    assert not quiet.look() and passes.passes == 0
    clock.now += HELD_S  # a release that never arrived keeps no pass back for good
    assert quiet.look() and passes.passes == 1
    QTest.mouseRelease(edit, Qt.MouseButton.LeftButton)
    clock.now += passes.last_ms / 1000 / DUTY + 1  # (passes take at most a twentieth of the time)
    _due_and_watched(quiet)
    clock.now += 3
    assert quiet.look() and passes.passes == 2


def test_a_word_being_composed_keeps_a_due_pass_back(parts):
    """Pinyin typed and its candidates shown (拼音输入法): the person picks among them, pages through
    them, without an event reaching the app. The word is not finished: it is not a pause."""
    from PySide6.QtGui import QInputMethodEvent

    quiet, passes, edit, clock, _busy = parts
    _due_and_watched(quiet)
    edit.setFocus()
    qapp = quiet._qapp
    qapp.sendEvent(edit, QInputMethodEvent("nihao", []))  # the preedit: a word being composed
    clock.now += 10
    assert not quiet.look() and passes.passes == 0
    done = QInputMethodEvent("", [])
    done.setCommitString("你好")  # the word chosen: composed
    qapp.sendEvent(edit, done)
    assert edit.text() == "你好"
    clock.now += 3
    assert quiet.look() and passes.passes == 1
