"""``bench.recall_reach --embeddings``: the recall's dense ranking through the scripted server.

The scripted OpenAI-compatible server (``tests/llm_server.py``) embeds deterministically (hashed
characters and pairs plus a few shared concepts): it exercises the whole path — the HTTP client,
the background sync into the store's vector table, the query's vector, the fusion — but its
"semantics" are a stand-in, so its reach says nothing about a real embeddings model's.
"""

from __future__ import annotations

import atexit
from typing import Any

from llm_server import ScriptedLLMServer
from sonetto_desktop.memory.retrieval.embeddings import EmbeddingsConfig
from sonetto_desktop.memory.retrieval.vector_sync import VectorSync

_SERVER: ScriptedLLMServer | None = None


def _server() -> ScriptedLLMServer:
    global _SERVER
    if _SERVER is None:
        _SERVER = ScriptedLLMServer().start()
        atexit.register(_SERVER.stop)
    return _SERVER


class ScriptedDense:
    """A running ``VectorSync`` over the bench's store; ``sync()`` waits until every memory has its vector."""

    def __init__(self, bank: Any) -> None:
        server = _server()
        config = EmbeddingsConfig(server.base_url, "scripted-embed", "sk-bench", batch=256)
        self.vectors = VectorSync(bank.mm, config).start()
        self.sync()

    def sync(self) -> None:
        if not self.vectors.wait_idle(600):
            raise RuntimeError(f"the vectors did not finish: {self.vectors.status}")

    def embed_query(self, prompt: str) -> Any | None:
        return self.vectors.embed_query(prompt)

    def nearest(self, vector: Any, k: int) -> list[str]:
        return self.vectors.nearest(vector, k)

    def close(self) -> None:
        self.vectors.stop()


def scripted_dense(bank: Any) -> ScriptedDense:
    return ScriptedDense(bank)
