"""IndexLifecycle: the recall index at start-up (MechanicalRetriever's first use).

A saved index whose version token matches the store is ready at once; a stale one is verified
(inline for a small bank, else in a background thread which queries wait for, as for a catch-up
below); without one, a small bank is built inline and a large one in the background, a batch at a
time, tokenizing outside the lock, while queries answer from what is indexed so far. Memories
changed while the background work runs are left to the change queue. The index is saved when it
was built or verified.

Later, a diff of a large bank that changes made since call for (a reload: another program wrote
the store; a bulk action of thousands) runs in the background too, but is a *catch-up*: it must not
let a query answer from before a write made before it. A background diff takes out the index's
version of every memory whose text changed as soon as it has read the store (``planned``: a query
waits for that much of any background work), so no query recalls a memory with a text the store no
longer has, nor one that is gone; then it installs the rest newest first (``todo``), and a query that
comes meanwhile installs itself those of them it could find (``MechanicalRetriever._take_in``) instead
of waiting for all of them.
"""

from __future__ import annotations

import logging
import threading
from pathlib import Path
from typing import TYPE_CHECKING

from . import index_file
from .card_fields import card_fields
from . import tokenize as tok
from ...aio import start_thread

if TYPE_CHECKING:
    from .mechanical import MechanicalRetriever

log = logging.getLogger(__name__)

# Without a saved index, a bank this small is built on first use (~0.1 s per 1,000 memories); a larger
# one in the background, so a chat turn's recall never waits for a whole build behind the lock.
SYNC_BUILD_MAX = 2_000
SYNC_VERIFY_MAX = 3000  # a saved index of a bank this small is verified on first use, larger ones in the background
BATCH = 256  # background work takes the lock for this many memories at a time


class IndexLifecycle:
    """The index's life beside the store: loading the saved file or building, the background worker
    that builds or verifies it, and saving it. Owns that state (the file's path, whether the index
    started, the version token it was saved with, whether it is verified, the worker); works on the
    retriever's index through the retriever's own operations (``index``: its ``_diff_plan``,
    ``_diff_inline``, ``_drop``, ``_install``, ``_tokenize``, ``_compact``, ``_changed_since``,
    ``_report`` and ``invalidate``, under its ``_lock``)."""

    def __init__(self, index: "MechanicalRetriever", path: Path | None) -> None:
        self.index = index
        self.path = path
        self.started = False  # first use: load the saved index or build
        self.saved_token: str | None = None
        self.verified = True  # False while a background build / verification has not finished
        self.worker: threading.Thread | None = None
        self.catching_up = False  # the worker catches up with changes the index has not seen: queries wait
        self.planned = threading.Event()  # the worker has taken out what is gone or changed (see _background)
        self.planned.set()
        self.todo: list = []  # what the worker has still to install (its done entries None): ``_take_in``
        self.since = 0  # the change number the worker read the store at (changed since: left to the queue)
        self.stop = threading.Event()

    def start(self) -> None:
        """First use (the index's lock held): load the saved index if there is one; verify or build."""
        ix = self.index
        token_now = self.version_token()
        if self.path is not None:
            try:
                ix._postings, ix._docs, saved = index_file.load(self.path, tokenizer=tok.TOKENIZER_VERSION)
            except index_file.IndexFileError as exc:
                log.info("recall index: %s; building it", exc)
            else:
                self.saved_token = saved
                self.started = True
                if saved is not None and saved == token_now:
                    return  # the store has not changed since: ready
                if len(ix._docs) > SYNC_VERIFY_MAX:
                    # queries wait for it as for a catch-up: what another process wrote while this one was
                    # closed is found by the first (a few differences: ~1 s at 100,000 memories)
                    self.begin_background(token_now, catch_up=True)
                    return
                ix._diff_inline()
                self.save(token_now)
                return
        if ix._mm.count() > SYNC_BUILD_MAX:
            self.started = True
            self.begin_background(token_now)  # answers come from a growing index meanwhile
            return
        ix._diff_inline()
        self.started = True
        ix._compact()
        self.save(token_now)

    def version_token(self) -> str | None:
        token = getattr(self.index._mm, "version_token", lambda: None)()
        return token if isinstance(token, str) else None

    def busy(self) -> bool:
        return self.worker is not None and self.worker.is_alive()

    def begin_background(self, token: str | None, *, catch_up: bool = False) -> None:
        """Diff the store against the index in a worker (``catch_up``: changes made since start-up or a
        verification, which a query waits for as far as it has read the store, then takes in what bears on it:
        ``MechanicalRetriever._in_step``; else a first build, which they do not wait for)."""
        ix = self.index
        with ix._pending_lock:
            since = ix._seq
            ix._changed_at = {}
        self.verified = False
        self.catching_up = catch_up
        self.since = since
        self.planned.clear()
        self.worker = start_thread(self._background, args=(token, since), name="recall-index", daemon=True)

    def _background(self, token: str | None, since: int) -> None:
        """Diff the store against the index and install the differences, a batch at a time."""
        ix = self.index
        try:
            items = card_fields(ix._mm)  # (columns, not every memory built)
            with ix._lock:
                prepared, gone = ix._diff_plan(items)
                del items  # the index keeps what it needs of each memory
                changed = ix._changed_since(since)  # newer versions are queued for the next refresh
                for mid in gone:
                    if mid not in changed:
                        ix._drop(mid)
                todo = []
                for p in prepared:
                    slot = ix._docs.slot_of.get(p.id)
                    if p.id in changed:
                        continue
                    if slot is not None and int(ix._docs.fp[slot]) == p.fp:
                        ix._docs.touch(slot, p.hit, p.updated, p.stamp)
                    else:
                        if slot is not None:
                            ix._drop(p.id)  # its old text is never recalled while the new one waits its turn
                        todo.append(p)
                del prepared
                todo.sort(key=lambda p: p.stamp, reverse=True)  # the newest first (a broad question's answer)
                self.todo = todo
            self.planned.set()
            ix._report(0, len(todo))
            for start in range(0, len(todo), BATCH):
                if self.stop.is_set():
                    return
                batch = todo[start : start + BATCH]
                ix._tokenize(batch)  # outside the lock: queries go on meanwhile
                with ix._lock:
                    changed = ix._changed_since(since)
                    for p in batch:
                        # (one a query took in is there with this text, and maybe a use counted since)
                        if p.id not in changed and ix._is_new(p):
                            ix._install(p, bulk=True)  # searchable at the next flush
                todo[start : start + BATCH] = [None] * len(batch)  # its fields live in the index now
                ix._report(start + len(batch), len(todo))
            tok.release_memos()
            with ix._lock:
                ix._compact()
                self.verified = True
                with ix._pending_lock:
                    quiet = ix._seq == since
                self.save(token if quiet else None)
        except Exception:
            log.exception("recall index: background update failed; the next query re-reads the store")
            ix.invalidate()
        finally:
            self.todo = []
            self.planned.set()

    def save(self, token: str | None) -> None:
        """Save the (compacted) index beside the store; a failure only costs a rebuild next time."""
        ix = self.index
        if self.path is None or (not ix._dirty and token == self.saved_token):
            return
        p = ix._postings
        if p.delta_docs or p.staged or p.n_live < p.n_slots:
            ix._compact()
        try:
            index_file.save(self.path, ix._postings, ix._docs, token=token, tokenizer=tok.TOKENIZER_VERSION)
        except OSError as exc:
            log.warning("recall index: could not save %s: %s", self.path, exc)
            return
        ix._dirty, self.saved_token = False, token

    def join_worker(self) -> None:
        worker = self.worker
        if worker is not None and worker is not threading.current_thread():
            worker.join()
