"""What recall takes from the settings: its token budget (and which endpoint decides the automatic
one) and the embeddings model — built in by default, an endpoint, or none (:func:`embeddings_plan`
says which runs on this platform) — whose background sync (``RecallVectors``) runs with the app's
agents. No Qt; the services apply it when they build the recall and when the settings change."""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Callable

from ..config.settings import Settings
from ..memory.retrieval.budget import BudgetPolicy, is_local_endpoint
from ..memory.retrieval.builtin_model import BuiltinModel, builtin_config, builtin_model
from ..redaction import register_secret

if TYPE_CHECKING:  # with numpy: imported when an embeddings model is set up
    from ..memory.retrieval.embeddings import EmbeddingsConfig

log = logging.getLogger(__name__)

#: The built-in model's sync waits this long after the agents start before it loads the model and
#: embeds: the window, the recall index's warm-up and the first reply have the first seconds.
BUILTIN_START_DELAY = 8.0
#: ``builtin`` argument meaning "what this installation has" (``builtin_model()``).
INSTALLED = object()


@dataclass(frozen=True)
class EmbeddingsPlan:
    """What runs for a person's settings on this installation. ``runs``: "builtin" | "endpoint" |
    "off"; ``model``: the model's name ("" when off); ``builtin``: this installation's built-in model
    (None: none here); ``fallback``: the built-in model was chosen but there is none here, so an
    endpoint (when one is filled in) or words only run instead: the window says so once."""

    source: str
    runs: str
    model: str
    builtin: BuiltinModel | None
    fallback: bool = False


def resolve_builtin(builtin: Any = INSTALLED) -> BuiltinModel | None:
    return builtin_model() if builtin is INSTALLED else builtin


def embeddings_plan(settings: Settings, builtin: Any = INSTALLED) -> EmbeddingsPlan:
    """What runs for ``settings``; ``builtin``: this installation's built-in model (default: found
    by what is installed; None: a platform without one, as tests make it)."""
    model = resolve_builtin(builtin)
    source = settings.embeddings_source
    if source == "builtin" and model is not None:
        return EmbeddingsPlan(source, "builtin", model.name, model)
    endpoint = settings.has_embeddings_endpoint and source in ("builtin", "endpoint")
    if endpoint:
        return EmbeddingsPlan(source, "endpoint", settings.embeddings_model.strip(), model, source == "builtin")
    return EmbeddingsPlan(source, "off", "", model, source == "builtin")


#: Memories a second the built-in model embeds in the background (one thread, a busy laptop core;
#: docs/benchmarks.md): what the time of a first build or a re-embedding is estimated from.
BUILTIN_RATE = 15.0


@dataclass(frozen=True)
class ReembedCost:
    """What embedding ``memories`` memories (~``tokens`` estimated tokens) with the new model takes:
    ``where`` "builtin" (this computer: ``minutes``), "local" (a server on this computer or network:
    free) or "cloud" (``price`` in ``currency`` at the preset's list price; None: unknown)."""

    memories: int
    tokens: int
    where: str
    price: float | None = None
    currency: str = ""
    minutes: float | None = None
    label: str = ""  # the preset whose price it is
    label_en: str = ""  # (its name in an English window)


def reembed_cost(memories: int, tokens: int, settings: Settings, builtin: Any = INSTALLED) -> ReembedCost:
    """The cost of embedding every memory again with the model ``settings`` run (for the consent question)."""
    from ..memory.retrieval.embeddings import preset_for

    config = embeddings_config(settings, builtin)
    if config is None or config.builtin:
        return ReembedCost(memories, tokens, "builtin", minutes=memories / BUILTIN_RATE / 60.0)
    if is_local_endpoint(config.base_url):
        return ReembedCost(memories, tokens, "local", price=0.0)
    preset = preset_for(config)
    if preset is None:
        return ReembedCost(memories, tokens, "cloud")
    return ReembedCost(memories, tokens, "cloud", tokens / 1e6 * preset.price_per_mtok, preset.currency,
                       label=preset.label, label_en=preset.label_in(True))


def recall_budget(settings: Settings, notify: Callable[[object], None] | None = None) -> BudgetPolicy:
    """The listing budget for ``settings``: the set number of tokens, or automatic for the chat
    endpoint (a local server is asked for its context in the background, at the first recall; an
    Ollama server is asked for a longer one with each recall request when it holds too little). The
    context it reports is in its model's tokens: turned into estimated ones by the tokenizer family.
    ``notify`` receives a ``ContextNotice`` when the server's context is cutting recall."""
    from sonetto_desktop.memory.retrieval.token_count import family_for

    url, model = settings.effective_base_url, settings.model.strip()
    return BudgetPolicy(url, model, settings.api_key.strip(), setting=settings.recall_budget_tokens,
                        notify=notify, per_estimate=family_for(url, model).per_estimate)


def embeddings_config(settings: Settings, builtin: Any = INSTALLED) -> EmbeddingsConfig | None:
    """The embeddings model that runs for ``settings`` (:func:`embeddings_plan`; None: none). An
    endpoint's key is hidden from the log."""
    plan = embeddings_plan(settings, builtin)
    if plan.runs == "builtin":
        assert plan.builtin is not None
        return builtin_config(plan.builtin)
    if plan.runs != "endpoint":
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
    ``VectorStatus`` (the services' event feed). ``builtin``: this installation's built-in model
    (default: what is installed; None: a platform without one). ``start_delay``: the built-in model's
    wait before it starts (``BUILTIN_START_DELAY``). Never blocks: the sync opens its table and
    client in its own thread, and a replaced one finishes by itself."""

    def __init__(self, publish: Callable[[object], None], *, builtin: Any = INSTALLED,
                 start_delay: float = BUILTIN_START_DELAY) -> None:
        self._publish = publish
        self.builtin = resolve_builtin(builtin)
        self._start_delay = start_delay
        self.sync: Any = None  # VectorSync
        self._config: EmbeddingsConfig | None = None
        self._store: Any = None
        self.plan: EmbeddingsPlan | None = None

    @property
    def status(self) -> Any:
        """The last ``VectorStatus`` (None without an embeddings model)."""
        return self.sync.status if self.sync is not None else None

    def apply(self, settings: Settings, store: Any, recall: Any) -> None:
        """Start, keep, restart or stop the sync for ``settings``; retry one that stopped on an error."""
        self.plan = embeddings_plan(settings, self.builtin)
        config = embeddings_config(settings, self.builtin)
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

        self.sync = VectorSync(store, config, start_delay=self._start_delay if config.builtin else 0.0)
        self.sync.subscribe(self._publish)
        recall.dense = self.sync
        self.sync.start()
        log.info("embeddings: %s at %s", config.model, config.base_url)

    def consent(self, asked: int | None = None) -> None:
        """The person agreed to embed every memory with the new model (``VectorStatus`` "consent";
        ``asked``: the question answered, see ``VectorSync.consent``)."""
        if self.sync is not None:
            self.sync.consent(asked)

    def stop(self, wait: bool = True) -> None:
        """Stop the sync (``wait``: until its thread ended, a few seconds at most: call it off the loop)."""
        sync, self.sync = self.sync, None
        if sync is not None:
            sync.stop(timeout=5.0 if wait else 0)
