"""Read-only views as MCP resources: ``memory://themes`` and ``memory://theme/{name}`` (JSON).

Resource reads cannot carry a tool error, and the SDK gives a static resource no context to learn
the client from, so the access check for them is a server middleware (:func:`resource_gate`): a
refused read is a protocol error with the reason. The cards are read by ``AppServices.run``
(``ops.Grouped``); a failed read is a protocol error in the one wording (``Failed.for_app``).

A theme is free text (``工作/学习``, ``C#``, ``..``): in a theme's URI (:func:`theme_uri`) what would end
the path segment or start a query is percent-encoded, and the name is no file path (the SDK's
path checks do not apply to it).
"""

# No ``from __future__ import annotations``: the SDK reads these signatures at run time.

import json
from collections.abc import Callable
from typing import Any
from urllib.parse import quote

from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.resources import ResourceSecurity
from mcp.shared.exceptions import MCPError
from mcp_types import INTERNAL_ERROR, INVALID_REQUEST

from .. import ops
from ..aio import run_blocking
from .access import Access, AccessDenied, caller_of, written_by
from .tools import unreadable_now

MAX_THEME_CARDS = 500
_GATED = frozenset({"resources/read", "resources/list", "resources/templates/list"})


def theme_uri(name: str) -> str:
    """The URI that reads theme ``name``: letters and digits of any script as they are, every other
    character percent-encoded (the SDK decodes it back; a name of dots too, never a dot segment)."""
    safe = "-_~" if name.strip(".") == "" else "-_.~"
    return "memory://theme/" + "".join(ch if ch.isalnum() or ch in safe else quote(ch, safe="") for ch in name)


async def _grouped(services: Any) -> dict[str, list[dict[str, Any]]]:
    why = unreadable_now(services)
    if why is not None:  # (an empty answer would read as "no memories")
        raise MCPError(INTERNAL_ERROR, why)
    outcome = await services.run(ops.Grouped())
    if isinstance(outcome, ops.Failed):
        raise MCPError(INTERNAL_ERROR, outcome.for_app)
    return outcome.value


def register_resources(server: MCPServer, services: Any) -> None:
    """The resources over ``services`` (``AppServices``: whichever store is open now)."""

    @server.resource("memory://themes", name="themes", mime_type="application/json",
                     description="记忆的主题及每个主题的条数 / the memories' themes and how many each holds")
    async def themes() -> str:
        groups = await _grouped(services)
        rows = [{"theme": name, "count": len(cards), "uri": theme_uri(name)}
                for name, cards in sorted(groups.items())]
        return json.dumps({"themes": rows}, ensure_ascii=False)

    @server.resource("memory://theme/{name}", name="theme", mime_type="application/json",
                     description=f"一个主题下的记忆（最近更新的在前，最多 {MAX_THEME_CARDS} 条；count 是总数）"
                                 f" / the memories of one theme, newest first (at most {MAX_THEME_CARDS}; count: how many in all)",
                     security=ResourceSecurity(exempt_params={"name"}))  # a theme, not a file path
    async def theme(name: str) -> str:
        groups = await _grouped(services)
        cards = groups.get(name, [])
        answer: dict[str, Any] = {"theme": name, "count": len(cards),
                                  "memories": [_row(c) for c in cards[:MAX_THEME_CARDS]]}
        if len(cards) > MAX_THEME_CARDS:  # (an app must not take the first part for the whole theme)
            answer["note"] = (f"只列出最近更新的 {MAX_THEME_CARDS} 条（共 {len(cards)} 条）；其余的用 list_memories"
                              f"（theme、offset={MAX_THEME_CARDS}）分页读取 / only the {MAX_THEME_CARDS} most recently "
                              f"updated of {len(cards)}: page through the rest with list_memories (theme, "
                              f"offset={MAX_THEME_CARDS})")
        return json.dumps(answer, ensure_ascii=False)


def _row(card: dict[str, Any]) -> dict[str, Any]:
    row = {"id": card["id"], "description": card["description"], "date": str(card["latest_update_time"] or "")[:10],
           "locked": bool(card.get("locked"))}
    app = written_by(card.get("author"))
    if app is not None:  # another app's words, not the person's (tools._card)
        row["written_by"] = app
    return row


def resource_gate(access: Access) -> Callable[..., Any]:
    """Server middleware: resource requests only for clients the settings allow."""

    async def gate(ctx: Any, call_next: Callable[[Any], Any]) -> Any:
        if ctx.method in _GATED:
            try:
                await run_blocking(access.check, caller_of(ctx), write=False)
            except AccessDenied as exc:
                raise MCPError(INVALID_REQUEST, str(exc)) from None
        return await call_next(ctx)

    return gate
