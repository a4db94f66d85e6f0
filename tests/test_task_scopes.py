"""aio.TaskScope: one tree of task scopes per app — closing a scope ends every task started in it and
below it (children first), with nothing looked up by name; a closed scope starts nothing."""

from __future__ import annotations

import asyncio

from sonetto_desktop.aio import TaskScope


async def _forever(started: list[str], name: str) -> None:
    started.append(name)
    try:
        await asyncio.Event().wait()
    except asyncio.CancelledError:
        started.append(f"{name} cancelled")
        raise


async def test_closing_the_root_ends_the_tasks_of_every_scope_below_it():
    root = TaskScope("app")
    window = root.child("window")
    dialog = window.child("dialog")
    log: list[str] = []
    tasks = [root.spawn(_forever(log, "app")), window.spawn(_forever(log, "window")),
             dialog.spawn(_forever(log, "dialog"))]
    await asyncio.sleep(0)
    assert root.pending == 3 and sorted(log) == ["app", "dialog", "window"]
    await root.close()
    assert all(task.cancelled() for task in tasks)
    assert log.index("dialog cancelled") < log.index("app cancelled")  # children first
    assert root.pending == 0 and window.closed and dialog.closed


async def test_a_closed_child_leaves_its_parent_running_and_nothing_new_starts_in_it():
    root = TaskScope("app")
    dialog = root.child("dialog")
    log: list[str] = []
    kept = root.spawn(_forever(log, "app"))
    gone = dialog.spawn(_forever(log, "dialog"))
    await asyncio.sleep(0)
    await dialog.close()
    assert gone.cancelled() and not kept.done() and root.pending == 1
    late = dialog.spawn(_forever(log, "late"))
    await asyncio.sleep(0)
    assert late.cancelled() and "late" not in log  # the coroutine never ran
    assert root.child("after").spawn(_forever(log, "after")) is not None
    await root.close()
    assert kept.cancelled()


async def test_a_failed_task_is_logged_and_dropped(caplog):
    scope = TaskScope("app")

    async def fails() -> None:
        raise RuntimeError("boom")

    task = scope.spawn(fails(), name="failing")
    await asyncio.gather(task, return_exceptions=True)
    await asyncio.sleep(0)
    assert scope.pending == 0 and "failing" in caplog.text and "boom" in caplog.text


async def test_drain_waits_for_children_too():
    root = TaskScope("app")
    done: list[str] = []

    async def short(name: str) -> None:
        await asyncio.sleep(0.01)
        done.append(name)

    root.spawn(short("root"))
    root.child("view").spawn(short("view"))
    assert await root.drain(5)
    assert sorted(done) == ["root", "view"]
