"""MemoryOperations: every write to the memories, whoever makes it, goes through here.

The window (as ``user``), the background writer (as ``agent``, per turn), the command line (as
``cli``) and other apps (as ``mcp:<client>``) each hold a ``MemoryOperations`` bound to their actor
(``as_actor``). Each write runs one store write and returns its :class:`~.changes.MemoryChange` —
the same record every subscriber of the change channel receives — or ``None`` when there was
nothing to change (an edit to the same text). Calls block (file / database I/O): front ends call
them from a worker thread (``aio.run_blocking``).
"""

from __future__ import annotations

from datetime import datetime
from typing import Any, Callable, Iterable, Mapping

from .stores.base import BaseMemoryManager
from .bulk import BulkResult, run_bulk, ids_in_theme, ids_written_by
from .changes import AGENT, PERSON_ACTORS, USER, MemoryChange, Turn, check_actor
from .dont_remember import DontRememberList
from .errors import DontRememberRefused, SecretRefused
from .item import MemoryItem
from .review import ReviewInbox
from .undo import UndoPreview, UndoResult
from .writer.secret_filter import find_secret


class MemoryOperations:
    """``dont_remember``: the person's "don't remember" list; text an app (not the person) writes
    that matches an entry is refused with ``DontRememberRefused`` — a memory's description and
    theme, and the reason every change keeps in the history or the trash (an addition's and an
    undo's reasons are the callers' own fixed wording, not checked). A list that cannot be read
    refuses every such write (``ValueError``), never reads as empty. Text an app writes that holds
    a secret value (``secret_filter``: a password, a code, a key, an ID or card number) is refused
    the same way, with ``SecretRefused``. ``review``: the review inbox;
    while it is enabled, Sonetto's changes are proposed there instead (see ``reviewing``).
    ``writer_run``: these operations are the memory writer's, whoever it writes for (a conversation
    another app handed over is reviewed like Sonetto's own)."""

    def __init__(self, store: BaseMemoryManager, *, actor: str = USER, turn: Turn | None = None,
                 dont_remember: DontRememberList | None = None, review: ReviewInbox | None = None,
                 writer_run: bool = False) -> None:
        self._store = store
        self.actor = check_actor(actor)
        self.turn = turn
        self.dont_remember = dont_remember
        self.review = review
        self.writer_run = writer_run

    def as_actor(self, actor: str, turn: Turn | None = None, *, writer_run: bool = False) -> "MemoryOperations":
        """The same memories, written as ``actor`` (and, for a chat turn, with its provenance)."""
        return MemoryOperations(self._store, actor=actor, turn=turn, dont_remember=self.dont_remember,
                                review=self.review, writer_run=writer_run)

    @property
    def reviewing(self) -> ReviewInbox | None:
        """The inbox Sonetto's changes go to instead of the memories (review mode on and this is
        Sonetto, or the memory writer for another app, writing), else None. The writer's tools ask
        this before each change."""
        review = self.review
        held = self.actor == AGENT or self.writer_run
        return review if review is not None and review.enabled and held else None

    def allowed(self, *texts: str | None) -> None:
        """Raise ``SecretRefused`` or ``DontRememberRefused`` if this actor may not write ``texts``, the
        texts of one write (see the class doc)."""
        self._allowed(*texts)

    def _allowed(self, *texts: str | None) -> None:
        if self.actor in PERSON_ACTORS:
            return
        for text in texts:
            kind = find_secret(text) if text else None
            if kind is not None:
                raise SecretRefused(kind)
        if self.dont_remember is None:
            return
        entry = self.dont_remember.match_any(*(text for text in texts if text))
        if entry is not None:
            raise DontRememberRefused(entry.text)

    @property
    def store(self) -> BaseMemoryManager:
        return self._store

    def subscribe(self, callback: Callable[[MemoryChange], None]) -> Callable[[], None]:
        """The change channel (see ``BaseMemoryManager.subscribe``)."""
        return self._store.subscribe(callback)

    # ── plumbing ──────────────────────────────────────────────────────

    def _one(self, write: Callable[[], Any]) -> MemoryChange | None:
        with self._store.capture() as changes:
            write()
        return changes[-1] if changes else None

    def _ids(self, change: MemoryChange | None) -> MemoryChange:
        if change is None:  # every write below publishes exactly one change when it succeeds
            raise RuntimeError("the store committed a write without a change record")
        return change

    # ── writes ────────────────────────────────────────────────────────

    def add(self, description: str, theme: str, *, reason: str = "") -> MemoryChange:
        """A new memory; the change's ``ids[0]`` is its id."""
        self._allowed(description, theme)
        return self._ids(self._one(lambda: self._store.add(description, theme, actor=self.actor, reason=reason,
                                                           turn=self.turn)))

    def update(self, memory_id: str, *, description: str | None = None, theme: str | None = None,
               reason: str = "手动编辑", expect: Mapping[str, str] | None = None) -> MemoryChange | None:
        """Change the text and/or theme; fields equal to the current ones are left alone and
        ``None`` is returned when nothing would change. ``expect`` (field -> value: what the person saw
        when they began the edit): a field written only if it still holds that value, checked in the
        write's transaction (else ``ChangedMeanwhile``: nothing written); a field not written (left
        alone, or already what they wrote) is not checked."""
        current = self._store.get(memory_id)  # an unknown id first: no free look at the don't-remember list
        self._allowed(description, theme, reason)
        new_description = None if description is None or description.strip() == current.description else description
        new_theme = None if theme is None or theme.strip() == current.theme else theme
        if new_description is None and new_theme is None:
            return None
        sent = {"description": new_description, "theme": new_theme}
        expected = {name: value for name, value in (expect or {}).items() if sent.get(name) is not None}
        return self._one(lambda: self._store.update(memory_id, reason, new_description, new_theme,
                                                    actor=self.actor, turn=self.turn, expect=expected or None))

    def move(self, memory_id: str, theme: str, *, reason: str = "") -> MemoryChange | None:
        """File the memory under another theme (``None`` if it is already there)."""
        theme = (theme or "").strip()
        return self.update(memory_id, theme=theme, reason=reason or f"移到「{theme}」")

    def merge(self, keep_id: str, gone_id: str, description: str, theme: str, *,
              reason: str = "手动合并", expect: Mapping[str, Mapping[str, str]] | None = None) -> MemoryChange:
        """``keep_id`` stays with ``description`` and ``theme``, ``gone_id`` goes to the trash. ``expect``
        (memory id -> field -> value: what the person saw): merged only if both still hold those values,
        checked in the write's transaction (else ``ChangedMeanwhile``: nothing written)."""
        self._allowed(description, theme, reason)
        return self._ids(self._one(lambda: self._store.merge(keep_id, gone_id, description, theme, reason,
                                                             actor=self.actor, turn=self.turn, expect=expect)))

    def delete(self, memory_id: str, *, reason: str = "") -> MemoryChange:
        """To the trash (restorable)."""
        if reason and self.actor not in PERSON_ACTORS:
            self._store.get(memory_id)  # an unknown id first: no free look at the don't-remember list
        self._allowed(reason)
        return self._ids(self._one(lambda: self._store.delete(memory_id, reason, actor=self.actor, turn=self.turn)))

    def restore(self, memory_id: str, *, reason: str = "从回收站恢复") -> MemoryChange:
        self._allowed(reason)
        return self._ids(self._one(lambda: self._store.restore(memory_id, actor=self.actor, reason=reason,
                                                               turn=self.turn)))

    def revert(self, memory_id: str, version: int, *, reason: str = "恢复旧版本") -> MemoryChange:
        self._allowed(reason)
        return self._ids(self._one(lambda: self._store.revert(memory_id, version, reason, actor=self.actor,
                                                              turn=self.turn)))

    def set_locked(self, memory_id: str, locked: bool = True, *, reason: str = "") -> MemoryChange | None:
        """Lock (or unlock) a memory against the agent and other apps; ``None`` when it already was so.
        Only the person's actors (``user``, ``cli``) may; others get ``MemoryLocked``."""
        self._allowed(reason)
        return self._one(lambda: self._store.set_locked(memory_id, locked, actor=self.actor, reason=reason,
                                                        turn=self.turn))

    def set_field(self, memory_id: str, name: str, value: Any, *, reason: str = "") -> MemoryChange | None:
        """Set a field its schema lets this actor set (``record.Field.set_by``: ``pinned`` by the
        person); ``None`` when it already had that value. Others get ``FieldNotSettable``."""
        return self._one(lambda: self._store.set_field(memory_id, name, value, actor=self.actor, reason=reason,
                                                       turn=self.turn))

    def hit(self, memory_id: str) -> MemoryChange:
        return self._ids(self._one(lambda: self._store.hit(memory_id, actor=self.actor, turn=self.turn)))

    def purge(self, memory_id: str | None = None, *, among: Iterable[str] | None = None) -> MemoryChange | None:
        """Delete from the trash for good (one entry, or all with ``None``; with ``among``, only those)."""
        return self._one(lambda: self._store.purge(memory_id, actor=self.actor, among=among))

    def import_items(self, items: dict[str, MemoryItem], *, reason: str = "导入") -> tuple[
            MemoryChange | None, list[str], list[str]]:
        """Merge ``items`` in (see ``BaseMemoryManager.import_items``): (change, added, skipped).
        By an app, an item the don't-remember list refuses refuses the whole import."""
        self._allowed(reason)
        for item in items.values():
            self._allowed(item.description, item.theme)
        added: list[str] = []
        skipped: list[str] = []

        def write() -> None:
            nonlocal added, skipped
            added, skipped = self._store.import_items(items, actor=self.actor, reason=reason, turn=self.turn)

        return self._one(write), added, skipped

    def import_trash(self, entries: Mapping[str, dict[str, Any]]) -> list[str]:
        """An export's trash entries back into the trash (see ``BaseMemoryManager.import_trash``): the ids
        put there. By an app, an entry the don't-remember list refuses refuses them all."""
        for entry in entries.values():
            item = entry.get("item") or {}
            self._allowed(item.get("description"), item.get("theme"), entry.get("reason"))
        return self._store.import_trash(entries)

    def undo_turn(self, turn_id: str, *, reason: str = "", ids: Iterable[str] | None = None,
                  unhit: dict[str, int] | None = None, keep_touched: bool = False,
                  withdraw: bool = True) -> UndoResult:
        """Take back every change of one turn (a chat turn, a bulk action, a clean-up pass, an earlier
        undo, an imported history) as one action with its own ``undo-…`` turn id, itself undoable.
        Raises ``UndoConflict`` naming the memories a later change touched and what could still be
        undone (nothing is changed then), or ``NothingToUndo``. ``keep_touched``: keep those memories
        as they are and undo the rest (``UndoResult.kept`` names them). See ``undo.py``. Operations
        bound to a turn (``as_actor(actor, turn)``) record the undo under that turn instead of a
        fresh ``undo-…`` one.

        What waits for the turn in the review inbox goes with it, in the same step
        (``ReviewInbox.with_undo``: ``UndoResult.withdrawn``, or ``NothingToUndo.withdrawn`` when
        nothing else was left; undoing an undo brings them back, ``UndoResult.returned``). Not for an
        undo of some memories only (``ids``), nor with ``withdraw=False`` (the writer taking back a
        failed attempt, which it then writes again)."""
        def undo() -> UndoResult:
            return self._store.undo_turn(turn_id, actor=self.actor, reason=reason, ids=ids, unhit=unhit,
                                         turn=self.turn, keep_touched=keep_touched)

        if self.review is None or not withdraw or ids is not None:
            return undo()
        return self.review.with_undo(turn_id, undo)

    def preview_undo(self, turn_id: str) -> UndoPreview:
        """What ``undo_turn(turn_id, keep_touched=True)`` would do now, changing nothing: the memories
        it keeps (``kept``: a later change touched them) and what it does to the rest (``effects``) —
        for a question asked before the undo, with the numbers the undo then applies. Blocking."""
        return self._store.preview_undo(turn_id, actor=self.actor)

    # ── many at once (one action each: see ``bulk``) ──────────────────

    def move_many(self, ids: Iterable[str], theme: str, *, reason: str = "") -> BulkResult:
        theme = (theme or "").strip()
        why = reason or f"批量移到「{theme}」"
        return run_bulk(self, ids, why, lambda ops, mid: ops.move(mid, theme, reason=why))

    def delete_many(self, ids: Iterable[str], *, reason: str = "批量删除") -> BulkResult:
        return run_bulk(self, ids, reason, lambda ops, mid: ops.delete(mid, reason=reason))

    def restore_many(self, ids: Iterable[str], *, reason: str = "从回收站恢复") -> BulkResult:
        """Bring ``ids`` back from the trash as one action (one gone from the trash is skipped)."""
        return run_bulk(self, ids, reason, lambda ops, mid: ops.restore(mid, reason=reason))

    def lock_many(self, ids: Iterable[str], locked: bool = True, *, reason: str = "") -> BulkResult:
        why = reason or ("批量锁定" if locked else "批量解锁")
        return run_bulk(self, ids, why, lambda ops, mid: ops.set_locked(mid, locked, reason=why))

    def pin_many(self, ids: Iterable[str], pinned: bool = True, *, reason: str = "") -> BulkResult:
        """Pin ``ids`` (first in their themes) or unpin them, as one action (those already so: no change)."""
        why = reason or ("批量置顶" if pinned else "批量取消置顶")
        return run_bulk(self, ids, why, lambda ops, mid: ops.set_field(mid, "pinned", pinned, reason=why))

    def rename_theme(self, old: str, new: str, *, reason: str = "") -> BulkResult:
        """Every memory of theme ``old`` now files under ``new`` (merging two themes when ``new`` exists)."""
        new = (new or "").strip()
        if not new:
            raise ValueError("the new theme name must not be empty")
        why = reason or f"主题「{old}」改为「{new}」"
        return run_bulk(self, ids_in_theme(self, old), why, lambda ops, mid: ops.move(mid, new, reason=why))

    def forget_written_by(self, actor: str, since: datetime, *, reason: str = "") -> BulkResult:
        """Move to the trash every memory ``actor`` created since ``since`` (e.g. "what Sonetto wrote today")."""
        why = reason or "删除这段时间里自动写下的记忆"
        return run_bulk(self, ids_written_by(self, actor, since), why, lambda ops, mid: ops.delete(mid, reason=why))

    # ── reads ─────────────────────────────────────────────────────────

    def get(self, memory_id: str) -> MemoryItem:
        return self._store.get(memory_id)

    def all_items(self) -> dict[str, MemoryItem]:
        return self._store.all_items()

    def items_mentioning(self, text: str) -> dict[str, MemoryItem]:
        """``BaseMemoryManager.items_mentioning``: the memories one turn (or an import) left a change on."""
        return self._store.items_mentioning(text)

    def count(self) -> int:
        return self._store.count()

    def grouped(self) -> dict[str, list[dict[str, Any]]]:
        return self._store.get_memories_grouped()

    def trash(self) -> list[dict[str, Any]]:
        return self._store.list_trash()

    def history(self, memory_id: str) -> list[dict[str, Any]]:
        return self._store.show_description_history(memory_id)

    def versions(self, memory_id: str) -> list[dict[str, str]]:
        return self._store.versions(memory_id)
