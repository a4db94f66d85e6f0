"""What the scripted test server (``llm_server.py``) answers: the scripted response kinds, and the
OpenAI ``chat.completion`` / ``chat.completion.chunk`` payloads built from them. Stdlib and the app's token estimate."""

from __future__ import annotations

import json
import re
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any, Union

from sonetto_desktop.memory.token_estimate import estimate_tokens

# --------------------------------------------------------------------------------------------------
# Response kinds


@dataclass(frozen=True)
class TextResponse:
    text: str
    finish: str | None = "stop"  # the finish_reason it ends with ("length": cut at the model's limit; None: none said)


@dataclass(frozen=True)
class ToolCallsResponse:
    calls: tuple[tuple[str, dict[str, Any]], ...]
    text: str = ""


@dataclass(frozen=True)
class ErrorResponse:
    status: int
    message: str
    type: str = "server_error"
    code: str | None = None
    retry_after_ms: int = 10


@dataclass(frozen=True)
class HangResponse:
    seconds: float


@dataclass(frozen=True)
class GarbageResponse:
    body: str = "<html><body>502 Bad Gateway (not JSON)</body></html>"


@dataclass(frozen=True)
class MalformedStreamResponse:
    """Streams a valid first chunk, then a chunk that is not JSON, then closes (no [DONE])."""

    text: str = "好的"


@dataclass(frozen=True)
class StallingStreamResponse:
    """Streams ``text`` (no finish chunk, no [DONE]), then sends nothing for ``seconds`` and closes."""

    text: str
    seconds: float


Response = Union[
    TextResponse, ToolCallsResponse, ErrorResponse, HangResponse, GarbageResponse, MalformedStreamResponse,
    StallingStreamResponse,
]

_ERROR_DEFAULTS: dict[int, tuple[str, str | None]] = {
    400: ("invalid_request_error", None),
    401: ("invalid_request_error", "invalid_api_key"),
    403: ("invalid_request_error", "permission_denied"),
    404: ("invalid_request_error", "model_not_found"),
    429: ("requests", "rate_limit_exceeded"),
}


def tool_calls(calls: Iterable[tuple[str, dict[str, Any]]], text: str = "") -> ToolCallsResponse:
    return ToolCallsResponse(tuple((name, dict(args)) for name, args in calls), text)


def error(status: int, message: str, *, type: str | None = None, code: str | None = None) -> ErrorResponse:
    default_type, default_code = _ERROR_DEFAULTS.get(status, ("server_error", None))
    return ErrorResponse(status, message, type or default_type, code if code is not None else default_code)


# --------------------------------------------------------------------------------------------------
# Token counts in usage: the app's one estimate (sonetto_desktop/memory/token_estimate.py)


def _content_text(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "".join(part.get("text", "") for part in content if isinstance(part, dict))
    return "" if content is None else str(content)


def _prompt_tokens(body: dict[str, Any]) -> int:
    total = 0
    for msg in body.get("messages") or []:
        if not isinstance(msg, dict):
            continue
        total += 4 + estimate_tokens(_content_text(msg.get("content")))
        for call in msg.get("tool_calls") or []:
            total += estimate_tokens(json.dumps(call, ensure_ascii=False))
    if body.get("tools"):
        total += estimate_tokens(json.dumps(body["tools"], ensure_ascii=False))
    return total


def _split(text: str, size: int) -> list[str]:
    return [text[i : i + size] for i in range(0, len(text), size)] or [""]


# --------------------------------------------------------------------------------------------------
# Payloads in the OpenAI chat.completion / chat.completion.chunk formats


def _message_parts(response: TextResponse | ToolCallsResponse, next_id: Callable[[], int]) -> tuple[str, list]:
    if isinstance(response, TextResponse):
        return response.text, []
    calls = [
        {"id": f"call_{next_id()}", "type": "function",
         "function": {"name": name, "arguments": json.dumps(args, ensure_ascii=False)}}
        for name, args in response.calls
    ]
    return response.text, calls


def _usage(body: dict[str, Any], content: str, calls: list[dict[str, Any]]) -> dict[str, int]:
    prompt = _prompt_tokens(body)
    completion = estimate_tokens(content)
    completion += sum(estimate_tokens(c["function"]["name"] + c["function"]["arguments"]) for c in calls)
    return {"prompt_tokens": prompt, "completion_tokens": completion, "total_tokens": prompt + completion}


def completion(body: dict[str, Any], response: TextResponse | ToolCallsResponse, next_id: Callable[[], int]) -> dict:
    """The non-streaming ``chat.completion`` answer to ``body``."""
    content, calls = _message_parts(response, next_id)
    message: dict[str, Any] = {"role": "assistant", "content": content if (content or not calls) else None}
    if calls:
        message["tool_calls"] = calls
    finish = "tool_calls" if calls else getattr(response, "finish", "stop")
    choice = {"index": 0, "message": message, "finish_reason": finish, "logprobs": None}
    return {"id": f"chatcmpl-{next_id()}", "object": "chat.completion", "created": int(time.time()),
            "model": body.get("model", ""), "choices": [choice], "usage": _usage(body, content, calls)}


def stream_events(
    body: dict[str, Any], response: TextResponse | ToolCallsResponse, next_id: Callable[[], int], chunk_size: int
) -> list[dict[str, Any]]:
    """The ``chat.completion.chunk`` events of a streamed answer (without the final ``[DONE]``)."""
    content, calls = _message_parts(response, next_id)
    head = {"id": f"chatcmpl-{next_id()}", "object": "chat.completion.chunk", "created": int(time.time()),
            "model": body.get("model", "")}

    def chunk(delta: dict[str, Any], finish: str | None = None) -> dict[str, Any]:
        return {**head, "choices": [{"index": 0, "delta": delta, "finish_reason": finish, "logprobs": None}]}

    events = [chunk({"role": "assistant", "content": ""})]
    if content:
        events += [chunk({"content": piece}) for piece in _split(content, chunk_size)]
    for index, call in enumerate(calls):
        fn = call["function"]
        start = {"index": index, "id": call["id"], "type": "function", "function": {"name": fn["name"], "arguments": ""}}
        events.append(chunk({"tool_calls": [start]}))
        events += [chunk({"tool_calls": [{"index": index, "function": {"arguments": piece}}]})
                   for piece in _split(fn["arguments"], 8)]
    events.append(chunk({}, "tool_calls" if calls else getattr(response, "finish", "stop")))
    if (body.get("stream_options") or {}).get("include_usage"):
        events.append({**head, "choices": [], "usage": _usage(body, content, calls)})
    return events


# --------------------------------------------------------------------------------------------------
# The writer's memory listing, read as a scripted model reads it


@dataclass(frozen=True)
class ListedMemory:
    """One row of the writer's listing: ``ID 日期 "内容" 提示`` under a ``【分区】`` (or ``【分区·已过期】``) header."""

    id: str
    section: str
    day: str
    text: str
    hints: tuple[str, ...]
    line: str


_SECTION = re.compile(r"^【(.+?)(·已过期)?】$")
_ROW = re.compile(r'^(\S+) (\S+) ("(?:[^"\\]|\\.)*")(?: (.+))?$')


def listed_memories(text: str) -> dict[str, ListedMemory]:
    """The memories a writer listing shows, by id, in the order listed (an expired group's rows get
    the ``已过期`` hint)."""
    out: dict[str, ListedMemory] = {}
    section, expired = "", False
    for line in text.splitlines():
        if (head := _SECTION.match(line)) is not None:
            section, expired = head.group(1), bool(head.group(2))
        elif section and (row := _ROW.match(line)) is not None:
            hints = tuple(h for h in (row.group(4) or "").split("；") if h) + (("已过期",) if expired else ())
            out[row.group(1)] = ListedMemory(row.group(1), section, row.group(2), json.loads(row.group(3)), hints, line)
    return out
