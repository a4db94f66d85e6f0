"""Task scopes for Qt objects: each window, dialog or view runs its coroutines in a child of the app's
scope tree (``aio.TaskScope``), ended when the object is destroyed or the app shuts down.

``task_scope(obj, name)`` gives ``obj`` a scope that is a child of its nearest Qt ancestor's (or of the
app's UI scope, ``set_app_scope``, itself a child of the process's one root, ``aio.root_scope``),
cancels its tasks when ``obj`` is destroyed, and is found again by objects below it. The app closes its
UI scope first at shutdown: every task started from a slot anywhere in the UI is cancelled and awaited
there, none is looked for by name.
"""

from __future__ import annotations

from PySide6.QtCore import QObject

from sonetto_desktop.aio import TaskScope, root_scope

_ATTRIBUTE = "_sonetto_task_scope"
_app_scope: TaskScope | None = None


def set_app_scope(scope: TaskScope | None) -> None:
    """The top of the UI's scopes: the app's (``None``: the process's root, for objects made without an app)."""
    global _app_scope
    _app_scope = scope


def app_scope() -> TaskScope:
    """The top of the UI's scopes (without an app, or after it closed: the process's root, e.g. for a view
    built by itself in a test)."""
    if _app_scope is None or _app_scope.closed:
        return root_scope()
    return _app_scope


def _ancestor_scope(obj: QObject) -> TaskScope:
    parent = obj.parent()
    while parent is not None:
        scope = getattr(parent, _ATTRIBUTE, None)
        if scope is not None and not scope.closed:
            return scope
        parent = parent.parent()
    return app_scope()


class _Closer(QObject):
    """Cancels a scope's tasks when its owner is destroyed (a child QObject: deleted with the owner)."""

    def __init__(self, scope: TaskScope, owner: QObject) -> None:
        super().__init__(owner)
        self._scope = scope
        owner.destroyed.connect(self._on_destroyed)

    def _on_destroyed(self, *_args: object) -> None:
        self._scope.cancel_all()


def task_scope(obj: QObject, name: str) -> TaskScope:
    """``obj``'s scope: a child of its nearest ancestor's scope (looked up now: make it after the
    object has its parent), cancelled when ``obj`` is destroyed."""
    scope = _ancestor_scope(obj).child(name)
    setattr(obj, _ATTRIBUTE, scope)
    _Closer(scope, obj)
    return scope
