"""An optional embeddings model over any OpenAI-compatible ``POST /v1/embeddings`` endpoint.

Presets name the models people use with this app (:data:`PRESETS`); any other model works as
"custom". A request sends ``{"model", "input": [...], "encoding_format": "float"}`` (some servers
reject the SDK's default base64) and ``dimensions`` only where the model accepts it (OpenAI's -3
models, DashScope's v3/v4); vectors are matched to inputs by their ``index``. Texts go in batches of
at most the preset's size (DashScope takes 10 rows per request). Errors say what went wrong in
words and never carry the API key (``EmbeddingsError``): ``retryable`` ones (429, 5xx, a dropped
connection, a timeout) come with the wait the server asked for (``Retry-After``).

The HTTP client is httpx and the vectors numpy arrays, both imported on first use (the presets are
read by the settings page). Blocking: call it from a worker thread.
"""

from __future__ import annotations

import hashlib
import logging
import time
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Sequence

from ..errors import redact

if TYPE_CHECKING:
    import numpy as np

__all__ = ["EmbeddingsClient", "EmbeddingsConfig", "EmbeddingsError", "PRESETS", "Preset", "TestResult"]

log = logging.getLogger(__name__)


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


PRESETS: dict[str, Preset] = {p.key: p for p in (
    Preset("openai-3-small", "OpenAI text-embedding-3-small", "https://api.openai.com/v1",
           "text-embedding-3-small", 1536, send_dimensions=True, batch=256, rpm=300),
    Preset("dashscope-v3", "阿里云百炼 text-embedding-v3", "https://dashscope.aliyuncs.com/compatible-mode/v1",
           "text-embedding-v3", 1024, send_dimensions=True, batch=10, rpm=300),
    Preset("siliconflow-bge-m3", "硅基流动 BAAI/bge-m3", "https://api.siliconflow.cn/v1",
           "BAAI/bge-m3", 1024, batch=32, rpm=120),
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
    def key(self) -> str:
        """Names this model's vectors: the endpoint, the model and the size (another one's are others)."""
        raw = f"{self.base_url.lower()}|{self.model}|{self.dimensions}|{self.document_prefix}"
        return hashlib.sha1(raw.encode("utf-8")).hexdigest()[:16]


class EmbeddingsError(Exception):
    """An embeddings request failed. ``retryable``: try again after ``retry_after`` seconds (None:
    the caller's own back-off); otherwise (a wrong key, an unknown model) it will not work until
    the settings change."""

    def __init__(self, message: str, *, status: int | None = None, retryable: bool = False,
                 retry_after: float | None = None) -> None:
        super().__init__(message)
        self.status = status
        self.retryable = retryable
        self.retry_after = retry_after


@dataclass(frozen=True)
class TestResult:
    """The outcome of :meth:`EmbeddingsClient.test`, in words for a person."""

    ok: bool
    zh: str
    en: str
    dimensions: int = 0
    latency_ms: float | None = None


def _retry_after(headers: Any) -> float | None:
    for name, scale in (("retry-after-ms", 0.001), ("retry-after", 1.0)):
        value = headers.get(name)
        if value:
            try:
                return max(0.0, float(value) * scale)
            except ValueError:
                continue
    return None


class EmbeddingsClient:
    """Vectors for texts from one embeddings model. ``close()`` releases the connection pool."""

    def __init__(self, config: EmbeddingsConfig, *, client: Any = None) -> None:
        import httpx

        self.config = config
        self._own = client is None
        headers = {"Authorization": f"Bearer {config.api_key}"} if config.api_key else {}
        self._http = client or httpx.Client(timeout=config.timeout, headers=headers)
        self._headers = headers

    def close(self) -> None:
        if self._own:
            self._http.close()

    def embed(self, texts: Sequence[str], *, query: bool = False, timeout: float | None = None) -> np.ndarray:
        """One float32 row per text (in order), L2-normalised. Raises :class:`EmbeddingsError`."""
        import numpy as np

        prefix = self.config.query_prefix if query else self.config.document_prefix
        rows: list[np.ndarray] = []
        for start in range(0, len(texts), max(1, self.config.batch)):
            batch = [prefix + (text or " ") for text in texts[start : start + self.config.batch]]
            rows.append(self._request(batch, timeout))
        if not rows:
            return np.zeros((0, max(self.config.dimensions, 1)), np.float32)
        matrix = np.vstack(rows)
        norms = np.linalg.norm(matrix, axis=1, keepdims=True)
        return (matrix / np.where(norms > 0, norms, 1.0)).astype(np.float32)

    def _request(self, batch: list[str], timeout: float | None) -> np.ndarray:
        import httpx
        import numpy as np

        body: dict[str, Any] = {"model": self.config.model, "input": batch, "encoding_format": "float"}
        if self.config.send_dimensions and self.config.dimensions:
            body["dimensions"] = self.config.dimensions
        url = f"{self.config.base_url}/embeddings"
        try:
            reply = self._http.post(url, json=body, headers=self._headers,
                                    timeout=timeout if timeout is not None else self.config.timeout)
        except httpx.TimeoutException as exc:
            raise EmbeddingsError(f"no answer from {self.config.base_url} in time", retryable=True) from exc
        except httpx.HTTPError as exc:
            raise EmbeddingsError(f"cannot reach {self.config.base_url}: {self._clean(str(exc))}",
                                  retryable=True) from exc
        if reply.status_code != 200:
            raise self._error(reply)
        try:
            data = reply.json()["data"]
            ordered = sorted(data, key=lambda row: int(row.get("index", 0)))
            matrix = np.asarray([row["embedding"] for row in ordered], dtype=np.float32)
        except (ValueError, KeyError, TypeError, AttributeError) as exc:
            raise EmbeddingsError(f"the answer is not an embeddings response ({type(exc).__name__})") from exc
        if matrix.ndim != 2 or len(matrix) != len(batch) or not matrix.shape[1]:
            raise EmbeddingsError(f"asked for {len(batch)} vectors, got {matrix.shape[0] if matrix.ndim else 0}")
        if not np.all(np.isfinite(matrix)):
            raise EmbeddingsError("the answer holds vectors that are not numbers")
        return matrix

    def _clean(self, text: str) -> str:
        text = " ".join(redact(text, self.config.api_key).split())
        return text if len(text) <= 200 else text[:197] + "..."

    def _error(self, reply: Any) -> EmbeddingsError:
        status = reply.status_code
        try:
            payload = reply.json()
            detail = payload.get("error", payload)
            message = detail.get("message") if isinstance(detail, dict) else str(detail)
        except (ValueError, AttributeError):
            message = reply.text
        text = f"HTTP {status}: {self._clean(str(message or reply.reason_phrase))}"
        retryable = status == 429 or status >= 500 or status == 408
        return EmbeddingsError(text, status=status, retryable=retryable,
                               retry_after=_retry_after(reply.headers) if retryable else None)

    def test(self) -> TestResult:
        """Embed one short text: does the model answer, and with vectors of which size."""
        start = time.perf_counter()
        try:
            vector = self.embed(["测试一下向量模型"], timeout=min(self.config.timeout, 20.0))
        except EmbeddingsError as exc:
            hint_zh, hint_en = _hint(exc.status)
            return TestResult(False, f"向量模型不可用：{exc}{hint_zh}", f"The embeddings model does not work: {exc}{hint_en}")
        ms = (time.perf_counter() - start) * 1000
        dims = int(vector.shape[1])
        return TestResult(True, f"向量模型可用：{dims} 维，{ms:.0f} 毫秒", f"The embeddings model works: {dims} dimensions, "
                          f"{ms:.0f} ms", dims, ms)


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
