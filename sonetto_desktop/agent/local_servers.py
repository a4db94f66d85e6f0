"""Find the model servers running on this computer (Ollama, LM Studio, llama.cpp). No Qt.

``find_local_servers(candidates)`` asks each address ``GET <base>/models`` at once (httpx, async),
with a short deadline for each (a closed port answers at once; a server that hangs is given up
on), and returns the ones that answered an OpenAI model list, in the order given, with their
models. It never raises (but is cancelled like any coroutine).

``find_local_servers_now`` runs it to the end on a loop of its own, for a worker thread, and leaves
out of each server's models those it says only embed (``LocalServer.embeddings``: Ollama lists its
models newest first, so a person who pulled an embeddings model for recall after their chat model was
offered it first, and 使用 made it the chat model; ``embeddings.local_server_models`` asks): the
settings dialog awaits that worker (``ui.memory_service.call``), so the asking never runs on the Qt
thread, and the dialog's task has one thing to wait for — closing the dialog cancels that wait, and
the worker's few requests end by themselves within the deadline.

The client ignores the environment's proxies (``trust_env=False``): a proxy would not reach this
computer's ports, and the question is not its business. An answer is read up to ``ANSWER_LIMIT``
bytes: a model list is small.
"""

from __future__ import annotations

import asyncio
import json
import logging
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any

log = logging.getLogger(__name__)

#: How long one address may take to answer (seconds).
PROBE_TIMEOUT = 0.8
#: The most an answer may hold (bytes): a list of a few hundred models is far less.
ANSWER_LIMIT = 1 << 20


@dataclass(frozen=True)
class LocalServer:
    """A server that answered: ``key`` as given with its address, ``base_url``, its model ids (for
    the chat: without ``embeddings``, the models it says only embed)."""

    key: str
    base_url: str
    models: tuple[str, ...]
    embeddings: tuple[str, ...] = ()


def model_ids(payload: Any) -> tuple[str, ...] | None:
    """The ids of an OpenAI model list (``{"data": [{"id": …}, …]}``), or None when it is not one."""
    if not isinstance(payload, dict) or not isinstance(payload.get("data"), list):
        return None
    ids = [row.get("id") for row in payload["data"] if isinstance(row, dict)]
    return tuple(dict.fromkeys(i.strip() for i in ids if isinstance(i, str) and i.strip()))


async def _ask(http: Any, base_url: str) -> tuple[str, ...] | None:
    response_body = bytearray()
    async with http.stream("GET", base_url.rstrip("/") + "/models") as response:
        if response.status_code != 200:
            return None
        async for chunk in response.aiter_bytes():
            response_body += chunk
            if len(response_body) > ANSWER_LIMIT:
                return None
    return model_ids(json.loads(bytes(response_body).decode("utf-8")))


async def _probe(http: Any, base_url: str, timeout: float) -> tuple[str, ...] | None:
    import httpx

    try:
        return await asyncio.wait_for(_ask(http, base_url), timeout)
    except (TimeoutError, httpx.HTTPError, OSError, ValueError) as exc:  # nothing there, or not a model server
        log.debug("No model server at %s (%s)", base_url, type(exc).__name__)
        return None


async def find_local_servers(candidates: Sequence[tuple[str, str]], *,
                             timeout: float = PROBE_TIMEOUT) -> list[LocalServer]:
    """The ``(key, base_url)`` candidates that answer a model list, in the order given. (Making the
    client reads the CA bundle: run it off the UI's loop, see ``find_local_servers_now``.)"""
    if not candidates:
        return []
    import httpx

    async with httpx.AsyncClient(trust_env=False, timeout=timeout) as http:
        answers = await asyncio.gather(*(_probe(http, url, timeout) for _, url in candidates))
    return [LocalServer(key, url, models) for (key, url), models in zip(candidates, answers, strict=True)
            if models is not None]


def find_local_servers_now(candidates: Sequence[tuple[str, str]], *,
                           timeout: float = PROBE_TIMEOUT) -> list[LocalServer]:
    """``find_local_servers`` on a loop of its own, to the end, each server's models for the chat
    (blocking: for a worker thread)."""
    return [_for_chat(server) for server in asyncio.run(find_local_servers(candidates, timeout=timeout))]


def _for_chat(server: LocalServer) -> LocalServer:
    """``server`` with the models it says only embed moved out of ``models`` into ``embeddings``
    (a few quick requests to the server; one that says nothing leaves its models as they are)."""
    chat = chat_models(server.base_url, server.models)
    if len(chat) == len(server.models):
        return server
    return replace(server, models=tuple(chat), embeddings=tuple(m for m in server.models if m not in chat))


def chat_models(base_url: str, models: Sequence[str], api_key: str = "") -> list[str]:
    """Of the ``models`` the local server at ``base_url`` lists, those that chat: the ones it says only
    embed left out (``embeddings.local_server_models``: a few quick requests; blocking, for a worker)."""
    from ..memory.retrieval.embeddings import local_server_models

    embeds = set(local_server_models(base_url, api_key).models)  # (Ollama's bare names for "name:latest")
    return [m for m in models if m not in embeds and m.removesuffix(":latest") not in embeds]
