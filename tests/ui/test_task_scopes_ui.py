"""The UI's task scopes (issue 28, item 4): each window, dialog and view runs its coroutines in a child of
the app's scope tree, so the app's shutdown ends them all — none is found and cancelled by name — and a
destroyed dialog's tasks end with it."""

from __future__ import annotations

import asyncio

import pytest
from PySide6.QtCore import QCoreApplication, QEvent
from PySide6.QtWidgets import QWidget

from shell_fixtures import OFFSCREEN_SIZE_HINTS, app_settings
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


@pytest.mark.qt_log_ignore(OFFSCREEN_SIZE_HINTS)
async def test_the_app_owns_the_one_root_and_its_shutdown_ends_every_task(qapp, tmp_path):
    """Issue 39, item 5: the services' tasks (the writer's loop, a turn, the store watcher) start in the
    process's one root, which the app makes its own and closes last: nothing is left running after it."""
    from sonetto_desktop import aio
    from sonetto_desktop.ui.shell import SonettoApp

    app = SonettoApp(qapp, app_settings(tmp_path / "data"), interactive=False, writer_drain_timeout=2.0)
    await app.start()
    await app.wait_until_ready()
    root = aio.root_scope()
    assert root is app._root and root.name == "SonettoApp"
    assert "sonetto-memory-writer" in {task.get_name() for task in root._all_tasks()}  # the writer's loop is in it
    hanging = aio.spawn(asyncio.Event().wait(), name="a part's loop that never ends")
    await asyncio.sleep(0)
    await asyncio.wait_for(app.shutdown(), 30)
    assert hanging.cancelled()
    assert root.closed and root.pending == 0
    assert aio.root_scope() is not root  # a later user gets a fresh root
