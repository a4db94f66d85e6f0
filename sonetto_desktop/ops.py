"""Operations as values, run by the services for any front end (the window, a web page, a test).

An operation is a small frozen dataclass that says what to do (``AddMemory("小林喜欢猫", "品味")``,
``UndoTurn(turn_id)``, ``ForgetTurn(turn_id, text)``) or a :class:`Call` carrying a blocking callable and
its arguments (reading a file, saving the settings, testing a connection). ``changes`` says whether it
writes the memories: what it changed then comes on the services' one event feed (``MemoryChange``), so a
front end refreshes from the feed, never from the result.

``AppServices.run(op)`` (or :func:`run` over bare memory operations) does the blocking work through
``aio.run_blocking`` and returns :class:`Done` with the result, or :class:`Failed` whose ``message`` is
the one wording of that failure for a person (``presentation.errors.describe_error``: zh-CN, or the front
end's language once it installed a translator; ``detail`` ends a sentence the caller began). It never raises an operation's failure (cancellation
still propagates). Nothing here imports Qt: a Qt front end adapts it in one module
(``ui/memory_service.py``), any other front end awaits it directly.

Each of the person's edits runs as its own action (its own ``ui-…`` turn), so it can be undone as one
(``UndoTurn``). The person's reason texts are filled in here, so every front end records the same ones.
"""

from __future__ import annotations

import asyncio
import dataclasses
import functools
import logging
import uuid
from datetime import datetime
from typing import TYPE_CHECKING, Any, Callable, ClassVar, Generic, Iterable, Mapping, NamedTuple, TypeVar, Union

from .aio import run_blocking
from .memory.changes import AGENT, PERSON_ACTORS, Turn
from .memory.errors import MemoryError_, MemoryNotFound, without_private
from .memory.operations import MemoryOperations
from .memory.reasons import reason_text
from .memory.stores.base import BaseMemoryManager
from .presentation.errors import describe_error, describe_error_exactly, describe_error_for_app, error_detail
from .presentation.i18n import Worded

if TYPE_CHECKING:
    from .memory.item import MemoryItem

__all__ = ["ACTION_PREFIX", "action_turn", "Op", "Call", "Done", "Failed", "Outcome", "OpTarget", "run",
           "Snapshot", "Cards", "Grouped", "Fetch", "Item", "Trash", "Count",
           "AddMemory", "EditMemory", "MoveMemory", "MergeMemories", "DeleteMemory", "RestoreMemory",
           "RevertMemory", "PurgeTrash", "SetLocked", "SetField", "MoveMany", "DeleteMany", "RestoreMany", "LockMany", "PinMany",
           "RenameTheme", "ForgetWrittenBy", "UndoTurn", "PreviewImport", "ImportItems", "ExportTo",
           "ForgetTurn", "WithdrawTurns"]

log = logging.getLogger(__name__)
R = TypeVar("R")

ACTION_PREFIX = "ui-"  # the turn id of one action of the person


# ── results ─────────────────────────────────────────────────────────


@dataclasses.dataclass(frozen=True)
class Done(Generic[R]):
    """The operation ran; ``value`` is its result."""

    value: R
    ok: ClassVar[bool] = True

    def unwrap(self) -> R:
        return self.value


@dataclasses.dataclass(frozen=True)
class Failed:
    """The operation failed and changed nothing. ``message`` is what the person is told (the one wording,
    ``presentation.errors``; a ``Worded``: said again in the language of then); ``error`` is for logs and for callers that tell kinds of failure apart."""

    message: str
    error: BaseException = dataclasses.field(compare=False, repr=False)
    op: str = ""
    ok: ClassVar[bool] = False

    @property
    def detail(self) -> str:
        """What went wrong, to end a sentence the caller began ("无法保存设置：{detail}")."""
        return error_detail(self.error)

    @property
    def exact(self) -> str:
        """``message`` with the failure's own words where it leaves them out (the memory's id): what the
        command line prints and an MCP tool answers (``presentation.errors.describe_error_exactly``)."""
        return describe_error_exactly(self.error)

    @property
    def for_app(self) -> str:
        """``exact`` for another app (an MCP tool error, a resource): never the person's private words
        (``presentation.errors.describe_error_for_app``)."""
        return describe_error_for_app(self.error)

    @property
    def value(self) -> None:
        return None

    def unwrap(self) -> Any:
        """Raise the failure (for start-up code whose caller handles it, e.g. the self-test)."""
        raise self.error


Outcome = Union[Done[R], Failed]


# ── what an operation runs on ───────────────────────────────────────


class OpTarget:
    """What an operation reaches: the memory operations (as the front end's actor), the store, and the
    app's services when there are any. ``AppServices`` is one (it has ``memory``, ``store``); a bare
    ``MemoryOperations`` or store is wrapped by :meth:`of` (tools, tests). ``actor``: write as this
    actor instead of the source's own (the MCP server: each call as ``mcp:<app>``)."""

    def __init__(self, source: Any, actor: str | None = None) -> None:
        if isinstance(source, BaseMemoryManager):
            source = MemoryOperations(source)
        self._source = source
        self._actor = actor

    @classmethod
    def of(cls, source: Any, actor: str | None = None) -> "OpTarget":
        return source if isinstance(source, OpTarget) and actor is None else cls(source, actor)

    @property
    def services(self) -> Any:
        """The app's services; ``None`` over bare memory operations."""
        source = self._source
        return None if source is None or isinstance(source, MemoryOperations) else source

    @property
    def memory(self) -> MemoryOperations:
        """The memory operations in use now (the services' change when the store is re-opened)."""
        source = self._source
        memory = source if isinstance(source, MemoryOperations) else getattr(source, "memory", None)
        if memory is None:
            raise RuntimeError("the memory store is not open")
        return memory if self._actor is None else memory.as_actor(self._actor)

    @property
    def store(self) -> BaseMemoryManager:
        return self.memory.store

    def action(self, turn: Turn | None = None) -> MemoryOperations:
        """The memory operations for one action of the person: its own ``ui-…`` turn (``turn`` when the
        caller made it, to name it: the command line's undo hint), so the action can be undone as one."""
        memory = self.memory
        return memory.as_actor(memory.actor, turn or action_turn())


def action_turn() -> Turn:
    """A fresh turn for one action of the person (``ui-…``)."""
    return Turn(f"{ACTION_PREFIX}{uuid.uuid4().hex[:12]}")


# ── the base ────────────────────────────────────────────────────────


class Op(Generic[R]):
    """One operation. Subclasses are frozen dataclasses with ``apply(target)``: blocking (run in a worker
    thread) or, with ``blocking = False``, a coroutine awaited on the loop (it does its own blocking work
    through ``aio``)."""

    changes: ClassVar[bool] = False  # writes the memories (the change comes on the event feed)
    blocking: ClassVar[bool] = True

    def apply(self, target: OpTarget) -> Any:
        raise NotImplementedError

    @property
    def name(self) -> str:
        return type(self).__name__


async def run(op: Op[R], source: Any, *, actor: str | None = None) -> "Outcome[R]":
    """Run ``op`` on ``source`` (``AppServices``, memory operations or a store), as ``actor`` when given
    (else the source's own): ``Done(result)`` or ``Failed`` worded for a person. Blocking work goes
    through ``aio.run_blocking``."""
    target = OpTarget.of(source, actor)
    try:
        if op.blocking:
            value = await run_blocking(op.apply, target)
        else:
            value = await op.apply(target)
    except asyncio.CancelledError:
        raise
    except Exception as exc:  # a failure is a value, worded once
        # (the log may be read by another app: ``sonetto mcp``'s stderr goes to the app that launched it)
        log.warning("operation %s failed: %s", op.name, without_private(exc) or exc, exc_info=not _expected(exc))
        return Failed(Worded(functools.partial(describe_error, exc)), exc, op.name)  # (said again on a language switch)
    return Done(value)


def _expected(exc: BaseException) -> bool:
    """A failure the person caused or can fix (no traceback in the log)."""
    return isinstance(exc, (MemoryError_, KeyError, ValueError, OSError))


@dataclasses.dataclass(frozen=True)
class Call(Op[Any]):
    """Blocking work that is not one of the memory operations: ``fn(*args, **kwargs)`` in a worker.
    ``changes``: whether it writes the memories (e.g. approving a proposal)."""

    fn: Callable[..., Any]
    args: tuple[Any, ...] = ()
    kwargs: Mapping[str, Any] = dataclasses.field(default_factory=dict)
    writes: bool = False

    @classmethod
    def of(cls, fn: Callable[..., Any], /, *args: Any, **kwargs: Any) -> "Call":
        return cls(fn, args, kwargs)

    @property
    def changes(self) -> bool:  # type: ignore[override]
        return self.writes

    @property
    def name(self) -> str:
        return getattr(self.fn, "__qualname__", None) or getattr(self.fn, "__name__", "call")

    def apply(self, target: OpTarget) -> Any:
        return self.fn(*self.args, **self.kwargs)


# ── reads ───────────────────────────────────────────────────────────


@dataclasses.dataclass(frozen=True)
class Snapshot(Op[dict[str, "MemoryItem"]]):
    """Every memory, id -> item."""

    def apply(self, target: OpTarget) -> dict[str, MemoryItem]:
        return target.memory.all_items()


@dataclasses.dataclass(frozen=True)
class Cards(Op[Any]):
    """Every memory as a wall card with the card model's lookups (``presentation.cards.CardIndex``),
    built in the worker (no history copies)."""

    def apply(self, target: OpTarget) -> Any:
        from .presentation.cards import read_card_index

        return read_card_index(target.store)


@dataclasses.dataclass(frozen=True)
class Grouped(Op[dict[str, list[dict[str, Any]]]]):
    """Every memory as a card (id, description, theme, …), by theme."""

    def apply(self, target: OpTarget) -> dict[str, list[dict[str, Any]]]:
        return target.memory.grouped()


@dataclasses.dataclass(frozen=True)
class Fetch(Op[dict[str, "MemoryItem | None"]]):
    """The current state of ``ids``; a missing id maps to ``None``."""

    ids: tuple[str, ...]

    def apply(self, target: OpTarget) -> dict[str, MemoryItem | None]:
        return target.store.items_of(self.ids)  # (those rows only: a whole read at 100,000 took ~6 s)


@dataclasses.dataclass(frozen=True)
class Item(Op["MemoryItem"]):
    memory_id: str

    def apply(self, target: OpTarget) -> MemoryItem:
        return target.memory.get(self.memory_id)


@dataclasses.dataclass(frozen=True)
class Trash(Op[list[dict[str, Any]]]):
    def apply(self, target: OpTarget) -> list[dict[str, Any]]:
        return target.memory.trash()


@dataclasses.dataclass(frozen=True)
class Count(Op[int]):
    def apply(self, target: OpTarget) -> int:
        return target.memory.count()


# ── the person's writes (one action each) ───────────────────────────


class _Write(Op[R]):
    changes: ClassVar[bool] = True


@dataclasses.dataclass(frozen=True)
class AddMemory(_Write[str]):
    """A new memory; its id. The reason by default: added by hand, or by the app (``mcp:<app>``) writing.
    ``as_turn`` (here and in the other writes of the person): the action's turn, made by the caller
    (``action_turn()``) to name it afterwards; else a fresh one."""

    description: str
    theme: str
    reason: str = ""
    as_turn: Turn | None = None

    def apply(self, target: OpTarget) -> str:
        memory = target.action(self.as_turn)
        reason = self.reason or (reason_text("user.add") if memory.actor in PERSON_ACTORS
                                 else reason_text("app.add", memory.actor))
        return memory.add(self.description, self.theme, reason=reason).ids[0]


@dataclasses.dataclass(frozen=True)
class EditMemory(_Write[bool]):
    """Change description and/or theme (``None`` or unchanged text leaves a field as it is); True when
    something changed. ``expect`` (``{"description": …, "theme": …}``, either or both): what the person
    saw when they began the edit; a field they changed is written only if it still holds that, else the
    operation fails with ``ChangedMeanwhile`` (carrying the values now) and nothing is written."""

    memory_id: str
    description: str | None
    theme: str | None
    reason: str = ""
    as_turn: Turn | None = None
    expect: Mapping[str, str] | None = None

    def apply(self, target: OpTarget) -> bool:
        reason = self.reason or reason_text("user.edit")
        return target.action(self.as_turn).update(self.memory_id, description=self.description, theme=self.theme,
                                                  reason=reason, expect=self.expect) is not None


@dataclasses.dataclass(frozen=True)
class MoveMemory(_Write[bool]):
    """File a memory under another theme; True when it moved."""

    memory_id: str
    theme: str
    reason: str = ""

    def apply(self, target: OpTarget) -> bool:
        theme = (self.theme or "").strip()
        reason = self.reason or reason_text("user.drag", theme)
        return target.action().move(self.memory_id, theme, reason=reason) is not None


@dataclasses.dataclass(frozen=True)
class MergeMemories(_Write[bool]):
    """``keep_id`` stays with the merged text; ``gone_id`` goes to the trash. ``expect`` (memory id ->
    field -> value: the texts the person saw, ``{keep_id: {"description": …, "theme": …}, gone_id:
    {"description": …}}``): merged only if both still hold them, else the operation fails with
    ``ChangedMeanwhile`` and nothing is written."""

    keep_id: str
    gone_id: str
    description: str
    theme: str
    reason: str = ""
    expect: Mapping[str, Mapping[str, str]] | None = None

    def apply(self, target: OpTarget) -> bool:
        reason = self.reason or reason_text("user.merge")
        return target.action().merge(self.keep_id, self.gone_id, self.description, self.theme,
                                     reason=reason, expect=self.expect) is not None


@dataclasses.dataclass(frozen=True)
class DeleteMemory(_Write[str]):
    """To the trash (restorable); the deleted text."""

    memory_id: str
    reason: str = ""
    as_turn: Turn | None = None

    def apply(self, target: OpTarget) -> str:
        reason = self.reason or reason_text("user.delete")
        return target.action(self.as_turn).delete(self.memory_id, reason=reason).extra.get("description", "")


@dataclasses.dataclass(frozen=True)
class RestoreMemory(_Write[str]):
    """Back from the trash; its id. ``reason``: by default 从回收站恢复 (an undo toast's 撤销 says so)."""

    memory_id: str
    as_turn: Turn | None = None
    reason: str = ""

    def apply(self, target: OpTarget) -> str:
        reason = self.reason or reason_text("user.restore")
        return target.action(self.as_turn).restore(self.memory_id, reason=reason).ids[0]


@dataclasses.dataclass(frozen=True)
class RevertMemory(_Write[bool]):
    """Bring back ``version`` as a new change. ``restore``: memories to bring back from the trash in
    the same action (those merged into this one after that version); one no longer there (emptied
    from the trash, or back already) is passed over."""

    memory_id: str
    version: int
    reason: str = ""
    restore: tuple[str, ...] = ()

    def apply(self, target: OpTarget) -> bool:
        reason = self.reason or reason_text("user.revert")
        memory = target.action()
        done = memory.revert(self.memory_id, self.version, reason=reason) is not None
        for memory_id in self.restore:
            try:
                memory.restore(memory_id)
            except (MemoryNotFound, ValueError):  # gone for good, or on the wall again
                continue
        return done


@dataclasses.dataclass(frozen=True)
class PurgeTrash(_Write[int]):
    """Delete from the trash for good (one entry, or all with ``None``; ``among``: only those of the
    trash's entries, the ones the person saw there); how many went."""

    memory_id: str | None = None
    among: tuple[str, ...] | None = None

    def apply(self, target: OpTarget) -> int:
        change = target.memory.purge(self.memory_id, among=self.among)
        return len(change.ids) if change else 0


@dataclasses.dataclass(frozen=True)
class SetLocked(_Write[bool]):
    """Lock (or unlock) against Sonetto and other apps; True once done (also when it already was).
    ``own_action``: as an action of its own (undoable from the Edit menu); False for an answer to a
    notice (unlocking from the writer's toast)."""

    memory_id: str
    locked: bool
    reason: str = ""
    own_action: bool = True

    def apply(self, target: OpTarget) -> bool:
        reason = self.reason or reason_text("user.lock" if self.locked else "user.unlock")
        memory = target.action() if self.own_action else target.memory
        memory.set_locked(self.memory_id, self.locked, reason=reason)  # None: it already was so
        return True


@dataclasses.dataclass(frozen=True)
class SetField(_Write[bool]):
    """Set a field the person may set (``record.Field.set_by``, e.g. ``pinned``), as one action of the
    person (undoable; ``as_turn``: one action over several memories, as for ``AddMemory``)."""

    memory_id: str
    field: str
    value: Any
    as_turn: Turn | None = None

    def apply(self, target: OpTarget) -> bool:
        target.action(self.as_turn).set_field(self.memory_id, self.field, self.value)
        return True


# ── many at once: one action each (``BulkResult``: turn id, changes, skipped ids) ──


@dataclasses.dataclass(frozen=True)
class MoveMany(_Write[Any]):
    ids: tuple[str, ...]
    theme: str
    reason: str = ""

    def apply(self, target: OpTarget) -> Any:
        return target.memory.move_many(self.ids, self.theme, reason=self.reason)


@dataclasses.dataclass(frozen=True)
class DeleteMany(_Write[Any]):
    ids: tuple[str, ...]
    reason: str = ""

    def apply(self, target: OpTarget) -> Any:
        return target.memory.delete_many(self.ids, reason=self.reason or reason_text("bulk.delete"))


@dataclasses.dataclass(frozen=True)
class RestoreMany(_Write[Any]):
    """Back from the trash together, as one action (several chosen in the trash)."""

    ids: tuple[str, ...]

    def apply(self, target: OpTarget) -> Any:
        return target.memory.restore_many(self.ids, reason=reason_text("user.restore"))


@dataclasses.dataclass(frozen=True)
class LockMany(_Write[Any]):
    ids: tuple[str, ...]
    locked: bool

    def apply(self, target: OpTarget) -> Any:
        if len(self.ids) == 1:  # one card (its menu): "手动锁定", not "批量锁定"
            reason = reason_text("user.lock" if self.locked else "user.unlock")
        else:
            reason = reason_text("bulk.lock" if self.locked else "bulk.unlock")
        return target.memory.lock_many(self.ids, self.locked, reason=reason)


@dataclasses.dataclass(frozen=True)
class PinMany(_Write[Any]):
    """Several cards pinned (or unpinned) together, as one action (one write, one undo)."""

    ids: tuple[str, ...]
    pinned: bool

    def apply(self, target: OpTarget) -> Any:
        return target.memory.pin_many(self.ids, self.pinned, reason=reason_text("bulk.pin" if self.pinned else "bulk.unpin"))


@dataclasses.dataclass(frozen=True)
class RenameTheme(_Write[Any]):
    """Every memory of ``old`` files under ``new`` (two themes merge when ``new`` exists)."""

    old: str
    new: str

    def apply(self, target: OpTarget) -> Any:
        reason = reason_text("bulk.rename_theme", self.old, self.new.strip())
        return target.memory.rename_theme(self.old, self.new, reason=reason)


@dataclasses.dataclass(frozen=True)
class ForgetWrittenBy(_Write[Any]):
    """To the trash: every memory ``actor`` created since ``since``."""

    since: datetime
    actor: str = AGENT

    def apply(self, target: OpTarget) -> Any:
        return target.memory.forget_written_by(self.actor, self.since, reason=reason_text("bulk.forget_today"))


@dataclasses.dataclass(frozen=True)
class UndoTurn(_Write[Any]):
    """Take back every change of ``turn_id`` (a chat turn or an action) as one action (``UndoResult``).
    ``as_turn``: record the undo under that turn (the window's Edit ▸ 撤销 / 重做 know it before its
    changes arrive) instead of a fresh ``undo-…`` one. ``keep_touched``: keep the memories a later change
    touched and undo the rest (else ``UndoConflict`` names them and nothing changes)."""

    turn_id: str
    reason: str = ""
    as_turn: Turn | None = None
    keep_touched: bool = False

    def apply(self, target: OpTarget) -> Any:
        memory = target.memory
        if self.as_turn is not None:
            memory = memory.as_actor(memory.actor, self.as_turn)
        return memory.undo_turn(self.turn_id, reason=self.reason or reason_text("undo.toast"),
                                keep_touched=self.keep_touched)


# ── import / export (the command line's formats; ``memory/transfer.py``) ──


@dataclasses.dataclass(frozen=True)
class PreviewImport(Op[Any]):
    """What importing ``items`` would do (``ImportPreview``)."""

    items: Mapping[str, "MemoryItem"]

    def apply(self, target: OpTarget) -> Any:
        from .memory.import_preview import preview_import

        items = self.items if isinstance(self.items, dict) else dict(self.items)  # (keeps Incoming.renamed)
        return preview_import(target.store, items)


class Imported(NamedTuple):
    """What an import did: the memories added and those skipped (duplicates), by id, and the trash entries
    it put back into the trash (an export's trash: ``transfer.Incoming.trash``)."""

    added: list[str]
    skipped: list[str]
    trashed: list[str]


@dataclasses.dataclass(frozen=True)
class ImportItems(_Write[Imported]):
    """Import as the person in one write, one action (its own turn, undoable as one like the other
    edits; the trash entries it brings stay in the trash when it is undone)."""

    items: Mapping[str, "MemoryItem"]
    reason: str
    as_turn: Turn | None = None

    def apply(self, target: OpTarget) -> Imported:
        memory = target.action(self.as_turn)
        trash = getattr(self.items, "trash", None) or {}  # (transfer.Incoming)
        with target.store.group():  # the memories and the trash together, or nothing
            _, added, skipped = memory.import_items(dict(self.items), reason=self.reason)
            if trash:  # a merged-away entry goes with its kept memory to the id the import gave it
                from .memory.transfer import follow_ids

                trash = follow_ids(trash, dict(self.items), added, skipped, target.store)
            trashed = memory.import_trash(trash) if trash else []
        return Imported(added, skipped, trashed)


@dataclasses.dataclass(frozen=True)
class ExportTo(Op[int]):
    """Write an export atomically (temp file, fsync, replace); how many were exported."""

    path: Any
    fmt: str

    def apply(self, target: OpTarget) -> int:
        from .memory.transfer import write_export

        return write_export(target.store, self.path, self.fmt)


# ── the services' own (need ``AppServices``: the writer, the don't-remember list) ──


def _services(target: OpTarget) -> Any:
    services = target.services
    if services is None:
        raise RuntimeError("this operation needs the app's services")
    return services


@dataclasses.dataclass(frozen=True)
class ForgetTurn(_Write[Any]):
    """"别记住这个" on the chat message of ``turn_id`` (``ForgetResult``; see ``memory/forget.py``)."""

    turn_id: str
    text: str = ""
    blocking: ClassVar[bool] = False

    async def apply(self, target: OpTarget) -> Any:  # type: ignore[override]
        return await _services(target).forget_turn(self.turn_id, self.text)


@dataclasses.dataclass(frozen=True)
class WithdrawTurns(_Write[Any]):
    """Turns an edit-and-resend replaced: what they wrote is taken back as one action (``WithdrawResult``)."""

    turn_ids: tuple[str, ...]
    blocking: ClassVar[bool] = False

    async def apply(self, target: OpTarget) -> Any:  # type: ignore[override]
        return await _services(target).withdraw_turns(list(self.turn_ids))


def ids(values: Iterable[str]) -> tuple[str, ...]:
    """``values`` as an operation's ids (a tuple keeps the value frozen)."""
    return tuple(values)
