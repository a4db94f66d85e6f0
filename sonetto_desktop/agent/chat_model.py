"""ChatModel: a chat engine's model and the graphs built on it (a part the ``ChatEngine`` owns). No Qt.

The model comes from a factory or the settings and is built lazily: a settings change only marks it
stale (``reload``), and the next turn builds it on a worker thread (``graph_for``), so the LLM stack is
imported off the loop and only when a turn needs it. The graphs (one over the session database's
checkpointer, one over an in-memory saver for temporary chats) are built with the model and dropped
whenever the model, the recall mode or the checkpointer changes.
"""

from __future__ import annotations

import asyncio
import logging
from typing import TYPE_CHECKING, Any, Awaitable, Callable

from ..aio import import_off_loop, run_blocking, spawn
from ..memory.errors import api_key_of
from ..memory.retrieval.modes import RetrievalMode
from ..redaction import register_secret
from .llm import FIRST_REQUEST_MODULES

if TYPE_CHECKING:  # the LLM stack: imported by the first turn, on a worker thread
    from langchain_core.language_models import BaseChatModel

log = logging.getLogger(__name__)

#: What a turn needs of the LLM stack, imported off the event loop when the first turn starts.
TURN_MODULES = ("langchain_core.messages", "langgraph.checkpoint.memory", "sonetto_desktop.agent.graph",
                "sonetto_desktop.agent.stall_guard", "sonetto_desktop.agent.turn_events")
#: What ``prepare()`` imports ahead of the first turn: the above and the OpenAI model the turn builds.
PREPARE_MODULES = (*TURN_MODULES, "langchain_openai")

LLMFactory = Callable[[], "BaseChatModel | None"]


class ChatModel:
    """``ltm``: recall + writer, as the graph sees them. ``settings()``: the current settings (or None);
    ``llm_factory()``: builds the model instead of the settings; ``retrieval_mode``: overrides the
    settings' recall mode; ``graph_options``: passed to ``build_graph``."""

    def __init__(self, ltm: Any, *, settings: Callable[[], Any], llm_factory: LLMFactory | None = None,
                 retrieval_mode: RetrievalMode | str | None = None, graph_options: dict[str, Any] | None = None) -> None:
        self.ltm = ltm
        self._settings = settings
        self._factory = llm_factory
        self._mode_override = RetrievalMode.coerce(retrieval_mode) if retrieval_mode is not None else None
        self.retrieval_mode = self._mode_override or RetrievalMode.MECHANICAL
        self._graph_options = graph_options or {}
        self.llm: BaseChatModel | None = None
        self.secret = ""  # the model's API key: error texts never show it
        self.name = ""  # the model's name: error texts say it
        self._pending = 0  # > 0: the settings changed, the model is built at the next turn
        self._graph: Any = None
        self._temporary_graph: Any = None
        self.temporary_saver: Any = None  # LangGraph's InMemorySaver, made at the first temporary turn
        self._preparing: asyncio.Future[None] | None = None  # prepare(): the turn modules being imported
        self._http: Any = None  # the HTTP client of a model built from the settings: ours, closed by close()

    # ── the model ─────────────────────────────────────────────────────

    @property
    def configured(self) -> bool:
        """A model is configured. Before the first turn after a settings change this is what the
        settings say (the model itself is built at the turn); with a factory and no settings the
        model is built now."""
        if self._pending:
            settings = self._settings()
            if settings is not None and hasattr(settings, "is_llm_configured"):
                return bool(settings.is_llm_configured)
            self.set_llm(self._build())
        return self.llm is not None

    def reload(self, settings: Any) -> None:
        """Take the recall mode from ``settings`` now and build the model at the next turn."""
        mode = getattr(settings, "retrieval_mode", None)
        if self._mode_override is None and mode:
            try:
                self.retrieval_mode = RetrievalMode.coerce(mode)
            except ValueError as exc:  # keep the previous mode
                log.warning("could not apply the recall mode: %s", type(exc).__name__)
        if settings is not None and getattr(settings, "is_llm_configured", False):
            register_secret(str(getattr(settings, "api_key", "") or "").strip())  # before the model exists
        self._pending += 1
        self.drop_graphs()

    def _build(self) -> BaseChatModel | None:
        """The model from the factory / settings (blocking: imports langchain-openai the first time).
        A model that cannot be built is logged and treated as "not configured"."""
        try:
            if self._factory is not None:
                return self._factory()
            settings = self._settings()
            if settings is not None:
                import httpx

                from .llm import build_llm

                if self._http is None:  # else the OpenAI client makes one nobody closes (an open socket at exit)
                    self._http = httpx.AsyncClient()
                return build_llm(settings, streaming=True, http_async_client=self._http)
        except Exception as exc:  # noqa: BLE001 - reported on the next send as "configure a model"
            log.warning("could not build the chat model: %s", type(exc).__name__)
        return None

    def set_llm(self, llm: BaseChatModel | None) -> None:
        """Use ``llm`` from the next turn on (None: not configured). Running turns keep their model."""
        self.llm = llm
        self._pending = 0
        self.secret, self.name = _identity(llm)
        register_secret(self.secret)  # a model from a factory: its key is hidden from the log too
        self.drop_graphs()

    def set_retrieval_mode(self, mode: RetrievalMode | str) -> None:
        self._mode_override = self.retrieval_mode = RetrievalMode.coerce(mode)
        self.drop_graphs()

    @property
    def streaming(self) -> bool:
        return bool(getattr(self.llm, "streaming", False))

    # ── the graphs ────────────────────────────────────────────────────

    def drop_graphs(self) -> None:
        """The graphs are built again (model, mode, checkpointer) at the next turn."""
        self._graph = self._temporary_graph = None

    async def graph_for(self, temporary: bool, checkpointer: Callable[[], Awaitable[Any]]) -> Any:
        """The graph for a turn (of a temporary chat, or of a saved one over ``await checkpointer()``):
        the model, the checkpointer and the graph are built here when missing (blocking parts on a
        worker thread)."""
        while self._pending:
            pending = self._pending
            llm = await run_blocking(self._build)
            if self._pending == pending:  # the settings did not change meanwhile
                self.set_llm(llm)
        from .graph import build_graph

        if temporary:
            if self._temporary_graph is None:
                if self.temporary_saver is None:
                    from langgraph.checkpoint.memory import InMemorySaver

                    self.temporary_saver = InMemorySaver()
                self._temporary_graph = build_graph(self.llm, self.ltm, retrieval_mode=self.retrieval_mode,
                                                    checkpointer=self.temporary_saver, **self._graph_options)
            return self._temporary_graph
        if self._graph is None:
            saver = await checkpointer()
            self._graph = build_graph(self.llm, self.ltm, retrieval_mode=self.retrieval_mode,
                                      checkpointer=saver, **self._graph_options)
        return self._graph

    # ── ahead of the first turn, and at the end ──────────────────────

    @property
    def prepared(self) -> bool:
        """What a turn needs is imported (or being imported)."""
        return self._preparing is not None

    async def prepare(self) -> None:
        """The person started typing: import what a turn needs now, off the loop, so the first reply
        does not wait the ~2 s the import takes. Nothing is imported while nobody types (idle memory
        stays low). Once; a failure is logged and left to the turn, which imports again."""
        if self._preparing is not None or not self.configured:
            return
        self._preparing = spawn(import_off_loop(PREPARE_MODULES, optional=FIRST_REQUEST_MODULES), name="prepare-chat",
                                awaited=True)
        try:
            await asyncio.shield(self._preparing)  # closing the controller stops waiting, not the import
        except Exception:  # the turn imports them again and says what failed
            log.warning("could not import the chat modules ahead of the first turn", exc_info=True)

    def forget_temporary(self, session_id: str) -> None:
        """A temporary chat ended: its checkpoints (in memory) go."""
        if self.temporary_saver is not None:
            self.temporary_saver.delete_thread(session_id)

    async def close(self) -> None:
        self.drop_graphs()
        http, self._http = self._http, None
        if http is not None:
            await http.aclose()


def _identity(llm: Any) -> tuple[str, str]:
    """(API key, model name) of a chat model, so error texts can name the model and never the key."""
    if llm is None:
        return "", ""
    return api_key_of(llm), str(getattr(llm, "model_name", "") or "")
