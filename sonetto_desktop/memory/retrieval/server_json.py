"""Reading what a local or OpenAI-compatible server says about itself: JSON answers, or nothing.

The context probe (``budget.probe_context``) and the embeddings models' listing
(``embeddings.local_server_models``) ask a chat server's own API (llama.cpp ``/props``, Ollama
``/api/show``, LM Studio ``/api/v0/models``, ``/v1/models``). Each question either gets a JSON answer
with status 200 or is taken as "this server does not say": a refusal, a timeout, a body that is not
JSON. Blocking (httpx): call it from a worker.
"""

from __future__ import annotations

from typing import Any

__all__ = ["ServerJson"]


class ServerJson:
    """GET and POST JSON at ``base_url`` (the OpenAI-compatible address, ``…/v1``) and at its ``root``
    (the address without ``/v1``: where Ollama, LM Studio and llama.cpp keep their own APIs).
    ``client``: an ``httpx.Client`` to use (not closed here); by default one of its own."""

    def __init__(self, base_url: str, api_key: str = "", *, timeout: float = 2.0, client: Any = None) -> None:
        import httpx

        self.base = base_url.strip().rstrip("/")
        self.root = self.base[: -len("/v1")] if self.base.endswith("/v1") else self.base
        self.headers = {"Authorization": f"Bearer {api_key}"} if api_key else {}
        self.timeout = timeout
        self._own = client is None
        self.http = client or httpx.Client(timeout=timeout, headers=self.headers)

    def get(self, url: str) -> Any:
        """The JSON answer of a GET of ``url``, or None."""
        return self._answer(lambda: self.http.get(url, headers=self.headers, timeout=self.timeout))

    def post(self, url: str, body: dict) -> Any:
        """The JSON answer of a POST of ``body`` to ``url``, or None."""
        return self._answer(lambda: self.http.post(url, json=body, headers=self.headers, timeout=self.timeout))

    @staticmethod
    def _answer(send: Any) -> Any:
        import httpx

        try:
            reply = send()
        except httpx.HTTPError:
            return None
        if reply.status_code != 200:
            return None
        try:
            return reply.json()
        except ValueError:
            return None

    def close(self) -> None:
        if self._own:
            self.http.close()

    def __enter__(self) -> "ServerJson":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
