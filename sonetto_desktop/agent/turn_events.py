"""Turning a graph run into ChatEvents: the LangChain / LangGraph side of ``chat_events``."""

from __future__ import annotations

import asyncio
import json
from typing import Any

from langchain_core.messages import AIMessage, ToolMessage

from ..memory.unicode_text import storable
from .chat_events import ChatEvent
from .llm_errors import describe_llm_error
from .stall_guard import ReplyStalled

TOOL_TEXT_LIMIT = 2_000


def describe_turn_error(exc: BaseException, turn_id: str = "", *, api_key: str = "", model: str = "") -> ChatEvent:
    """One ``error`` ChatEvent for whatever ended a turn early."""
    if isinstance(exc, asyncio.CancelledError):
        zh, en, code = "已停止回复。", "The reply was stopped.", "cancelled"
    elif isinstance(exc, ReplyStalled):
        zh, en, code = *_stall_message(exc), "timeout"
    else:  # a tool loop (GraphRecursionError) and an empty reply are worded there too
        info = describe_llm_error(exc, api_key=api_key, model=model)
        zh, en, code = info.zh, info.en, info.code
    return ChatEvent("error", turn_id=turn_id, error_code=code, error_zh=zh, error_en=en)


def _stall_message(exc: ReplyStalled) -> tuple[str, str]:
    seconds = f"{exc.seconds:g}"
    if exc.phase == "first_token":
        return (
            f"模型在 {seconds} 秒内没有开始回复，已停止等待。可以稍后再试；如果是本地模型正在加载，"
            "可以在“设置”里调大“首字超时”。",
            f"The model did not start replying within {seconds} s, so Sonetto stopped waiting. Try again later; "
            "if a local model is still loading, raise the first-token timeout in Settings.",
        )
    return (
        f"模型的回复中断了：{seconds} 秒内没有收到新的内容。已经收到的部分保留了下来。",
        f"The reply stalled: nothing new arrived for {seconds} s. What arrived so far is kept.",
    )


def error_dict(event: ChatEvent) -> dict[str, str]:
    return {"code": event.error_code, "zh": event.error_zh, "en": event.error_en}


class TurnRecorder:
    """Turns the graph's ``astream(stream_mode=["messages", "updates"])`` items into ChatEvents and
    remembers what the turn produced (memories, streamed text, finished replies, node order)."""

    def __init__(self) -> None:
        self.memories: list[dict[str, Any]] = []
        self.replies: list[str] = []  # text of each finished agent message
        self.tokens: list[str] = []  # text streamed by the agent node so far
        self.pending: list[str] = []  # streamed text of the agent call still running
        self.nodes: list[str] = []
        self._half = ""  # a high surrogate that ended the last chunk: its pair may open the next

    def _whole(self, text: str) -> str:
        """``text`` after the held half, holding back its own trailing high surrogate: a server
        cutting its reply by UTF-16 units sends an emoji's halves in two chunks, and each made
        storable alone would show (and keep) two U+FFFD."""
        text = self._half + text
        self._half = text[-1] if text and "\ud800" <= text[-1] <= "\udbff" else ""
        return storable(text[:-1] if self._half else text)

    def handle(self, mode: str, chunk: Any) -> list[ChatEvent]:
        if mode == "messages":
            message, meta = chunk
            if meta.get("langgraph_node") == "agent" and isinstance(message, AIMessage) and message.text:
                text = self._whole(message.text)  # a lone surrogate cannot be stored or shown: U+FFFD
                if not text:
                    return []
                self.tokens.append(text)
                self.pending.append(text)
                return [ChatEvent("token", text=text)]
            return []
        events: list[ChatEvent] = []
        for node, update in (chunk or {}).items():
            self.nodes.append(node)
            update = update or {}
            if node == "retrieve_memory":
                self.memories = list(update.get("used_memories") or [])
                events.append(ChatEvent("memories", memories=self.memories))
            elif node == "agent":
                self.pending, self._half = [], ""
                for message in update.get("messages") or []:
                    if isinstance(message, AIMessage):
                        if message.text:
                            self.replies.append(storable(message.text))
                        for call in message.tool_calls:
                            events.append(ChatEvent("tool_start", tool=call["name"], text=_short(call.get("args"))))
            elif node == "tools":
                for message in update.get("messages") or []:
                    if isinstance(message, ToolMessage):
                        events.append(ChatEvent("tool_end", tool=message.name or "", text=_short(message.text)))
        return events

    def reply_text(self) -> str:
        return "".join(self.replies)

    def streamed_text(self) -> str:
        return "".join(self.tokens) + storable(self._half) or "".join(self.replies)

    def uncommitted_text(self) -> str:
        return "".join(self.pending) + storable(self._half)


def _short(value: Any) -> str:
    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False, default=str)
    return text if len(text) <= TOOL_TEXT_LIMIT else text[: TOOL_TEXT_LIMIT - 1] + "…"
