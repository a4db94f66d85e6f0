"""The change channel's vocabulary: who made a change and for which turn (:class:`Turn`), and the
record every committed write publishes (:class:`MemoryChange`).

Every write to a memory store — by the user in the window, by the background writer, by the
command line, by another app through MCP, by another process seen through the store's watcher —
publishes exactly one ``MemoryChange`` after it committed. The wall, toasts, the recall index and
the writer's listing all follow that one channel (``BaseMemoryManager.subscribe``).

Actors are plain strings: ``user`` (a person in this app), ``agent`` (the memory writer), ``cli``
(the ``sonetto memory`` command line), ``mcp:<client name>`` (another AI app), ``external`` (another
process whose writer is unknown), ``file`` (memory.yaml edited by hand while the store was open).
Anything else names another front end.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Mapping

from . import kinds

#: Actors that are the person themself: only they may change a locked memory. ``file``: an edit of
#: ``memory.yaml`` by hand (or with a tool the person runs) while the app runs.
PERSON_ACTORS = frozenset({"user", "cli", "file"})
USER, AGENT, CLI, EXTERNAL, FILE = "user", "agent", "cli", "external", "file"
#: Actors of imported history: ``import:<source>`` (``history_import``), written by the memory writer.
IMPORT_PREFIX = "import:"
#: Actors of other AI apps: ``mcp:<app>`` (their own calls, and the writer's runs for their conversations).
APP_PREFIX = "mcp:"
MAX_ACTOR_CHARS = 64
MAX_EXCERPT_CHARS = 120


def check_actor(actor: Any) -> str:
    """``actor`` if it is a usable actor name (a short non-empty string), else ``ValueError``."""
    if not isinstance(actor, str) or not actor.strip() or len(actor) > MAX_ACTOR_CHARS:
        raise ValueError(f"actor must be a non-empty string of at most {MAX_ACTOR_CHARS} characters, got {actor!r}")
    return actor.strip()


#: Who the memory writer may write a turn as, besides Sonetto (``agent``): another app that handed it
#: a conversation (``mcp:<app>``) or imported history (``import:<source>``) — never the person.
WRITER_ACTOR_PREFIXES = (APP_PREFIX, IMPORT_PREFIX)


def writer_actor(value: Any) -> str | None:
    """``value`` if the memory writer may write a turn as it (see ``WRITER_ACTOR_PREFIXES``), else None."""
    if not isinstance(value, str):
        return None
    try:
        actor = check_actor(value)
    except ValueError:
        return None
    return actor if actor == AGENT or actor.startswith(WRITER_ACTOR_PREFIXES) else None


#: The author of a memory without any history (``MemoryItem.last_actor``: older files, imported seed memories).
IMPORTED = "imported"


def by_other_app(actor: Any) -> bool:
    """Whether ``actor`` is another app: not the person (``PERSON_ACTORS``), not Sonetto's writer, not
    imported (``imported``, ``import:<source>``: the person's own chats); ``mcp:<app>``, and any other
    front end. A memory is another app's when its author is (``MemoryItem.author``: apps alone wrote
    it; an app's change to the person's memory does not make it the app's). Recall gives those a
    bounded share (``retrieval.recall``); the wall's filter 其他应用写的 shows them."""
    if not isinstance(actor, str) or not actor:
        return False
    return not (actor in PERSON_ACTORS or actor == AGENT or actor == IMPORTED or actor.startswith(IMPORT_PREFIX))


def source_of(actor: str) -> str | None:
    """The app or source a writer turn came from (``mcp:cursor`` -> ``cursor``); None for Sonetto's own."""
    for prefix in WRITER_ACTOR_PREFIXES:
        if actor.startswith(prefix) and actor[len(prefix):].strip():
            return actor[len(prefix):].strip()
    return None


def excerpt_of(text: str, limit: int = MAX_EXCERPT_CHARS) -> str:
    """A one-line excerpt of a message (the provenance of an agent change)."""
    flat = " ".join(str(text or "").split())
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"


@dataclass(frozen=True)
class Turn:
    """The chat turn (or multi-change action) a change belongs to.

    ``turn_id`` groups changes: every change the writer makes for one chat turn carries that turn's id;
    an action of several changes (undoing a turn, a bulk edit, a clean-up pass) carries its own id, so
    it can be undone as one. ``excerpt``: the user's words that caused it (shown as provenance).
    ``origin``: where the conversation came from when it was not a chat in this app (one line, e.g.
    another app's name or an imported conversation's title and date), kept with each change.
    """

    turn_id: str
    session_id: str | None = None
    excerpt: str = ""
    origin: str = ""

    def history_fields(self) -> dict[str, str]:
        fields = {"turn_id": self.turn_id}
        if self.session_id:
            fields["session_id"] = self.session_id
        if self.excerpt:
            fields["excerpt"] = self.excerpt
        if self.origin:
            fields["origin"] = self.origin
        return fields


@dataclass(frozen=True)
class MemoryChange:
    """One committed write.

    ``kind``: a change record's kind (``kinds``: those declared with ``record``; ``reload``: the
    store changed in ways not itemised, re-read it; ``set``: a field other than the text was set,
    ``extra`` has ``field`` and ``value``, see ``record.Field.set_by``).

    ``ids``: the memories touched (merge: kept id first, absorbed id second). ``states``: for each
    touched id, its card after the change (``{description, theme, hit, latest_update_time}``) or
    ``None`` when it no longer exists — present for single-memory changes so views need not re-read;
    empty for bulk kinds (``import``, ``reload``, large ``purge``), after which views re-read.
    ``extra``: kind-specific details (``hit``: the new count; ``version``: a reverted-to version).
    ``local``: False when the change was made by another process and seen through the watcher.
    """

    kind: str
    ids: tuple[str, ...]
    actor: str = USER
    reason: str = ""
    turn_id: str | None = None
    session_id: str | None = None
    states: Mapping[str, Mapping[str, Any] | None] = field(default_factory=dict, compare=False)
    extra: dict[str, Any] = field(default_factory=dict, compare=False)
    local: bool = True

    def state(self, memory_id: str) -> Mapping[str, Any] | None:
        """The card of ``memory_id`` after the change (``None``: gone or not carried)."""
        return self.states.get(memory_id)

    def to_dict(self) -> dict[str, Any]:
        """A JSON-safe form (for a change log shared between processes)."""
        return {
            "kind": self.kind, "ids": list(self.ids), "actor": self.actor, "reason": self.reason,
            "turn_id": self.turn_id, "session_id": self.session_id,
            "states": {k: (dict(v) if v is not None else None) for k, v in self.states.items()},
            "extra": dict(self.extra),
        }

    @classmethod
    def from_dict(cls, data: Any, *, local: bool = True) -> "MemoryChange":
        """The change a record of ``to_dict`` describes. A record that is not one (another program's,
        a damaged row: not a mapping, an unknown kind, ids that are not a list of text…) raises
        ``ValueError`` saying what is wrong; a reader of a shared log re-reads everything instead."""
        if not isinstance(data, Mapping):
            raise ValueError(f"a change record is a mapping, not {type(data).__name__}")
        kind = data.get("kind", kinds.RELOAD)
        if not (kinds.known(kind) and kinds.kind(kind).record):
            raise ValueError(f"unknown change kind {kind!r}"[:120])
        ids = data.get("ids") or ()
        if not isinstance(ids, (list, tuple)) or not all(isinstance(i, str) for i in ids):
            raise ValueError("the ids of a change record are not a list of text")
        states = data.get("states") or {}
        extra = data.get("extra") or {}
        if not isinstance(states, Mapping) or not isinstance(extra, Mapping):
            raise ValueError("the states or extra of a change record are not mappings")
        texts = {name: data.get(name) for name in ("actor", "reason", "turn_id", "session_id")}
        if any(value is not None and not isinstance(value, str) for value in texts.values()):
            raise ValueError("the actor, reason or turn of a change record is not text")
        return cls(
            kind=kind, ids=tuple(ids), actor=texts["actor"] or EXTERNAL, reason=texts["reason"] or "",
            turn_id=texts["turn_id"], session_id=texts["session_id"],
            states={str(k): (dict(v) if isinstance(v, Mapping) else None) for k, v in states.items()},
            extra=dict(extra), local=local,
        )
