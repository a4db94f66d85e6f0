"""Turn whatever an LLM call raised into one clear message for a person, in Chinese and English.

Codes: unconfigured, unreachable, auth, rate_limit, server, timeout, bad_response, unknown_model,
refused (the server refused the request in words of its own), tool_loop (the model kept calling
tools without answering), empty_reply (it answered nothing). A 400/404/422 is read by the server's
words too: servers refuse a wrong key or an unknown model with any of them. A refusal in an
OpenAI-style error body whose words say neither is ``refused``, with those words (a gateway such as
LiteLLM answers a key it cannot check with "No connected db."): the server answered as an
OpenAI-compatible one, so the base URL is not what is wrong. Messages never contain the API key: any occurrence of it (and anything that looks like a key or a
bearer token) is scrubbed from exception text before it is shown (``redaction.scrub``,
re-exported here as ``scrub``).
"""

from __future__ import annotations

import asyncio
import json
import math
import re
from dataclasses import dataclass

from sonetto_desktop.memory.backoff import retry_after_seconds
from sonetto_desktop.memory.errors import causes
from sonetto_desktop.redaction import scrub

CODES = ("unconfigured", "unreachable", "auth", "rate_limit", "server", "timeout", "bad_response", "refused",
         "unknown_model",
         "tool_loop", "empty_reply", "cut_off")

_DETAIL_MAX = 200


class LLMNotConfigured(RuntimeError):
    """Raised by callers that need a model when none is configured."""

    def __init__(self, message: str = "no LLM endpoint is configured") -> None:
        super().__init__(message)


class EmptyReply(RuntimeError):
    """The model answered with nothing: no text and no tool call."""

    def __init__(self, message: str = "the model's reply was empty") -> None:
        super().__init__(message)


class ReplyCut(RuntimeError):
    """The reply ended before its end: its stream closed with no finish (a server that went away
    mid-reply; the stream is not an error to the client), or it was cut at the model's length limit
    (finish_reason "length"). What arrived is kept, as at a stall (``stall_guard.ReplyStalled``)."""

    def __init__(self, finish: str | None) -> None:
        super().__init__(f"the reply ended before its end (finish_reason: {finish or 'none'})")
        self.finish = finish


@dataclass(frozen=True)
class LLMErrorInfo:
    code: str
    zh: str
    en: str
    detail: str = ""  # scrubbed technical detail (exception type and text), for logs and "details" UIs
    status: int | None = None  # the HTTP status the server answered
    retry_after: float | None = None  # the seconds it asked to wait
    model: str = ""  # the model that was asked for (scrubbed)


def _status_message(exc: BaseException) -> str:
    """The server's own error message, if the exception carries an OpenAI-style body."""
    body = getattr(exc, "body", None)
    if isinstance(body, dict):
        inner = body["error"] if isinstance(body.get("error"), dict) else body
        msg = inner.get("message")
        if isinstance(msg, str) and msg:
            return msg
    return str(exc)


def _retry_after_of(exc: BaseException) -> float | None:
    response = getattr(exc, "response", None)
    return retry_after_seconds(getattr(response, "headers", None))


def _wait_words(seconds: float) -> tuple[str, str]:
    """A Retry-After as a person reads it: "约 5 秒" / "about 5 s", minutes from two minutes on."""
    if seconds >= 120:
        minutes = math.ceil(seconds / 60)
        return f"约 {minutes} 分钟", f"about {minutes} min"
    whole = max(1, math.ceil(seconds))
    return f"约 {whole} 秒", f"about {whole} s"


def _said_in_an_error_body(exc: BaseException) -> bool:
    """The refusal came as an OpenAI-style error object with a message (``{"error": {"message": …}}``)."""
    body = getattr(exc, "body", None)
    inner = body.get("error") if isinstance(body, dict) else None
    inner = inner if isinstance(inner, dict) else body if isinstance(body, dict) else None
    return isinstance(inner, dict) and isinstance(inner.get("message"), str) and bool(inner["message"].strip())


def _is_model_not_found(exc: BaseException) -> bool:
    code = str(getattr(exc, "code", "") or "").lower()
    text = _status_message(exc).lower()
    return "model" in code or "model" in text


#: A refused key, in the words servers use (OpenAI, DeepSeek, Moonshot, vLLM, LiteLLM, one-api …).
_AUTH_WORDS = re.compile(r"api[ _-]?key|unauthori[sz]ed|authenticat|invalid[ _-]?token|token[ _-]?(?:is )?invalid|"
                         r"\bbearer\b|令牌|密钥", re.IGNORECASE)
#: An unknown model, in the words servers use.
_MODEL_WORDS = re.compile(r"model.{0,80}?(?:not[ _-]?found|does ?n[o']t exist|not exist|unknown|invalid|"
                          r"not supported|unsupported|no such|not available|not allowed)|"
                          r"(?:unknown|invalid|unsupported|no such)[ _-]model|模型不存在|模型.{0,20}(?:不存在|不支持)",
                          re.IGNORECASE | re.DOTALL)


def _by_words(exc: BaseException) -> str | None:
    """``auth`` or ``unknown_model`` when the server's message (or error code) says so."""
    said = f"{getattr(exc, 'code', '') or ''} {_status_message(exc)}"
    if _AUTH_WORDS.search(said):
        return "auth"
    if _MODEL_WORDS.search(said):
        return "unknown_model"
    return None


def _classify(exc: BaseException) -> tuple[str, int | None] | None:
    """(code, http status) for a recognised exception, else None."""
    name = type(exc).__name__
    module = type(exc).__module__ or ""
    if isinstance(exc, LLMNotConfigured):
        return "unconfigured", None
    if isinstance(exc, EmptyReply):
        return "empty_reply", None
    if isinstance(exc, ReplyCut):
        return "cut_off", None
    if name == "GraphRecursionError" and module.startswith("langgraph"):
        return "tool_loop", None
    try:
        import openai
    except ImportError:  # pragma: no cover - openai is a dependency of langchain-openai
        openai = None  # type: ignore[assignment]
    if openai is not None:
        if isinstance(exc, openai.APITimeoutError):
            return "timeout", None
        if isinstance(exc, openai.APIConnectionError):
            return "unreachable", None
        if isinstance(exc, openai.APIStatusError):
            status = exc.status_code
            if status in (401, 403):
                return "auth", status
            if status in (402, 429):
                return "rate_limit", status
            if status == 404:
                return (_by_words(exc) or ("unknown_model" if _is_model_not_found(exc) else "bad_response")), status
            if status == 408 or status == 504:
                return "timeout", status
            if status >= 500:
                return "server", status
            return (_by_words(exc) or ("refused" if _said_in_an_error_body(exc) else "bad_response")), status
        if isinstance(exc, openai.APIResponseValidationError):
            return "bad_response", None
    if isinstance(exc, (asyncio.TimeoutError, TimeoutError)) or (module.startswith("httpx") and "Timeout" in name):
        return "timeout", None
    if module.startswith("httpx") and name in ("ConnectError", "NetworkError", "RemoteProtocolError", "ReadError"):
        return "unreachable", None
    if isinstance(exc, ConnectionError):
        return "unreachable", None
    if isinstance(exc, json.JSONDecodeError):
        return "bad_response", None
    return None


_MESSAGES: dict[str, tuple[str, str]] = {
    "unconfigured": (
        "还没有配置模型。请在“设置”里填写接口地址、模型名称和 API Key（本地模型可不填 Key）。",
        "No model is configured. Open Settings and enter the base URL, model name and API key "
        "(local servers need no key).",
    ),
    "unreachable": (
        "连不上模型服务。请检查接口地址是否正确、网络是否通畅，本地模型服务是否已经启动。",
        "Cannot reach the model server. Check the base URL and your network, and that a local server is running.",
    ),
    "auth": (
        "模型服务拒绝了 API Key（认证失败）。请在“设置”里检查或重新填写 API Key。",
        "The model server rejected the API key (authentication failed). Check or re-enter it in Settings.",
    ),
    "rate_limit": (
        "请求太频繁，或账户额度/余额不足。请稍后再试，或检查账户额度。",
        "Too many requests, or the account is out of quota or credit. Try again later or check your account.",
    ),
    "server": (
        "模型服务内部出错了，请稍后再试。",
        "The model server had an internal error. Please try again later.",
    ),
    "timeout": (
        "模型服务响应超时。可以稍后再试，或在“设置”里调大超时时间。",
        "The model server took too long to answer. Try again later or raise the timeout in Settings.",
    ),
    "bad_response": (
        "模型服务返回了无法理解的内容。请确认接口地址是 OpenAI 兼容的（通常以 /v1 结尾）。",
        "The model server sent a reply that could not be understood. Check that the base URL is "
        "OpenAI-compatible (it usually ends in /v1).",
    ),
    "refused": (
        "模型服务拒绝了这次请求（它说的原因见下面）。请检查 API 密钥是否正确、这个密钥能否使用该模型，以及服务端的设置。",
        "The model server refused the request (its reason is below). Check that the API key is right, that "
        "it may use this model, and the server's own setup.",
    ),
    "unknown_model": (
        "模型服务上找不到这个模型。请检查模型名称的拼写，或先在服务上下载/启用它。",
        "The model server does not know this model. Check the model name, or pull/enable it on the server.",
    ),
    "tool_loop": (
        "模型反复调用工具，一直没有给出回答，已中止。换个说法再试一次；如果经常这样，可以换一个模型。",
        "The model kept calling tools without answering and was stopped. Try rephrasing; if it keeps "
        "happening, try another model.",
    ),
    "cut_off": (
        "回复没说完就断了：模型服务在回答中途停下了（服务可能关闭了、连接断了，或回答到了模型的长度上限）。"
        "已收到的部分留着，可以重试。",
        "The reply was cut off before its end: the model server stopped mid-answer (it may have closed, the "
        "connection dropped, or the answer reached the model's length limit). What arrived is kept; you can retry.",
    ),
    "empty_reply": (
        "模型返回了空回复（没有任何文字）。可以重试；如果经常这样，可能是模型的输出被服务端过滤或截断了，"
        "或者这个模型不适合对话。",
        "The model sent back an empty reply (no text at all). Try again; if it keeps happening, the server "
        "may be filtering or cutting off its output, or the model is not made for chat.",
    ),
}


def error_info(code: str, *, status: int | None = None, model: str = "", detail: str = "", api_key: str = "",
               retry_after: float | None = None) -> LLMErrorInfo:
    """The message for ``code`` (one of ``CODES``), with the HTTP status, model and detail woven in;
    ``retry_after``: the seconds the server asked to wait (a rate limit, a busy server) are said
    (from a second on: a shorter wait was already waited out by the client's retry)."""
    secrets = [api_key]
    zh, en = _MESSAGES[code]
    if code == "unknown_model" and model:
        shown = scrub(model, secrets)
        zh = f"模型服务上找不到模型“{shown}”。请检查模型名称的拼写，或先在服务上下载/启用它。"
        en = f"The model server does not know the model “{shown}”. Check the name, or pull/enable it on the server."
    if status is not None:
        zh = f"{zh}（HTTP {status}）"
        en = f"{en} (HTTP {status})"
    if retry_after is not None and retry_after >= 1 and code in ("rate_limit", "server"):
        wait_zh, wait_en = _wait_words(retry_after)
        zh = f"{zh}服务要求{wait_zh}后再试。"
        en = f"{en} The server asks to try again in {wait_en}."
    detail = scrub(detail, secrets)
    if len(detail) > _DETAIL_MAX:
        detail = detail[: _DETAIL_MAX - 1] + "…"
    if code in ("server", "bad_response", "rate_limit", "refused") and detail:
        # The server's own words often say what to do (for example "insufficient balance").
        zh = f"{zh}\n详情：{detail}"
        en = f"{en}\nDetails: {detail}"
    return LLMErrorInfo(code, scrub(zh, secrets), scrub(en, secrets), detail, status, retry_after, scrub(model, secrets))


def describe_llm_error(exc: BaseException | None, *, api_key: str = "", model: str = "") -> LLMErrorInfo:
    """A human description of ``exc`` (``None`` means: no model configured)."""
    if exc is None:
        return error_info("unconfigured")
    code, status = "bad_response", None
    for link in causes(exc):
        found = _classify(link)
        if found is not None:
            code, status = found
            exc = link
            break
    detail = f"{type(exc).__name__}: {_status_message(exc)}"
    return error_info(code, status=status, model=model, detail=detail, api_key=api_key,
                      retry_after=_retry_after_of(exc))
