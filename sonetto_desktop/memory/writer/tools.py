"""The memory writer's CRUD tools, bound to one memory manager by a factory (no module global).

Each tool returns ``(text for the model, artifact)``: the artifact is a small dict
``{kind, ids, description, reason}`` that ``callbacks.MemoryToolCallback`` turns into a
``MemoryEvent``. A bad call (unknown id, empty text, secret-looking content) raises
``ToolException``; with ``handle_tool_error=True`` LangChain hands the message back to the model
as an error ``ToolMessage`` so it can correct itself, and the run goes on.

Writes are recorded with ``actor="agent"`` and the model's reason.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from langchain_core.runnables import RunnableConfig
from langchain_core.tools import BaseTool, ToolException, tool

from ..base import BaseMemoryManager
from ..errors import MemoryNotFound
from ..events import EventFeed, MemoryEvent
from .listing import READ_ALL_MAX, RECENT_N, RELATED_K, RetrieverProvider, read_listing

ACTOR = "agent"
TOOL_NAMES = ("create_memory", "read_memories", "update_memory", "delete_memory", "merge_memories", "hit_memory")
MAX_CONTENT_CHARS = 500
MAX_SECTION_CHARS = 8

# Secret-looking content. Deliberately narrow: the prompt is the first line of defence, this
# catches what slips through without refusing ordinary facts (phone-length numbers, dates).
_SECRET_PATTERNS: tuple[tuple[str, re.Pattern[str]], ...] = (
    ("身份证号", re.compile(r"(?<!\d)\d{17}[\dXx](?![\dA-Za-z])")),
    ("银行卡号", re.compile(r"(?<!\d)(?:\d[ -]?){15,18}\d(?!\d)")),
    ("API Key / 令牌", re.compile(r"\b(?:sk|pk|rk)-[A-Za-z0-9_\-]{16,}|\bgh[pousr]_[A-Za-z0-9]{20,}|\bAKIA[0-9A-Z]{16}\b"
                                  r"|\bxox[abpr]-[A-Za-z0-9-]{10,}|\beyJ[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{10,}")),
    ("私钥", re.compile(r"-----BEGIN [A-Z ]*PRIVATE KEY-----")),
    ("密码 / 验证码", re.compile(r"(?:密码|口令|验证码|PIN码|支付码|password|passwd|pwd|passcode)\s*(?:是|为|:|：|=)\s*\S{3,}",
                              re.IGNORECASE)),
    ("密钥 / 令牌", re.compile(r"(?:api[ _-]?key|secret|token|密钥|令牌)\s*(?:是|为|:|：|=)\s*[A-Za-z0-9_\-./+]{8,}",
                             re.IGNORECASE)),
)


def find_secret(text: str) -> str | None:
    """The kind of secret ``text`` seems to contain (for the error message), or ``None``."""
    for label, pattern in _SECRET_PATTERNS:
        if pattern.search(text):
            return label
    return None


# Key of the per-run ``ToolContext`` in ``config["configurable"]`` (set by ``MemoryConsumer``).
CONTEXT_KEY = "sonetto_tool_context"


@dataclass
class ToolContext:
    """Which turn the tools are working for.

    The ids are used when the tools publish events themselves; ``turn_text`` (the turn's words)
    and ``now`` are what ``read_memories`` selects related memories by once the store is large.
    A context given in a run's ``config["configurable"][CONTEXT_KEY]`` wins over the factory's.
    """

    session_id: str | None = None
    turn_id: str | None = None
    turn_text: str | None = None
    now: datetime | None = None


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


def _same_text(text: str) -> str:
    return "".join(text.split()).rstrip("。.")


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
    mm: BaseMemoryManager,
    events: EventFeed[MemoryEvent] | None = None,
    context: ToolContext | None = None,
    *,
    retriever: RetrieverProvider | None = None,
    read_all_max: int = READ_ALL_MAX,
    related_k: int = RELATED_K,
    recent_n: int = RECENT_N,
) -> list[BaseTool]:
    """The six CRUD tools bound to ``mm``.

    With ``events`` the tools also publish a ``MemoryEvent`` per successful call themselves
    (for use outside ``MemoryConsumer``, which publishes through its callback instead);
    ``context`` then supplies the session and turn ids.

    ``read_memories`` lists every memory up to ``read_all_max`` of them; above that, the
    ``related_k`` candidates that ``retriever()`` (a provider of an object with
    ``candidates(text, k, now=...)``, e.g. a ``MechanicalRetriever``) finds for the turn text
    of the context, plus the ``recent_n`` most recently updated ones (see ``listing``).
    Without a retriever: the most recent and most-hit ones.
    """

    def done(text: str, kind: str, ids: tuple[str, ...], description: str = "", reason: str = "") -> tuple[str, dict]:
        artifact = {"kind": kind, "ids": ids, "description": description, "reason": reason}
        if events is not None:
            ctx = context or ToolContext()
            events.publish(MemoryEvent(kind, ids, description, reason, ctx.session_id, ctx.turn_id))
        return text, artifact

    @tool(response_format="content_and_artifact")
    def create_memory(content: str, section: str) -> tuple[str, dict]:
        """添加一条新的记忆条目到指定分区。调用后返回该条目的唯一 ID。
        写入前应先确认记忆库里没有说同一件事的条目；有的话用 update_memory 更新它，而不是新建。

        Args:
            content: 记忆内容，用第三人称中文描述用户的一个事实（以“用户”开头，只写一个事实，相对日期要换算成绝对日期）。
            section: 记忆分区。优先使用已有分区；都不合适时可新建分区（1-4 个汉字）：
                - "身份"（用户的基本身份信息：教育、职业、家乡、年龄段等）
                - "音乐"（虚拟歌手、声库、歌曲、专辑、创作者）
                - "品味"（电影、美食、游戏、UP主、品牌等偏好）
                - "地点与路径"（具体地点和文件系统路径）
                - "瞬间"（即时的观察和感受：天气、正在做的事、念头）
                - "时效待办"（有日期的事项：作业、预约、考试、行程）
        """
        text = _content(content)
        theme = _text("section", section, MAX_SECTION_CHARS)
        same = _same_text(text)
        existing = next(((mid, item.description) for mid, item in mm.all_items().items()
                         if _same_text(item.description) == same), None)
        if existing is not None:  # e.g. a turn retried after a failure half-way: never store it twice
            count = mm.hit(existing[0], actor=ACTOR)
            return done(f"记忆库中已有相同内容的条目 {existing[0]}，未重复创建，已记为一次引用（hit {count}）。",
                        "hit", (existing[0],), existing[1], "")
        memory_id = mm.add(text, theme, actor=ACTOR, reason="记忆写入助手根据对话新增")
        return done(f"已创建记忆 {memory_id}（分区：{theme}）。", "create", (memory_id,), text, "")

    def run_context(config: RunnableConfig | None) -> ToolContext:
        given = ((config or {}).get("configurable") or {}).get(CONTEXT_KEY)
        return given if isinstance(given, ToolContext) else (context or ToolContext())

    @tool(response_format="content_and_artifact")
    def read_memories(config: RunnableConfig) -> tuple[str, dict]:
        """查看记忆条目：每行一条，包含 ID、分区、引用次数（hit）、最近更新日期和内容。
        记忆不多时列出全部；记忆很多时只列出与本轮对话相关的条目和最近更新的几条，第一行会写明总数。
        在新增、修改、合并、删除之前必须先调用此工具了解现有条目；一轮处理中读一次即可。"""
        ctx = run_context(config)
        listing = read_listing(mm, ctx.turn_text, retriever, now=ctx.now, read_all_max=read_all_max,
                               related_k=related_k, recent_n=recent_n)
        count = f"{listing.total} 条" if listing.shown == listing.total else f"{listing.shown}/{listing.total} 条"
        return done(listing.text, "read", (), "", count)

    @tool(response_format="content_and_artifact")
    def update_memory(id: str, content: str, reason: str) -> tuple[str, dict]:
        """根据 ID 更新一条已有记忆，旧内容会保存在历史中。更新成功后会自动增加该记忆的引用计数（hit），
        表示该记忆被重新关注，因此不必再对它调用 hit_memory。
        当新信息与已有条目说的是同一件事、或用户的情况发生了变化时使用，而不是新建重复条目。

        Args:
            id: 要更新的记忆 ID（来自 read_memories 的输出）。
            content: 更新后的完整内容（第三人称中文，一个事实，绝对日期）。
            reason: 修改原因，说明依据是对话中的哪句话、发生了什么变化。
        """
        memory_id = _text("id", id)
        text = _content(content)
        why = _text("reason", reason)
        try:
            mm.update(memory_id, why, new_description=text, actor=ACTOR)
            mm.hit(memory_id, actor=ACTOR)
        except MemoryNotFound:
            raise _not_found(memory_id) from None
        return done(f"已更新记忆 {memory_id}。", "update", (memory_id,), text, why)

    @tool(response_format="content_and_artifact")
    def delete_memory(id: str, reason: str) -> tuple[str, dict]:
        """根据 ID 删除一条记忆（移入回收站，用户仍可恢复）。
        用于已经过期的待办（如考试日期已过）、用户明确说不再成立或要求忘掉的信息。

        Args:
            id: 要删除的记忆 ID（来自 read_memories 的输出）。
            reason: 删除原因，说明为什么这条记忆不再需要。
        """
        memory_id = _text("id", id)
        why = _text("reason", reason)
        try:
            description = mm.delete(memory_id, why, actor=ACTOR)
        except MemoryNotFound:
            raise _not_found(memory_id) from None
        return done(f"已删除记忆 {memory_id}。", "delete", (memory_id,), description, why)

    @tool(response_format="content_and_artifact")
    def merge_memories(id1: str, id2: str, content: str, section: str, reason: str) -> tuple[str, dict]:
        """将两条描述同一事物的记忆合并为一条：id1 保留、id2 被删除，两者的修改历史都会保留。

        当两条记忆描述同一事物（如分散的身份信息、同一首歌在不同分区的重复条目）时使用，避免碎片化。

        Args:
            id1: 合并后保留的记忆 ID（主条目）。
            id2: 合并后将被删除的记忆 ID（从条目），必须与 id1 不同。
            content: 合并后的完整记忆内容，涵盖两条原条目的信息。
            section: 合并后的记忆分区。
            reason: 合并原因，说明为什么这两条记忆需要合并。
        """
        keep = _text("id1", id1)
        gone = _text("id2", id2)
        if keep == gone:
            raise ToolException("错误：id1 和 id2 相同，不能把一条记忆和它自己合并。")
        text = _content(content)
        theme = _text("section", section, MAX_SECTION_CHARS)
        why = _text("reason", reason)
        try:
            mm.merge(keep, gone, text, theme, why, actor=ACTOR)
        except MemoryNotFound as exc:
            raise _not_found(exc.memory_id) from None
        return done(f"已将记忆 {gone} 合并到 {keep}。", "merge", (keep, gone), text, why)

    @tool(response_format="content_and_artifact")
    def hit_memory(id: str) -> tuple[str, dict]:
        """标记一条记忆被引用一次，增加其 hit 计数。

        当本轮对话提到或用到了某条记忆（如被用于回答用户的问题）、但不需要修改它时调用。
        已经用 update_memory 更新过的条目不要再调用。

        Args:
            id: 要标记的记忆 ID（来自 read_memories 的输出）。
        """
        memory_id = _text("id", id)
        try:
            count = mm.hit(memory_id, actor=ACTOR)
            description = mm.get(memory_id).description
        except MemoryNotFound:
            raise _not_found(memory_id) from None
        return done(f"已标记记忆 {memory_id}（hit {count}）。", "hit", (memory_id,), description, "")

    tools = [create_memory, read_memories, update_memory, delete_memory, merge_memories, hit_memory]
    for t in tools:
        t.handle_tool_error = True
        t.handle_validation_error = _validation_message
    return tools
