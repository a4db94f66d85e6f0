"""The UI's task scopes (issue 28, item 4): each window, dialog and view runs its coroutines in a child of
the app's scope tree, so the app's shutdown ends them all — none is found and cancelled by name — and a
destroyed dialog's tasks end with it."""

from __future__ import annotations

import asyncio

from PySide6.QtCore import QCoreApplication, QEvent
from PySide6.QtWidgets import QWidget

from sonetto_desktop.ui.widgets.tasks import task_scope


async def test_shutdown_ends_the_tasks_of_open_dialogs_and_views(qapp, tmp_path):
    from shell_fixtures import app_settings
    from sonetto_desktop.ui.shell import SonettoApp

    app = SonettoApp(qapp, app_settings(tmp_path / "data"), interactive=False, writer_drain_timeout=2.0)
    await app.start()
    await app.wait_until_ready()
    dialog = app.open_settings()
    hanging = [dialog._tasks.spawn(asyncio.Event().wait()),  # e.g. a connection test to a dead server
               app.window.chat_panel._tasks.spawn(asyncio.Event().wait())]
    await asyncio.sleep(0)
    await asyncio.wait_for(app.shutdown(), 30)
    assert all(task.cancelled() for task in hanging)
    assert "tasks_done" in app.shutdown_steps


async def test_a_destroyed_widget_ends_its_tasks_and_its_childrens(qapp):
    outer = QWidget()
    inner = QWidget(outer)
    outer_scope, inner_scope = task_scope(outer, "outer"), task_scope(inner, "inner")
    assert inner_scope in outer_scope._children  # the inner widget's scope hangs below the outer's
    tasks = [outer_scope.spawn(asyncio.Event().wait()), inner_scope.spawn(asyncio.Event().wait())]
    await asyncio.sleep(0)
    outer.deleteLater()
    QCoreApplication.sendPostedEvents(None, QEvent.Type.DeferredDelete)
    await asyncio.gather(*tasks, return_exceptions=True)
    assert all(task.cancelled() for task in tasks)
