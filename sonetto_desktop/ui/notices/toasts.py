"""ToastOverlay: short messages stacked in a corner of a window.
A name or an address too long for a toast's line is cut in its middle with "…" (``LongWordsLabel``),
the toast's tooltip says it whole.

Each toast dismisses itself after a while (a ``QTimer``), waits while the pointer is over it (also
when it appears under a pointer that does not move),
can carry one action button (e.g. "撤销") and a click callback (e.g. reveal a card). A toast
shown again with the same ``key`` while still visible is refreshed instead of stacked twice. A toast
whose 撤销 takes back an action says how to know that action was undone another way (``undone_by``, a
test of a memory change): the overlay is told each change (``withdraw_undone``) and such a toast goes
then, its button would do nothing (Ctrl+Z, the history, the trash or another toast took it back).
A toast says itself again in the UI's language when it changes (Qt's ``LanguageChange``: a toast
outlives the language switch, the overlay moves over to the new window): its text and button are
given as a wording (a function returning the text in the language of now, e.g. ``lambda:
self.tr("…")``, or a ``presentation.i18n.Worded``); a plain text stays as it was said.
Styled by the shared QSS through object names (``ToastOverlay``, ``Toast``, ``ToastText``,
``ToastAction``, ``ToastClose``) and the ``kind`` property (info / success / error).

A toast's buttons never take the focus on a click (the person keeps typing where they were); one
reached with Tab gives the focus back, when the toast goes, to where it was before (or to the
window's ``focus_home()``, the chat's input).
"""

from __future__ import annotations

import logging
from typing import Callable

from sonetto_desktop.presentation.i18n import Wording, wording_of

from PySide6.QtCore import QEvent, QObject, QRect, Qt, QTimer, Signal
from PySide6.QtGui import QCursor, QEnterEvent, QMouseEvent
from PySide6.QtWidgets import QFrame, QHBoxLayout, QPushButton, QToolButton, QVBoxLayout, QWidget

from ..widgets.focus import FocusMemory, enter_clicks, focus_within, give_focus, tab_buttons
from ..widgets.long_words import LongWordsLabel

log = logging.getLogger(__name__)

KINDS = ("info", "success", "error")
DEFAULT_TIMEOUT_MS = {"info": 4000, "success": 4000, "error": 8000}
WIDTH = 340
EDGE = 16
MAX_CHARS = 240  # a long error (a parse failure, a server's page) is cut; the tooltip has it all
Text = str | Wording  # said again on a language switch when a wording (``wording_of``)


def _shown(text: str) -> str:
    return text if len(text) <= MAX_CHARS else text[: MAX_CHARS - 1] + "…"


def _said(wording: Wording, before: str) -> str:
    """``wording``'s text now; one that cannot be said again keeps what was said (``before``)."""
    try:
        return str(wording())
    except Exception:
        log.exception("a toast's wording failed")
        return before


def _safe_call(callback: Callable[[], object] | None) -> None:
    if callback is None:
        return
    try:
        callback()
    except Exception:
        log.exception("toast callback failed")


class Toast(QFrame):
    """One message. ``dismissed`` is emitted once, when it goes away for whatever reason."""

    dismissed = Signal(object)  # self

    def __init__(
        self,
        text: Text,
        *,
        key: str | None,
        kind: str,
        timeout_ms: int,
        action_text: Text | None,
        on_action: Callable[[], object] | None,
        on_click: Callable[[], object] | None,
        parent: QWidget,
        undone_by: Callable[[object], bool] | None = None,
    ) -> None:
        super().__init__(parent)
        self.setObjectName("Toast")
        self.setProperty("kind", kind)
        self.setProperty("clickable", on_click is not None)
        self.key = key
        self.kind = kind
        self.repeats = 1
        self._wording = wording_of(text)
        self._text = ""  # as last said
        self._action_wording = wording_of(action_text) if action_text else None
        self._on_action = on_action
        self._on_click = on_click
        self.undone_by = undone_by  # a change that took back what 撤销 offers (the toast then goes)
        self._timeout_ms = timeout_ms
        self._remaining_ms = timeout_ms
        self._done = False
        self.had_focus = False  # the keyboard focus was inside when it went (the overlay gives it back)
        self.setAttribute(Qt.WidgetAttribute.WA_StyledBackground, True)
        if on_click is not None:
            self.setCursor(Qt.CursorShape.PointingHandCursor)

        self._label = LongWordsLabel(self)  # (a name too long for a line: cut in its middle with "…")
        self._label.setObjectName("ToastText")
        row = QHBoxLayout(self)
        row.setContentsMargins(12, 8, 6, 8)
        row.setSpacing(8)
        row.addWidget(self._label, 1)
        self.action_button: QPushButton | None = None
        if self._action_wording is not None:
            self.action_button = QPushButton(self)
            self.action_button.setObjectName("ToastAction")
            self.action_button.setCursor(Qt.CursorShape.PointingHandCursor)
            self.action_button.clicked.connect(self._on_action_clicked)
            row.addWidget(self.action_button)
        self.close_button = QToolButton(self)
        self.close_button.setObjectName("ToastClose")
        self.close_button.setText("×")
        self.close_button.clicked.connect(self.dismiss)
        row.addWidget(self.close_button)
        tab_buttons(*(b for b in (self.action_button, self.close_button) if b is not None))
        enter_clicks(*(b for b in (self.action_button, self.close_button) if b is not None))
        self.reword()

        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.timeout.connect(self.dismiss)
        if timeout_ms > 0:
            self._timer.start(timeout_ms)

    # ── state ─────────────────────────────────────────────────────────

    @property
    def text(self) -> str:
        """What the toast says (a word too long for its width is drawn cut: ``_label.text()``)."""
        return self._label.whole()

    @property
    def paused(self) -> bool:
        return not self._done and self._timeout_ms > 0 and not self._timer.isActive()

    @property
    def is_dismissed(self) -> bool:
        return self._done

    def refresh(self, text: Text, *, count: bool = True) -> None:
        """The same key again: show the newest text, restart the countdown; ``count``: it is the same
        news again (shown as ×N), else the text simply replaces the old one (a growing summary)."""
        self.repeats = self.repeats + 1 if count else 1  # news of its own starts the count again
        self._wording = wording_of(text)
        self._show_text()
        self._remaining_ms = self._timeout_ms
        if self._timeout_ms > 0 and not self.underMouse():
            self._timer.start(self._timeout_ms)

    def reword(self) -> None:
        """Say the text, the button and the close button's tip in the UI's language of now."""
        self._show_text()
        if self.action_button is not None and self._action_wording is not None:
            self.action_button.setText(_said(self._action_wording, self.action_button.text()))
        self.close_button.setToolTip(self.tr("关闭"))

    def _show_text(self) -> None:
        text = self._text = _said(self._wording, self._text)
        self._label.setText(f"{_shown(text)}  ×{self.repeats}" if self.repeats > 1 else _shown(text))
        self._label.set_whole_tip(text if len(text) > MAX_CHARS else "")
        self.updateGeometry()

    def pause(self) -> None:
        if self._timer.isActive():
            self._remaining_ms = max(0, self._timer.remainingTime())
            self._timer.stop()

    def resume(self) -> None:
        if not self._done and self._timeout_ms > 0 and not self._timer.isActive():
            self._timer.start(max(800, self._remaining_ms))

    def dismiss(self) -> None:
        if self._done:
            return
        self._done = True
        self._timer.stop()
        self.had_focus = focus_within(self)
        self.hide()
        self.dismissed.emit(self)
        self.deleteLater()

    # ── events ────────────────────────────────────────────────────────

    def changeEvent(self, event: QEvent) -> None:
        if event.type() == QEvent.Type.LanguageChange:  # a toast outlives a language switch
            self.reword()
        super().changeEvent(event)

    def enterEvent(self, event: QEnterEvent) -> None:
        self.pause()
        super().enterEvent(event)

    def leaveEvent(self, event: QEvent) -> None:
        self.resume()
        super().leaveEvent(event)

    def mouseReleaseEvent(self, event: QMouseEvent) -> None:
        if event.button() == Qt.MouseButton.LeftButton and self._on_click is not None:
            callback = self._on_click
            self.dismiss()
            _safe_call(callback)
            return
        super().mouseReleaseEvent(event)

    def _on_action_clicked(self) -> None:
        callback = self._on_action
        self.dismiss()
        _safe_call(callback)


class ToastOverlay(QWidget):
    """Toasts over ``parent``'s bottom-right corner, newest at the bottom. Only as big as its toasts,
    so it never swallows clicks meant for the window underneath."""

    toast_shown = Signal(object)  # Toast

    def __init__(self, parent: QWidget, *, max_toasts: int = 4) -> None:
        super().__init__(parent)
        self.setObjectName("ToastOverlay")
        self.setAttribute(Qt.WidgetAttribute.WA_StyledBackground, False)
        self._max = max_toasts
        self._toasts: list[Toast] = []
        self._column = QVBoxLayout(self)
        self._column.setContentsMargins(0, 0, 0, 0)
        self._column.setSpacing(8)
        parent.installEventFilter(self)
        self._focus = FocusMemory(self)
        self.hide()

    def move_to(self, parent: QWidget) -> None:
        """Follow a new window (the views are rebuilt when the language changes); toasts stay."""
        old = self.parentWidget()
        if old is not None:
            old.removeEventFilter(self)
        self.setParent(parent)
        parent.installEventFilter(self)
        self._relayout()

    def toasts(self) -> list[Toast]:
        """Visible toasts, oldest first."""
        return [t for t in self._toasts if not t.is_dismissed]

    def show_toast(
        self,
        text: Text,
        *,
        key: str | None = None,
        kind: str = "info",
        action_text: Text | None = None,
        on_action: Callable[[], object] | None = None,
        on_click: Callable[[], object] | None = None,
        timeout_ms: int | None = None,
        repeat: bool = True,
        undone_by: Callable[[object], bool] | None = None,
    ) -> Toast:
        """Show ``text`` (a wording: said again on a language switch); same ``key`` as a visible toast refreshes that one instead (counted as ×N
        when ``repeat``: the same news again; else the new text replaces the old). ``timeout_ms=0``
        keeps it until closed. ``undone_by``: true for a memory change that undid what ``on_action``
        would undo (``withdraw_undone``)."""
        if kind not in KINDS:
            raise ValueError(f"kind must be one of {KINDS}, not {kind!r}")
        if key is not None:
            for toast in self.toasts():
                if toast.key == key:
                    toast.refresh(text, count=repeat)
                    self._relayout()
                    return toast
        timeout = DEFAULT_TIMEOUT_MS[kind] if timeout_ms is None else timeout_ms
        toast = Toast(
            text,
            key=key,
            kind=kind,
            timeout_ms=timeout,
            action_text=action_text,
            on_action=on_action,
            on_click=on_click,
            parent=self,
            undone_by=undone_by,
        )
        toast.dismissed.connect(self._on_toast_dismissed)
        self._toasts.append(toast)
        self._column.addWidget(toast)
        while len(self.toasts()) > self._max:
            self.toasts()[0].dismiss()
        self._relayout()
        if toast.underMouse() or toast.rect().contains(toast.mapFromGlobal(QCursor.pos())):
            toast.pause()  # shown under a pointer that does not move: no enter event will come
        self.toast_shown.emit(toast)
        return toast

    def withdraw_undone(self, change: object) -> None:
        """``change`` (a memory change) took back what some toasts offer to undo: those go."""
        for toast in self.toasts():
            test = toast.undone_by
            if test is not None:
                try:
                    gone = test(change)
                except Exception:
                    log.exception("toast undone_by failed")
                    continue
                if gone:
                    toast.dismiss()

    def clear(self) -> None:
        for toast in self.toasts():
            toast.dismiss()

    def _on_toast_dismissed(self, toast: Toast) -> None:
        if toast in self._toasts:
            self._toasts.remove(toast)
            self._column.removeWidget(toast)
        self._relayout()
        if toast.had_focus:
            home = getattr(self.parentWidget(), "focus_home", None)
            give_focus(self._focus.outside, home if callable(home) else None)

    def _relayout(self) -> None:
        toasts = self.toasts()
        if not toasts:
            self.hide()
            return
        parent = self.parentWidget()
        width = min(WIDTH, max(0, parent.width() - 2 * EDGE))
        height = 0
        for toast in toasts:
            toast.ensurePolished()
            toast.setFixedWidth(width)
            layout = toast.layout()
            wanted = layout.totalHeightForWidth(width) if layout.hasHeightForWidth() else -1
            toast.setFixedHeight(max(wanted, toast.sizeHint().height()))
            height += toast.height()
        height += self._column.spacing() * (len(toasts) - 1)
        height = min(height, max(0, parent.height() - 2 * EDGE))
        self.setGeometry(QRect(parent.width() - width - EDGE, parent.height() - height - EDGE, width, height))
        self.show()
        self.raise_()

    def changeEvent(self, event: QEvent) -> None:
        super().changeEvent(event)
        if event.type() == QEvent.Type.LanguageChange:  # (before the toasts': each says itself now)
            for toast in self.toasts():
                toast.reword()
            self._relayout()  # a text of another length: another height

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if watched is self.parentWidget() and event.type() in (QEvent.Type.Resize, QEvent.Type.Show):
            self._relayout()
        return False
