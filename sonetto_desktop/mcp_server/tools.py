"""The MCP tools: search, list, add, update, delete, and hand a conversation to the writer.

Each tool checks the person's settings (``access``), then runs its operation as a value (``ops.py``)
through ``AppServices.run`` as ``mcp:<client>``, as the window and the command line run theirs.
Arguments are JSON-schema'd and bounded (the SDK refuses what does not fit, as a tool error); what
the memories refuse (unknown id, locked memory, the don't-remember list, a read-only or offline
store, empty text) comes back as a tool error worded by ``presentation/errors.py`` (the same words
as the window, in English, with the failure's own text: ``Failed.for_app``, which never repeats a
don't-remember entry to the app), never as a crash of the
server. A write, once asked for, is finished even if the
client goes away meanwhile (a stdio client closing its input right after the call cancels the
call's task): it runs as a task of its own, shielded, and the server waits for such writes
(``drain``) before it closes the store.
"""

# No ``from __future__ import annotations``: the SDK reads these signatures at run time.

import asyncio
import dataclasses
import logging
from collections.abc import Awaitable, Callable
from typing import Annotated, Any, Literal

from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp_types import ToolAnnotations
from pydantic import AfterValidator, BaseModel, Field

from .. import ops
from ..aio import root_scope, run_blocking
from ..memory.errors import MemoryError_
from ..memory.item import MAX_DESCRIPTION_CHARS, MAX_REASON_CHARS, MAX_THEME_CHARS
from ..memory.visible import shown_line, shown_text
from ..presentation.errors import describe_error_for_app
from .access import Access, AccessDenied, Caller, actor_for, caller_of, written_by
from .quota import ADD, CHANGE, MODEL_SEARCH, Quota, QuotaExceeded

log = logging.getLogger(__name__)

MAX_QUERY_CHARS = 2_000
MAX_SEARCH_RESULTS = 50
MAX_LIST = 200
MAX_MESSAGES = 200
MAX_MESSAGE_CHARS = 20_000
MAX_ID_CHARS = 64

#: ``remember(messages, client) -> turn id``: journal a conversation for the background writer.
Remember = Callable[[list[dict[str, str]], str], Awaitable[dict[str, Any]]]
#: What a tool makes of its operation's result: ``then(result, actor) -> the tool's answer``.
Then = Callable[[Any, str], Awaitable[Any]]


#: The arguments' validators (an optional argument left out is None).
Shown = AfterValidator(lambda value: value if value is None else shown_text(value))
ShownLine = AfterValidator(lambda value: value if value is None else shown_line(value))


class ChatMessage(BaseModel):
    role: Literal["user", "assistant"] = Field(description="user 或 assistant / who said it")
    content: Annotated[str, Shown] = Field(min_length=1, max_length=MAX_MESSAGE_CHARS,
                                           description="消息内容 / the message text")


MemoryId = Annotated[str, Field(min_length=1, max_length=MAX_ID_CHARS, description="记忆的 id / the memory's id")]
Reason = Annotated[str, Field(min_length=1, max_length=MAX_REASON_CHARS,
                              description="为什么修改（记录在历史中）/ why (kept in the memory's history)"), Shown]


def _item_card(memory_id: str, item: Any) -> dict[str, Any]:
    return _card({"id": memory_id, "description": item.description, "theme": item.theme,
                  "latest_update_time": item.latest_update_time, "locked": item.locked, "author": item.author})


def _card(item: dict[str, Any]) -> dict[str, Any]:
    """What an app is shown of a memory. ``written_by``: another app wrote it (the person did not say
    it; Sonetto's own recall lists these apart too), so an app's words are never handed to the next
    app as the person's."""
    date = item.get("date") or str(item.get("latest_update_time") or "")[:10]
    card = {"id": item["id"], "description": item["description"], "theme": item["theme"], "date": date}
    if "locked" in item:
        card["locked"] = bool(item["locked"])
    app = written_by(item.get("author"))
    if app is not None:
        card["written_by"] = app
    return card


def unreadable_now(services: Any) -> str | None:
    """Why the memories cannot be read now, or None: the memory server (PostgreSQL) out of reach with no
    copy on this computer yet — an empty answer would read as "the person has no memories"."""
    status = getattr(services, "store_status", None)
    if status is None or status.online or status.copy_time is not None:
        return None
    return ("Sonetto 的记忆服务器暂时连不上，这台电脑上也还没有记忆的副本：现在读不到记忆（并不是没有记忆），请稍后再试 / "
            f"the memory server {services.store.path} cannot be reached ({status.detail}) and this computer has "
            "no copy of the memories yet: they cannot be read now (this does not mean there are none); try again later")


@dataclasses.dataclass(frozen=True)
class ListPage(ops.Op[dict[str, Any]]):
    """``list_memories``' page: the cards of ``theme`` (all: None), newest first, and the themes' counts."""

    theme: str | None
    limit: int
    offset: int

    def apply(self, target: ops.OpTarget) -> dict[str, Any]:
        groups = target.memory.grouped()
        if self.theme is not None:
            groups = {name: cards for name, cards in groups.items() if name == self.theme.strip()}
        cards = sorted((c for group in groups.values() for c in group),
                       key=lambda c: str(c["latest_update_time"] or ""), reverse=True)
        page = cards[self.offset:self.offset + self.limit]
        return {"total": len(cards), "offset": self.offset, "memories": [_card(c) for c in page],
                "themes": {name: len(group) for name, group in sorted(groups.items())}}


class MemoryTools:
    """``services``: the app's services (``AppServices``: its operations, whichever store is open now, and
    its recall); ``remember``: see :data:`Remember`; ``quota``: how much a caller may add, change and
    hand over (``quota.Quota``; None: no bound); ``fresh``: awaited before each call (the settings follower:
    review mode, models and store follow what the person saved in the app)."""

    def __init__(self, services: Any, access: Access, remember: Remember, quota: Quota | None = None, *,
                 fresh: Callable[[], Awaitable[Any]] | None = None) -> None:
        self._services = services
        self._fresh = fresh
        self._access = access
        self._remember = remember
        self._quota = quota
        self._writes = root_scope().child("mcp-writes")  # drained before the store closes

    def register(self, server: MCPServer) -> None:
        read = ToolAnnotations(read_only_hint=True, open_world_hint=False)
        write = ToolAnnotations(read_only_hint=False, destructive_hint=False, open_world_hint=False)
        server.add_tool(self.search_memories, annotations=read, description=(
            "在用户的长期记忆中搜索与问题相关的条目（离线中文检索，或 hybrid：离线初筛 + 模型挑选；hybrid 有次数限制，"
            "超出时改用离线检索并附 note 说明）。"
            " / Search the user's long-term memories for what is relevant to a query; returns id, "
            "description, theme and date of each, most relevant first (hybrid searches are limited per app: "
            "over the limit the search is answered offline, with a note saying so)."))
        server.add_tool(self.list_memories, annotations=read, description=(
            "按主题列出用户的记忆（可只看一个主题，分页）。"
            " / List the user's memories, optionally of one theme, most recently updated first, paged."))
        server.add_tool(self.add_memory, annotations=write, description=(
            "新增一条关于用户的记忆（一句话，归入一个主题）。"
            " / Add one memory about the user (one statement, filed under a theme); returns its id."))
        server.add_tool(self.update_memory, annotations=write, description=(
            "修改一条记忆的内容和/或主题，并说明原因；用户锁定的记忆不能修改。"
            " / Change a memory's text and/or theme, with a reason; memories the user locked refuse."))
        server.add_tool(self.delete_memory, annotations=ToolAnnotations(
            read_only_hint=False, destructive_hint=True, idempotent_hint=False, open_world_hint=False),
            description=("把一条记忆移到回收站（可恢复），并说明原因；用户锁定的记忆不能删除。"
                         " / Move a memory to the trash (restorable), with a reason; locked memories refuse."))
        server.add_tool(self.remember_conversation, annotations=write, description=(
            "把一段对话交给 Sonetto 的后台记忆整理：它会决定哪些值得记住（先写入日志，不会丢失）。"
            " / Hand a conversation to Sonetto's background memory writer, which decides what is worth "
            "remembering (journaled first, so nothing is lost)."))

    # ── plumbing ──────────────────────────────────────────────────────

    async def _allowed(self, ctx: Context, *, write: bool, rate: str | None = None) -> Caller:
        """The caller, if the settings allow the call and (``rate``: ``quota.ADD`` …) its quota holds it."""
        caller = caller_of(ctx)
        if self._fresh is not None:  # the settings saved in the app since the last call apply to this one
            await self._fresh()
        try:
            await run_blocking(self._access.check, caller, write=write)
            if rate is not None and self._quota is not None:
                await run_blocking(self._quota.check, rate, caller)  # its counts are a file: blocking
        except AccessDenied as exc:
            raise ToolError(str(exc)) from None
        except QuotaExceeded as exc:
            log.info("%s from %s refused: %s", rate, caller.name, exc)
            raise ToolError(str(exc)) from None
        return caller

    async def _finished(self, call: Awaitable[Any]) -> Any:
        """A write to the end, whatever becomes of the caller (see the module docstring)."""
        task = self._writes.spawn(call, name="sonetto-mcp-write", awaited=True)
        task.add_done_callback(lambda t: t.cancelled() or t.exception())  # a lost caller's error is not unretrieved
        return await asyncio.shield(task)

    async def drain(self, timeout: float) -> int:
        """Wait (at most ``timeout`` seconds) for the writes still under way; returns how many there were."""
        under_way = self._writes.pending
        if under_way:
            await self._writes.drain(timeout)
        return under_way

    async def _run(self, ctx: Context, op: ops.Op[Any], then: Then | None = None, rate: str | None = None) -> Any:
        """``op`` as the caller (``mcp:<client>``), if the settings allow it (a write also within the quota's
        ``rate``), then ``then(result, actor)``; a write runs to the end whatever becomes of the caller."""
        if op.changes:
            return await self._finished(self._run_now(ctx, op, then, rate))
        return await self._run_now(ctx, op, then, rate)

    async def _run_now(self, ctx: Context, op: ops.Op[Any], then: Then | None, rate: str | None) -> Any:
        caller = await self._allowed(ctx, write=op.changes, rate=rate)
        if not op.changes:
            self._readable()
        actor = actor_for(caller.name)
        result = await self._op(op, actor)
        return result if then is None else await then(result, actor)

    async def _op(self, op: ops.Op[Any], actor: str) -> Any:
        """``op``'s result, run by the services as ``actor``; a failure (unknown id, locked, don't-remember,
        read-only, empty text, …) is the tool's error, in the one wording."""
        outcome = await self._services.run(op, actor=actor)
        if isinstance(outcome, ops.Failed):
            raise ToolError(outcome.for_app)
        return outcome.value

    def _readable(self) -> None:
        """A read's tool error when the memories cannot be read now (``unreadable_now``)."""
        why = unreadable_now(self._services)
        if why is not None:
            raise ToolError(why)

    async def _card_of(self, memory_id: str, actor: str) -> dict[str, Any]:
        return _item_card(memory_id, await self._op(ops.Item(memory_id), actor))

    # ── tools ─────────────────────────────────────────────────────────

    async def search_memories(
        self,
        query: Annotated[str, Field(min_length=1, max_length=MAX_QUERY_CHARS, description="要找什么 / what to look for")],
        ctx: Context,
        limit: Annotated[int, Field(ge=1, le=MAX_SEARCH_RESULTS, description="最多返回几条 / at most this many")] = 8,
        mode: Annotated[Literal["offline", "hybrid"], Field(
            description="offline：离线检索；hybrid：离线初筛后由模型挑选（未配置模型时等同 offline）"
                        " / offline: keyword and time matching; hybrid: offline shortlist, the model picks")] = "offline",
    ) -> dict[str, Any]:
        caller = await self._allowed(ctx, write=False)
        self._readable()
        recall = self._services.recall
        note = None
        if mode == "hybrid" and recall.llm is not None and self._quota is not None:  # the model is paid for
            try:
                await run_blocking(self._quota.check, MODEL_SEARCH.name, caller)
            except QuotaExceeded as exc:
                log.info("hybrid search from %s answered offline: %s", caller.name, exc)
                mode, note = "offline", f"已改用离线检索 / answered offline: {exc}"
        try:
            if mode == "offline":
                results = await run_blocking(recall.mechanical.retrieve, query, limit)
            else:
                results = (await recall.aretrieve(query, "hybrid"))[:limit]
        except (MemoryError_, ValueError) as exc:
            raise ToolError(describe_error_for_app(exc)) from None
        found = await self._with_authors(results, actor_for(caller.name))
        return {"memories": found} if note is None else {"memories": found, "note": note}

    async def _with_authors(self, results: list[dict[str, Any]], actor: str) -> list[dict[str, Any]]:
        """Recall's results as cards, each with whose memory it is (recall's index keeps no author)."""
        if not results:
            return []
        items = await self._op(ops.Fetch(tuple(str(r["id"]) for r in results)), actor)
        authors = {mid: item.author for mid, item in items.items() if item is not None}
        return [_card({**r, "author": authors.get(str(r["id"]))}) for r in results]

    async def list_memories(
        self,
        ctx: Context,
        theme: Annotated[str | None, Field(max_length=MAX_THEME_CHARS, description="只列这个主题 / only this theme")] = None,
        limit: Annotated[int, Field(ge=1, le=MAX_LIST, description="每页条数 / page size")] = 50,
        offset: Annotated[int, Field(ge=0, description="跳过前几条 / skip this many")] = 0,
    ) -> dict[str, Any]:
        return await self._run(ctx, ListPage(theme, limit, offset))

    async def add_memory(
        self,
        description: Annotated[str, Field(min_length=1, max_length=MAX_DESCRIPTION_CHARS,
                                          description="记忆内容，一句完整的话 / the memory, one full statement"), Shown],
        theme: Annotated[str, Field(min_length=1, max_length=MAX_THEME_CHARS,
                                    description="主题，例如 身份、品味、计划 / the theme, e.g. identity, tastes, plans"),
                         ShownLine],
        ctx: Context,
    ) -> dict[str, Any]:
        return await self._run(ctx, ops.AddMemory(description, theme), self._card_of, ADD.name)

    async def update_memory(
        self,
        id: MemoryId,
        reason: Reason,
        ctx: Context,
        description: Annotated[str | None, Field(min_length=1, max_length=MAX_DESCRIPTION_CHARS,
                                                 description="新的内容 / the new text"), Shown] = None,
        theme: Annotated[str | None, Field(min_length=1, max_length=MAX_THEME_CHARS,
                                           description="新的主题 / the new theme"), ShownLine] = None,
    ) -> dict[str, Any]:
        if description is None and theme is None:
            raise ToolError("请给出新的内容或主题 / give a new description and/or theme")

        async def card(changed: bool, actor: str) -> dict[str, Any]:
            return {**await self._card_of(id, actor), "changed": changed}

        return await self._run(ctx, ops.EditMemory(id, description, theme, reason=reason), card, CHANGE.name)

    async def delete_memory(self, id: MemoryId, reason: Reason, ctx: Context) -> dict[str, Any]:
        async def said(_text: str, _actor: str) -> dict[str, Any]:
            return {"id": id, "deleted": True, "note": "已移到回收站，可在 Sonetto 中恢复 / moved to the trash, restorable"}

        return await self._run(ctx, ops.DeleteMemory(id, reason=reason), said, CHANGE.name)

    async def remember_conversation(
        self,
        messages: Annotated[list[ChatMessage], Field(min_length=1, max_length=MAX_MESSAGES,
                                                     description="对话，按顺序 / the conversation, in order")],
        ctx: Context,
    ) -> dict[str, Any]:
        return await self._finished(self._hand_over(ctx, [m.model_dump() for m in messages]))

    async def _hand_over(self, ctx: Context, turn: list[dict[str, str]]) -> dict[str, Any]:
        caller = await self._allowed(ctx, write=True)
        try:
            if self._quota is not None:
                await run_blocking(self._quota.remember, caller, actor_for(caller.name),
                                   sum(len(m["content"]) for m in turn))
            return await self._remember(turn, caller.name)
        except QuotaExceeded as exc:
            log.info("remember_conversation from %s refused: %s", caller.name, exc)
            raise ToolError(str(exc)) from None
        except (MemoryError_, ValueError, OSError) as exc:
            raise ToolError(describe_error_for_app(exc)) from None
