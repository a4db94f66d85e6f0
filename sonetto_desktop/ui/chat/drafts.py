"""Drafts: what the person typed and did not send, kept per chat across switching chats and restarts.

The main chat's composer text belongs to the chat it was typed in: switching chats puts it aside
and brings back the other chat's draft; it is written to the UI state (``chat/drafts/<session>``)
half a second after typing stops, when switching chats and when the window saves its state (quit),
and removed once sent (the input is empty) or when the chat is deleted. A draft longer than the
state file keeps (a pasted book) is written to its own file beside it (``chat-drafts/``) instead:
never dropped. Those files are written, removed and swept by a thread of their own, never the Qt thread
(a write with its fsync took 1.5-26 ms): the newest save of each wins, the chat shows it until it is on
disk, and the app's shutdown (and the interpreter's exit) waits for it. Such a file is read by a worker
too when its chat is shown: the composer is empty until it arrives, then shows it before whatever was
typed meanwhile (a chat left before it arrived keeps both the same way; a read the app's quit ends
leaves it to the writer's thread: the file's text, then what was typed). Views made anew (a language switch)
take such reads over (``hand_over`` / ``take_over``): the old composer's stop without writing, the new one
reads the file again and puts it before what was typed, once. A temporary chat keeps none (it is not saved
at all). While an earlier message is being edited, the draft is the text from before the edit (the edit
itself is the message, not a draft).
"""

from __future__ import annotations

import asyncio
import atexit
import hashlib
import logging
import threading
from pathlib import Path
from typing import Any

from PySide6.QtCore import QObject, QSettings, QTimer

from ...aio import start_thread
from ...memory.files import atomic_write, private_dir

from ..memory_service import call
from ..widgets.tasks import task_scope
from .composer import Composer
from .controller import ChatController

PREFIX = "chat/drafts"
SAVE_DELAY_MS = 500
MAX_DRAFT_CHARS = 200_000  # a pasted book is not kept in the UI state file (read whole at start) but beside it
LONG_DRAFTS = "chat-drafts"

log = logging.getLogger(__name__)

_SWEEP = "*"  # (no draft's file name: they are hex digits and .txt)


class _Writer:
    """One thread for every folder's long drafts (``LongDraftFiles``), started with the first save and
    kept: a save wakes it and returns (no thread to start then). A daemon, so a process that ends does
    not wait for it to be told to stop; at the interpreter's exit the saves waiting are written first
    (``_at_exit``, at most ``EXIT_WAIT`` s)."""

    EXIT_WAIT = 10.0

    def __init__(self) -> None:
        self._cond = threading.Condition()
        self._due: list[LongDraftFiles] = []  # folders with a change waiting, in order
        self._thread: threading.Thread | None = None

    def wake(self, files: LongDraftFiles) -> None:
        with self._cond:
            if files not in self._due:
                self._due.append(files)
            if self._thread is None or not self._thread.is_alive():
                if self._thread is None:
                    atexit.register(self._at_exit)
                self._thread = start_thread(self._run, name="sonetto-chat-drafts")
            self._cond.notify()

    def done(self, files: LongDraftFiles) -> None:
        """``files`` has nothing left to write (called under its lock: a save then wakes it again)."""
        with self._cond:
            if files in self._due:
                self._due.remove(files)
            self._cond.notify_all()

    def _run(self) -> None:
        while True:
            with self._cond:
                while not self._due:
                    self._cond.wait()
                files = self._due[0]
            files.write_next()

    def _at_exit(self) -> None:
        with self._cond:
            self._cond.wait_for(lambda: not self._due, self.EXIT_WAIT)


class LongDraftFiles:
    """The long drafts' files, written off the Qt thread (``_Writer``). Each file has at most one change
    waiting, the newest (a save replaces one not written yet; one being written is followed by the
    newer): the last save wins. One per folder in the process (``for_folder``): a window made anew (a
    language switch) sees the saves the one before it left waiting."""

    _by_folder: dict[Path, LongDraftFiles] = {}
    _made = threading.Lock()

    @classmethod
    def for_folder(cls, folder: Path) -> LongDraftFiles:
        with cls._made:
            files = cls._by_folder.get(folder)
            if files is None:
                files = cls._by_folder[folder] = cls(folder)
            return files

    def __init__(self, folder: Path) -> None:
        self._folder = folder
        self._lock = threading.Lock()
        self._waiting: dict[str, tuple[str, Any]] = {}  # file name -> ("write", text) / ("after", text) / ("remove", None); _SWEEP -> ("keep", names)
        self._bases: dict[str, str] = {}  # a file's text as ``write_after`` first read it: what later ones go after
        self._unwritten: dict[str, str] = {}  # a draft its file could not take (disk full): kept for this run
        self._absent: set[str] = set()  # files known not to be there (no removal queued for them again)
        self._present: set[str] | None = None  # the drafts' files there or to be written (None: not listed yet)
        self._changed: dict[str, bool] = {}  # saves while the folder is being listed: name -> written (not removed)
        self._idle = threading.Event()
        self._idle.set()

    def pending(self, name: str) -> str | None:
        """The text this file is to hold and does not yet (or could not take this run); "" when it is to
        be removed; None when the file is as saved."""
        with self._lock:
            change = self._waiting.get(name)
            if change is not None and change[0] == "after":
                return None  # (the file's text is not known here)
            if change is not None:
                return change[1] if change[0] == "write" else ""
            return self._unwritten.get(name)

    def maybe_there(self, name: str) -> bool:
        """Whether this file may hold a draft (False only once the folder was listed: ``list_folder``)."""
        with self._lock:
            return self._present is None or name in self._present

    def list_folder(self) -> None:
        """Note which drafts' files are there (blocking: a worker's), so that a chat without one is shown
        without reading anything."""
        with self._lock:
            if self._present is not None:
                return
        try:
            found = {path.name for path in self._folder.glob("*.txt")} if self._folder.is_dir() else set()
        except OSError:
            log.warning("the long drafts' folder could not be listed", exc_info=True)
            return
        with self._lock:
            if self._present is None:
                found.update(name for name, written in self._changed.items() if written)
                self._present = found - {name for name, written in self._changed.items() if not written}
                self._changed.clear()

    def _note(self, name: str, written: bool) -> None:  # (under the lock)
        if self._present is None:
            self._changed[name] = written
        elif written:
            self._present.add(name)
        else:
            self._present.discard(name)

    def write(self, name: str, text: str) -> None:
        with self._lock:
            self._unwritten.pop(name, None)
            self._bases.pop(name, None)
            self._absent.discard(name)
            self._note(name, True)
            self._queue(name, ("write", text))

    def write_after(self, name: str, text: str) -> None:
        """The draft is this file's text as it is, then ``text`` (what was typed while its read, ended
        by the app's quit, had not brought it): the writer reads the file for the first such save, and
        a later one puts its ``text`` after that same text (it holds what the earlier one did)."""
        with self._lock:
            self._unwritten.pop(name, None)
            self._absent.discard(name)
            self._note(name, True)
            self._queue(name, ("after", text))

    def remove(self, name: str) -> None:
        with self._lock:
            self._unwritten.pop(name, None)
            self._bases.pop(name, None)
            self._note(name, False)
            if name in self._absent and name not in self._waiting:
                return
            self._queue(name, ("remove", None))

    def keep_only(self, names: set[str]) -> None:
        """Remove every draft's file but these (their chats are gone)."""
        with self._lock:
            for name in [name for name in self._waiting if name != _SWEEP and name not in names]:
                del self._waiting[name]
            for name in [name for name in self._unwritten if name not in names]:
                del self._unwritten[name]
            for name in [name for name in self._bases if name not in names]:
                del self._bases[name]
            if self._present is not None:
                self._present &= names
            self._queue(_SWEEP, ("keep", frozenset(names)))

    async def flush(self, timeout: float | None = None) -> bool:
        """Wait (at most ``timeout`` s) until every save so far is on disk; True when it is."""
        return bool((await call(self._idle.wait, timeout)).unwrap())

    def _queue(self, name: str, change: tuple[str, Any]) -> None:  # (under the lock)
        self._waiting[name] = change
        self._idle.clear()
        _WRITER.wake(self)

    def write_next(self) -> None:
        """On the writer's thread: the change waiting longest, done."""
        with self._lock:
            if not self._waiting:
                self._idle.set()
                _WRITER.done(self)
                return
            name, change = next(iter(self._waiting.items()))
        done = True
        try:
            self._apply(name, change)
        except Exception:  # (the thread goes on with the other files)
            log.warning("a long draft's file could not be written or removed; kept for this run", exc_info=True)
            done = False
        with self._lock:
            if self._waiting.get(name) is change:  # (not replaced by a newer save meanwhile)
                del self._waiting[name]
                if change[0] == "write" and not done:
                    self._unwritten[name] = change[1]
                elif change[0] == "remove" and done:
                    self._absent.add(name)

    def _apply(self, name: str, change: tuple[str, Any]) -> None:
        kind, value = change
        if kind == "write":
            atomic_write(private_dir(self._folder) / name, value.encode("utf-8"))
        elif kind == "after":
            with self._lock:
                base = self._bases.get(name)
            if base is None:
                try:
                    base = (self._folder / name).read_text(encoding="utf-8")
                except FileNotFoundError:
                    base = ""
                with self._lock:
                    base = self._bases.setdefault(name, base)
            atomic_write(private_dir(self._folder) / name, (base + value).encode("utf-8"))
        elif kind == "remove":
            (self._folder / name).unlink(missing_ok=True)
        elif self._folder.is_dir():
            for path in self._folder.glob("*.txt"):
                if path.name not in value:
                    path.unlink(missing_ok=True)


_WRITER = _Writer()


#: The tray's quick chat: its input's drafts, kept apart from the main window's (both follow the chat open).
QUICK_PREFIX, QUICK_LONG_DRAFTS = "chat/quick-drafts", "chat-quick-drafts"


class Drafts(QObject):
    """``prefix`` / ``long_folder``: where this composer's drafts go in the UI state and beside it (the
    main window's by default; the quick chat's are QUICK_PREFIX / QUICK_LONG_DRAFTS)."""

    def __init__(self, controller: ChatController, composer: Composer, state: QSettings,
                 parent: QObject | None = None, *, prefix: str = PREFIX, long_folder: str = LONG_DRAFTS) -> None:
        super().__init__(parent or composer)
        self._controller = controller
        self._composer = composer
        self._state = state
        self._prefix = prefix
        self._folder = Path(state.fileName()).parent / long_folder
        self._files = LongDraftFiles.for_folder(self._folder)
        self._session = controller.current_session_id  # the chat the composer's text belongs to
        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.setInterval(SAVE_DELAY_MS)
        self._timer.timeout.connect(self.save)
        self._loading = False
        self._tasks = task_scope(self, "chat-drafts")
        self._reads: dict[str, Any] = {}  # a chat whose long draft's file is being read -> that read's task
        self._typed: dict[str, str] = {}  # what was typed in such a chat before it was left (the draft goes before it)
        self._cut: set[str] = set()  # a chat whose draft's read was ended before it arrived (the quit): ``write_after``
        self._handed = False  # its reads went to the Drafts of views made anew (``hand_over``): it writes no more
        self._tasks.spawn(call(self._files.list_folder), name="list-drafts")  # (then a chat without one reads nothing)
        composer.input.textChanged.connect(self._on_text_changed)
        controller.current_session_changed.connect(self._on_session_changed)
        controller.sessions_changed.connect(self._on_sessions_changed)

    def _key(self, session_id: str) -> str:
        return f"{self._prefix}/{session_id}"

    def _long_file(self, session_id: str) -> Path:
        return self._folder / f"{hashlib.sha256(session_id.encode()).hexdigest()[:32]}.txt"

    def draft(self, session_id: str) -> str:
        """The chat's draft as saved (blocking when it is in its own file: a worker's, or a test's)."""
        known = self._known(session_id)
        return self._read_long(session_id) if known is None else known

    def _known(self, session_id: str) -> str | None:
        """The chat's draft without reading a file; None when it may be in its own file (``_read_long``)."""
        if not session_id:
            return ""
        pending = self._files.pending(self._long_file(session_id).name)
        if pending:
            return pending
        value = self._state.value(self._key(session_id), "", type=str)
        if isinstance(value, str) and value:
            return value
        if pending is not None or not self._files.maybe_there(self._long_file(session_id).name):
            return ""  # (its file is being removed, or there is none)
        return None

    def _read_long(self, session_id: str) -> str:
        """A long draft's file, read (blocking); "" when there is none or it cannot be read."""
        try:
            return self._long_file(session_id).read_text(encoding="utf-8")
        except FileNotFoundError:
            return ""
        except (OSError, UnicodeDecodeError):
            log.warning("a long draft could not be read back", exc_info=True)
            return ""

    def _forget_long(self, session_id: str) -> None:
        self._files.remove(self._long_file(session_id).name)

    async def flush(self, timeout: float | None = None) -> bool:
        """Wait (at most ``timeout`` s) until the long drafts saved so far are on disk; True when they are."""
        return await self._files.flush(timeout)

    def _temporary(self, session_id: str) -> bool:
        info = next((s for s in self._controller.sessions if s.id == session_id), None)
        return bool(info is not None and info.temporary)

    def hand_over(self) -> dict[str, str]:
        """For the views made anew (a language switch): the chats whose long draft is still being read,
        each with what was typed in it and put aside meanwhile ("" for the chat shown: what was typed there
        is the composer's text, carried over with it). This one's reads end without writing anything and it
        saves no more: the new one reads those drafts (``take_over``). Before, the old read, ended with its
        window, put what was typed after the file's text while the new composer held it too (twice once
        read back), or the new composer's save of what was typed replaced the draft not yet read."""
        self._handed = True
        self._timer.stop()
        reads = {session: "" if session == self._session else self._typed.get(session, "") for session in self._reads}
        for task in list(self._reads.values()):
            task.cancel()
        self._typed.clear()
        return reads

    def take_over(self, reads: dict[str, str]) -> None:
        """Read the long drafts another ``Drafts`` was reading (``hand_over``): each goes before what was
        typed meanwhile (the chat shown: before the composer's text, as when its read began here)."""
        for session, typed in reads.items():
            if typed:
                self._typed[session] = typed
            if session not in self._reads:
                self._reads[session] = self._tasks.spawn(self._arrive(session), name="read-draft")

    def save(self) -> None:
        """Write the current chat's draft now (or forget it when the input is empty)."""
        self._timer.stop()
        session = self._session
        if not session or self._handed:
            return
        text = self._composer.draft_text()
        if session in self._reads:  # its draft is still being read: what is shown is only what was typed since
            self._typed[session] = text  # (put after the draft when it arrives: ``_arrive``)
            return
        if session in self._cut:  # its read was ended (the quit): the draft is its file's text, then this
            if text:
                self._files.write_after(self._long_file(session).name, text)
            return
        self._store(session, text)

    def _store(self, session: str, text: str) -> None:
        if not text.strip() or self._temporary(session):
            self._state.remove(self._key(session))
            self._forget_long(session)
        elif len(text) > MAX_DRAFT_CHARS:
            self._state.remove(self._key(session))
            self._files.write(self._long_file(session).name, text)  # (off the Qt thread: see LongDraftFiles)
        else:
            self._state.setValue(self._key(session), text)
            self._forget_long(session)

    def _on_text_changed(self) -> None:
        if not self._loading:
            self._timer.start()

    def _on_session_changed(self, session_id: str) -> None:
        if session_id == self._session or self._handed:
            return
        self.save()  # the text typed so far belongs to the chat being left
        self._session = session_id
        known = self._known(session_id)
        if known is None:  # in its own file, maybe: read by a worker (what was typed here since it began comes back)
            known = self._typed.pop(session_id, "")
            if session_id not in self._reads:
                self._reads[session_id] = self._tasks.spawn(self._arrive(session_id), name="read-draft")
        self._loading = True
        try:
            self._composer.set_editing("")
            self._composer.set_text(known)
            cursor = self._composer.input.textCursor()
            cursor.movePosition(cursor.MoveOperation.End)
            self._composer.input.setTextCursor(cursor)
        finally:
            self._loading = False

    async def _arrive(self, session_id: str) -> None:
        """Read the chat's long draft in a worker; it goes before what was typed meanwhile: in the composer
        when the chat is still shown, else in the draft saved for it."""
        try:
            read = await call(self._read_long, session_id)
        except asyncio.CancelledError:  # the app quits (or the window goes) before it arrived
            if self._handed:  # (the views made anew read it: ``hand_over``)
                raise
            self._cut.add(session_id)
            typed = self._typed.pop(session_id, "")
            if typed:
                self._files.write_after(self._long_file(session_id).name, typed)
            raise
        finally:
            self._reads.pop(session_id, None)
        text = read.value if read.ok else ""
        typed = self._typed.pop(session_id, "")
        if session_id == self._session:
            self._loading = True
            try:
                self._composer.put_before_draft(text)
            finally:
                self._loading = False
            if typed:  # a save came while it was read (the window's, at quit): made again, the draft with it
                self.save()
            elif self._composer.draft_text() != text:  # typed meanwhile: saved as usual, the draft with it
                self._timer.start()
        elif typed and any(info.id == session_id for info in self._controller.sessions):
            self._store(session_id, text + typed)

    def _on_sessions_changed(self, sessions: list[Any]) -> None:
        """A chat that is gone (deleted) takes its draft with it."""
        if self._handed:
            return
        live = {info.id for info in sessions}
        self._state.beginGroup(self._prefix)
        try:
            gone = [key for key in self._state.childKeys() if key not in live]
        finally:
            self._state.endGroup()
        for key in gone:
            if key != self._session:
                self._state.remove(self._key(key))
        self._files.keep_only({self._long_file(session).name for session in live | {self._session}})
