"""The recall request through Ollama's native chat API, which takes the context length per request.

Ollama's OpenAI-compatible ``/v1/chat/completions`` ignores a requested context length (neither
``num_ctx`` nor ``options`` in the body is read there) and silently cuts a longer prompt to the
server's default (4,096 tokens on most machines). Its native ``POST /api/chat`` takes
``options.num_ctx``: the recall sends its request there when the budget needs more context than the
server has (``BudgetPolicy.num_ctx``). The answer says how long the server spent loading the model
(``load_duration``, nanoseconds), which tells the budget whether asking made it load the model again.

Failures raise :class:`NativeFailed`, which the retriever turns into the same ``RecallFailed`` kinds
as through the OpenAI client:
``timeout``, ``http_error`` (with the status), ``connection_error``, ``bad_response``. httpx only.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ..errors import redact

if TYPE_CHECKING:
    from langchain_core.messages import BaseMessage

__all__ = ["NativeAnswer", "NativeFailed", "achat", "chat", "ollama_root", "ollama_target", "request_body"]


class NativeFailed(Exception):
    """The native request failed: ``kind`` and ``status`` as ``RecallFailed`` has them (the
    retriever turns it into one), ``detail`` in words."""

    def __init__(self, detail: str, *, kind: str, status: int | None = None) -> None:
        super().__init__(f"{kind}: {detail}")
        self.detail, self.kind, self.status = detail, kind, status


@dataclass(frozen=True)
class NativeAnswer:
    """The model's text and how long the server spent loading the model (seconds; None: not said)."""

    text: str
    load_seconds: float | None = None


def ollama_root(base_url: str) -> str:
    """The server's root from the OpenAI-compatible base URL (``http://host:11434/v1`` → ``http://host:11434``)."""
    base = base_url.strip().rstrip("/")
    return base[: -len("/v1")] if base.endswith("/v1") else base


def ollama_target(model: Any) -> tuple[str, str, str, float | None]:
    """(the server's root, the model's name, the API key, the temperature) of a ``ChatOpenAI``."""
    base = str(getattr(model, "openai_api_base", "") or "")
    key = getattr(model, "openai_api_key", None)
    secret = key.get_secret_value() if hasattr(key, "get_secret_value") else str(key or "")
    return ollama_root(base), str(getattr(model, "model_name", "") or ""), secret, getattr(model, "temperature", None)


def _role(message: BaseMessage) -> str:
    return {"system": "system", "human": "user", "ai": "assistant"}.get(message.type, "user")


def request_body(model_name: str, messages: list[BaseMessage], num_ctx: int, temperature: float | None) -> dict:
    options: dict[str, Any] = {"num_ctx": int(num_ctx)}
    if temperature is not None:
        options["temperature"] = temperature
    return {"model": model_name, "stream": False, "options": options,
            "messages": [{"role": _role(m), "content": m.text if hasattr(m, "text") else str(m.content)}
                         for m in messages]}


def _answer(reply: Any, secret: str) -> NativeAnswer:
    if reply.status_code != 200:
        try:
            payload = reply.json()
            message = payload.get("error") if isinstance(payload, dict) else None
            message = message.get("message") if isinstance(message, dict) else message
        except ValueError:
            message = None
        text = " ".join(redact(str(message or reply.text or reply.reason_phrase), secret).split())[:200]
        raise NativeFailed(f"HTTP {reply.status_code}: {text}", kind="http_error", status=reply.status_code)
    try:
        payload = reply.json()
        content = payload["message"]["content"]
        if not isinstance(content, str):
            raise TypeError("message.content is not text")
    except (ValueError, KeyError, TypeError) as exc:
        detail = " ".join(redact(f"{type(exc).__name__}: {exc}", secret).split())[:200]
        raise NativeFailed(f"unusable response ({detail})", kind="bad_response") from exc
    load = payload.get("load_duration")
    seconds = load / 1e9 if isinstance(load, (int, float)) and not isinstance(load, bool) and load >= 0 else None
    return NativeAnswer(content, seconds)


def _failure(exc: BaseException, timeout: float, secret: str) -> Exception:
    import httpx

    if isinstance(exc, httpx.TimeoutException):
        return NativeFailed(f"no answer within {timeout:g} s", kind="timeout")
    detail = " ".join(redact(f"{type(exc).__name__}: {exc}", secret).split())[:200]
    if isinstance(exc, httpx.TransportError):
        return NativeFailed(f"cannot reach the model endpoint ({detail})", kind="connection_error")
    return NativeFailed(detail, kind="error")


def _headers(secret: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {secret}"} if secret else {}


def chat(model: Any, messages: list[BaseMessage], num_ctx: int, timeout: float) -> NativeAnswer:
    """Ask ``model`` (a ``ChatOpenAI`` pointed at an Ollama server) through ``/api/chat`` with
    ``num_ctx``. Blocks up to ``timeout`` seconds; raises :class:`NativeFailed`."""
    import httpx

    root, name, secret, temperature = ollama_target(model)
    try:
        with httpx.Client(timeout=timeout) as http:
            reply = http.post(f"{root}/api/chat", json=request_body(name, messages, num_ctx, temperature),
                              headers=_headers(secret))
    except httpx.HTTPError as exc:
        raise _failure(exc, timeout, secret) from exc
    return _answer(reply, secret)


async def achat(model: Any, messages: list[BaseMessage], num_ctx: int, timeout: float) -> NativeAnswer:
    """Async :func:`chat` (the caller bounds it with its own deadline too)."""
    import httpx

    root, name, secret, temperature = ollama_target(model)
    try:
        async with httpx.AsyncClient(timeout=timeout) as http:
            reply = await http.post(f"{root}/api/chat", json=request_body(name, messages, num_ctx, temperature),
                                    headers=_headers(secret))
    except httpx.HTTPError as exc:
        raise _failure(exc, timeout, secret) from exc
    return _answer(reply, secret)
