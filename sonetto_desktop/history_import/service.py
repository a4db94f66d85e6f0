"""HistoryImports: the imports of one open store, for a front end (the window, the command line).

It wires the parts to what the app's services hold: the store's memory operations, the model of
the settings (over the services' HTTP pool when the agents run), the offline retriever for the
writer's listing, the review inbox, and the app's own writer (an import waits while it has turns).
Every blocking step runs off the event loop (``run_blocking``). No Qt.
"""

from __future__ import annotations

import hashlib
from datetime import date
from pathlib import Path
from typing import Any, Callable

from ..aio import run_blocking
from .dont_import import FILE_NAME as DONT_IMPORT_FILE
from .dont_import import DontImportList
from .ledger import DONE, RUNNING, ImportLedger, ImportState, imports_dir
from .model import History, SavedMemory
from .plan import Plan, Price, make_plan
from ..memory.undo import UndoPreview
from .runner import (ImportResult, ImportRunner, count_by_conversation, preview_undo_conversation, preview_undo_import,
                     redo_import, undo_conversation, undo_import)
from .saved_memories import from_text
from .sources import read_history


class HistoryImports:
    """``services``: an open ``AppServices`` (its store, memory operations, settings, review inbox,
    data dir, recall; its writer and model when the agents run). Front ends use ``services.imports``."""

    def __init__(self, services: Any, publish: Callable[[object], None] | None = None) -> None:
        """``publish``: the services' event feed, which the import's progress is relayed onto."""
        self.services = services
        self._publish = publish
        self._runner: ImportRunner | None = None
        self._made_for: tuple[Any, Any] = (None, None)
        self._http: Any = None  # the HTTP client of a model made here (no agents running)  # the store and settings the runner was made for

    # ── what belongs to the open store ────────────────────────────────

    @property
    def ledger(self) -> ImportLedger:
        return ImportLedger(imports_dir(self.services.store))

    @property
    def dont_import(self) -> DontImportList:
        return DontImportList(self.services.data_dir / DONT_IMPORT_FILE)

    @property
    def configured(self) -> bool:
        return bool(self.services.settings.is_llm_configured)

    @property
    def model_name(self) -> str:
        return self.services.settings.model.strip()

    def price(self) -> Price | None:
        settings = self.services.settings
        if not settings.price_input_per_mtok and not settings.price_output_per_mtok:
            return None
        return Price(settings.price_input_per_mtok, settings.price_output_per_mtok, settings.price_currency or "¥")

    @property
    def built_runner(self) -> ImportRunner | None:
        """The runner if one was made (no model is built by asking)."""
        return self._runner

    @property
    def runner(self) -> ImportRunner:
        """The runner for the open store and the settings' model (a new one, between imports, after the
        store was re-opened or the settings changed)."""
        services = self.services
        made_for = (services.store, services.settings)
        stale = self._runner is not None and self._runner.running is None and not self._runner.starting and (
            made_for[0] is not self._made_for[0] or made_for[1] is not self._made_for[1])
        if self._runner is None or stale:
            from ..agent_lifecycle import make_writer

            settings = services.settings
            writer = services.writer  # the app's own: an import waits while it has turns
            model = self._model(settings)

            def chat_busy() -> bool:
                current = services.writer
                return current is not None and bool(current.pending or current.busy)

            def import_writer(memory: Any, **options: Any) -> Any:  # chat's factory, the settings' model
                chat = services.writer
                if chat is not None and chat.ops.store is memory.store:  # what both know of the store: one copy
                    options.setdefault("index", chat.index)
                return make_writer(memory, model, lambda: services.settings, services.recall, **options)

            self._runner = ImportRunner(
                services.memory, self.ledger, import_writer, review=services.review, chat_busy=chat_busy,
                subscribe_chat=services.subscribe_writer if writer is not None else None)
            if self._publish is not None:  # on the services' one feed
                self._runner.progress.subscribe(self._publish)
            self._made_for = made_for
        return self._runner

    def _model(self, settings: Any) -> Any:
        """The import writer's model, made as chat's (``agent_lifecycle.lazy_model``): over the running
        agents' HTTP pool, else (the command line, which starts no agents) over an HTTP client of its
        own, made at the first batch and closed by :meth:`close`."""
        from ..agent_lifecycle import lazy_model

        shared = self.services.agents_model(settings)
        if shared is not None:
            return shared

        def own_http() -> Any:  # on a worker thread, when the model is built
            import httpx

            if self._http is None:
                self._http = httpx.AsyncClient()
            return self._http

        return lazy_model(settings, own_http)

    async def shutdown(self) -> None:
        """The store closes (the services close or open another): a running import stops after the
        batch being written and stays running, so the next start goes on with it; then ``close``."""
        runner = self._runner
        if runner is not None and runner.running is not None:
            await runner.stop(pause=False)
        await self.close()

    async def close(self) -> None:
        """Close the HTTP client of a model made here (see ``_model``). Safe to call twice."""
        http, self._http = self._http, None
        if http is not None:
            await http.aclose()

    # ── reading and planning ──────────────────────────────────────────

    async def read(self, path: str | Path, fmt: str | None = None,
                   progress: Callable[[str, int, int], None] | None = None) -> History:
        """Parse ``path`` in a worker (``HistoryFormatError``: nothing was done); ``progress(name,
        done, size)`` is called from that worker as each file is read. ChatGPT's saved memories come
        with a theme guessed for each (``saved_import.with_themes``)."""
        return await run_blocking(lambda: self._themed(read_history(Path(path), fmt, progress)))

    async def read_pasted(self, text: str) -> History:
        history = await run_blocking(lambda: self._themed(from_text(text)))
        history.digest = hashlib.sha256(text.encode("utf-8")).hexdigest()
        return history

    def _themed(self, history: History) -> History:
        """Blocking: the saved memories' themes guessed among the house's and the bank's."""
        if history.saved_memories:
            from .saved_import import bank_themes, with_themes

            history.saved_memories = with_themes(history.saved_memories, bank_themes(self.services.memory))
        return history

    async def plan(self, history: History, *, since: date | None = None, until: date | None = None,
                   selected: list[str] | None = None, progress: Callable[[int, int], None] | None = None) -> Plan:
        """The plan for these choices, made in a worker (the ledger and the lists are files);
        ``progress(done, total)`` is called from that worker every few conversations."""
        services = self.services
        ledger, dont_import, price = self.ledger, self.dont_import, self.price()

        def make() -> Plan:
            return make_plan(history, since=since, until=until, selected=selected, imported=ledger.imported_keys(),
                             dont_import=dont_import, memories=services.store.count(), price=price,
                             progress=progress, waiting=ledger.waiting_keys())

        return await run_blocking(make)

    # ── running ───────────────────────────────────────────────────────

    async def start(self, plan: Plan, history: History, *, file_name: str, since: date | None = None,
                    until: date | None = None, selected: list[str] | None = None) -> ImportState:
        return await self.runner.begin(plan, file_name=file_name, digest=history.digest, since=since, until=until,
                                       selected=selected)

    async def resume(self, import_id: str) -> ImportState:
        return await self.runner.resume(import_id)

    async def wait(self) -> ImportResult:
        return await self.runner.wait()

    async def unfinished(self, digest: str | None = None) -> list[ImportState]:
        return await run_blocking(self.ledger.unfinished, digest)

    async def latest(self) -> ImportState | None:
        """The import to offer in the window: the newest unfinished one, else the newest done (not
        undone) one, so it can still be taken back (not one that wrote nothing: every batch failed)."""
        states = await run_blocking(self.ledger.imports)
        unfinished = [s for s in states if s.unfinished]
        done = [s for s in states if s.status == DONE and s.batches_done]
        return (unfinished or done or [None])[-1]

    async def resume_interrupted(self) -> ImportState | None:
        """At start: go on with an import that was running when the app last stopped (one the person
        paused stays paused). Needs a model; returns the import resumed, or None."""
        interrupted = await self.interrupted()
        return None if interrupted is None else await self.resume(interrupted.id)

    async def interrupted(self) -> ImportState | None:
        """The import ``resume_interrupted`` would go on with now (None: none, or one is running)."""
        if not self.configured or (self._runner is not None and self._runner.running is not None):
            return None
        running = [s for s in await self.unfinished() if s.status == RUNNING]
        return running[-1] if running else None

    async def undo(self, import_id: str, *, rest: bool = False) -> Any:
        """Take the whole import back as one action (``UndoConflict`` when memories the person changed
        since stand in the way: it names them and says what the rest is). ``rest``: keep those and
        take back the rest (the result's ``kept`` names them)."""
        memory, ledger = self.services.memory, self.ledger
        return await run_blocking(lambda: undo_import(memory, ledger, import_id, rest=rest))

    async def redo(self, import_id: str, *, rest: bool = False) -> Any:
        """Take back the undo of ``import_id`` (``runner.redo_import``)."""
        memory, ledger = self.services.memory, self.ledger
        return await run_blocking(lambda: redo_import(memory, ledger, import_id, rest=rest))

    async def preview_undo(self, import_id: str, conversation_id: str | None = None) -> UndoPreview:
        """What undoing the import (or one of its conversations) would do now, changing nothing: the
        cards it keeps because they were changed since, and what it does to the rest (for the question
        asked before the undo: the numbers the undo then applies)."""
        memory, ledger = self.services.memory, self.ledger
        if conversation_id is None:
            return await run_blocking(preview_undo_import, memory, ledger, import_id)
        return await run_blocking(preview_undo_conversation, memory, ledger, import_id, conversation_id)

    async def conversations(self, import_id: str) -> list[tuple[str, str, tuple[int, int, int]]]:
        """The import's conversations still in place — (id, title, what each left: created, changed,
        deleted) — for undo per conversation; empty for an import made before they were kept."""
        ledger, memory = self.ledger, self.services.memory

        def read() -> list[tuple[str, str, tuple[int, int, int]]]:
            state = ledger.get(import_id)
            undone = state.undone_conversations if state is not None else {}
            counts = count_by_conversation(memory, ledger, import_id)
            return [(cid, title, counts[cid]) for cid, title, _seqs in ledger.conversations(import_id)
                    if cid not in undone and any(counts.get(cid, ()))]

        return await run_blocking(read)

    async def undo_conversation(self, import_id: str, conversation_id: str, *, rest: bool = False) -> Any:
        """Take back one conversation of the import (``runner.undo_conversation``)."""
        memory, ledger = self.services.memory, self.ledger
        return await run_blocking(lambda: undo_conversation(memory, ledger, import_id, conversation_id, rest=rest))

    async def take_back(self, undo_turn_id: str) -> Any:
        """Undo an undo (of a conversation, an import): as ``sonetto memory undo``, the ledger follows."""
        memory, ledger = self.services.memory, self.ledger

        def run() -> Any:
            result = memory.undo_turn(undo_turn_id, reason=f"撤回撤销 {undo_turn_id}")
            ledger.note_undo(undo_turn_id, result.turn_id)
            return result

        return await run_blocking(run)

    async def note_undo(self, undone: str, undo_turn_id: str) -> ImportState | None:
        """An undo made elsewhere (the command line's ``memory undo``) that concerns an import."""
        return await run_blocking(self.ledger.note_undo, undone, undo_turn_id)

    async def import_saved(self, entries: list[SavedMemory], themes: dict[str, str]) -> Any:
        """ChatGPT's saved memories, written directly (see ``saved_import``)."""
        from .saved_import import import_saved_memories

        memory, ledger = self.services.memory, self.ledger
        return await run_blocking(import_saved_memories, memory, ledger, entries, themes)

    def subscribe_changes(self, callback: Any) -> Any:
        return self.services.subscribe(callback)
