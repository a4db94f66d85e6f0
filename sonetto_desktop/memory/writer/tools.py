"""The memory writer's CRUD tools, bound to the memory operations by a factory (no module global).

Every write goes through :class:`~..operations.MemoryOperations` as the ``agent``, with the turn it
works for (``ToolContext`` in the run config: turn id, session, the user's words), so each change on
the change channel and in the memory's history says which turn caused it and why. A bad call
(unknown id, empty text, secret-looking content) raises ``ToolException``; with
``handle_tool_error=True`` LangChain hands the message back to the model as an error
``ToolMessage`` so it can correct itself, and the run goes on. Each tool also returns an artifact
``{kind, ids}`` saying what it did (for counting and tests).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from langchain_core.runnables import RunnableConfig
from langchain_core.tools import BaseTool, ToolException, tool

from ..stores.base import BaseMemoryManager
from ..changes import AGENT, Turn, excerpt_of
from ..errors import DontRememberRefused, MemoryLocked, MemoryNotFound
from ..review import InboxFull
from ..operations import MemoryOperations
from .index import WriterIndex
from .listing import READ_ALL_MAX, RECENT_N, RELATED_K, RetrieverProvider, read_listing
from .secret_filter import find_secret

ACTOR = AGENT
TOOL_NAMES = ("create_memory", "read_memories", "update_memory", "delete_memory", "merge_memories", "hit_memory")
MAX_CONTENT_CHARS = 500
MAX_SECTION_CHARS = 8

# Key of the per-run ``ToolContext`` in ``config["configurable"]`` (set by ``MemoryConsumer``).
CONTEXT_KEY = "sonetto_tool_context"


@dataclass
class ToolContext:
    """Which turn the tools are working for.

    ``turn_text`` (the turn's words) and ``now`` are what ``read_memories`` selects related memories
    by once the store is large; ``excerpt`` (the user's words) is kept, shortened, with every change
    as its provenance; ``subject``: what the memories call the user (``names``). A context given in
    a run's ``config["configurable"][CONTEXT_KEY]`` wins over the factory's.
    """

    session_id: str | None = None
    turn_id: str | None = None
    turn_text: str | None = None
    now: datetime | None = None
    excerpt: str = ""
    subject: str = ""

    def turn(self) -> Turn | None:
        if not self.turn_id:
            return None
        return Turn(self.turn_id, self.session_id, excerpt_of(self.excerpt))


def _text(name: str, value: Any, limit: int | None = None) -> str:
    if not isinstance(value, str) or not value.strip():
        raise ToolException(f"错误：参数 {name} 不能为空。请提供非空的文本后重试。")
    value = " ".join(value.split())
    if limit is not None and len(value) > limit:
        raise ToolException(f"错误：参数 {name} 太长（{len(value)} 字，上限 {limit} 字）。请精简后重试。")
    return value


def _content(value: Any) -> str:
    content = _text("content", value, MAX_CONTENT_CHARS)
    secret = find_secret(content)
    if secret:
        raise ToolException(
            f"拒绝写入：内容疑似包含{secret}。秘密信息绝不能写进记忆。"
            "请去掉具体的值（最多保留“用户有某个账号”这类不含秘密的事实），或放弃这一条。"
        )
    return content


def _dont_remember(entry: str) -> ToolException:
    return ToolException(f"拒绝写入：用户要求不要记住这件事（{entry}）。不要记录它，也不要换一种说法记录。")


def _locked(memory_id: str) -> ToolException:
    return ToolException(
        f"拒绝修改：记忆 {memory_id} 已被用户锁定，你不能修改、合并或删除它（可以用 hit_memory 标记引用）。"
        "如果新信息与它矛盾，就保持原样，不要为此另建重复条目。"
    )


def _not_found(memory_id: str) -> ToolException:
    return ToolException(
        f"错误：找不到 ID 为 {memory_id!r} 的记忆（可能已被删除或合并）。请调用 read_memories 查看现有条目和正确的 ID。"
    )


def _validation_message(exc: Exception) -> str:
    """Missing or mistyped arguments, said so the model can fix the call."""
    problems = []
    for err in getattr(exc, "errors", list)():
        where = ".".join(str(part) for part in err.get("loc", ())) or "?"
        problems.append(f"{where}（{err.get('msg', '')}）")
    listed = "；".join(problems) or str(exc)[:200]
    return f"参数错误：{listed}。请按工具说明提供全部参数（字符串）后重试。"


def make_memory_tools(
    memory: MemoryOperations | BaseMemoryManager,
    context: ToolContext | None = None,
    *,
    retriever: RetrieverProvider | None = None,
    read_all_max: int = READ_ALL_MAX,
    related_k: int = RELATED_K,
    recent_n: int = RECENT_N,
    index: WriterIndex | None = None,
) -> list[BaseTool]:
    """The six CRUD tools over ``memory`` (the memory operations, or a store they are made for),
    written as the ``agent``, per turn (see ``ToolContext``).

    ``read_memories`` gives the listing of ``listing.read_listing``: every memory up to
    ``read_all_max``; above that the ``related_k`` candidates that ``retriever()`` (a provider of
    an object with ``candidates(text, k, now=...)``, e.g. a ``MechanicalRetriever``) finds for the
    context's turn text, due to-dos, likely duplicates and the ``recent_n`` most recent ones.
    ``index``: the writer's index over the store (made here when not given); ``create_memory``
    finds an existing memory with the same text through it, without reading the store.
    """
    ops = memory if isinstance(memory, MemoryOperations) else MemoryOperations(memory)
    store = ops.store
    index = index if index is not None else WriterIndex(store)

    def done(text: str, kind: str, ids: tuple[str, ...]) -> tuple[str, dict]:
        return text, {"kind": kind, "ids": ids}

    def run_context(config: RunnableConfig | None) -> ToolContext:
        given = ((config or {}).get("configurable") or {}).get(CONTEXT_KEY)
        return given if isinstance(given, ToolContext) else (context or ToolContext())

    def agent_ops(config: RunnableConfig | None) -> MemoryOperations:
        return ops.as_actor(ACTOR, run_context(config).turn())

    def proposed(writer: MemoryOperations, kind: str, ids: tuple[str, ...] = (), *, description: str | None = None,
                 theme: str | None = None, reason: str = "") -> tuple[str, dict] | None:
        """Review mode: the change goes to the person's inbox (checked as a write would be), else None."""
        inbox = writer.reviewing
        if inbox is None:
            return None
        writer.allowed(description)
        items = [store.get(mid) for mid in ids]  # MemoryNotFound, as a write would raise
        for mid, item in zip(ids, items, strict=True):
            if item.locked:
                raise MemoryLocked(mid, writer.actor)
        try:
            proposal = inbox.propose(kind, memory_ids=ids, description=description, theme=theme, reason=reason,
                                     turn=writer.turn, before=tuple(item.description for item in items))
        except InboxFull:
            raise ToolException("审核箱已满：用户还没处理之前的提议。本轮不要再提交修改。") from None
        return done(f"已提交给用户审核（提议 {proposal.id}），用户批准后才会生效；不要重复提交，也不要再为它调用别的工具。",
                    "propose", ids)

    @tool(response_format="content_and_artifact")
    def create_memory(content: str, section: str, config: RunnableConfig) -> tuple[str, dict]:
        """添加一条新的记忆条目到指定分区，返回它的 ID。

        Args:
            content: 记忆内容：第三人称中文，主语用用户的称呼，一个事实，绝对日期。
            section: 记忆分区。优先用已有分区；若不适合任何已有分区或用户明确要求新建，可创建新分区（1-4字中文）：
                "身份"（教育、职业、家乡等）、"音乐"（歌手、声库、歌曲、专辑）、"品味"（电影、美食、游戏、UP主、品牌等偏好）、
                "地点与路径"（地点和文件路径）、"瞬间"（即时观察和感受：天气、正在做的事、念头）、"时效待办"（有日期的事项）
        """
        text = _content(content)
        theme = _text("section", section, MAX_SECTION_CHARS)
        writer = agent_ops(config)
        existing = next(iter(index.same_text(text)), None)
        if existing is not None:  # e.g. a turn retried after a failure half-way: never store it twice
            count = writer.hit(existing).extra.get("hit")
            return done(f"记忆库中已有相同内容的条目 {existing}，未重复创建，已记为一次引用（hit {count}）。",
                        "hit", (existing,))
        try:
            held = proposed(writer, "create", description=text, theme=theme, reason="记忆写入助手根据对话新增")
            if held is not None:
                return held
            memory_id = writer.add(text, theme, reason="记忆写入助手根据对话新增").ids[0]
        except DontRememberRefused as exc:
            raise _dont_remember(exc.entry) from None
        return done(f"已创建记忆 {memory_id}（分区：{theme}）。", "create", (memory_id,))

    @tool(response_format="content_and_artifact")
    def read_memories(config: RunnableConfig) -> tuple[str, dict]:
        """重新查看记忆列表（消息里已附，一般不必调用）。"""
        ctx = run_context(config)
        listing = read_listing(store, ctx.turn_text, retriever, now=ctx.now, index=index, subject=ctx.subject,
                               read_all_max=read_all_max, related_k=related_k, recent_n=recent_n)
        text, artifact = done(listing.text, "read", ())
        return text, {**artifact, "shown": listing.shown, "total": listing.total}

    @tool(response_format="content_and_artifact")
    def update_memory(id: str, content: str, reason: str, config: RunnableConfig) -> tuple[str, dict]:
        """更新一条记忆（旧内容留在历史里，自动记一次 hit）。

        Args:
            id: 记忆 ID。
            content: 更新后的完整内容。
            reason: 依据哪句话、什么变了。
        """
        memory_id = _text("id", id)
        text = _content(content)
        why = _text("reason", reason)
        writer = agent_ops(config)
        try:
            if writer.reviewing is not None and store.get(memory_id).description == text:
                changed = None  # the same text: nothing to review, counted as a use below
            else:
                held = proposed(writer, "update", (memory_id,), description=text, reason=why)
                if held is not None:
                    return held
                changed = writer.update(memory_id, description=text, reason=why)
            writer.hit(memory_id)
        except DontRememberRefused as exc:
            raise _dont_remember(exc.entry) from None
        except MemoryLocked as exc:
            raise _locked(exc.memory_id) from None
        except MemoryNotFound:
            raise _not_found(memory_id) from None
        if changed is None:
            return done(f"记忆 {memory_id} 已是这个内容，无需修改，已记为一次引用。", "hit", (memory_id,))
        return done(f"已更新记忆 {memory_id}。", "update", (memory_id,))

    @tool(response_format="content_and_artifact")
    def delete_memory(id: str, reason: str, config: RunnableConfig) -> tuple[str, dict]:
        """删除一条记忆（进回收站，可恢复）。

        Args:
            id: 记忆 ID。
            reason: 删除原因。
        """
        memory_id = _text("id", id)
        why = _text("reason", reason)
        try:
            writer = agent_ops(config)
            held = proposed(writer, "delete", (memory_id,), reason=why)
            if held is not None:
                return held
            writer.delete(memory_id, reason=why)
        except DontRememberRefused as exc:
            raise _dont_remember(exc.entry) from None
        except MemoryLocked as exc:
            raise _locked(exc.memory_id) from None
        except MemoryNotFound:
            raise _not_found(memory_id) from None
        return done(f"已删除记忆 {memory_id}。", "delete", (memory_id,))

    @tool(response_format="content_and_artifact")
    def merge_memories(id1: str, id2: str, content: str, section: str, reason: str,
                       config: RunnableConfig) -> tuple[str, dict]:
        """把描述同一事物的两条记忆合并：id1 保留，id2 删除，历史都保留。

        Args:
            id1: 保留的 ID。
            id2: 并入的 ID。
            content: 合并后的完整内容。
            section: 合并后的分区。
            reason: 合并原因。
        """
        keep = _text("id1", id1)
        gone = _text("id2", id2)
        if keep == gone:
            raise ToolException("错误：id1 和 id2 相同，不能把一条记忆和它自己合并。")
        text = _content(content)
        theme = _text("section", section, MAX_SECTION_CHARS)
        why = _text("reason", reason)
        try:
            writer = agent_ops(config)
            held = proposed(writer, "merge", (keep, gone), description=text, theme=theme, reason=why)
            if held is not None:
                return held
            writer.merge(keep, gone, text, theme, reason=why)
        except DontRememberRefused as exc:
            raise _dont_remember(exc.entry) from None
        except MemoryLocked as exc:
            raise _locked(exc.memory_id) from None
        except MemoryNotFound as exc:
            raise _not_found(exc.memory_id) from None
        return done(f"已将记忆 {gone} 合并到 {keep}。", "merge", (keep, gone))

    @tool(response_format="content_and_artifact")
    def hit_memory(id: str, config: RunnableConfig) -> tuple[str, dict]:
        """标记一条无需修改的记忆被本轮提到或用到（hit 加一）。

        Args:
            id: 记忆 ID。
        """
        memory_id = _text("id", id)
        try:
            count = agent_ops(config).hit(memory_id).extra.get("hit")
        except DontRememberRefused as exc:
            raise _dont_remember(exc.entry) from None
        except MemoryLocked as exc:
            raise _locked(exc.memory_id) from None
        except MemoryNotFound:
            raise _not_found(memory_id) from None
        return done(f"已标记记忆 {memory_id}（hit {count}）。", "hit", (memory_id,))

    tools = [create_memory, read_memories, update_memory, delete_memory, merge_memories, hit_memory]
    for t in tools:
        t.handle_tool_error = True
        t.handle_validation_error = _validation_message
    return tools
