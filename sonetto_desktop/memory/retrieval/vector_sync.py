"""VectorSync: the embeddings model's vectors for every memory, computed in the background.

One worker thread per store and model:

- at start (after ``start_delay``: the built-in model leaves the first seconds to the window) it
  asks the model for its vector of a fixed text (the probe) and finds, by name, size and that
  vector, which of the store's models it is (``vectors.VectorTable.register``): the address it is
  reached at does not matter, so two devices that reach one model through two addresses share its
  vectors. A model that answers otherwise than the store's record of the same name is asked again:
  only two answers that agree make it another model;
- another model than the one whose vectors the store has (the person switched between the built-in
  model and an endpoint, or an upgrade changed the built-in model) is used only with the person's
  consent: the status says "consent" with how many memories and ~how many tokens embedding them
  again takes, nothing is sent and recall uses words only until :meth:`consent`. Then its vectors
  are computed, and the earlier model's deleted once every memory has one of the new. A store with
  no vectors yet (a first start) needs no consent;
- the model behind an endpoint can be replaced by another of the same size (a server restarted with
  other weights under the same name): the probe text is embedded again with a batch (one more text in
  the request) every ``RECHECK_EVERY`` batches, at the first batch after a wait or an error, and
  alone before the sync goes idle when vectors were stored since the last check. An answer unlike the
  model's record stores nothing: the vectors stored since the last check are dropped and the model
  is identified again, as at a start (another model: consent asked, nothing written meanwhile).
  The built-in model is in this process: never checked;
- then it compares the store with the vectors already saved (``vectors.py``: each row keeps
  the fingerprint of the text it was computed from), drops the vectors of memories that are gone
  and queues the memories without a current vector, the most recently changed first. Progress is
  the saved rows themselves, so a stop (closing the app, a crash, an error) loses at most the
  batch in flight and the next start resumes;
- then it follows the store's change feed: a new or edited memory is queued, a deleted one (also
  one the person asked Sonetto to forget) loses its vector at once, a bulk change is diffed;
- it sends batches of the model's size, at most ``rpm`` requests a minute; an answer with vectors of
  another size than the model's is set aside (nothing stored is touched) and the model is asked
  for its probe again; a 429 or a server error
  waits as long as the server asks (``Retry-After``) or backs off (2 s doubling to 5 minutes);
  a refusal that will not go away (a wrong key or model) stops it with the reason in its status
  until :meth:`retry` or new settings;
- a batch the server refuses as too large (a 4xx that names a batch limit, or a 400/413 for more than
  one text: a server's limit may be below the preset's or ``CUSTOM_BATCH``) is sent again in halves,
  down to one memory, and the size that worked is kept for the next batches; after a refusal that
  names the batch limit that size is also kept with the vectors (``VectorTable.learn_batch``, by
  endpoint and model), so the next start sends batches of it at once (another endpoint or model: the
  configured size again). One memory refused alone (longer than the model takes, a content filter)
  is embedded from its text clipped, halved down to ``CLIP_MIN`` characters, and skipped when even
  that is refused: a log line, a count in the status (``skipped``), never a stop for the others (it
  is tried again when its text changes, or at the next start).
- a sidecar vectors file that is not a database, or is damaged (a crash while copying, a full
  disk), is moved aside (``<name>.damaged-<time>``, kept for inspection) with a log line and made
  again, every vector computed again; recall uses words meanwhile.

:meth:`embed_query` and :meth:`nearest` are the shortlist's dense ranking (``shortlist.DenseRanker``):
the query's vector (one request, ``QUERY_TIMEOUT`` in all: a server that drips its answer is cut off
then; one per recall), searched for among the saved vectors (:meth:`rank`: both at once). It answers None, and the shortlist uses words only, while there are no vectors or the
endpoint fails; after a failure it uses words only for ``QUERY_PAUSE`` and the status says so
("waiting", the reason in ``error``). A message asked with the conversation's lines before it
(:meth:`embed_queries`) whose request the server refuses (one text a request, too long) is asked
alone, once (a server that named its batch limit: alone from then on); the pause comes only when that
fails too. :attr:`status` and the feed of :meth:`subscribe` tell the app
how far it is ("向量 8,200/10,000").
"""

from __future__ import annotations

import hashlib
import itertools
import logging
import re
import threading
import time
from dataclasses import replace
from typing import TYPE_CHECKING, Any, Callable

from ..backoff import Backoff
from ..changes import MemoryChange
from .. import kinds
from ..errors import MemoryNotFound
from ..events import EventFeed
from ..stores.base import BaseMemoryManager
from ..token_estimate import estimate_tokens
from .builtin_model import open_client
from .embeddings import PROBE_TEXT, EmbeddingsClient, EmbeddingsConfig, EmbeddingsError
from .vector_status import VectorStatus
from ...aio import start_thread

if TYPE_CHECKING:  # with numpy: imported by the worker when the store has a memory to embed (see _loop)
    from .vectors import VectorTable

__all__ = ["QUERY_TIMEOUT", "VectorStatus", "VectorSync", "text_fingerprint"]

log = logging.getLogger(__name__)

#: The query's vector must come back within this (the whole request), or the shortlist goes on with words only.
QUERY_TIMEOUT = 2.0
#: After a query's vector failed, the shortlist uses words only for this long (no 2 s wait per message).
QUERY_PAUSE = 60.0
#: The least time the message alone is given after its request with the conversation was refused.
ALONE_FLOOR = 0.5
#: Seconds between tries while the embeddings server or the store is away: 2 s doubling to 5 minutes.
BACKOFF = Backoff.doubling(2.0, 300.0)
INLINE_CHANGES_MAX = 2000
#: A memory refused alone is embedded from its text clipped to half, and half again, down to this many
#: characters; refused even so, it is skipped.
CLIP_MIN = 200
#: A refusal that names the server's batch limit (DashScope: "batch size is invalid", TEI: "batch size
#: ... must be less than", OpenAI-likes: "too many inputs").
BATCH_LIMIT = re.compile(r"batch|too many inputs|max(imum)?[ _-]*(number of )?inputs", re.IGNORECASE)
#: The model is asked its probe again with every this many batches (see the module docstring).
RECHECK_EVERY = 8
#: A damaged vectors file is moved aside and made again at most this many times a run (then: waits).
SET_ASIDE_MAX = 3
#: A number for each consent question asked (``VectorStatus.asked``): an answer agrees to its own only.
_QUESTIONS = itertools.count(1)
STATES = ("starting", "running", "waiting", "idle", "consent", "error", "stopped")


def text_fingerprint(text: str) -> int:
    """A signed 64-bit fingerprint of the text a vector is computed from (the vector tables keep it)."""
    return int.from_bytes(hashlib.blake2b(text.encode("utf-8"), digest_size=8).digest(), "little", signed=True)


def _refuses_texts(exc: EmbeddingsError) -> bool:
    """Did the server refuse the request's texts (too many, too long, a filter: an HTTP 4xx), rather
    than the settings (a wrong key or model, a quota) or answer not at all, late or busy (the same
    texts otherwise sent may be taken then; not there)?"""
    status = exc.status
    return (not exc.retryable and status is not None and 400 <= status < 500
            and status not in (401, 402, 403, 404, 429))


def _text(item: Any) -> str:
    return _plain(getattr(item, "description", ""))


def _plain(description: Any) -> str:
    return str(description or "").strip()


class VectorSync:
    """See the module docstring. ``table`` / ``client`` (tests, benchmarks) replace the store's
    vector table and the HTTP client (or built-in model). ``start_delay``: seconds the worker waits
    before its first step (``stop`` ends the wait). An empty store opens neither the table nor the
    model: the table's module (numpy, ~12 MB) and the model are loaded by the worker when the first
    memory comes."""

    def __init__(self, mm: BaseMemoryManager, config: EmbeddingsConfig, *, table: VectorTable | None = None,
                 client: EmbeddingsClient | Any | None = None, start_delay: float = 0.0) -> None:
        self._mm = mm
        self.config = config
        self._start_delay = start_delay
        self._consented = threading.Event()  # the person agreed to embed every memory with this model
        self._table = table
        self._client = client  # made by the worker when not given (its TLS setup reads files)
        self._own_client = client is None
        self._feed: EventFeed[VectorStatus] = EventFeed()
        self._status = self._base = VectorStatus("starting", model=config.model)  # _base: without the query's trouble
        self._status_lock = threading.Lock()
        self._identified = False  # the model's key and size are known (the probe answered)
        self._kept = 0  # until then: the vectors the store keeps of a model of this name (the count)
        self._model_key: str | None = None
        self._dims: int | None = None
        self._wake = threading.Condition()
        self._stop = threading.Event()
        self._retry_now = threading.Event()
        self._pending: dict[str, bool] = {}
        self._reload = True  # the first pass diffs everything
        self._current: dict[str, int] = {}  # the store: id -> fingerprint of its text
        self._stored: dict[str, int] = {}  # the vectors: id -> fingerprint they were computed from
        self._queue: list[str] = []
        self._queued: set[str] = set()
        self._batch = max(1, config.batch)  # memories a request: halved while the server refuses batches
        self._batch_before: int | None = None  # the size before a refusal that may be one memory's, not the size's
        self._clipped: dict[str, tuple[int, int]] = {}  # id -> (fingerprint, characters sent) of a memory refused whole
        self._skipped: dict[str, int] = {}  # id -> fingerprint of a memory refused even clipped
        self._probe: Any = None  # the model's probe vector, as its record has it
        self._since_check = 0  # batches stored since the model answered its probe alike
        self._unchecked: list[str] = []  # ids whose vectors were stored since then
        self._set_aside_count = 0  # damaged sidecar files moved aside (a file that keeps breaking: backs off)
        self._idle = threading.Event()
        self._last_request = 0.0
        self._query_failures = 0
        self._context_refusals = 0  # queries whose request with the conversation's lines was refused
        self._query_alone = False  # ... for more texts than the server takes a request: the message alone
        self._query_paused_until = 0.0  # after a failed query vector: words only for a while
        self._query_error = ""  # why, while it lasts
        self._dropped_others = False
        self._thread: threading.Thread | None = None
        self._unsubscribe: Callable[[], None] | None = None

    # ── lifecycle ──────────────────────────────────────────────────────

    def start(self) -> "VectorSync":
        if self._thread is None:
            self._unsubscribe = self._mm.subscribe(self._on_change)
            self._thread = start_thread(self._run, name="vector-sync", daemon=True)
        return self

    def stop(self, timeout: float = 5.0) -> None:
        """Stop the worker (the batch in flight is dropped) and release its connections; waits up to
        ``timeout`` seconds for it (0: not at all, it closes them itself as it ends)."""
        if self._unsubscribe is not None:
            self._unsubscribe()
            self._unsubscribe = None
        self._stop.set()
        with self._wake:
            self._wake.notify_all()
        if self._thread is None:
            self._release()
        elif timeout:
            self._thread.join(timeout)
        self._publish(replace(self._base, state="stopped", retry_in=None))

    def _release(self) -> None:
        if self._own_client and self._client is not None:
            self._client.close()
        if self._table is not None:
            self._table.close()

    def consent(self, asked: int | None = None) -> None:
        """The person agreed: embed the memories with this model (see the module docstring). Only
        while the question is open, and only to it (``asked``: the ``VectorStatus.asked`` answered;
        None: the open one): a click on a question for another model, or one made before this sync
        asked, would otherwise let it skip its question and send every memory to a service the
        person never agreed to."""
        with self._status_lock:
            base = self._base
            if base.state != "consent" or (asked is not None and asked != base.asked):
                log.info("vectors: an answer to another question agrees to nothing for %s", self.config.model)
                return
            self._idle.clear()  # work to do again: ``wait_idle`` waits for it
            self._consented.set()
        with self._wake:
            self._wake.notify_all()

    def retry(self) -> None:
        """After an error: try again now."""
        self._retry_now.set()
        with self._wake:
            self._wake.notify_all()

    def wait_idle(self, timeout: float | None = None) -> bool:
        """Block until every memory has a current vector (or an error stops the worker)."""
        return self._idle.wait(timeout)

    # ── status ─────────────────────────────────────────────────────────

    @property
    def status(self) -> VectorStatus:
        return self._status

    @property
    def model_key(self) -> str | None:
        """The key of the model's vectors in the store (None until the model answered its probe)."""
        return self._model_key

    def subscribe(self, callback: Callable[[VectorStatus], None]) -> Callable[[], None]:
        """``callback(status)`` on the worker thread after each batch and each change of state (and
        on a recall's thread when the query's vector fails or works again)."""
        return self._feed.subscribe(callback)

    def _publish(self, status: VectorStatus) -> None:
        """The worker's own status (what the query's trouble is shown over). After :meth:`stop` only
        "stopped" is said: a request that ends after it (an error, a batch) would otherwise leave its
        count in the window for good, for a model no longer used."""
        with self._status_lock:
            if self._stop.is_set() and status.state != "stopped":
                return
            self._base = status
            shown = self._status = self._overlay(status)
        self._feed.publish(shown)

    def _overlay(self, status: VectorStatus) -> VectorStatus:
        """``status`` with the query's trouble: idle becomes waiting, with why and for how long."""
        if not self._query_error or status.error or status.state not in ("idle", "running"):
            return status
        if status.state == "running":
            return replace(status, error=self._query_error, query_failed=True)
        left = max(0.0, self._query_paused_until - time.monotonic())
        return replace(status, state="waiting", error=self._query_error, retry_in=left, query_failed=True)

    def _query_trouble(self, reason: str) -> None:
        """Show the query's trouble over the worker's status ("" : it is over)."""
        with self._status_lock:
            if reason == self._query_error or self._stop.is_set():
                return
            self._query_error = reason
            shown = self._status = self._overlay(self._base)
        self._feed.publish(shown)

    def _counts(self, state: str, error: str = "", retry_in: float | None = None) -> VectorStatus:
        done = skipped = 0
        for mid, fp in self._current.items():
            if self._stored.get(mid) == fp:
                done += 1
            elif self._skipped.get(mid) == fp:
                skipped += 1
        if not self._identified and self._kept:  # the model not asked yet (away at a start): what it has kept
            done = max(done, min(self._kept, len(self._current)))
        return VectorStatus(state, done, len(self._current), error, retry_in, self.config.model, skipped=skipped)

    # ── the store's changes ────────────────────────────────────────────

    def _on_change(self, change: MemoryChange) -> None:
        if not kinds.changes(change.kind):  # a use counted: the text is as it was
            return
        with self._wake:
            if kinds.kind(change.kind).whole or len(self._pending) > INLINE_CHANGES_MAX:
                self._reload = True
            for mid in change.ids:
                self._pending[mid] = True
            self._idle.clear()
            self._wake.notify_all()

    def _take_changes(self) -> tuple[bool, list[str]]:
        with self._wake:
            reload, pending = self._reload, list(self._pending)
            self._reload, self._pending = False, {}
        return reload, pending

    def _read_store(self) -> dict[str, tuple[Any, Any]]:
        """id -> (description, latest_update_time) of every memory: those two columns only, not the
        items with their history (a 100,000-memory store: ~1 s less, and no transient items that
        leave the heap fragmented under what this keeps)."""
        texts = self._mm.fields_of_all(("description", "latest_update_time"))
        self._current = {mid: text_fingerprint(_plain(description)) for mid, (description, _) in texts.items()}
        return texts

    def _apply_changes(self, table: VectorTable) -> None:
        reload, pending = self._take_changes()
        if reload:
            items = self._read_store()
            self._stored = table.fingerprints()
            gone = [mid for mid in self._stored if mid not in self._current]
            table.drop(gone)
            for mid in gone:
                self._stored.pop(mid, None)
            order = sorted(items, key=lambda mid: str(items[mid][1] or ""), reverse=True)
            self._queue = [mid for mid in order if self._stored.get(mid) != self._current[mid]]
            self._queued = set(self._queue)
            return
        dropped = []
        for mid in pending:
            try:
                item = self._mm.get(mid)
            except MemoryNotFound:
                self._current.pop(mid, None)
                if self._stored.pop(mid, None) is not None:
                    dropped.append(mid)
                continue
            fp = text_fingerprint(_text(item))
            self._current[mid] = fp
            if self._stored.get(mid) != fp and mid not in self._queued:
                self._queue.insert(0, mid)  # what just changed comes first
                self._queued.add(mid)
        table.drop(dropped)

    # ── the worker ─────────────────────────────────────────────────────

    def _run(self) -> None:
        try:
            if self._start_delay > 0:
                self._sleep(self._start_delay)
            if self._client is None and not self._stop.is_set():
                self._client = open_client(self.config)
            self._loop()
        finally:
            self._release()

    def _identify(self, table: VectorTable) -> None:
        """Which of the store's models this is (see the module docstring); its vectors from now on."""
        from .vectors import find_model, same_model  # (loaded with the table: see _loop)

        if not self._current:
            self._read_store()  # the count is right while the model is asked
        self._kept = self._kept_rows(table)
        self._pace()
        probe = self._client.probe()
        records = table.models()
        if any(r.name == self.config.model for r in records) and find_model(records, self.config.model, probe) is None:
            self._pace()
            again = self._client.probe()  # one answer does not make another model: ask again
            if find_model(records, self.config.model, again) is not None:
                probe = again
            elif not same_model(again, probe):
                raise EmbeddingsError("the model answers the same text differently each time; its vectors are kept "
                                      "until it answers alike", retryable=True)
        if find_model(records, self.config.model, probe) is None and not self._consented.is_set():
            others = {k: n for k, n in table.rows_by_model().items() if n and k != self.config.key}
            if others:
                self._ask_consent(records, others)
                if self._stop.is_set():
                    return
        self._consented.clear()  # a later change of model asks again
        key = table.register(self.config.model, probe, legacy=self.config.key)
        if key != self._model_key:
            if self._model_key is not None:
                log.warning("vectors: the embeddings model answers as another model now (%d dimensions): its "
                            "vectors are computed; the earlier ones are kept until they are", table.dims or 0)
            self._stored, self._dropped_others = {}, False
            self._clipped, self._skipped = {}, {}  # another model may take them whole
            with self._wake:
                self._reload = True
        self._model_key, self._dims, self._identified, self._kept = key, table.dims, True, 0
        self._probe, self._since_check, self._unchecked = probe, 0, []
        self._learned_batch(table)

    def _kept_rows(self, table: VectorTable) -> int:
        """The vectors the store keeps of a model of this name (0: none, or several models of the name):
        what the count says while the model cannot be asked which it is (a server away at a start),
        rather than "0/N" for vectors all made."""
        keys = {r.key for r in table.models() if r.name == self.config.model}
        if len(keys) != 1:
            return 0
        return table.rows_by_model().get(keys.pop(), 0)

    def _learned_batch(self, table: VectorTable) -> None:
        """The batch size this endpoint's server was found to take at an earlier start (see the module
        docstring); a smaller one learned in this run stays."""
        learned = table.learned_batch(self.config.endpoint_key)  # (a table that fails: as any of its reads)
        if learned is not None and learned < self._batch:
            log.info("vectors: batches of %d (the server refused more before)", learned)
            self._batch = max(1, learned)

    def _nothing_to_embed(self) -> bool:
        """An empty store and no change waiting: nothing asks for the model yet (the built-in one holds
        ~22 MB once loaded, and asking which model it is loads it)."""
        if self._current or self._peek_changes()[1]:
            return False
        self._read_store()  # (an empty store reads in no time)
        if self._current:
            return False
        with self._wake:
            self._reload = False  # just read: empty
        return True

    def _ask_consent(self, records: list, others: dict[str, int]) -> None:
        """Say that the store's vectors are another model's and wait for :meth:`consent` (or a stop)."""
        items = self._read_store()
        tokens = sum(estimate_tokens(_plain(description)) for description, _ in items.values())
        previous = ", ".join(dict.fromkeys(r.name for r in records if r.key in others))
        log.info("vectors: the store's vectors are of another model (%s); %s waits for consent to embed %d "
                 "memories", previous or "an earlier version's", self.config.model, len(items))
        self._publish(VectorStatus("consent", 0, len(items), model=self.config.model, previous=previous,
                                   tokens=tokens, asked=next(_QUESTIONS)))
        self._idle.set()  # nothing to do until the person agrees
        while not self._stop.is_set() and not self._consented.is_set():
            with self._wake:
                self._wake.wait(5.0)
        self._idle.clear()

    def _loop(self) -> None:
        failures = 0  # tries in a row that failed
        table = self._table
        while not self._stop.is_set():
            batch: list[tuple[str, str, int]] = []
            texts: list[str] = []
            try:
                if not self._identified and self._nothing_to_embed():  # the model and the table wait
                    self._finish(table)  # for the first memory (the built-in model ~22 MB, numpy ~12 MB)
                    continue
                if table is None:
                    from .vectors import open_vectors  # numpy: in this thread, at the first memory

                    table = self._table = open_vectors(self._mm, "")
                    if self._stop.is_set():
                        break
                if not self._identified:
                    self._identify(table)
                    if self._stop.is_set():
                        break
                self._apply_changes(table)
                check = self._check_due()  # the probe goes with this batch, in a place of its own
                batch = self._next_batch(self._batch - 1 if check and self._batch > 1 else self._batch)
                if not batch:
                    self._finish(table)
                    continue
                self._publish(self._counts("running"))
                checked = check
                if check and len(batch) >= self._batch:  # batches of one: the probe alone first
                    self._pace()
                    if not self._answers_alike(table, self._probe_now(), batch):
                        continue
                    check = False
                self._pace()
                texts = [t for _, t, _ in batch] + ([PROBE_TEXT] if check else [])
                vectors = self._client.embed(texts, dims=self._dims)
                if self._stop.is_set():
                    break
                if check:
                    vectors, probe = vectors[:-1], vectors[-1]
                    if not self._answers_alike(table, probe, batch):
                        continue
                self._store(table, batch, vectors, checked)
                failures = 0
            except EmbeddingsError as exc:
                self._since_check = RECHECK_EVERY  # a server that failed may come back as another model
                if batch and self._refused(exc, batch, len(texts)):
                    continue
                self._requeue(batch)
                if exc.size is not None:  # vectors of another size: a bad answer, or another model now?
                    log.warning("vectors: %s", exc)
                    self._identified = False
                if not exc.retryable:  # (the built-in model that does not run here says why in words too)
                    self._halt(str(exc), (exc.zh, exc.en) if hasattr(exc, "zh") else None)
                    continue
                wait = exc.retry_after if exc.retry_after is not None else BACKOFF.delay(failures)
                if not failures:  # (the window says it in words; the sentence is here)
                    log.warning("vectors: %s; trying again in %.0f s", exc, wait)
                failures += 1
                self._publish(self._counts("waiting", str(exc), wait))
                self._sleep(wait)
            except Exception as exc:  # the store or the table is away (a server offline): wait and retry
                self._since_check = RECHECK_EVERY
                if self._set_aside_damaged(exc, table):
                    table = None
                    continue
                log.warning("vectors: %s", exc, exc_info=log.isEnabledFor(logging.DEBUG))
                backoff = BACKOFF.delay(failures)
                failures += 1
                self._publish(self._counts("waiting", f"{type(exc).__name__}: {exc}"[:200], backoff)
                              if self._current else VectorStatus("waiting", error=str(exc)[:200], retry_in=backoff,
                                                                 model=self.config.model))
                with self._wake:
                    self._reload = True
                self._sleep(backoff)

    def _probe_now(self) -> Any:
        """The model's vector of the probe text, alone (of another size: an error, as for a batch)."""
        return self._client.embed([PROBE_TEXT], dims=self._dims)[0]

    def _check_due(self) -> bool:
        return not self.config.builtin and self._probe is not None and self._since_check >= RECHECK_EVERY

    def _answers_alike(self, table: VectorTable, probe: Any, batch: list[tuple[str, str, int]]) -> bool:
        """Is the model that answered ``probe`` (with ``batch``, or alone) still the one whose vectors
        these are? If not: nothing of ``batch`` stored, the vectors stored since the last check
        dropped, and the model identified again (see the module docstring)."""
        from .vectors import same_model

        if same_model(probe, self._probe):
            self._since_check, self._unchecked = 0, []
            return True
        log.warning("vectors: the embeddings model answers its probe unlike %s's record: another model behind the "
                    "same endpoint? Nothing is stored until it is identified again (%d vectors since the last check "
                    "dropped)", self.config.model, len(self._unchecked))
        self._requeue(batch)
        dropped = [mid for mid in self._unchecked if mid in self._stored]
        table.drop(dropped)
        for mid in dropped:
            self._stored.pop(mid, None)
        self._unchecked, self._identified = [], False
        with self._wake:
            self._reload = True
        return False

    def _set_aside_damaged(self, exc: Exception, table: VectorTable | None) -> bool:
        """A sidecar file that is not a database or is damaged: moved aside (kept) and made again, its
        vectors computed again; recall uses words meanwhile. False: not that (or it keeps happening)."""
        from .vectors import damaged, set_aside, sidecar_path

        path = sidecar_path(self._mm)
        if not damaged(exc) or path is None or not path.exists() or self._set_aside_count >= SET_ASIDE_MAX:
            return False
        self._table = None  # recall: words only until the new file has vectors
        if table is not None:
            try:
                table.close()
            except Exception:  # a damaged file may refuse even that
                log.debug("vectors: closing the damaged file failed", exc_info=True)
        try:
            aside = set_aside(path)
        except OSError as move:
            log.warning("vectors: the vectors file %s is damaged (%s) and cannot be moved aside: %s", path, exc, move)
            return False
        self._set_aside_count += 1
        log.warning("vectors: the vectors file was damaged (%s); moved to %s and made again: every memory's vector "
                    "is computed again", exc, aside.name)
        self._identified, self._stored = False, {}
        with self._wake:
            self._reload = True
        return True

    def _refused(self, exc: EmbeddingsError, batch: list[tuple[str, str, int]], sent: int) -> bool:
        """A refusal of these texts rather than of the settings (see the module docstring): the batch
        (``sent`` texts in the request: with the probe, if it went with them) again in halves, or the
        one memory clipped or skipped. False: not such a refusal (or the batch was not sent)."""
        status = exc.status
        if not sent or not _refuses_texts(exc):
            return False
        names_batch = bool(BATCH_LIMIT.search(str(exc)))
        if sent > 1 and (names_batch or len(batch) > 1 and status in (400, 413, 422)):
            if not names_batch and self._batch_before is None:
                self._batch_before = self._batch  # maybe one memory's fault: the size comes back then
            self._batch = max(1, sent // 2)
            log.warning("vectors: the server refused %d texts at once (%s); batches of %d from now on",
                        sent, exc, self._batch)
            if names_batch:  # the server's limit, not one memory's fault: the next starts begin there
                self._keep_batch()
            self._requeue(batch)
            return True
        if len(batch) != 1 or not (names_batch or status in (400, 413, 422)):
            return False
        mid, text, fp = batch[0]
        if self._batch_before is not None:  # it was this memory, not the size
            self._batch, self._batch_before = self._batch_before, None
        sent = len(text)
        if sent // 2 >= CLIP_MIN:
            self._clipped[mid] = (fp, sent // 2)
            log.warning("vectors: the server refused memory %s (%d characters: %s); embedding its first %d",
                        mid, sent, exc, sent // 2)
            self._requeue(batch)
        else:
            self._clipped.pop(mid, None)
            self._skipped[mid] = fp
            log.warning("vectors: the server refused memory %s even clipped to %d characters (%s); it has no "
                        "vector until its text changes", mid, sent, exc)
            self._publish(self._counts("running"))
        return True

    def _keep_batch(self) -> None:
        table = self._table
        if table is None:
            return
        try:
            table.learn_batch(self.config.endpoint_key, self._batch)
        except Exception as exc:  # not kept: the next start is refused again, nothing worse
            log.warning("vectors: the batch size the server takes cannot be kept (%s)", exc,
                        exc_info=log.isEnabledFor(logging.DEBUG))

    def _requeue(self, batch: list[tuple[str, str, int]]) -> None:
        ids = [mid for mid, _, _ in batch if mid not in self._queued]
        self._queue[:0] = ids
        self._queued.update(ids)

    def _next_batch(self, size: int) -> list[tuple[str, str, int]]:
        """Up to ``size`` (id, text, fingerprint) from the queue, skipping what is current already."""
        batch: list[tuple[str, str, int]] = []
        while self._queue and len(batch) < size:
            mid = self._queue.pop(0)
            self._queued.discard(mid)
            fp = self._current.get(mid)
            if fp is None or self._stored.get(mid) == fp or self._skipped.get(mid) == fp:
                continue
            try:
                text = _text(self._mm.get(mid))
            except MemoryNotFound:
                continue
            if text_fingerprint(text) != fp:  # changed since: the change feed queues it again
                continue
            clipped = self._clipped.get(mid)
            if clipped is not None and clipped[0] == fp:  # refused whole: clipped, and alone
                if batch:
                    self._requeue([(mid, text, fp)])
                    break
                return [(mid, text[:clipped[1]], fp)]
            batch.append((mid, text, fp))
        return batch

    def _store(self, table: VectorTable, batch: list[tuple[str, str, int]], vectors: Any,
               checked: bool = False) -> None:
        """``checked``: the model answered its probe alike with this batch (or just before it)."""
        _, pending = self._peek_changes()
        keep = [i for i, (mid, _, _) in enumerate(batch) if mid not in pending]  # changed meanwhile: later
        ids = [batch[i][0] for i in keep]
        fps = [batch[i][2] for i in keep]
        table.put(ids, fps, vectors[keep])
        for mid, fp in zip(ids, fps, strict=True):
            self._stored[mid] = fp
            self._clipped.pop(mid, None)
            self._skipped.pop(mid, None)
        if not checked:
            self._since_check += 1
            self._unchecked.extend(ids)
        self._publish(self._counts("running"))

    def _peek_changes(self) -> tuple[bool, set[str]]:
        with self._wake:
            return self._reload, set(self._pending)

    def _finish(self, table: VectorTable | None) -> None:
        """All current: say so, forget other models' vectors once, and wait for changes (``table``:
        None while the store is empty and the table unopened)."""
        if table is not None and self._unchecked and not self.config.builtin and self._probe is not None:
            self._pace()  # the vectors since the last check: still the model's? (one short request)
            if not self._answers_alike(table, self._probe_now(), []):
                return
        status = self._counts("idle")
        if table is not None and self._current and status.complete and not self._dropped_others:
            dropped = table.drop_other_models()  # before "idle" is said: whoever sees it sees one model's vectors
            self._dropped_others = True
            if dropped:
                log.info("vectors: %d vectors of an earlier embeddings model deleted", dropped)
        if status != self._base:
            self._publish(status)
        self._idle.set()
        with self._wake:
            while not self._stop.is_set() and not self._pending and not self._reload:
                self._wake.wait(5.0)
                if self._query_error and time.monotonic() >= self._query_paused_until:
                    self._query_trouble("")  # recall tries the vectors again: no more words only
        self._since_check = RECHECK_EVERY  # after a wait the server may serve another model: check first

    def _halt(self, reason: str, words: tuple[str, str] | None = None) -> None:
        log.warning("vectors stopped: %s", reason)
        self._publish(replace(self._counts("error", reason), words=words))
        self._idle.set()
        self._retry_now.clear()
        while not self._stop.is_set() and not self._retry_now.is_set():
            with self._wake:
                self._wake.wait(5.0)
        self._idle.clear()
        with self._wake:
            self._reload = True

    def _pace(self) -> None:
        """At most ``rpm`` requests a minute."""
        if self.config.rpm > 0:
            gap = 60.0 / self.config.rpm - (time.monotonic() - self._last_request)
            if gap > 0:
                self._sleep(gap)
        self._last_request = time.monotonic()

    def _sleep(self, seconds: float) -> None:
        with self._wake:
            self._wake.wait_for(lambda: self._stop.is_set() or self._retry_now.is_set(), timeout=seconds)
        self._retry_now.clear()

    # ── ranking ────────────────────────────────────────────────────────

    def embed_query(self, prompt: str) -> Any | None:
        """The query's vector (one request, ``QUERY_TIMEOUT`` in all); None when it cannot rank now
        (see the module docstring). A recall asks once and searches with :meth:`nearest`."""
        vectors = self.embed_queries([prompt])
        return None if vectors is None else vectors[0]

    def embed_queries(self, texts: list[str]) -> list[Any] | None:
        """Several queries' vectors in one request (a message and the conversation's lines before it),
        as :meth:`embed_query`; None when it cannot rank now or the first text is empty. A request the
        server refuses (too many texts, too long: not a server away, busy or late, where a second request
        only doubles the wait) is followed by one of the first text alone, in what is left of the
        deadline: then the others' vectors are None (see :meth:`_embed_asked`)."""
        client, dims = self._client, self._dims
        if (self._table is None or client is None or dims is None or not self._stored or not texts
                or not texts[0].strip() or self._stop.is_set() or self._base.state in ("error", "consent")
                or time.monotonic() < self._query_paused_until):
            return None
        asked = [t if t.strip() else texts[0] for t in texts]
        try:
            query = self._embed_asked(client, asked, dims)
        except EmbeddingsError as exc:
            self._query_failures += 1
            self._query_paused_until = time.monotonic() + QUERY_PAUSE
            if self._query_failures in (1, 10, 100):
                log.warning("the query's vector failed (%s); words only for %.0f s", exc, QUERY_PAUSE)
            self._query_trouble(str(exc))  # (the status says what it means: ``query_failed``)
            return None
        self._query_trouble("")
        return query

    def _embed_asked(self, client: Any, asked: list[str], dims: int) -> list[Any]:
        """``asked`` in one request; refused (see :meth:`embed_queries`), the first text alone in what is
        left of ``QUERY_TIMEOUT``, the others' vectors None. A refusal that names the server's batch
        limit is kept: the next queries ask their first text alone at once."""
        deadline = time.monotonic() + QUERY_TIMEOUT
        if len(asked) > 1 and not self._query_alone:
            try:
                return list(client.embed(asked, query=True, timeout=QUERY_TIMEOUT, dims=dims))
            except EmbeddingsError as exc:
                if not _refuses_texts(exc):
                    raise
                self._query_alone = bool(BATCH_LIMIT.search(str(exc)))
                self._context_refusals += 1
                if self._context_refusals in (1, 10, 100):
                    log.info("the query's request with the conversation's lines was refused (%s); the message is "
                             "asked alone%s", exc, " from now on" if self._query_alone else "")
        # (at least ALONE_FLOOR: a refusal that came late must not leave the message a request that
        # cannot succeed, and the query paused for a minute on that)
        vectors = client.embed(asked[:1], query=True, timeout=max(deadline - time.monotonic(), ALONE_FLOOR), dims=dims)
        return [vectors[0]] + [None] * (len(asked) - 1)

    def nearest(self, vector: Any, k: int) -> list[str]:
        """Up to ``k`` memory ids, nearest to ``vector`` (from :meth:`embed_query`) first: the saved
        vectors only, no request."""
        table = self._table
        return [] if table is None or vector is None else table.search(vector, k)

    def has_vector(self, mid: str) -> bool:
        """Has memory ``mid`` a vector of its current text (the shortlist counts the model's agreement
        only on memories it has vectors of)? Not while a change of it waits for the worker: its vector
        may be of the text before (an edit the person asks about at once is no disagreement of the model)."""
        fp = self._stored.get(mid)
        return fp is not None and fp == self._current.get(mid) and mid not in self._pending

    def rank(self, prompt: str, k: int) -> list[str] | None:
        """The ``k`` memories nearest to ``prompt`` (one request); None when it cannot rank now."""
        vector = self.embed_query(prompt)
        return None if vector is None else self.nearest(vector, k) or None
