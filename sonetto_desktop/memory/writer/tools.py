"""The writer's tools as LangChain tools: a registry (``registry``) and a runner (``runner``) made
into what the agent calls.

Each call is handed the run's :class:`~.registry.ToolContext` (the turn it works for, who writes,
its time) in ``config["configurable"][CONTEXT_KEY]``, so every change on the change channel and in
the memory's history says which turn caused it and why. A refused call (unknown id, empty text,
secret-looking content, a locked memory, the don't-remember list) raises ``ToolException``; with
``handle_tool_error=True`` LangChain hands the message back to the model as an error
``ToolMessage`` so it can correct itself, and the run goes on. Each tool also returns an artifact
``{kind, ids}`` saying what it did (for counting and tests).
"""

from __future__ import annotations

from typing import Any

from langchain_core.messages import ToolMessage
from langchain_core.runnables import RunnableConfig
from langchain_core.tools import BaseTool, StructuredTool, ToolException
from pydantic import ValidationError

from ..operations import MemoryOperations
from ..stores.base import BaseMemoryManager
from .index import WriterIndex
from .listing import READ_ALL_MAX, RECENT_N, RELATED_K, RetrieverProvider
from .memory_tools import MEMORY_TOOLS
from .registry import (  # noqa: F401 - MAX_*, ToolContext and find_secret: the tools' public names
    MAX_CONTENT_CHARS,
    MAX_SECTION_CHARS,
    Registry,
    ToolContext,
    ToolRefused,
    WriterTool,
    find_secret,
    validation_message,
)
from .runner import LockListener, ToolRunner

TOOL_NAMES = MEMORY_TOOLS.names

# Key of the per-run ``ToolContext`` in ``config["configurable"]`` (set by ``MemoryConsumer``).
CONTEXT_KEY = "sonetto_tool_context"


def langchain_tools(runner: ToolRunner, registry: Registry, context: ToolContext | None = None) -> list[BaseTool]:
    """``registry``'s tools, run by ``runner``, for the context given in each run's config (else
    ``context``, else a default one)."""
    return [_langchain_tool(runner, spec, context) for spec in registry]


class RunnerTool(StructuredTool):
    """A writer tool as LangChain sees it (what the model is bound to), with :meth:`answer`: the same
    call without LangChain's tool machinery around it (callback managers, run records, the function's
    signature read again per call: ~0.6 ms a call against ~0.4 ms of the call's own work), for the
    writer's tool loop (``tool_loop.ToolLoop``)."""

    runner: Any = None  # ToolRunner
    spec: Any = None  # registry.WriterTool
    context: Any = None  # ToolContext used when the run's config gives none

    def answer(self, call: dict[str, Any], config: RunnableConfig | None) -> ToolMessage:
        """What ``invoke(call, config)`` answers (blocking): the arguments checked by the schema as
        LangChain does (those given, and the defaults of those not given), a refusal or a schema's
        complaint as an error message, anything else raised."""
        args = call.get("args") or {}
        cid, status = call.get("id"), "success"
        try:
            checked = self.spec.schema.model_validate(args)
            fields = self.spec.schema.model_fields
            arguments = {k: getattr(checked, k) for k in fields if k in args or not fields[k].is_required()}
            given = ((config or {}).get("configurable") or {}).get(CONTEXT_KEY)
            run_context = given if isinstance(given, ToolContext) else (self.context or ToolContext())
            outcome = self.runner.run(self.spec, arguments, run_context)
            content, artifact = outcome.text, outcome.artifact
        except ValidationError as exc:
            content, artifact, status = validation_message(exc), None, "error"
        except ToolRefused as exc:
            content, artifact, status = (str(exc) or "Tool execution error"), None, "error"
        return ToolMessage(content=content, artifact=artifact, tool_call_id=cid, name=self.name, status=status)


def _langchain_tool(runner: ToolRunner, spec: WriterTool, context: ToolContext | None) -> BaseTool:
    def call(config: RunnableConfig, **arguments: Any) -> tuple[str, dict]:
        given = ((config or {}).get("configurable") or {}).get(CONTEXT_KEY)
        run_context = given if isinstance(given, ToolContext) else (context or ToolContext())
        try:
            outcome = runner.run(spec, arguments, run_context)
        except ToolRefused as exc:
            raise ToolException(str(exc)) from None
        return outcome.text, outcome.artifact

    return RunnerTool(name=spec.name, description=spec.description, args_schema=spec.schema, func=call,
                      response_format="content_and_artifact", handle_tool_error=True,
                      handle_validation_error=validation_message, runner=runner, spec=spec, context=context)


def make_memory_tools(
    memory: MemoryOperations | BaseMemoryManager,
    context: ToolContext | None = None,
    *,
    retriever: RetrieverProvider | None = None,
    read_all_max: int = READ_ALL_MAX,
    related_k: int = RELATED_K,
    recent_n: int = RECENT_N,
    index: WriterIndex | None = None,
    on_locked: LockListener | None = None,
) -> list[BaseTool]:
    """The six CRUD tools (``memory_tools.MEMORY_TOOLS``) over ``memory`` (the memory operations, or
    a store they are made for), written as the context's actor (``agent`` by default).

    ``read_memories`` gives the listing of ``listing.read_listing``: every memory up to
    ``read_all_max``; above that the ``related_k`` candidates that ``retriever()`` (a provider of
    an object with ``candidates(text, k, now=...)``, e.g. a ``MechanicalRetriever``) finds for the
    context's turn text, due to-dos, likely duplicates and the ``recent_n`` most recent ones.
    ``index``: the writer's index over the store (made here when not given); ``create_memory``
    finds an existing memory with the same text through it, without reading the store.
    ``on_locked(memory_id, context)``: told of each call a locked memory refused (a worker thread).
    """
    ops = memory if isinstance(memory, MemoryOperations) else MemoryOperations(memory)
    runner = ToolRunner(ops, index=index, retriever=retriever, read_all_max=read_all_max, related_k=related_k,
                        recent_n=recent_n, on_locked=on_locked)
    return langchain_tools(runner, MEMORY_TOOLS, context)
