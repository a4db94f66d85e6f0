"""Change kinds, declared once (as ``record.FIELDS`` declares a memory's fields).

A kind names what a write did or what a writer plan would do: the kind of a change record
(``changes.MemoryChange``), of a writer tool's plan (``writer.registry.Plan``) and of a proposal in
the review inbox (``review.Proposal``), and the action of a memory's history entry. What the writer,
the review inbox, undo, the change channel's readers and the wording need to know of a kind is said
here, in its :class:`ChangeKind`; a new kind is one ``register`` call (a new writer tool may make its
own) and every rule applies to it.

Fail closed: a name nobody registered (a tool's new kind, an inbox entry of a newer version) is a
change of what the person has (``kind(name).changes``): checked against the don't-remember list,
held for review in review mode, never mistaken for a known kind.
"""

from __future__ import annotations

from dataclasses import dataclass

# The kinds' names: every module spells a kind through these.
ADD = "add"  # a change record: a memory was created (its history entry and a writer plan say CREATE)
CREATE = "create"
UPDATE = "update"
DELETE = "delete"
MERGE = "merge"
HIT = "hit"
REVERT = "revert"
RESTORE = "restore"
PURGE = "purge"
IMPORT = "import"
RELOAD = "reload"
LOCK = "lock"
UNLOCK = "unlock"  # a history entry only: the change record of an unlock is a LOCK with ``locked=False``
SET = "set"
PIN = "pin"  # history entries only: the change record of a pin or an unpin is a SET of ``pinned``
UNPIN = "unpin"
READ = "read"
PROPOSE = "propose"

#: How summaries count a kind (``ChangeKind.group``).
ADDED, UPDATED, MERGED, DELETED = "add", "update", "merge", "delete"


@dataclass(frozen=True)
class ChangeKind:
    """``record``: a change record can have it (the change channel, the stores' change logs);
    ``plan``: a writer plan (and so a proposal) can have it; ``changes``: it changes what the person
    has (False only for reading and counting a use: never held for review, nothing to refuse);
    ``content``: after it the touched memories exist with new content (views highlight them);
    ``trash``: it changes the trash; ``group``: how a summary counts it (``ADDED`` / ``UPDATED`` /
    ``MERGED`` / ``DELETED``; ``""``: not counted); ``per_id``: a summary counts each memory it
    touched (a bulk kind) rather than the change; ``memories``: it may change memories (False: the
    trash alone); ``whole``: it names no memories, anything may have changed (readers re-read all);
    ``new``: the memories it names are new ones (nothing the person had is changed by it);
    ``flag``: as a history action, it changes a flag of the memory (the lock, the pin), not its text or theme;
    ``authoring``: as a history action, its actor becomes the memory's author (False: a lock, an
    unlock, a restore from the trash, which brings the text back as its author wrote it). (A plan
    that creates a memory is ``CREATE``, as its history entry says; the change record it writes is
    ``ADD``.)"""

    name: str
    record: bool = True
    plan: bool = False
    changes: bool = True
    content: bool = False
    trash: bool = False
    group: str = ""
    per_id: bool = False
    memories: bool = True
    whole: bool = False
    new: bool = False
    flag: bool = False
    authoring: bool = True

    @property
    def gone(self) -> bool:
        """The memories a change of this kind names no longer exist after it (all of them)."""
        return self.group == DELETED

    @property
    def names_memories(self) -> bool:
        """Its ids are the memories it changed (a view may re-read those alone)."""
        return self.memories and not self.whole


_KINDS: dict[str, ChangeKind] = {}


def register(kind: ChangeKind) -> ChangeKind:
    """Declare ``kind`` (``ValueError`` when its name is taken by a different declaration)."""
    known = _KINDS.get(kind.name)
    if known is not None and known != kind:
        raise ValueError(f"change kind {kind.name!r} is declared already")
    _KINDS[kind.name] = kind
    return kind


for _kind in (
    ChangeKind(ADD, content=True, group=ADDED, new=True),
    ChangeKind(CREATE, record=False, plan=True, content=True, group=ADDED, new=True),
    ChangeKind(UPDATE, plan=True, content=True, group=UPDATED),
    ChangeKind(DELETE, plan=True, trash=True, group=DELETED),
    ChangeKind(MERGE, plan=True, content=True, trash=True, group=MERGED),
    ChangeKind(HIT, plan=True, changes=False),
    ChangeKind(REVERT, content=True, group=UPDATED),
    ChangeKind(RESTORE, content=True, trash=True, group=ADDED, authoring=False),
    ChangeKind(PURGE, trash=True, memories=False),
    ChangeKind(IMPORT, content=True, group=ADDED, per_id=True, new=True),
    ChangeKind(RELOAD, whole=True),
    ChangeKind(LOCK, group=UPDATED, flag=True, authoring=False),
    ChangeKind(UNLOCK, record=False, flag=True, authoring=False),
    ChangeKind(PIN, record=False, flag=True, authoring=False),
    ChangeKind(UNPIN, record=False, flag=True, authoring=False),
    ChangeKind(SET),
    ChangeKind(READ, record=False, plan=True, changes=False),
    ChangeKind(PROPOSE, record=False, plan=True, changes=False),
):
    register(_kind)


def kind(name: object) -> ChangeKind:
    """The declaration of ``name``; a name never declared is a change of the person's memories
    (fail closed) that no change record has and no summary counts."""
    known = _KINDS.get(name) if isinstance(name, str) else None
    return known if known is not None else ChangeKind(str(name), record=False, plan=True)


def known(name: object) -> bool:
    return isinstance(name, str) and name in _KINDS


def names(*, record: bool | None = None, plan: bool | None = None) -> tuple[str, ...]:
    """The declared kinds' names (those a change record / a plan can have, when asked), in order."""
    return tuple(k.name for k in _KINDS.values()
                 if (record is None or k.record == record) and (plan is None or k.plan == plan))


def record_kinds() -> frozenset[str]:
    """Every kind a change record can have."""
    return frozenset(names(record=True))


def changes(name: str) -> bool:
    """Whether a plan of kind ``name`` changes what the person has (fail closed: unknown names do)."""
    return kind(name).changes


def content_kinds() -> frozenset[str]:
    """Kinds after which the touched memories exist with new content (views highlight them)."""
    return frozenset(k.name for k in _KINDS.values() if k.record and k.content)


def trash_kinds() -> frozenset[str]:
    """Kinds of change record that change the trash."""
    return frozenset(k.name for k in _KINDS.values() if k.record and k.trash)


def group(name: str) -> str:
    """How a summary counts a change of kind ``name`` (``""``: not counted)."""
    return kind(name).group


def flag(action: object) -> bool:
    """Whether a history entry of ``action`` changes a flag of the memory (the lock, the pin), not its
    text or theme (an action never declared changes the text or theme)."""
    return kind(action).flag


#: The history actions of each flag: which of them a flag's state is read from.
LOCKING = (LOCK, UNLOCK)
PINNING = (PIN, UNPIN)


def authoring(action: object) -> bool:
    """Whether a history entry of ``action`` makes its actor the memory's author (an action never
    declared does, as any change of the text or theme)."""
    return kind(action).authoring
