"""A live UI language switch: new translators, then the views built anew in the new language.

The views are thin over the services and the long-lived Qt parts (chat controller, writer control,
memory service), so instead of retranslating every widget the shell rebuilds its window, wall, tray
menu and quick chat (``SonettoApp._view_parts``: a part per turn of the event loop, the old views on
screen meanwhile, so that no one pass holds the Qt thread for the whole rebuild) and puts back what
the person saw (:mod:`view_state`): geometry, the open chat and where it was scrolled, the unsent
draft, the wall's search, filter, scroll and selection. The toast overlay moves over to the new
window; the writer's toasts (``WriterToasts``) live as long as it, so a toast kept across the switch
still undoes and reveals its card in the new wall.

A reply being streamed is never cut: the rebuild waits until it ends (a toast says so). A dialog the
person has typed into (a card being edited: a switch that waited for a reply comes at any moment) is
not closed under them: the rebuild waits until they close it (a toast says so). Other dialogs open
on the old window are closed (rejected, so their own clean-up runs); the history import's window (not
modal: usable beside the welcome panel's language link) opens again on the new one, on the file it had
read and the choices made there, with what was pasted in it (so it does not hold the switch up as a
dialog typed into does), or on the end of the import it showed (导入失败 and why, in the new language); the warnings about the store (self-check failed, backend switch not
finished) are shown again on the new window. The old widgets are deleted on the GUI thread with
``deleteLater`` after every signal from the long-lived parts to them is gone (those connections are
bound methods, which Qt drops with their receiver).
"""

from __future__ import annotations

import asyncio
import logging
from typing import TYPE_CHECKING, Any, Callable

from PySide6.QtWidgets import QApplication, QDialog, QLineEdit, QPlainTextEdit, QTextEdit

from sonetto_desktop.presentation.errors import error_detail
from .widgets.deferred import alive
from .i18n import install_translators, remove_translators
from .view_state import ViewState, capture, restore_chat_scroll, restore_wall, restore_window

if TYPE_CHECKING:
    from .shell import SonettoApp

log = logging.getLogger(__name__)

WAITING_KEY = "language-waiting"  # the toast while a reply streams
DONE_KEY = "language"


def install_language(app: "SonettoApp", language: str) -> None:
    """Swap the app's translators for ``language``'s (the old ones are deleted)."""
    old = app._translators
    remove_translators(app.qapp, old)
    for translator in old:
        translator.deleteLater()
    app._translators = install_translators(app.qapp, language)  # what every view asks (i18n.ui_language)


async def change_language(app: "SonettoApp", language: str) -> None:
    """Show the UI in ``language`` now; while a reply streams, once it has ended."""
    install_language(app, language)
    if app._language_task is not None and not app._language_task.done():
        return  # a rebuild is already waiting for the reply; it uses the translators just installed
    controller = app.controller
    if controller is not None and controller.busy:
        app.toasts.show_toast(lambda: QApplication.translate("SonettoApp", "这条回复结束后，界面会切换语言。"),
                              key=WAITING_KEY, kind="info")
        app._language_task = app._tasks.spawn(_after_reply(app), name="switch-language")
        return
    await rebuild_views(app)


async def _after_reply(app: "SonettoApp") -> None:
    controller = app.controller
    while controller is not None and controller.busy and not app._closed:
        await asyncio.wait([controller.turn_task])  # never cancels the reply, even if this is cancelled
    if not app._closed:
        await rebuild_views(app)


async def rebuild_views(app: "SonettoApp") -> None:
    """Replace the window, wall, tray and quick chat with new ones in the current language."""
    async with app._views_lock:  # a second switch meanwhile rebuilds once this one is done
        await _rebuild_views(app)


async def _rebuild_views(app: "SonettoApp") -> None:
    """The new views are made a part per turn of the event loop (``SonettoApp._view_parts``: the
    window, the wall, the quick chat), the old ones on screen and usable meanwhile; then, in one turn,
    what the person sees is read off the old views, they are retired and the new ones shown."""
    if app._closed or app.window is None:
        return
    old_window, old_tray, old_quick, old_wall = app.window, app.tray, app.quick_chat, app.wall
    await _typing_done(app, old_window)
    if app._closed:
        return
    parts, built, done = app._view_parts(), [], False
    try:
        for _part in range(3):  # the window, the wall, the quick chat: not yet the app's
            built.append(next(parts))
            await asyncio.sleep(0)  # the loop runs between them: no one pass builds every view (issue 37)
            if app._closed:
                return
        await _typing_done(app, old_window)  # (one opened and typed into meanwhile: the new views wait)
        if app._closed:
            return
        done = True
    finally:
        if not done:  # shut down meanwhile (its scope cancels this): the old views are still the app's
            parts.close()
            _retire(app, *built)
    # What the person sees, read at the swap: the old views stay usable while the new ones are made,
    # and a word typed, a search begun or a card selected in those turns is carried over too.
    state = capture(old_window, old_wall, old_quick)
    warnings = _open_warnings(app)
    reopen_import = _open_import(app, old_window)
    for dialog in old_window.findChildren(QDialog):
        if dialog.isVisible():
            dialog.reject()  # its own clean-up (tasks cancelled on ``finished``) runs now
    if old_tray is not None:
        old_tray.close()
    if old_quick is not None:
        old_quick.hide()
    old_window.hide_to_tray = False
    old_window.hide()
    for _part in parts:  # the tray, and the toasts over the new window
        pass
    app.writer_control.retranslate()
    restore_window(state, app.window, app.quick_chat)
    for show_again in warnings:
        show_again()  # on the new window, in the new language
    if reopen_import is not None:
        reopen_import()
    _retire(app, old_window, old_quick, old_tray)
    for toast in app.toasts.toasts():
        if toast.key == WAITING_KEY:
            toast.dismiss()  # no longer true; the done toast is its own (success) toast, not a refresh
    app.toasts.show_toast(lambda: QApplication.translate("SonettoApp", "界面语言已切换。"), key=DONE_KEY, kind="success",
                         repeat=False)  # a second switch is news of its own, not "×2"
    await _restore_content(app, state)


def _typed_into(window: Any, reopened: Any = None) -> list[QDialog]:
    """The dialogs open on ``window`` that the person has typed into (a card being edited, a new
    memory, the settings changed again): closed with the old window, what they typed would be lost.
    Not ``reopened`` (the history import's window: it opens again with what was typed, ``_open_import``)."""
    def typed(dialog: QDialog) -> bool:
        return (any(edit.isModified() for edit in dialog.findChildren(QLineEdit))
                or any(edit.document().isModified() for kind in (QPlainTextEdit, QTextEdit)
                       for edit in dialog.findChildren(kind)))

    return [dialog for dialog in window.findChildren(QDialog)
            if dialog.isVisible() and dialog is not reopened and typed(dialog)]


async def _typing_done(app: "SonettoApp", window: Any) -> None:
    """Until no dialog on ``window`` holds what the person typed (each one saved or cancelled by them;
    a toast says the switch waits for it)."""
    imports = app.history_imports
    while not app._closed and alive(window) and (
            open_dialogs := _typed_into(window, imports.dialog if imports is not None else None)):
        app.toasts.show_toast(lambda: QApplication.translate("SonettoApp", "关掉正在编辑的对话框后，界面会切换语言。"),
                              key=WAITING_KEY, kind="info", repeat=False)
        closed: asyncio.Future[None] = asyncio.get_running_loop().create_future()

        def close(*_: Any, closed: asyncio.Future[None] = closed) -> None:
            if not closed.done():
                closed.set_result(None)

        for dialog in open_dialogs:
            dialog.finished.connect(close)
            dialog.destroyed.connect(close)
        await closed


def _retire(app: "SonettoApp", *views: Any) -> None:
    """Deleted by Qt on this thread; the Python wrappers are kept until then, so dropping the last
    reference never destroys a window synchronously (or in a garbage collection elsewhere)."""
    retired = [obj for obj in app._retired_views if alive(obj)]
    for obj in views:
        if obj is not None:
            obj.deleteLater()
            retired.append(obj)
    app._retired_views = retired


def _open_import(app: "SonettoApp", window: Any) -> Callable[[], None] | None:
    """The history import's window (non-modal: the welcome panel's language link is usable beside it),
    opened again on the new window, on the file it had read (its preview made anew): closed with the
    old window, a person who chose the other language because they could not read it lost it."""
    imports = app.history_imports
    dialog = imports.dialog if imports is not None else None
    if dialog is None or not alive(dialog) or not dialog.isVisible() or dialog.parent() is not window:
        return None
    history, name = dialog.history, dialog.file_name
    if dialog.stack.currentWidget() is not dialog.preview_page:
        history = None  # (a running import's progress, or the source page: the new window shows it as it is)
    pasted, fmt, chosen = dialog.paste_box.toPlainText(), dialog.format_box.currentData(), dialog.chosen()
    # an import's end (导入失败 and why, or what it did): shown again, in the new language
    ended = dialog.progress.shown_result if dialog.stack.currentWidget() is dialog.progress else None
    source = dialog.source_state

    def reopen() -> None:
        again = imports.open_dialog(app.window)
        if again.actions.running is not None:
            return
        if ended is not None:
            again.show_finished(ended, source)
            return
        again.format_box.setCurrentIndex(max(0, again.format_box.findData(fmt)))
        again.paste_box.setPlainText(pasted)
        if history is not None:
            again.show_read(history, name, chosen)

    return reopen


def _open_warnings(app: "SonettoApp") -> list[Callable[[], None]]:
    """The store and migration warnings not yet closed (and still true: another store may have been
    opened since): closed with the old window, shown again."""
    migration_problem = app.services.migration_problem if app.services is not None else None
    boxes = ((app._store_dialog, app._show_store_problem, not app.store_ok),
             (app._migration_dialog, app._show_migration_problem, migration_problem is not None))
    return [show for box, show, still_true in boxes if still_true and alive(box) and not box.isHidden()]


async def _restore_content(app: "SonettoApp", state: ViewState) -> None:
    """The open chat and the wall's view, once the new views can show them."""
    controller, window, wall = app.controller, app.window, app.wall
    if controller is not None and controller.engine is not None:
        current = controller.current_session_id
        try:
            await controller.refresh_sessions()
            if current:
                await controller.select_session(current)
        except Exception as exc:  # said, not only logged; the wall is restored anyway
            log.warning("could not show the chat again after the language switch", exc_info=True)
            failure = exc  # (``exc`` is gone after the clause)
            app.toasts.show_toast(lambda: QApplication.translate("SonettoApp", "切换语言后没能重新显示这段对话：{0}").format(
                error_detail(failure)), key="language-chat", kind="error")
        if alive(window):
            restore_chat_scroll(state, window.chat_panel.view)
    await restore_wall(state, wall, app.wall_loaded)
