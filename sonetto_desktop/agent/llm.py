"""Build the chat model from settings, and check an endpoint ("test connection"). No Qt.

``langchain_openai`` / ``openai`` are imported inside the functions: importing them costs a good
part of a second, which the app's start-up should not pay before a model is needed.
"""

from __future__ import annotations

import logging
import time
from dataclasses import dataclass, field
from datetime import date
from typing import TYPE_CHECKING, Any

from sonetto_desktop.agent.deadlines import seconds_left
from sonetto_desktop.agent.llm_errors import LLMErrorInfo, describe_llm_error, error_info, retry_after_seconds
from sonetto_desktop.aio import import_now, import_off_loop, run_blocking
from sonetto_desktop.redaction import register_secret
from sonetto_desktop.config.settings import Settings, load_settings

if TYPE_CHECKING:
    from langchain_openai import ChatOpenAI

log = logging.getLogger(__name__)

# Local servers (Ollama, LM Studio, llama.cpp) ignore the key, but the OpenAI client insists on one.
LOCAL_DUMMY_KEY = "not-needed"
TEST_CONNECTION_MAX_TIMEOUT = 20.0
# A retry after a Retry-After needs time to answer too: one that would leave less than this of the
# reply's deadline is not waited for (no_retry_past_the_deadline).
RETRY_ANSWER_MARGIN = 1.0
# What a connection test needs, imported off the loop (the settings dialog would freeze ~0.7 s), and
# what the clients import lazily on a first request, a connection test's or a chat turn's (the model
# listing, anyio's streams for httpx, LangChain's tracing): private names that may move in a later
# release, so imported only if they exist.
CONNECTION_MODULES = ("httpx", "openai", "langchain_openai")
FIRST_REQUEST_MODULES = ("openai.resources.models", "openai.pagination", "anyio.abc", "anyio.streams.memory",
                         "anyio.streams.stapled", "anyio.streams.tls", "anyio._core._sockets", "anyio._core._streams",
                         "langchain_core.tracers.context", "langchain_core.tracers.langchain",
                         "langchain_core.tracers.stdout", "langchain_core.tracers.run_collector",
                         "langchain_core.messages.block_translators.langchain_v0")


async def no_retry_past_the_deadline(response: Any) -> None:
    """An httpx response hook: a failed response whose Retry-After is longer than what is left of the
    running reply's deadline (``deadlines.seconds_left``: a chat turn's first-token or idle deadline)
    is marked not to be retried (``x-should-retry: false``, which the OpenAI client obeys). The
    client would sleep it out (up to two minutes) and the deadline would end the turn as a model
    that "did not start replying"; now the turn fails at once with what the server said (a rate
    limit, and when to try again). Outside a chat turn's model call nothing changes."""
    if response.status_code < 400 or "x-should-retry" in response.headers:
        return
    left = seconds_left()
    if left is None:
        return
    wait = retry_after_seconds(response.headers)
    if wait is not None and wait + RETRY_ANSWER_MARGIN >= left:
        response.headers["x-should-retry"] = "false"


def _with_deadline_hook(http_async_client: Any) -> Any:
    hooks = dict(http_async_client.event_hooks)
    responses = list(hooks.get("response", []))
    if no_retry_past_the_deadline not in responses:
        hooks["response"] = [*responses, no_retry_past_the_deadline]
        http_async_client.event_hooks = hooks
    return http_async_client


def build_llm(
    settings: Settings, *, streaming: bool = False, timeout: float | None = None, max_retries: int = 1,
    http_async_client: Any = None,
) -> ChatOpenAI | None:
    """A ``ChatOpenAI`` for ``settings``, or ``None`` when no model is configured.
    ``http_async_client``: an ``httpx.AsyncClient`` the caller owns and closes (the app's services
    give every model one, closed at shutdown); without it langchain-openai's shared client is used.
    The client given gets the response hook :func:`no_retry_past_the_deadline` (once)."""
    if not settings.is_llm_configured:
        return None
    from langchain_openai import ChatOpenAI

    if http_async_client is not None:
        _with_deadline_hook(http_async_client)
    extra = {"http_async_client": http_async_client} if http_async_client is not None else {}
    register_secret(settings.api_key)  # log lines never show it, from now on
    # what the clients import lazily on a first request, imported here (a model is always built off
    # the loop): the writer's first turn would import them on the loop at its first request
    import_now((), optional=FIRST_REQUEST_MODULES)
    return ChatOpenAI(
        model=settings.model.strip(),
        base_url=settings.effective_base_url,
        api_key=settings.api_key.strip() or LOCAL_DUMMY_KEY,
        temperature=settings.temperature,
        timeout=settings.request_timeout if timeout is None else timeout,
        max_retries=max_retries,
        streaming=streaming,
        **extra,
    )


def get_default_llm(*, streaming: bool = False) -> ChatOpenAI | None:
    """The model configured by the settings file and the environment, or ``None``."""
    return build_llm(load_settings(), streaming=streaming)


@dataclass(frozen=True)
class ConnectionResult:
    ok: bool
    code: str  # "ok" or one of llm_errors.CODES
    zh: str
    en: str
    models: list[str] = field(default_factory=list)
    latency_ms: float | None = None
    tools: str = ""  # after a good answer: "calls", "text", "refused" or "unknown" (see _probe_tools)
    shutdown: str = ""  # the shutdown date the server's model list gives the model (OpenAI's ``shutdown_date``)
    error: LLMErrorInfo | None = None  # why it failed (code, status, detail…): for a front end's own words
    words: tuple[str, ...] = ()  # the address refused before asking: ("bad_url",) or ("no_endpoint",)
    unlisted: bool = False  # connected, but the model is not in the server's model list

    @property
    def warning(self) -> bool:
        """Connected, but the model cannot call tools (the chat works, memory writing does not), or
        its provider has announced when it stops answering."""
        return self.ok and (self.tools in ("text", "refused") or bool(self.shutdown))


def _failure(info: LLMErrorInfo, models: list[str] | None = None) -> ConnectionResult:
    return ConnectionResult(False, info.code, info.zh, info.en, list(models or []), error=info)


def _model_listed(model: str, models: list[str]) -> bool:
    # Ollama lists "qwen2.5:latest" but accepts "qwen2.5".
    return model in models or f"{model}:latest" in models


async def _list_models(settings: Settings, timeout: float, http: Any) -> tuple[list[str], dict[str, str]] | None:
    """Model ids from GET /models with the shutdown dates the list gives (OpenAI's optional
    ``shutdown_date``, ``YYYY-MM-DD``, on models whose retirement is announced), or ``None`` when the
    server does not offer the list.

    Connection, timeout and authentication errors propagate: they answer the test already.
    ``http``: the caller's ``httpx.AsyncClient`` (the caller closes it).
    """
    import openai

    client = openai.AsyncOpenAI(
        base_url=settings.effective_base_url,
        api_key=settings.api_key.strip() or LOCAL_DUMMY_KEY,
        timeout=timeout,
        max_retries=0,
        http_client=http,
    )
    try:
        page = await client.models.list()
        ids = [m.id for m in page.data]
        dates = {m.id: str(day) for m in page.data
                 if (day := getattr(m, "shutdown_date", None) or (m.model_extra or {}).get("shutdown_date"))}
        return ids, dates
    except (openai.APIConnectionError, openai.AuthenticationError, openai.PermissionDeniedError):
        raise
    except (openai.APIError, ValueError, TypeError) as exc:
        log.info("Model listing not available: %s", type(exc).__name__)
        return None


async def _built(settings: Settings, timeout: float, http: Any) -> ChatOpenAI:
    """A model for one check, made in a worker (ChatOpenAI also makes a sync client, whose TLS
    context reads the CA bundle)."""
    llm = await run_blocking(build_llm, settings, timeout=timeout, max_retries=0, http_async_client=http)
    assert llm is not None  # checked by the caller
    return llm


async def _ping(settings: Settings, timeout: float, http: Any = None) -> float:
    """One tiny chat completion; returns its round trip in milliseconds."""
    import openai

    llm = await _built(settings, timeout, http)
    start = time.perf_counter()
    try:
        await llm.ainvoke("ping", max_tokens=1)
    except openai.BadRequestError:
        # Some models reject max_tokens=1 (reasoning models want more room): ask once without it.
        start = time.perf_counter()
        await llm.ainvoke("ping")
    return (time.perf_counter() - start) * 1000.0


# A harmless tool the check asks the model to call: the memory writer works only through tool calls.
PROBE_TOOL = {
    "type": "function",
    "function": {
        "name": "save_note",
        "description": "Save a short note.",
        "parameters": {"type": "object", "properties": {"note": {"type": "string"}}, "required": ["note"]},
    },
}
PROBE_PROMPT = "Call the save_note tool with note \"ok\". Do not answer in words. / 请调用 save_note 工具，note 为 \"ok\"。"

TOOLS_NOTE = {
    "calls": ("它也会调用工具（记忆写入靠工具调用）。", " It calls tools too (memory writing works through tool calls)."),
    "text": ("但它没有调用工具，而是用文字回答：Sonetto 写记忆要靠工具调用（function calling），用这个模型时记忆不会被写入。"
             "请换一个支持工具调用的模型（llama.cpp 的服务需要加 --jinja 启动）。",
             " But it answered in words instead of calling a tool: Sonetto writes memories through tool calls"
             " (function calling), so with this model nothing would be remembered. Choose a model that supports"
             " tool calling (start a llama.cpp server with --jinja)."),
    "refused": ("但服务拒绝了带工具的请求：这个模型或服务不支持工具调用（function calling），用它时记忆不会被写入。",
                " But the server refused a request with tools: this model or server does not support tool calling"
                " (function calling), so with it nothing would be remembered."),
    "unknown": ("（未能确认它是否支持工具调用。）", " (Whether it supports tool calling could not be checked.)"),
}


async def _probe_tools(settings: Settings, timeout: float, http: Any = None) -> str:
    """How the model takes a tool: "calls" (it called it), "text" (it answered in words: the model
    or the server ignores tools), "refused" (the server rejects a request with tools: the same
    request without them was just answered) or "unknown" (another failure)."""
    import openai

    llm = (await _built(settings, timeout, http)).bind_tools([PROBE_TOOL])
    try:
        reply = await llm.ainvoke([("user", PROBE_PROMPT)])
    except (openai.BadRequestError, openai.UnprocessableEntityError):
        return "refused"
    except Exception as exc:  # noqa: BLE001 - the connection itself was fine: say "could not check"
        log.info("tool-calling check failed: %s", type(exc).__name__)
        return "unknown"
    return "calls" if getattr(reply, "tool_calls", None) else "text"


async def test_connection(settings: Settings, *, timeout: float | None = None) -> ConnectionResult:
    """Check that the endpoint answers, the key is accepted, the model exists, and whether it calls
    tools (which the memory writer needs: a model that does not is a warning). Never raises.

    Called on the UI's loop: the OpenAI client and LangChain are imported, and the HTTP client (whose
    TLS context reads the CA bundle) is made, in a worker thread; that client is closed at the end."""
    if timeout is None:
        timeout = min(settings.request_timeout, TEST_CONNECTION_MAX_TIMEOUT)
    url_problems = [p for p in settings.validate() if p.field == "base_url"]
    if url_problems:
        bad = settings.base_url.strip() and not settings.base_url.strip().lower().startswith(("http://", "https://"))
        return ConnectionResult(False, "unconfigured", url_problems[0].zh, url_problems[0].en,
                                words=("bad_url",) if bad else ("no_endpoint",))
    if not settings.is_llm_configured:
        return _failure(describe_llm_error(None))

    register_secret(settings.api_key)  # a key being tried is hidden from the log as well
    await import_off_loop(CONNECTION_MODULES, optional=FIRST_REQUEST_MODULES)
    import httpx

    http = await run_blocking(httpx.AsyncClient)
    try:
        return await _check(settings, timeout, http)
    finally:
        await http.aclose()


async def _check(settings: Settings, timeout: float, http: Any) -> ConnectionResult:
    model = settings.model.strip()
    try:
        found = await _list_models(settings, timeout, http)
    except Exception as exc:  # noqa: BLE001 - every failure becomes a result
        return _failure(describe_llm_error(exc, api_key=settings.api_key, model=model))

    models, shutdowns = found if found is not None else (None, {})
    listed = models or []
    missing = models is not None and len(models) > 0 and not _model_listed(model, models)
    if listed:  # offered for the chat: not a model that only embeds
        listed = await run_blocking(_chat_models, settings.effective_base_url, listed, settings.api_key)
    try:
        latency = await _ping(settings, timeout, http)
    except Exception as exc:  # noqa: BLE001
        info = describe_llm_error(exc, api_key=settings.api_key, model=model)
        if missing and info.code in ("unknown_model", "bad_response", "refused", "server"):
            # The list says the model is not there and the chat failed: that is the likely reason.
            return _unknown_model_result(error_info("unknown_model", model=model, api_key=settings.api_key), listed)
        if info.code == "unknown_model":
            return _unknown_model_result(info, listed)
        return _failure(info, listed)

    zh = f"连接成功：模型“{model}”可以使用（响应 {latency:.0f} 毫秒）。"
    en = f"Connected: the model “{model}” answers ({latency:.0f} ms)."
    if missing:
        zh += "（它没有出现在服务的模型列表里，但能正常回答。）"
        en += " (It is not in the server's model list, but it answers.)"
    tools = await _probe_tools(settings, timeout, http)
    zh, en = zh + TOOLS_NOTE[tools][0], en + TOOLS_NOTE[tools][1]
    shutdown = shutdowns.get(model) or shutdowns.get(f"{model}:latest") or ""
    if shutdown:
        day_zh, day_en = _day(shutdown)
        zh += f"\n服务商已公布：这个模型将于 {day_zh} 停用，之后就不能再用了。请在那之前换一个模型。"
        en += (f"\nThe provider has announced that this model shuts down on {day_en}; after that it will not answer."
               " Choose another model before then.")
    return ConnectionResult(True, "ok", zh, en, listed, latency, tools, shutdown, unlisted=missing)


def _chat_models(base_url: str, models: list[str], api_key: str) -> list[str]:
    """Of the ``models`` listed, those that chat: a server on this computer or network is asked which only
    embed (``local_servers.chat_models``); another's list as it is. Blocking (imports, requests)."""
    from sonetto_desktop.memory.retrieval.budget import is_local_endpoint

    if not is_local_endpoint(base_url):
        return models
    from .local_servers import chat_models

    return chat_models(base_url, models, api_key)


def _day(text: str) -> tuple[str, str]:
    """A ``YYYY-MM-DD`` date as a person reads it (``2027年1月14日`` / ``14 January 2027``); other text as given."""
    try:
        day = date.fromisoformat(text.strip())
    except ValueError:
        return text, text
    return f"{day.year}年{day.month}月{day.day}日", f"{day.day} {_MONTHS[day.month - 1]} {day.year}"


_MONTHS = ("January", "February", "March", "April", "May", "June", "July", "August", "September", "October",
           "November", "December")  # not strftime's %B: Qt sets the C library's locale to the system's


def _unknown_model_result(info: LLMErrorInfo, models: list[str]) -> ConnectionResult:
    zh, en = info.zh, info.en
    if models:
        shown = "、".join(models[:10]) + ("等" if len(models) > 10 else "")
        zh = f"{zh}\n服务上可用的模型：{shown}"
        en = f"{en}\nModels on the server: {', '.join(models[:10])}{', …' if len(models) > 10 else ''}"
    return ConnectionResult(False, "unknown_model", zh, en, models, error=info)


test_connection.__test__ = False  # type: ignore[attr-defined]  # not a pytest test when imported
