"""What recall takes from the settings: its token budget (and which endpoint decides the automatic
one) and the optional embeddings model, whose background sync (``RecallVectors``) runs with the
app's agents. No Qt; the services apply it when they build the recall and when the settings change."""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Any, Callable

from ..config.settings import Settings
from ..memory.retrieval.budget import BudgetPolicy, is_local_endpoint
from ..redaction import register_secret

if TYPE_CHECKING:  # with numpy: imported when an embeddings model is set up
    from ..memory.retrieval.embeddings import EmbeddingsConfig

log = logging.getLogger(__name__)


def recall_budget(settings: Settings) -> BudgetPolicy:
    """The listing budget for ``settings``: the set number of tokens, or automatic for the chat
    endpoint (a local server is asked for its context in the background, at the first recall)."""
    return BudgetPolicy(settings.effective_base_url, settings.model.strip(), settings.api_key.strip(),
                        setting=settings.recall_budget_tokens)


def embeddings_config(settings: Settings) -> EmbeddingsConfig | None:
    """The embeddings model of ``settings`` (None: none is set up). Its key is hidden from the log."""
    if not settings.is_embeddings_configured:
        return None
    from ..memory.retrieval.embeddings import EmbeddingsConfig

    url = settings.effective_embeddings_base_url
    key = settings.effective_embeddings_api_key
    register_secret(key)
    return EmbeddingsConfig.of(url, settings.embeddings_model, key, dimensions=settings.embeddings_dimensions,
                               rpm=settings.embeddings_rpm, local=is_local_endpoint(url))


class RecallVectors:
    """The embeddings model's background sync for the running agents, given to recall as its dense
    ranking; nothing (and recall unchanged) without an embeddings model. ``publish`` receives each
    ``VectorStatus`` (the services' event feed). Never blocks: the sync opens its table and HTTP
    client in its own thread, and a replaced one finishes by itself."""

    def __init__(self, publish: Callable[[object], None]) -> None:
        self._publish = publish
        self.sync: Any = None  # VectorSync
        self._config: EmbeddingsConfig | None = None
        self._store: Any = None

    @property
    def status(self) -> Any:
        """The last ``VectorStatus`` (None without an embeddings model)."""
        return self.sync.status if self.sync is not None else None

    def apply(self, settings: Settings, store: Any, recall: Any) -> None:
        """Start, keep, restart or stop the sync for ``settings``; retry one that stopped on an error."""
        config = embeddings_config(settings)
        if config is not None and getattr(store, "path", None) is None:
            config = None  # a store without a place for vectors (never for the app's stores)
        if self.sync is not None and config == self._config and store is self._store:
            if self.sync.status.state == "error":
                self.sync.retry()
            return
        self.stop(wait=False)
        self._config, self._store = config, store
        if config is None:
            recall.dense = None
            return
        from ..memory.retrieval.vector_sync import VectorSync

        self.sync = VectorSync(store, config)
        self.sync.subscribe(self._publish)
        recall.dense = self.sync
        self.sync.start()
        log.info("embeddings: %s at %s", config.model, config.base_url)

    def stop(self, wait: bool = True) -> None:
        """Stop the sync (``wait``: until its thread ended, a few seconds at most: call it off the loop)."""
        sync, self.sync = self.sync, None
        if sync is not None:
            sync.stop(timeout=5.0 if wait else 0)
