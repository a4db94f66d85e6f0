"""MemoryHygiene: the memory cleans itself up, in the background, at most once a day.

When the writer has been idle for ``idle_seconds`` (no turn queued or being written, no writer
activity) and the last pass is at least ``interval`` ago, one pass runs (``hygiene_pass``): exact
duplicates merged, past-due to-dos turned into dated moments or removed, near-duplicates merged,
contradictions flagged for the user. The pass runs on its own thread (store I/O and the model's
HTTP call never touch the event loop) and is one undoable unit: every change carries the pass's
turn id (``tidy-…``) and actor ``agent``.

Visible: while a pass runs the writer's status says so ("正在整理记忆…", ``MemoryWriter.status()``
and its ``status`` event); when it changed something
a ``tidied`` :class:`~.events.WriterEvent` carries its turn id and summary ("整理了 3 条记忆：…") for
a toast with "查看 · 撤销"; :meth:`status` and :meth:`conflicts` give the rest. Pausable
(:meth:`pause` survives restarts). The schedule and the open contradictions are kept in a small
JSON file beside the store; losing it costs at most one extra pass.
"""

from __future__ import annotations

import asyncio
import json
import logging
import time
from dataclasses import asdict, dataclass, field
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any, Callable

from ..errors import api_key_of, redact
from ..files import atomic_write
from .events import WriterEvent
from .hygiene_report import Conflict, HygieneReport
from .listing import RetrieverProvider
from .names import resolve_name
from ...aio import run_detached, spawn

log = logging.getLogger(__name__)

DEFAULT_INTERVAL = timedelta(days=1)
DEFAULT_IDLE_SECONDS = 120.0
RETRY_AFTER_FAILURE = timedelta(hours=1)
MAX_CONFLICTS = 50
STATE_FILE = "memory_hygiene.json"
RUNNING_ZH, RUNNING_EN = "正在整理记忆…", "Tidying memories…"


@dataclass
class _State:
    last_run: str = ""
    paused: bool = False
    last_summary: str = ""
    last_summary_en: str = ""
    last_turn_id: str = ""
    last_error: str = ""
    retry_at: str = ""
    conflicts: list[dict[str, Any]] = field(default_factory=list)

    @classmethod
    def load(cls, path: Path) -> "_State":
        try:
            raw = json.loads(path.read_text(encoding="utf-8"))
        except FileNotFoundError:
            return cls()
        except (OSError, ValueError) as exc:
            log.warning("memory hygiene state %s unreadable (%s): starting afresh", path, exc)
            return cls()
        if not isinstance(raw, dict):
            return cls()
        known = {k: raw[k] for k in cls.__dataclass_fields__ if k in raw}
        state = cls(**{k: v for k, v in known.items() if isinstance(v, type(getattr(cls(), k)))})
        state.conflicts = [c for c in state.conflicts if isinstance(c, dict)][:MAX_CONFLICTS]
        return state

    def save(self, path: Path) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        atomic_write(path, json.dumps(asdict(self), ensure_ascii=False, indent=1).encode("utf-8"))


@dataclass(frozen=True)
class HygieneStatus:
    """A snapshot for the status area: ``zh``/``en`` is the one sentence to show."""

    running: bool
    paused: bool
    last_run: str
    next_run: str
    last_summary: str
    last_turn_id: str
    conflicts: int
    last_error: str
    zh: str
    en: str


class MemoryHygiene:
    """See the module docstring. ``writer``: the :class:`~.pipeline.MemoryWriter` (its memory
    operations, model, queue state and event feed are used). ``state_path``: the JSON file of the
    schedule. ``retriever``: provider of the offline retriever (near-duplicates; without it only
    exact duplicates and past-due to-dos are handled). ``user_name()``: the settings' name."""

    def __init__(self, writer: Any, state_path: str | Path, *, retriever: RetrieverProvider | None = None,
                 user_name: Callable[[], str] | None = None, now: Callable[[], datetime] | None = None,
                 interval: timedelta = DEFAULT_INTERVAL, idle_seconds: float = DEFAULT_IDLE_SECONDS,
                 poll_seconds: float = 30.0) -> None:
        self._writer = writer
        self.state_path = Path(state_path)
        self._state = _State.load(self.state_path)
        self._retriever = retriever
        self._user_name = user_name or (lambda: "")
        self._now = now or datetime.now
        self.interval = interval
        self.idle_seconds = idle_seconds
        self.poll_seconds = poll_seconds
        self._running = False
        self._task: asyncio.Task[None] | None = None
        self._wake: asyncio.Event | None = None
        self._last_activity = time.monotonic()
        self._unsubscribe = writer.events.subscribe(self._on_writer_event)

    # ── state ─────────────────────────────────────────────────────────

    def _on_writer_event(self, event: WriterEvent) -> None:
        if event.kind not in ("status", "tidied"):
            self._last_activity = time.monotonic()

    @property
    def paused(self) -> bool:
        return self._state.paused

    @property
    def running(self) -> bool:
        return self._running

    def _save(self) -> None:
        try:
            self._state.save(self.state_path)
        except OSError as exc:
            log.warning("could not save the memory hygiene state %s: %s", self.state_path, exc)

    def pause(self) -> None:
        """No pass starts until :meth:`resume` (a running one finishes). Kept across restarts."""
        self._state.paused = True
        self._save()
        self._publish_status()

    def resume(self) -> None:
        self._state.paused = False
        self._save()
        if self._wake is not None:
            self._wake.set()
        self._publish_status()

    def conflicts(self) -> list[Conflict]:
        """Contradictions flagged by passes and not dismissed yet, oldest first."""
        return [Conflict.from_dict(c) for c in self._state.conflicts]

    def dismiss_conflict(self, ids: tuple[str, str]) -> bool:
        """Forget a flagged contradiction (the user settled it); False if it was not flagged."""
        wanted = sorted(ids)
        kept = [c for c in self._state.conflicts if sorted(c.get("ids") or ()) != wanted]
        changed = len(kept) != len(self._state.conflicts)
        if changed:
            self._state.conflicts = kept
            self._save()
            self._publish("status", self.status().zh)  # views showing the count follow
        return changed

    def next_run(self) -> datetime | None:
        """When the next pass may start (``None``: paused)."""
        if self._state.paused:
            return None
        times = [self._parse(self._state.retry_at)]
        last = self._parse(self._state.last_run)
        times.append(last + self.interval if last else None)
        due = [t for t in times if t is not None]
        return max(due) if due else self._now()

    @staticmethod
    def _parse(value: str) -> datetime | None:
        try:
            return datetime.fromisoformat(value) if value else None
        except ValueError:
            return None

    def is_due(self) -> bool:
        moment = self.next_run()
        return moment is not None and moment <= self._now()

    def is_idle(self) -> bool:
        """The writer has nothing queued or running and has been quiet for ``idle_seconds``."""
        w = self._writer
        return (not w.pending and not w.busy and not w.paused
                and time.monotonic() - self._last_activity >= self.idle_seconds)

    def status(self) -> HygieneStatus:
        s = self._state
        nxt = self.next_run()
        n = len(s.conflicts)
        if self._running:
            zh, en = RUNNING_ZH, RUNNING_EN
        elif s.paused:
            zh, en = "记忆整理已暂停", "Memory tidying is paused"
        elif s.last_summary:
            zh, en = f"上次整理（{s.last_run[:10]}）：{s.last_summary}", f"Last tidy ({s.last_run[:10]}): {s.last_summary_en}"
        else:
            zh, en = "空闲时每天自动整理一次记忆", "Memories are tidied once a day when idle"
        if n and not self._running:
            zh, en = f"{zh}；{n} 处矛盾待确认", f"{en}; {n} contradiction(s) to check"
        return HygieneStatus(self._running, s.paused, s.last_run, nxt.isoformat(timespec="minutes") if nxt else "",
                             s.last_summary, s.last_turn_id, n, s.last_error, zh, en)

    def _publish(self, kind: str, detail: str, turn_id: str | None = None) -> None:
        self._writer.events.publish(WriterEvent(kind, turn_id, None, detail))

    def _publish_status(self) -> None:
        """The writer's status says when a pass runs (``MemoryWriter.set_activity``)."""
        set_activity = getattr(self._writer, "set_activity", None)
        if set_activity is not None:
            set_activity((RUNNING_ZH, RUNNING_EN) if self._running else None)
        else:
            self._publish("status", RUNNING_ZH if self._running else self._writer.status().zh)

    # ── one pass ──────────────────────────────────────────────────────

    def _pass(self) -> HygieneReport:
        index = self._writer.index  # the writer's, shared with its turns
        source = self._retriever() if self._retriever is not None else None
        subject = resolve_name(self._user_name(), *index.name_hints())[0]
        from .hygiene_pass import run_pass  # on this worker thread; LangChain only if the model has work

        language = getattr(self._writer, "language", lambda: "zh_CN")()  # (the UI's: reasons are shown in it)
        return run_pass(self._writer.ops, self._writer.llm, index, source, now=self._now(),
                        since=self._state.last_run, subject=subject, language=language)

    async def run_once(self, *, force: bool = False) -> HygieneReport | None:
        """Run one pass now (``force``: even when paused or not due). ``None`` when none ran (one is
        already running, or it is not due) or it failed (``status().last_error`` says why)."""
        if self._running or (not force and not self.is_due()):
            return None
        self._running = True
        self._publish_status()
        started = self._now()
        try:
            report = await run_detached(self._pass)  # a daemon thread: a pass never holds up the exit
        except Exception as exc:
            log.exception("memory hygiene pass failed")
            self._state.last_error = redact(f"{type(exc).__name__}: {exc}", api_key_of(self._writer.llm))[:300]
            self._state.retry_at = (started + RETRY_AFTER_FAILURE).isoformat(timespec="seconds")
            self._save()
            return None
        finally:
            self._running = False
        zh, en = report.summary()
        s = self._state
        s.last_run, s.last_error, s.retry_at = started.isoformat(timespec="seconds"), "", ""
        s.last_summary, s.last_summary_en, s.last_turn_id = zh, en, report.turn_id
        known = {tuple(sorted(c.get("ids") or ())) for c in s.conflicts}
        s.conflicts += [c.to_dict() for c in report.conflicts if tuple(sorted(c.ids)) not in known]
        s.conflicts = s.conflicts[-MAX_CONFLICTS:]
        self._save()
        if report.touched or report.conflicts:
            self._publish("tidied", zh, report.turn_id)
        self._publish_status()
        return report

    # ── in the background ─────────────────────────────────────────────

    def start(self) -> None:
        """Start the background schedule (inside a running event loop)."""
        if self._task is not None and not self._task.done():
            return
        self._wake = asyncio.Event()
        self._task = spawn(self._loop(), name="sonetto-memory-hygiene")

    async def _loop(self) -> None:
        assert self._wake is not None
        while True:
            nxt = self.next_run()
            if nxt is None:
                wait: float | None = None  # paused: until resume()
            elif nxt > self._now():
                wait = min((nxt - self._now()).total_seconds(), 3600.0)
            elif self._writer.llm is None or not self.is_idle():
                wait = self.poll_seconds
            else:
                await self.run_once()
                continue
            self._wake.clear()
            try:
                await asyncio.wait_for(self._wake.wait(), wait)
            except asyncio.TimeoutError:
                pass

    async def stop(self) -> None:
        """Stop the schedule (a pass already running finishes on its thread, its changes committed)."""
        task, self._task = self._task, None
        if task is not None:
            task.cancel()
            try:
                await task
            except asyncio.CancelledError:
                pass

    def close(self) -> None:
        self._unsubscribe()
