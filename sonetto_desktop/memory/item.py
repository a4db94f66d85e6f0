"""MemoryItem: one memory, pure in-memory, no I/O.

History entry schema
--------------------
``history`` is a list of dicts, oldest first. Every change appends one entry::

    {
        "time": "2026-12-02T10:15:00",     # ISO 8601, local time, seconds
        "action": "update",                # create | update | merge | revert | restore | lock | unlock
                                           # (the history actions of memory/kinds.py)
        "actor": "agent",                  # who: user, agent, cli, mcp:<client>, ... (see changes.py)
        "reason": "用户说换了工作",          # why the change was made
        "old_description": "...", "new_description": "...",   # (create: new_* only)
        "old_theme": "...",       "new_theme": "...",
        # merge only: the absorbed item's id (when known), description and theme
        "merged_id": "ab12cd34", "merged_description": "...", "merged_theme": "...",
        # when the change came from a chat turn (or a multi-change action): its provenance
        "turn_id": "…", "session_id": "…", "excerpt": "用户的原话（节选）",
        # restore only: the turn whose deletion it took back (when the deletion had one)
        "deleted_turn": "…",
        # an import's create of a memory whose history names its author: that author stays
        "authored": False,
    }

Items created by this app start with a ``create`` entry; items of older files (or imported seed
memories) may have no entry at all — they read as "imported".

Entries of older SonettoHere ``memory.yaml`` files may carry other keys or miss some of these;
they are kept untouched and readers use ``.get``. A merge appends the absorbed item's own history
(each entry tagged with ``"from": <absorbed id>``) before the merge entry, so nothing is lost.

Version numbers (used by ``revert``) count states: version 0 is the item as first written,
version ``k`` is its state after the ``k``-th history entry.
"""

from __future__ import annotations

from copy import deepcopy
from datetime import date, datetime
from typing import Any

from . import kinds
from .changes import IMPORTED, by_other_app, check_actor
from .record import ADDED, FIELDS, NAMES, clamp_hit, now_iso, parse_time, split_extra
from .record import MAX_HIT, normalize_time  # noqa: F401 - the item's value helpers, imported from here too

#: ``last_actor`` of a memory with no history at all (older files, imported seed memories): ``IMPORTED``.

WEEKDAYS_ZH = ("星期一", "星期二", "星期三", "星期四", "星期五", "星期六", "星期日")


def weekday_zh(day: date) -> str:
    """``星期一`` … ``星期日`` for a date or datetime (every Chinese date line in the app uses it)."""
    return WEEKDAYS_ZH[day.weekday()]


# ── limits (one place: the store, the writer's tools, the UI, the CLI and imports use these) ──

#: Longest memory text accepted by any write (a memory is a fact, not a document).
MAX_DESCRIPTION_CHARS = 5_000
#: Longest theme name.
MAX_THEME_CHARS = 64
#: Longest reason of a change (kept in the history and the trash for ever).
MAX_REASON_CHARS = 1_000
#: Largest YAML / JSON document a store or an import reads.
MAX_DOCUMENT_BYTES = 256 * 1024 * 1024

_LIMITS = {"description": MAX_DESCRIPTION_CHARS, "theme": MAX_THEME_CHARS, "reason": MAX_REASON_CHARS,
           "merged description": MAX_DESCRIPTION_CHARS, "merged theme": MAX_THEME_CHARS}


class TooLong(ValueError):
    """A text is longer than its limit (the message names the field, its length and the limit)."""

    def __init__(self, name: str, length: int, limit: int) -> None:
        self.field, self.length, self.limit = name, length, limit
        super().__init__(f"{name} is {length:,} characters long; the limit is {limit:,}")


class EmptyText(ValueError):
    """A text that must say something is empty (or only blanks): ``field`` names it."""

    def __init__(self, name: str) -> None:
        self.field = name
        super().__init__(f"{name} must be a non-empty string")


def check_length(name: str, value: str, limit: int | None = None) -> str:
    """``value`` when it fits the limit of ``name`` (see ``_LIMITS``), else :class:`TooLong`."""
    limit = _LIMITS.get(name, MAX_DESCRIPTION_CHARS) if limit is None else limit
    if len(value) > limit:
        raise TooLong(name, len(value), limit)
    return value


def check_reason(reason: Any) -> str:
    """A change's reason ("" allowed), bounded by :data:`MAX_REASON_CHARS`."""
    if reason is None:
        return ""
    if not isinstance(reason, str):
        raise ValueError("reason must be text")
    return check_length("reason", reason)


def _require_text(name: str, value: Any) -> str:
    if not isinstance(value, str) or not value.strip():
        raise EmptyText(name)
    return check_length(name, value.strip())




def _authored(entry: object) -> bool:
    """Whether a history entry makes its actor the memory's author (``author``, ``last_actor``): a change
    of its text or theme, not an absorbed memory's (``from``) nor an import's of a memory whose history
    already names its author (``authored: False``)."""
    return (isinstance(entry, dict) and "from" not in entry and bool(entry.get("actor"))
            and entry.get("authored") is not False and kinds.authoring(entry.get("action")))


class MemoryItem:
    """One memory: a fact about the user (``description``) filed under a ``theme``.

    ``update`` and ``merge`` record every change in ``history`` (schema in the module doc);
    ``hit`` counts how often the memory was referred to. Its fields are those of
    :data:`~.record.FIELDS` (fields after the seed's five are keyword arguments, e.g. ``pinned``);
    ``extra`` keeps the keys of a stored entry that are not fields (a person's ``note:``), so every
    store writes them back.
    """

    __slots__ = (*NAMES, "extra")

    def __init__(
        self,
        description: str,
        theme: str,
        history: list[dict[str, Any]] | None = None,
        latest_update_time: str | None = None,
        hit: int = 0,
        *,
        extra: dict[str, Any] | None = None,
        **fields: Any,
    ) -> None:
        self.description = description
        self.theme = theme
        self.history: list[dict[str, Any]] = list(history) if history else []
        self.latest_update_time = latest_update_time or now_iso()
        self.hit = hit
        for f in ADDED:
            setattr(self, f.name, fields.pop(f.name) if f.name in fields else f.default())
        if fields:
            raise TypeError(f"MemoryItem has no field {', '.join(map(repr, fields))} (fields: {', '.join(NAMES)})")
        self.extra: dict[str, Any] = dict(extra) if extra else {}

    # ── changes ────────────────────────────────────────────────────────

    def _record(self, entry: dict[str, Any]) -> None:
        entry.setdefault("time", now_iso())
        self.history.append(entry)
        self.latest_update_time = entry["time"]

    def update(
        self,
        reason: str,
        new_description: str | None = None,
        new_theme: str | None = None,
        *,
        actor: str = "user",
        action: str = kinds.UPDATE,
        provenance: dict[str, str] | None = None,
    ) -> None:
        """Change the description and/or theme, recording the change in ``history``.
        ``provenance``: the turn fields of the entry (``Turn.history_fields()``)."""
        reason = _require_text("reason", reason)
        actor = check_actor(actor)
        desc = self.description if new_description is None else _require_text("description", new_description)
        theme = self.theme if new_theme is None else _require_text("theme", new_theme)
        self._change(action, actor, reason, desc, theme, **(provenance or {}))

    def record_restore(self, reason: str, new_description: str | None = None, new_theme: str | None = None, *,
                       actor: str = "user", provenance: dict[str, str] | None = None) -> None:
        """Record its coming back from the trash (``update`` with ``kinds.RESTORE``): the memory as it was,
        its update time too (a card brought back by an undo is not "just now"; the history says when it
        came back). Brought back with other text or theme (an undo's, from before its turn), that is new."""
        was = (self.description, self.theme, self.latest_update_time)
        self.update(reason, new_description, new_theme, actor=actor, action=kinds.RESTORE, provenance=provenance)
        if (self.description, self.theme) == was[:2]:
            self.latest_update_time = was[2]

    def record_creation(self, actor: str, reason: str, provenance: dict[str, str] | None = None) -> None:
        """The first history entry of an item this app creates: who wrote it and why."""
        self._record({"action": kinds.CREATE, "actor": check_actor(actor), "reason": check_reason(reason),
                      "new_description": self.description, "new_theme": self.theme, **(provenance or {})})

    def record_import(self, actor: str, reason: str, provenance: dict[str, str] | None = None) -> None:
        """The entry an import adds to a memory it brings in: created here, by ``actor`` (who imported
        it) in the import's turn, so undoing that turn takes it back. The update time stays the file's.
        A memory whose history names its author keeps that author (``"authored": False``: moved, not
        written, by who imported it)."""
        kept_author = self.last_actor != IMPORTED
        self.history.append({"time": now_iso(), "action": kinds.CREATE, "actor": check_actor(actor),
                             "reason": check_reason(reason), "new_description": self.description,
                             "new_theme": self.theme, **(provenance or {}),
                             **({"authored": False} if kept_author else {})})

    def _change(self, action: str, actor: str, reason: str, desc: str, theme: str, **extra: Any) -> None:
        """Record one change (schema in the module doc) and apply the new description and theme."""
        self._record(
            {
                "action": action,
                "actor": actor,
                "reason": reason,
                "old_description": self.description,
                "new_description": desc,
                "old_theme": self.theme,
                "new_theme": theme,
                **extra,
            }
        )
        self.description = desc
        self.theme = theme

    def merge(
        self,
        another: "MemoryItem",
        reason: str,
        merged_description: str,
        merged_theme: str,
        *,
        actor: str = "user",
        another_id: str | None = None,
        provenance: dict[str, str] | None = None,
    ) -> None:
        """Absorb ``another``: its history is appended (tagged), then the merge itself is recorded."""
        reason = _require_text("reason", reason)
        desc = _require_text("description", merged_description)
        theme = _require_text("theme", merged_theme)
        actor = check_actor(actor)
        for entry in another.history:
            absorbed = dict(entry)
            absorbed.setdefault("from", another_id or "merged")
            self.history.append(absorbed)
        self._change(kinds.MERGE, actor, reason, desc, theme, merged_id=another_id,
                     merged_description=another.description, merged_theme=another.theme, **(provenance or {}))
        self.hit = clamp_hit(clamp_hit(self.hit) + clamp_hit(another.hit))
        for f in FIELDS:
            if f.merge is not None:
                was, merged = getattr(self, f.name), f.merge(getattr(self, f.name), getattr(another, f.name))
                setattr(self, f.name, merged)
                if f.flag and bool(merged) != bool(was):  # the absorbed memory's pin: the merge's, undone with it
                    self.note_flag(f.flag[0] if merged else f.flag[1], actor=actor, reason=reason,
                                   provenance=provenance)
        for key, value in another.extra.items():  # the absorbed memory's other keys, unless the kept one has them
            self.extra.setdefault(key, value)

    def show_description_history(self) -> list[dict[str, Any]]:
        """The changes, newest first by time (copies: editing them changes nothing).

        By time, not by position: a merge appends the absorbed item's entries after this item's
        own, and those may be older or newer. Entries of the same second (or without a readable
        time) keep their recorded order."""

        def when(index: int) -> tuple[datetime, int]:
            entry = self.history[index]
            moment = parse_time(entry.get("time")) if isinstance(entry, dict) else None
            return (moment.replace(tzinfo=None) if moment else datetime.min), index

        order = sorted(range(len(self.history)), key=when, reverse=True)
        return [dict(self.history[i]) for i in order]

    def own_history(self) -> list[dict[str, Any]]:
        """History entries that changed this item itself (absorbed entries of merged items excluded)."""
        return [entry for entry in self.history if "from" not in entry]

    def content_history(self) -> list[dict[str, Any]]:
        """Own entries that changed the text or the theme (not a lock or an unlock)."""
        return [entry for entry in self.own_history() if not kinds.flag(entry.get("action"))]

    @property
    def locked(self) -> bool:
        """Locked by the person: the agent and other apps may not change or delete it (see ``set_locked``)."""
        for entry in reversed(self.history):
            if isinstance(entry, dict) and "from" not in entry and entry.get("action") in kinds.LOCKING:
                return entry["action"] == kinds.LOCK
        return False

    def set_locked(self, locked: bool, *, actor: str, reason: str = "",
                   provenance: dict[str, str] | None = None) -> bool:
        """Lock or unlock, recorded in the history (the content and its update time stay as they are).
        Returns False when it already was so (nothing recorded)."""
        if self.locked == bool(locked):
            return False
        self.note_flag(kinds.LOCK if locked else kinds.UNLOCK, actor=actor, reason=reason, provenance=provenance)
        return True

    def note_flag(self, action: str, *, actor: str, reason: str = "",
                  provenance: dict[str, str] | None = None) -> None:
        """Record a change of a flag (``kinds.flag``: a lock, a pin) in the history: no version of its
        own, the content and its update time stay as they are."""
        self.history.append({"time": now_iso(), "action": action, "actor": check_actor(actor),
                             "reason": reason or "", **(provenance or {})})

    @property
    def last_actor(self) -> str:
        """Who made the last change to this memory's text or theme (``imported`` for an entry without
        any such history, as memories of older files and imported seed stores have). Locking and
        restoring are not authorship: a lock, unlock or restore leaves the author as it was."""
        for entry in reversed(self.history):
            if _authored(entry):
                return str(entry["actor"])
        return IMPORTED

    @property
    def author(self) -> str:
        """Whose memory this is: who last changed its text or theme, other apps' changes not counted
        (``changes.by_other_app``) unless apps alone wrote it. An app updating one of the person's
        memories (its own call, or a conversation it handed the writer, written as ``mcp:<app>``) leaves
        it the person's: it stays out of the apps' share of recall and of 其他应用写的. ``imported``
        without any history, as ``last_actor``."""
        app = ""
        for entry in reversed(self.history):
            if _authored(entry):
                actor = str(entry["actor"])
                if not by_other_app(actor):
                    return actor
                app = app or actor
        return app or IMPORTED

    def entry_versions(self) -> list[int | None]:
        """For each history entry, in order, the version (see ``versions``) it made: its index in
        ``versions()``. ``None`` for an entry that made none: a lock or an unlock (they change no text
        or theme) and an absorbed memory's entry. The one numbering of versions: ``versions`` and
        ``revert`` count by it, and so does the history dialog."""
        numbers: list[int | None] = []
        version: int | None = None
        for entry in self.history:
            if "from" in entry or kinds.flag(entry.get("action")):
                numbers.append(None)
                continue
            if version is None:  # the first content entry: a create is version 0, any other change version 1
                version = 0 if entry.get("action") == kinds.CREATE else 1
            else:
                version += 1
            numbers.append(version)
        return numbers

    def versions(self) -> list[dict[str, str]]:
        """Every state this item had: ``[{description, theme, time}]``, version 0 first (numbered by
        ``entry_versions``)."""
        own = [entry for entry, number in zip(self.history, self.entry_versions(), strict=True) if number is not None]
        if own and own[0].get("action") == kinds.CREATE:  # the created state is version 0
            created, own = own[0], own[1:]
            states = [{"description": created.get("new_description", self.description),
                       "theme": created.get("new_theme", self.theme), "time": str(created.get("time", ""))}]
        elif not own:
            return [{"description": self.description, "theme": self.theme, "time": self.latest_update_time}]
        else:
            first = own[0]
            states = [
                {
                    "description": first.get("old_description", first.get("new_description", self.description)),
                    "theme": first.get("old_theme", first.get("new_theme", self.theme)),
                    "time": "",
                }
            ]
        for entry in own:
            prev = states[-1]
            states.append(
                {
                    "description": entry.get("new_description", prev["description"]),
                    "theme": entry.get("new_theme", prev["theme"]),
                    "time": str(entry.get("time", "")),
                }
            )
        return states

    # ── (de)serialisation ─────────────────────────────────────────────

    def to_dict(self, *, copy: bool = True) -> dict[str, Any]:
        """The stored shape: the seed's ``{description, theme, history, latest_update_time, hit}``,
        the other fields that are set, then the entry's other keys (``extra``). ``copy=False`` shares
        the history and extra values (for a serialiser that only reads them)."""
        data: dict[str, Any] = {}
        for f in FIELDS:
            value = getattr(self, f.name)
            if f.stored(value):
                data[f.name] = f.copy(value) if copy else value
        if self.extra:
            data.update(deepcopy(self.extra) if copy else self.extra)
        return data

    @classmethod
    def from_dict(cls, data: dict[str, Any], *, copy: bool = True) -> "MemoryItem":
        """An item from its stored shape (each field read by its schema; other keys kept as ``extra``).
        ``copy=False`` takes ownership of the history (a freshly parsed entry)."""
        item = cls.__new__(cls)
        for f in FIELDS:
            value = data.get(f.name)
            if value is None:
                value = f.default()
            elif copy:
                value = f.copy(value)
            setattr(item, f.name, f.read(value))
        item.history = item.history or []
        extra = split_extra(data)
        item.extra = deepcopy(extra) if copy else extra
        return item

    def copy(self) -> "MemoryItem":
        return MemoryItem.from_dict(self.to_dict())

    def __eq__(self, other: object) -> bool:
        return isinstance(other, MemoryItem) and self.to_dict(copy=False) == other.to_dict(copy=False)

    def __repr__(self) -> str:
        return f"MemoryItem(theme={self.theme!r}, description={self.description!r}, hit={self.hit})"

