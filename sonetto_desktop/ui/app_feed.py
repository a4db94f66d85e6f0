"""AppFeed: the services' one event feed on the GUI thread — one bridge, one signal per kind of event.

The services publish everything a front end follows on one feed (``AppServices.subscribe_events``),
from whichever thread made it happen. The app makes one ``AppFeed`` over it; every view that follows
the services connects to its signals instead of subscribing on its own:

- ``memory_changed(MemoryChange)``: a committed write (any actor, any process), ``reload`` after a re-open;
- ``writer_changed(WriterEvent)``: the background writer's state (queued, started, done, failed, tidied…);
- ``store_status_changed(status)``: the memory server went away or came back (``None``: a local file);
- ``store_notice(StoreNotice)``: the store says something about its files once (memory.yaml gone, restored…);
- ``agents_started(AgentsStarted)``: new writer and chat engine (at start, after the store was re-opened);
- ``inbox_changed(int)``: review mode's inbox holds this many proposals;
- ``settings_applied(Settings)``: the services use new settings;
- ``index_progress(IndexProgress)``: how far the recall index's first build has come;
- ``vectors_changed(VectorStatus)``: how far the embeddings model's vectors are (with one configured);
- ``recall_notice(ContextNotice)``: a local model's context is cutting recall (said once per endpoint);
- ``data_copy_progress(CarryProgress)``: how far the copy into a new data folder has come.

A source without the services' feed (a bare store or ``MemoryOperations``, as in tests and tools) is
followed for its memory changes only.
"""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import QObject, Signal

from sonetto_desktop.agent_lifecycle import AgentsStarted
from sonetto_desktop.memory.changes import MemoryChange
from sonetto_desktop.memory.retrieval.budget import ContextNotice
from sonetto_desktop.memory.retrieval.progress import IndexProgress
from sonetto_desktop.memory.retrieval.vector_status import VectorStatus
from sonetto_desktop.memory.stores.data_folder import CarryProgress
from sonetto_desktop.memory.writer.events import WriterEvent
from sonetto_desktop.services import SettingsApplied
from sonetto_desktop.store_lifecycle import InboxChanged, StoreNoticed, StoreStatusChanged

from .qt_bridge import QtEventBridge


class AppFeed(QObject):
    """See the module docstring. ``source``: the app's ``AppServices``, or anything with ``subscribe``."""

    memory_changed = Signal(object)
    writer_changed = Signal(object)
    store_status_changed = Signal(object)
    store_notice = Signal(object)
    agents_started = Signal(object)
    inbox_changed = Signal(int)
    settings_applied = Signal(object)
    index_progress = Signal(object)
    vectors_changed = Signal(object)
    recall_notice = Signal(object)
    data_copy_progress = Signal(object)

    def __init__(self, source: Any, parent: QObject | None = None) -> None:
        super().__init__(parent)
        subscribe = getattr(source, "subscribe_events", None) or source.subscribe
        self._bridge = QtEventBridge(subscribe, self)
        self._bridge.event.connect(self._dispatch)

    def _dispatch(self, event: Any) -> None:
        if isinstance(event, MemoryChange):
            self.memory_changed.emit(event)
        elif isinstance(event, WriterEvent):
            self.writer_changed.emit(event)
        elif isinstance(event, StoreStatusChanged):
            self.store_status_changed.emit(event.status)
        elif isinstance(event, StoreNoticed):
            self.store_notice.emit(event.notice)
        elif isinstance(event, AgentsStarted):
            self.agents_started.emit(event)
        elif isinstance(event, InboxChanged):
            self.inbox_changed.emit(event.count)
        elif isinstance(event, SettingsApplied):
            self.settings_applied.emit(event.settings)
        elif isinstance(event, IndexProgress):
            self.index_progress.emit(event)
        elif isinstance(event, VectorStatus):
            self.vectors_changed.emit(event)
        elif isinstance(event, ContextNotice):
            self.recall_notice.emit(event)
        elif isinstance(event, CarryProgress):
            self.data_copy_progress.emit(event)

    @property
    def closed(self) -> bool:
        return self._bridge.closed

    def close(self) -> None:
        """Stop following the services (later events are dropped). Safe to call twice."""
        self._bridge.close()
