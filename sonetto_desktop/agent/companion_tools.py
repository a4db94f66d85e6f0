"""Sonetto's own tools: the current date/time and an explicit search of long-term memory. No Qt.

The memory *writer* has its own CRUD tools; these are the chat agent's, read-only.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any, Callable

from langchain_core.runnables import RunnableConfig
from langchain_core.tools import BaseTool, StructuredTool

from ..memory.item import weekday_zh
from ..memory.retrieval.modes import RetrievalMode
from .memory_context import format_search_result

Clock = Callable[[], datetime]

SEARCH_LIMIT = 8
#: What the search tool answers in a chat that does not use memory (temporary, or recall switched off).
NO_RECALL = "这个对话不使用长期记忆（用户关闭了回忆），不能搜索记忆。"


def local_now() -> datetime:
    return datetime.now().astimezone()


def make_time_tool(now: Clock = local_now) -> BaseTool:
    def get_current_time() -> str:
        """获取当前的本地日期、星期和时间。需要确切时间或日期时调用。"""
        moment = now()
        return f"{moment:%Y-%m-%d %H:%M} {weekday_zh(moment)}（{moment.isoformat(timespec='seconds')}）"

    return StructuredTool.from_function(get_current_time, name="get_current_time")


def make_search_tool(ltm: Any, limit: int = SEARCH_LIMIT) -> BaseTool:
    async def search_memory(query: str, config: RunnableConfig) -> str:
        """在长期记忆中搜索与 query 有关的往事（关键词即可，例如“猫”“期末考试”）。"""
        if not isinstance(query, str) or not query.strip():
            raise ValueError("query 不能为空")
        if not ((config or {}).get("configurable") or {}).get("sonetto_recall", True):
            return NO_RECALL
        found = await ltm.aget_related_memory_from(query.strip(), RetrievalMode.MECHANICAL)
        return format_search_result(list(found or [])[:limit])  # recalled memories carry their dates

    return StructuredTool.from_function(coroutine=search_memory, name="search_memory")


def build_companion_tools(ltm: Any, *, now: Clock = local_now) -> list[BaseTool]:
    """The default tool set of the chat agent."""
    return [make_time_tool(now), make_search_tool(ltm)]
