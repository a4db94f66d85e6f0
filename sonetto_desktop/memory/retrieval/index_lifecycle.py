"""IndexLifecycle: the recall index at start-up (MechanicalRetriever's first use).

A saved index whose version token matches the store is ready at once; a stale one is verified
(inline for a small bank, else in a background thread while queries answer from what it holds);
without one, a small bank is built inline and a large one in the background, a batch at a time,
tokenizing outside the lock. Memories changed while the background work runs are left to the
change queue. The index is saved when it was built or verified.
"""

from __future__ import annotations

import logging
import threading

from . import index_file
from . import tokenize as tok
from ...aio import start_thread

log = logging.getLogger(__name__)

# Without a saved index, a bank this small is built on first use (~0.1 s per 1,000 memories); a larger
# one in the background, so a chat turn's recall never waits for a whole build behind the lock.
SYNC_BUILD_MAX = 2_000
SYNC_VERIFY_MAX = 3000  # a saved index of a bank this small is verified on first use, larger ones in the background
BATCH = 256  # background work takes the lock for this many memories at a time


class IndexLifecycle:
    """Needs MechanicalRetriever's store, index, locks and change bookkeeping, and its ``_diff_plan``,
    ``_diff_inline``, ``_drop``, ``_install``, ``_tokenize``, ``_compact`` and ``invalidate``."""

    def _start(self) -> None:
        """First use (lock held): load the saved index if there is one; verify or build as needed."""
        token_now = self._version_token()
        if self._path is not None:
            try:
                self._postings, self._docs, saved = index_file.load(self._path, tokenizer=tok.TOKENIZER_VERSION)
            except index_file.IndexFileError as exc:
                log.info("recall index: %s; building it", exc)
            else:
                self._saved_token = saved
                self._started = True
                if saved is not None and saved == token_now:
                    return  # the store has not changed since: ready
                if len(self._docs) > SYNC_VERIFY_MAX:
                    self._begin_background(token_now)  # answer from the loaded index meanwhile
                    return
                self._diff_inline()
                self._save(token_now)
                return
        if self._mm.count() > SYNC_BUILD_MAX:
            self._started = True
            self._begin_background(token_now)  # answers come from a growing index meanwhile
            return
        self._diff_inline()
        self._started = True
        self._compact()
        self._save(token_now)

    def _version_token(self) -> str | None:
        token = getattr(self._mm, "version_token", lambda: None)()
        return token if isinstance(token, str) else None

    def _begin_background(self, token: str | None) -> None:
        with self._pending_lock:
            since = self._seq
            self._changed_at = {}
        self._verified = False
        self._worker = start_thread(self._background, args=(token, since),
                                        name="recall-index", daemon=True)

    def _background(self, token: str | None, since: int) -> None:
        """Diff the store against the index and install the differences, a batch at a time."""
        try:
            items = self._mm.all_items()
            with self._lock:
                prepared, gone = self._diff_plan(items)
                del items  # the index keeps what it needs of each memory
                changed = self._changed_since(since)  # newer versions are queued for the next refresh
                for mid in gone:
                    if mid not in changed:
                        self._drop(mid)
                todo = []
                for p in prepared:
                    slot = self._docs.slot_of.get(p.id)
                    if p.id in changed:
                        continue
                    if slot is not None and int(self._docs.fp[slot]) == p.fp:
                        self._docs.touch(slot, p.hit, p.updated, p.stamp)
                    else:
                        todo.append(p)
                del prepared
            self._report(0, len(todo))
            for start in range(0, len(todo), BATCH):
                if self._stop.is_set():
                    return
                batch = todo[start : start + BATCH]
                self._tokenize(batch)  # outside the lock: queries go on meanwhile
                with self._lock:
                    changed = self._changed_since(since)
                    for p in batch:
                        if p.id not in changed:
                            self._install(p, bulk=True)  # searchable at the next flush
                todo[start : start + BATCH] = [None] * len(batch)  # its fields live in the index now
                self._report(start + len(batch), len(todo))
            tok.release_memos()
            with self._lock:
                self._compact()
                self._verified = True
                with self._pending_lock:
                    quiet = self._seq == since
                self._save(token if quiet else None)
        except Exception:
            log.exception("recall index: background update failed; the next query re-reads the store")
            self.invalidate()

    def _changed_since(self, since: int) -> set[str]:
        with self._pending_lock:
            return {mid for mid, seq in self._changed_at.items() if seq > since}

    def _save(self, token: str | None) -> None:
        """Save the (compacted) index beside the store; a failure only costs a rebuild next time."""
        if self._path is None or (not self._dirty and token == self._saved_token):
            return
        p = self._postings
        if p.delta_docs or p.staged or p.n_live < p.n_slots:
            self._compact()
        try:
            index_file.save(self._path, self._postings, self._docs, token=token, tokenizer=tok.TOKENIZER_VERSION)
        except OSError as exc:
            log.warning("recall index: could not save %s: %s", self._path, exc)
            return
        self._dirty, self._saved_token = False, token

    def _join_worker(self) -> None:
        worker = self._worker
        if worker is not None and worker is not threading.current_thread():
            worker.join()
