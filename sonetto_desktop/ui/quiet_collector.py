"""The window's quiet moments, for Python's full collections (``sonetto_desktop/collector.py``).

A full pass holds the Qt thread while it walks the heap (~45–60 ms before the LLM stack is loaded,
~130–260 ms after it, more on a busy machine). It is run here, on the Qt thread, when one is due and the
person is not waiting for the window: no key, click, wheel, pointer move, drag or input-method event
for ``quiet_s`` seconds, or no window of the app shown, and no reply being written (``busy``). A person
who holds a mouse button down (a scroll bar's arrow repeating, a card held at the wall's edge while it
scrolls, a drag) or is composing a word (pinyin typed, its candidates picked among or paged through in
the input method's own window) sends no event meanwhile and is not pausing: not a quiet moment, for up
to ``HELD_S`` seconds (a release or a composition's end that never arrived does not keep passes back for
good). An app filter sees every event the application delivers, paint and timer events too, and keeps
only the time of the last input and whether a word is being composed. Each event then enters Python:
1.6-3.3 µs more an event, 7-9 µs while a worker runs Python (the GIL to take); a repaint of 60 plain
labels 0.7-1.3 -> 2.5-3.6 ms then (2 cores at load 5, 2026-12-07). So the filter is there only while a
pass is due: from the look (once a second, ``gc.get_count``) that finds one due, which counts as input
(what came before was not watched), until it has run.
"""

from __future__ import annotations

import time
from typing import Callable

from PySide6.QtCore import QEvent, QObject, Qt, QTimer
from PySide6.QtWidgets import QApplication

from ..collector import QuietPasses

_T = QEvent.Type
INPUT_EVENTS = frozenset({
    _T.KeyPress, _T.KeyRelease, _T.ShortcutOverride, _T.InputMethod, _T.MouseButtonPress,
    _T.MouseButtonRelease, _T.MouseButtonDblClick, _T.MouseMove, _T.Wheel, _T.TouchBegin, _T.TouchUpdate,
    _T.TabletPress, _T.TabletMove, _T.DragEnter, _T.DragMove, _T.Drop, _T.ContextMenu,
})
QUIET_S = 2.5
HELD_S = 60.0  # a button held or a word being composed this long after the last input: left behind
LOOK_MS = 1000  # a coarse timer (whole seconds): an idle app wakes once a second for it, and batched


class QuietCollector(QObject):
    """Runs the full pass ``passes`` says is due at the window's next quiet moment. ``busy``: the app is
    writing a reply (a pass would stop the words coming); ``clock``: seconds (``time.monotonic``)."""

    def __init__(self, qapp: QApplication, passes: QuietPasses, *, busy: Callable[[], bool] = lambda: False,
                 quiet_s: float = QUIET_S, look_ms: int = LOOK_MS, clock: Callable[[], float] = time.monotonic,
                 parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._qapp = qapp
        self.passes = passes
        self._busy = busy
        self._clock = clock
        self.quiet_s = quiet_s
        self.last_input = clock()
        self._timer = QTimer(self)
        self._timer.setInterval(look_ms)
        self._timer.setTimerType(Qt.TimerType.VeryCoarseTimer)
        self._timer.timeout.connect(self.look)
        self._watching = False
        self._composing = False  # the last input method event showed a word being composed (a preedit)

    @property
    def watching(self) -> bool:
        """The app's events go through this filter now (a pass is due)."""
        return self._watching

    def start(self) -> None:
        """Run due passes at quiet moments from now on (once start-up's own work is over)."""
        if self.passes.installed and not self._timer.isActive():
            self._timer.start()

    def close(self) -> None:
        self._timer.stop()
        self._unwatch()

    def _watch(self) -> None:
        if not self._watching:
            self._watching = True
            self._composing = False
            self.last_input = self._clock()  # the input before this moment was not watched
            self._qapp.installEventFilter(self)

    def _unwatch(self) -> None:
        if self._watching:
            self._qapp.removeEventFilter(self)
            self._watching = False

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        kind = event.type()
        if kind in INPUT_EVENTS:
            self.last_input = self._clock()
            if kind == _T.InputMethod:
                self._composing = bool(event.preeditString())
        return False

    def quiet(self) -> bool:
        """Nobody waits for the window now (see the module doc)."""
        if self._busy():
            return False
        shown = any(w.isVisible() and not w.isMinimized() for w in self._qapp.topLevelWidgets() if w.isWindow())
        if not shown:
            return True
        idle = self._clock() - self.last_input
        held = self._composing or self._qapp.mouseButtons() != Qt.MouseButton.NoButton
        return idle >= (HELD_S if held else self.quiet_s)

    def look(self) -> bool:
        """Run the due pass if this is a quiet moment; whether one ran. A pass newly due starts the
        watching (see the module doc); none due, or one run, ends it."""
        if not self.passes.due():
            self._unwatch()
            return False
        self._watch()
        if not self.quiet():
            return False
        self.passes.run()
        self._unwatch()
        return True
