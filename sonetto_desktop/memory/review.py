"""Review mode (issue 12, capability 7): Sonetto's changes wait in an inbox for the person.

With review mode on, the background writer's calls that would change memories (every tool's, by the
runner's rules: ``writer.runner``) do not touch them: each becomes a :class:`Proposal` in
``review_inbox.json`` (data dir, written atomically, owner-only) keeping the call itself — the tool,
its arguments and the run's context — beside what its plan said it would do (kind, memories, texts:
what the person reads). The person approves (optionally with their own wording), rejects, or does
either for all. An approved proposal's call is planned again through the tool's registry against the
memories as they are then and carried out by the same rules as a direct call, its writes in one
transaction (``writer.proposals.Planner``: no switch on kinds, so a new tool's calls are approved as
they were proposed): as ``agent`` with the proposal's chat turn (so its provenance, its undo and
"what Sonetto wrote" filters work as for a direct write), or as ``user`` when the person rewrote it.
Counting a memory as used (hit) is not a change of content and is not held. With review mode off,
nothing changes from before. Entries written before proposals kept their call (kind and fields
only) are read as calls of the held tools (``writer.proposals.HELD_TOOLS``); an entry whose kind or
tool this version does not know stays listed, can be rejected and is never applied as something else.

Only the memory writer is held for review — Sonetto's own turns (actor ``agent``) and the
conversations other apps hand it (``mcp:<app>``, applied as that app when approved): the person's
own edits and other apps' direct calls (``mcp:…``, ``cli``) write directly, as before.

Undoing a turn takes back what waits for it too (``MemoryOperations.undo_turn`` → :meth:`ReviewInbox.with_undo`):
its proposals (every batch's, for an import) leave the inbox in the same step as the undo, kept as a
:class:`Withdrawal`; one that comes later for that turn (a batch another process was writing) is
withdrawn as it comes, and approving one the person still sees is refused with :class:`ProposalWithdrawn`,
saying its conversation was undone. Taking the undo back brings them back (and undoing that withdraws
them again).

Thread-safe and safe between processes (the app, ``sonetto mcp``, a second instance): every change of
the inbox holds ``review_inbox.json.lock`` from reading the file to writing it, and an approval holds it
while the proposal is applied, so one proposal is applied once: whoever comes second is told it is
gone (:class:`ProposalGone`), never applies it again. A file changed by another process is read again.
The lock is taken before the store's (a proposal is never made while holding the store's lock), and
waited for as the store's is (``stores.lock_wait``: said after a moment), as long as an approval may
hold it while it waits for the store, and then some (``LOCK_TIMEOUT``).
"""

from __future__ import annotations

import contextlib
import json
import threading
import uuid
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from . import kinds
from .changes import AGENT, MemoryChange, Turn, writer_actor
from .errors import StoreBusy
from .files import atomic_write, private_opener
from .item import now_iso
from .stores import lock_wait
from .undo import UNDO_PREFIX, NothingToUndo, in_turn

if TYPE_CHECKING:
    from .operations import MemoryOperations
    from .writer.proposals import Planner
    from .writer.registry import Registry, WriterTool

FILE_NAME = "review_inbox.json"
#: The inbox refuses new proposals beyond this many waiting (the writer is told to stop for now).
MAX_PENDING = 500


#: Seconds to wait for another process's change of the inbox besides the store's wait (``lock_wait.LIMIT``):
#: an approval holds the inbox while it applies the proposal, which may first wait that long for another
#: process holding the store; a proposal made meanwhile (the writer of ``sonetto mcp``) waits as long, and
#: says so after ``lock_wait.NOTICE_AFTER`` as a store's wait does. (It waited 30 s in all, without a word,
#: and then failed the writer's turn.)
LOCK_TIMEOUT = 30.0
#: Withdrawals kept, the oldest dropped first: taking back an undo older than that brings nothing back.
MAX_WITHDRAWALS = 200

R = TypeVar("R")


class InboxFull(Exception):
    """Too many proposals are waiting for review."""


class ProposalGone(KeyError):
    """The proposal is no longer waiting: approved or rejected already (maybe in another window or process)."""

    def __init__(self, proposal_id: str) -> None:
        self.proposal_id = proposal_id
        super().__init__(f"proposal {proposal_id} was already approved or rejected")

    def __str__(self) -> str:  # KeyError would repr() the message
        return self.args[0]


class ProposalWithdrawn(ProposalGone):
    """The proposal no longer waits: the conversation it came from (a chat turn, an imported history)
    was undone, and it was withdrawn with it. ``origin``: where that conversation came from, if known."""

    def __init__(self, proposal: "Proposal", turn: str) -> None:
        self.proposal = proposal
        self.turn = turn
        self.origin = proposal.origin
        where = f"{proposal.origin} ({turn})" if proposal.origin else turn
        KeyError.__init__(self, f"proposal {proposal.id} was withdrawn: the conversation it came from, {where}, "
                                "was undone")
        self.proposal_id = proposal.id


@dataclass(frozen=True)
class Proposal:
    """A held call: ``tool`` / ``arguments`` / ``context`` (``writer.registry.ToolContext.to_json``) are
    what is carried out on approval; the rest is what its plan said it would do when it was proposed,
    for the person to read."""

    id: str
    kind: str  # the plan's kind (``kinds``): create | update | delete | merge | a new tool's own
    memory_ids: tuple[str, ...] = ()  # the memories it touches (merge: kept, merged away)
    description: str | None = None  # the new text (create / update / merge)
    theme: str | None = None  # the theme (create / merge; update: a new theme, if any)
    reason: str = ""
    turn_id: str | None = None
    session_id: str | None = None
    excerpt: str = ""
    created_at: str = field(default_factory=now_iso)
    before: tuple[str, ...] = ()  # the memories' texts when proposed (shown beside the proposal)
    actor: str = AGENT  # who proposed it and writes it when approved (``changes.writer_actor``)
    origin: str = ""  # where the conversation came from (``Turn.origin``)
    tool: str = ""  # the call: its tool's name ("": none this version can carry out)
    arguments: dict[str, Any] = field(default_factory=dict, compare=False)
    context: dict[str, Any] = field(default_factory=dict, compare=False)
    rewordable: bool = False  # the person may reword its text before approving (``WriterTool.reworded``)

    @property
    def turn(self) -> Turn | None:
        return Turn(self.turn_id, self.session_id, self.excerpt, self.origin) if self.turn_id else None

    def summary(self) -> str:
        """One line for logs (Chinese; the UI words it in its language: ``ui/dialogs/review.proposal_summary``)."""
        group = kinds.group(self.kind)
        if group == kinds.ADDED:
            return f"新记住：{self.description}"
        if group == kinds.UPDATED:
            return f"改为：{self.description}" if self.description else f"移到「{self.theme}」"
        if group == kinds.DELETED:
            return f"删除：{self.before[0] if self.before else ' '.join(self.memory_ids)}"
        if group == kinds.MERGED:
            return f"合并为：{self.description}"
        return f"{self.tool or self.kind}：{self.description or ' '.join(self.memory_ids)}"


def _from_json(raw: dict[str, Any]) -> Proposal:
    values = {k: raw.get(k) for k in Proposal.__dataclass_fields__ if k in raw}
    values["memory_ids"] = tuple(str(i) for i in values.get("memory_ids") or ())
    values["before"] = tuple(values.get("before") or ())
    values["actor"] = writer_actor(values.get("actor", AGENT)) or AGENT  # never the person's, whatever the file says
    values["origin"] = values.get("origin") if isinstance(values.get("origin"), str) else ""
    if not isinstance(values.get("kind"), str) or not values.get("kind") or not values.get("id"):
        raise ValueError(f"not a proposal: {raw!r:.80}")
    for name in ("arguments", "context"):
        values[name] = dict(values[name]) if isinstance(values.get(name), dict) else {}
    values["tool"] = values.get("tool") if isinstance(values.get("tool"), str) else ""
    if not values["tool"] and "arguments" not in raw:  # written before proposals kept their call
        from .writer.proposals import held_call

        call = held_call(values["kind"], values["memory_ids"], values.get("description"), values.get("theme"),
                         values.get("reason") or "")
        if call is not None:  # else an entry of a kind unknown here: listed, never applied as another
            values["tool"], values["arguments"] = call
            values["rewordable"] = values["kind"] != kinds.DELETE
    values["rewordable"] = bool(values.get("rewordable"))
    return Proposal(**values)


@dataclass(frozen=True)
class Withdrawal:
    """The proposals of ``turn`` (a turn, or an import: its batches too) taken out of the inbox when the
    undo ``by`` took the turn back (``""``: it had left nothing else to undo). ``back_by``: the undo
    that took ``by`` back, putting them back in the inbox (undoing ``back_by`` withdraws them again);
    while it is empty, later proposals of the turn are withdrawn as they come."""

    turn: str
    by: str
    at: str
    proposals: tuple[Proposal, ...] = ()
    back_by: str = ""

    @property
    def active(self) -> bool:
        return not self.back_by

    def to_json(self) -> dict[str, Any]:
        return {"turn": self.turn, "by": self.by, "at": self.at, "back_by": self.back_by,
                "proposals": [asdict(p) for p in self.proposals]}

    @classmethod
    def from_json(cls, raw: dict[str, Any]) -> "Withdrawal":
        if not isinstance(raw.get("turn"), str) or not raw["turn"]:
            raise ValueError(f"not a withdrawal: {raw!r:.80}")
        proposals = tuple(_from_json(p) for p in raw.get("proposals") or () if isinstance(p, dict))
        return cls(raw["turn"], str(raw.get("by") or ""), str(raw.get("at") or ""), proposals,
                   str(raw.get("back_by") or ""))


class ReviewInbox:
    """The proposals waiting for the person. ``enabled`` follows the review-mode setting; at most
    ``capacity`` wait (more are refused with :class:`InboxFull`)."""

    def __init__(self, path: str | Path, *, enabled: bool = False, capacity: int = MAX_PENDING,
                 tools: Registry | Callable[[], Registry] | None = None) -> None:
        """``tools``: writer tools whose held calls it can carry out besides the writer's own
        (``writer.proposals.Planner``), or what gives them at the first approval."""
        self.path = Path(path)
        self.enabled = enabled
        self.capacity = capacity
        self._tools = tools
        self._planner: Planner | None = None
        self._lock = threading.RLock()
        self._items: list[Proposal] = []
        self._withdrawals: list[Withdrawal] = []
        self._stamp: tuple[int, int] | None = None
        self._listeners: list[Callable[[int], None]] = []

    # ── the file ──────────────────────────────────────────────────────

    def _file_stamp(self) -> tuple[int, int] | None:
        try:
            stat = self.path.stat()
        except FileNotFoundError:
            return None
        return stat.st_mtime_ns, stat.st_size

    def _load(self) -> list[Proposal]:
        stamp = self._file_stamp()
        if stamp != self._stamp:
            if stamp is None:
                self._items, self._withdrawals = [], []
            else:
                try:
                    raw = json.loads(self.path.read_text(encoding="utf-8"))
                    self._items = [_from_json(p) for p in raw.get("proposals", []) if isinstance(p, dict)]
                    self._withdrawals = [Withdrawal.from_json(w) for w in raw.get("withdrawn") or ()
                                         if isinstance(w, dict)]
                except (OSError, ValueError, TypeError, AttributeError) as exc:
                    raise ValueError(f"{self.path.name} cannot be read ({exc}); it was left as it is") from exc
            self._stamp = stamp
        return self._items

    @contextlib.contextmanager
    def _changing(self) -> Iterator[list[Proposal]]:
        """The proposals, held against every other change of the inbox in this process and in others."""
        with self._lock:
            lock_path = self.path.with_name(self.path.name + ".lock")
            try:
                with lock_wait.exclusive(lock_path, self.path, limit=lock_wait.LIMIT + LOCK_TIMEOUT,
                                         opener=private_opener):
                    yield self._load()
            except StoreBusy as exc:
                raise OSError(f"{self.path.name} is being changed by another program; try again") from exc

    def _save(self, items: list[Proposal], withdrawals: list[Withdrawal] | None = None) -> None:
        withdrawals = self._withdrawals if withdrawals is None else withdrawals[-MAX_WITHDRAWALS:]
        payload: dict[str, Any] = {"proposals": [asdict(p) for p in items]}
        if withdrawals:
            payload["withdrawn"] = [w.to_json() for w in withdrawals]
        atomic_write(self.path, json.dumps(payload, ensure_ascii=False, indent=1).encode("utf-8"))
        self._items, self._withdrawals = items, withdrawals
        self._stamp = self._file_stamp()

    # ── reading ───────────────────────────────────────────────────────

    def pending(self) -> list[Proposal]:
        """Oldest first."""
        with self._lock:
            return list(self._load())

    def count(self) -> int:
        return len(self.pending())

    @property
    def cached_count(self) -> int:
        """How many proposals were waiting when the inbox was last read or changed here (no file I/O:
        for a badge on the UI thread; another process's changes show at the next read)."""
        return len(self._items)

    def pending_of(self, turn_id: str) -> list[Proposal]:
        """The proposals of ``turn_id`` waiting (of every batch, for an import ``imp-…``), oldest first."""
        return [p for p in self.pending() if in_turn(p.turn_id, turn_id)]

    def cached_count_of(self, turn_id: str) -> int:
        """How many proposals of ``turn_id`` waited when the inbox was last read or changed here (no file
        I/O, like ``cached_count``)."""
        return sum(1 for p in self._items if in_turn(p.turn_id, turn_id))

    def get(self, proposal_id: str) -> Proposal:
        """``ProposalGone`` (a ``KeyError``) when it is not waiting (any more): ``ProposalWithdrawn``
        when its conversation was undone."""
        with self._lock:
            items = self._load()
            found = next((p for p in items if p.id == proposal_id), None)
            if found is None:
                raise self._gone(proposal_id)
            return found

    def _gone(self, proposal_id: str) -> ProposalGone:
        """Why ``proposal_id`` is not waiting: withdrawn with its conversation, or handled (lock held)."""
        for withdrawal in reversed(self._withdrawals):
            found = next((p for p in withdrawal.proposals if p.id == proposal_id), None)
            if found is not None and withdrawal.active:
                return ProposalWithdrawn(found, withdrawal.turn)
        return ProposalGone(proposal_id)

    def subscribe(self, listener: Callable[[int], None]) -> Callable[[], None]:
        """``listener(count)`` after every change of the inbox made here (any thread)."""
        self._listeners.append(listener)
        return lambda: self._listeners.remove(listener) if listener in self._listeners else None

    def _changed(self) -> None:
        count = len(self._items)
        for listener in list(self._listeners):
            listener(count)

    # ── the writer's side ─────────────────────────────────────────────

    @property
    def planner(self) -> Planner:
        """What plans held calls again on approval (made at first use: it loads the writer's tools)."""
        with self._lock:
            if self._planner is None:
                from .writer.proposals import Planner

                self._planner = Planner(self._tools() if callable(self._tools) else self._tools)
            return self._planner

    def propose(self, kind: str, *, memory_ids: tuple[str, ...] = (), description: str | None = None,
                theme: str | None = None, reason: str = "", turn: Turn | None = None,
                before: tuple[str, ...] = (), actor: str = AGENT) -> Proposal:
        """A change proposed without a writer tool's call (an import's saved memories, the clean-up
        pass): held as a call of the held tool of ``kind`` (``writer.proposals.HELD_TOOLS``)."""
        from .writer.proposals import held_call

        call = held_call(kind, tuple(memory_ids), description, theme, reason)
        if call is None:
            raise ValueError(f"no held change of kind {kind!r} with {len(memory_ids)} memories")
        tool, arguments = call
        return self._hold(tool, arguments, {}, kind=kind, memory_ids=memory_ids, description=description,
                          theme=theme, reason=reason, turn=turn, before=before, actor=actor,
                          rewordable=kind != kinds.DELETE)

    def propose_call(self, tool: WriterTool, arguments: dict[str, Any], context: dict[str, Any], *, kind: str,
                     memory_ids: tuple[str, ...] = (), description: str | None = None, theme: str | None = None,
                     reason: str = "", turn: Turn | None = None, before: tuple[str, ...] = (),
                     actor: str = AGENT) -> Proposal:
        """Hold the writer's call of ``tool`` (what its plan said it would do: ``kind`` …); approving
        it plans the call again (this inbox knows ``tool`` from now on in this process)."""
        self.planner.know(tool)
        return self._hold(tool.name, arguments, context, kind=kind, memory_ids=memory_ids, description=description,
                          theme=theme, reason=reason, turn=turn, before=before, actor=actor,
                          rewordable=tool.rewordable and description is not None)

    def _hold(self, tool: str, arguments: dict[str, Any], context: dict[str, Any], *, kind: str,
              memory_ids: tuple[str, ...], description: str | None, theme: str | None, reason: str,
              turn: Turn | None, before: tuple[str, ...], actor: str, rewordable: bool) -> Proposal:
        if writer_actor(actor) is None:
            raise ValueError(f"a proposal cannot be written as {actor!r}")
        proposal = Proposal(uuid.uuid4().hex[:8], kind, tuple(memory_ids), description, theme, reason,
                            turn.turn_id if turn else None, turn.session_id if turn else None,
                            turn.excerpt if turn else "", now_iso(), tuple(before), actor,
                            turn.origin if turn else "", tool, dict(arguments), dict(context), rewordable)
        with self._changing() as items:
            same = next((p for p in items if (p.kind, p.memory_ids, p.description, p.theme) == (
                proposal.kind, proposal.memory_ids, proposal.description, proposal.theme)), None)
            if same is not None:  # proposed again (a retried turn, the next clean-up pass): one entry
                return same
            undone = next((n for n, w in enumerate(self._withdrawals)
                           if w.active and in_turn(proposal.turn_id, w.turn)), None)
            if undone is not None:  # its conversation was undone (a batch written elsewhere meanwhile)
                withdrawals = list(self._withdrawals)
                withdrawals[undone] = replace(withdrawals[undone],
                                              proposals=(*withdrawals[undone].proposals, proposal))
                self._save(items, withdrawals)
                return proposal
            if len(items) >= self.capacity:
                raise InboxFull(f"{len(items)} proposals are waiting for review")
            self._save([*items, proposal])
        self._changed()
        return proposal

    # ── the person's side ─────────────────────────────────────────────

    def reject(self, proposal_id: str) -> Proposal:
        """Take it out of the inbox unapplied; ``ProposalGone`` when it was handled already."""
        with self._changing() as items:
            found = next((p for p in items if p.id == proposal_id), None)
            if found is None:
                raise self._gone(proposal_id)
            self._save([p for p in items if p.id != proposal_id])
        self._changed()
        return found

    def reject_all(self, ids: Iterable[str] | None = None) -> int:
        """Reject every proposal waiting, or only those of ``ids`` (what the person was shown: one
        proposed since is not rejected unseen). Returns how many were rejected."""
        with self._changing() as items:
            chosen = None if ids is None else set(ids)
            kept = [] if chosen is None else [p for p in items if p.id not in chosen]
            count = len(items) - len(kept)
            if count:
                self._save(kept)
        if count:
            self._changed()
        return count

    def approve(self, proposal_id: str, ops: MemoryOperations, *, description: str | None = None,
                theme: str | None = None, seen: Sequence[str] | None = None) -> MemoryChange | None:
        """Apply the proposal (the person's ``description`` / ``theme`` instead, if given, written only
        over the texts of its memories they were shown: ``seen``, by default those it was proposed
        over) and take it out of the inbox, as one step against every other process: ``ProposalGone``
        when another approval or a rejection came first, ``ProposalWithdrawn`` when its conversation
        was undone (nothing is applied). A failure (the memory is gone, locked, changed since it was
        shown: ``ProposalOutdated``, …) raises and leaves it waiting."""
        with self._changing() as items:
            proposal = next((p for p in items if p.id == proposal_id), None)
            if proposal is None:
                raise self._gone(proposal_id)
            change = self.planner.apply(proposal, ops, description=description, theme=theme, seen=seen)
            self._save([p for p in items if p.id != proposal_id])  # done with it
        self._changed()
        return change

    # ── undo ──────────────────────────────────────────────────────────

    def with_undo(self, turn_id: str, undo: Callable[[], R]) -> R:
        """Run ``undo`` (the store's undo of ``turn_id``: it returns an ``UndoResult``) as one step with
        the inbox, against every approval in this process and others: the turn's proposals are
        withdrawn (``result.withdrawn``), and when ``turn_id`` is itself an undo, those it withdrew wait
        again (``result.returned``). ``NothingToUndo``: the proposals are withdrawn all the same
        (``exc.withdrawn``); ``UndoConflict`` or any failure: nothing changed here either."""
        changed = False
        try:
            with self._changing() as items:
                try:
                    result: Any = undo()
                except NothingToUndo as exc:
                    exc.withdrawn, _returned = self._follow(items, turn_id, "")
                    changed = bool(exc.withdrawn)
                    raise
                result.withdrawn, result.returned = self._follow(items, turn_id, result.turn_id)
                changed = bool(result.withdrawn or result.returned)
        finally:
            if changed:
                self._changed()
        return result

    def _follow(self, items: list[Proposal], turn_id: str, by: str) -> tuple[list[Proposal], list[Proposal]]:
        """After the undo ``by`` took ``turn_id`` back (lock held): (withdrawn, waiting again); saved."""
        withdrawals = list(self._withdrawals)
        returned: list[Proposal] = []
        undid_an_undo = turn_id.startswith(UNDO_PREFIX) or any(w.by == turn_id for w in withdrawals)
        if by:  # taking back an undo: what it withdrew waits again
            for n, w in enumerate(withdrawals):
                if w.active and w.by == turn_id:
                    returned += w.proposals
                    withdrawals[n] = replace(w, proposals=(), back_by=by)
        # the turn itself, and any turn the undo now taken back had brought back (undo, redo, undo)
        turns = [turn_id, *(w.turn for w in withdrawals if w.back_by == turn_id)]
        withdrawn: list[Proposal] = []
        for turn in dict.fromkeys(turns):
            mine = [p for p in items if in_turn(p.turn_id, turn)]
            items = [p for p in items if not in_turn(p.turn_id, turn)]
            withdrawn += mine
            again = next((n for n, w in enumerate(withdrawals) if w.back_by == turn_id and w.turn == turn), None)
            if again is not None:
                withdrawals[again] = Withdrawal(turn, by, now_iso(), tuple(mine))
            elif mine or not undid_an_undo:
                withdrawals.append(Withdrawal(turn, by, now_iso(), tuple(mine)))
        if withdrawn or returned or withdrawals != self._withdrawals:
            self._save([*items, *returned], withdrawals)
        return withdrawn, returned

    def approve_all(self, ops: MemoryOperations, ids: Iterable[str] | None = None
                    ) -> tuple[list[MemoryChange], dict[str, str]]:
        """Apply every proposal, or only those of ``ids`` (what the person was shown: one proposed
        since is not applied unseen), oldest first. Returns (changes, {proposal id: why it failed});
        failed ones stay in the inbox."""
        changes: list[MemoryChange] = []
        failed: dict[str, str] = {}
        chosen = None if ids is None else set(ids)
        for proposal in self.pending():
            if chosen is not None and proposal.id not in chosen:
                continue
            try:
                change = self.approve(proposal.id, ops)
            except ProposalGone:  # handled meanwhile elsewhere: not a failure
                continue
            except Exception as exc:  # noqa: BLE001 - each failure is reported, the rest go on
                failed[proposal.id] = str(exc) or type(exc).__name__
                continue
            if change is not None:
                changes.append(change)
        return changes, failed
