"""How much of the memory bank the recall model reads: a token budget for the memory listing.

LLM and HYBRID recall show the model as many memories as the budget holds (``listing.py``); below
the budget that is every memory, above it the stable block and a query shortlist share it
(``recall.py``). The budget is a setting; 0 means automatic, chosen by reach per token (the share
of the memories a question needs that reach the model, against what the request costs: measured
with a real embeddings model at 1,000 and 10,000 memories, docs/benchmarks.md "Recall budget: reach
per token"):

- a cloud endpoint (any host that is not this computer or the local network) gets ``CLOUD_BUDGET``
  estimated tokens, and a bank whose whole listing fits in it (``WHOLE_BANK``, about 1,400
  memories) is read whole: every question's memories reach the model (1.000 at 1,000 memories). A
  larger bank is ordered in conversation blocks (``conversation.py``): the first message of a
  conversation fills the budget, each later one keeps the block's beginning and replaces about a
  third of the request with its own shortlist (27-33% of a request differs at 10,000 memories, a
  request holds ~0.95 of the budget). At 10,000 memories (e5, every set pooled) a first message
  reaches 0.875 at 48k, a later message on a new topic 0.833 (before, when the block only grew:
  0.808 and 0.758), so the cloud budget stays 48k (docs/benchmarks.md, "Recall at scale (issue
  36)"). Cloud chat models read
  64k-1M tokens, and the ones people use with this app (DeepSeek, Qwen, GLM, Kimi, OpenAI) cache a
  repeated prompt prefix;
- a local server (localhost, a private address): what its context holds after the prompt, the
  query and the answer, at most ``LOCAL_BUDGET_MAX`` (a local model reads a long prompt slowly, so
  the budget is where reach per token is still high: every set pooled, e5 shortlist, 16k reaches
  0.935 at 1,000 memories and 0.775 at 10,000, against 0.877 / 0.712 at 8k; beyond it a token buys
  less than half as much, and a slow machine's budget shrinks with its speed, below). The context is asked of the
  server (:func:`probe_context`: llama.cpp ``/props``, Ollama ``/api/show`` and ``/api/ps``, LM
  Studio ``/api/v0/models``, vLLM and gateways through ``/v1/models``). That matters: Ollama's
  OpenAI-compatible endpoint silently cuts a prompt longer than its context (2,048 or 4,096 tokens
  unless configured) instead of refusing it. Ollama can be asked for a longer one: its native chat
  API takes ``num_ctx`` per request (its ``/v1`` endpoint ignores it), so for Ollama the recall asks
  for ``LOCAL_CONTEXT_WANTED`` (:meth:`BudgetPolicy.num_ctx`, ``ollama_chat.py``) up to what the
  model was trained for. Ollama loads the model again whenever a request's ``num_ctx`` differs from
  the loaded one, and the app's other calls go through ``/v1`` at the server's default: when asking
  makes it reload at recall after recall (:meth:`BudgetPolicy.loaded`), the policy stops asking, asks
  the server again what the model is loaded with, and the person is told, once, how to set the context on the server (:class:`ContextNotice`). The same
  line is said when a server that cannot be asked (LM Studio, llama.cpp) has a context that leaves
  the budget well below ``LOCAL_BUDGET_MAX``; either only once the bank's listing is larger than what
  the context holds (:meth:`BudgetPolicy.bank`: a bank that fits is read whole). The first recall waits up to ``CONTEXT_WAIT`` for
  the server's answer (:meth:`BudgetPolicy.settle`); until it comes, the budget is at most what
  Ollama's default context holds (``OLLAMA_DEFAULT_CONTEXT``): a longer listing would be cut or
  refused, and Ollama cannot be asked for more before it is known to be Ollama. A server that tells nothing gets
  ``LOCAL_BUDGET_UNKNOWN``; when it refuses a request as too long for its context, the automatic
  budget halves (:meth:`BudgetPolicy.too_long`) and the offline result answers meanwhile.

A budget the person set is kept as set, but a local server is asked its context all the same (Ollama
is asked for what the set budget needs), and the set budget is at most what that context holds: a
longer listing would be refused as too long, or cut by the server, at every recall.

An automatic budget then follows how fast the model answers (:meth:`BudgetPolicy.observe`): a recall
answered within ``FAST`` of the recall timeout while the listing filled the budget grows it by
``STEP`` (a local server up to what its context holds, at most ``CLOUD_BUDGET``: a fast GPU server
reads more), one slower than ``SLOW`` of the timeout shrinks it, a timeout halves it; a cloud
endpoint never grows past ``CLOUD_BUDGET``. A shrunk budget no longer reads a small bank whole.

Tokens are estimated (``memory/token_estimate.py``, the app's one estimate: one per CJK character and per digit, one per four
other characters). Measured with the Qwen2.5 tokenizer on memory texts, real tokens are about 0.73
of the estimate for Chinese and 0.78 for English (digits are one token each there, hence counted
so), so an estimated budget does not overfill a context measured in real tokens. No LLM library is
imported.
"""

from __future__ import annotations

import ipaddress
import logging
import re
import threading
from dataclasses import dataclass, field
from typing import Any, Callable
from urllib.parse import urlsplit
from ...aio import start_thread
from ..token_estimate import estimate_tokens  # the one estimate (re-exported: __all__)
from .server_json import ServerJson

log = logging.getLogger(__name__)

__all__ = [
    "CLOUD_BUDGET",
    "LOCAL_BUDGET_MAX",
    "LOCAL_CONTEXT_WANTED",
    "LOCAL_BUDGET_UNKNOWN",
    "WHOLE_BANK",
    "BudgetPolicy",
    "ContextInfo",
    "ContextNotice",
    "budget_for",
    "estimate_tokens",
    "is_local_endpoint",
    "probe_context",
    "says_too_long",
]

#: Listing tokens (estimated) for a cloud model: about 1,400 memories of ~33 tokens. Above it the
#: conversation block gives a conversation's first message all of it and each later message's own
#: shortlist about a third: at 10,000 memories 48k reaches 0.875 / 0.833 (every set pooled), with
#: 27-33% of each request new (bench/recall_issue36.py; docs/benchmarks.md "Recall at scale (issue 36)").
CLOUD_BUDGET = 48_000
#: A bank whose whole listing fits in this many estimated tokens is read whole with a cloud endpoint
#: even when the automatic budget is smaller (at 1,000 memories: every gold memory, where 24k reaches
#: 0.959): the cloud budget itself.
WHOLE_BANK = CLOUD_BUDGET
#: A local server starts at no more than this, whatever its context: a laptop model reads a prompt at
#: 0.5-5k tokens per second, and the recall must answer within its timeout (a slower answer shrinks
#: the budget, a timeout halves it: ``BudgetPolicy.observe``). Every set pooled, e5 shortlist, whole
#: budget: 8k / 12k / 16k / 24k reach 0.877 / 0.911 / 0.935 / 0.966 at 1,000 memories and 0.712 /
#: 0.745 / 0.775 / 0.841 at 10,000; words alone (no embeddings) 0.838 / 0.855 / 0.859 and 0.697 /
#: 0.733 / 0.759 (docs/benchmarks.md, "Recall at scale (issue 36)": the local budget).
LOCAL_BUDGET_MAX = 16_000
#: A local server whose context could not be learned (halved each time it refuses a request as too long).
LOCAL_BUDGET_UNKNOWN = LOCAL_BUDGET_MAX
#: Adapting an automatic budget to the model's speed (shares of the recall timeout, and the factor).
FAST, SLOW, STEP = 0.25, 0.6, 1.5
#: What the rest of a recall request takes besides the listing: the system prompt (~1.7k), the
#: query with the conversation's lines before it (at most 2,000 characters together), the date and
#: hints, and the answer.
REQUEST_RESERVE = 4_000
#: The context a local server is asked for (Ollama's ``num_ctx``): ``LOCAL_BUDGET_MAX`` and the
#: request's reserve, rounded up to a multiple of 4,096.
LOCAL_CONTEXT_WANTED = 20_480
#: Seconds the first recall to a local server waits for the server to say its context (the
#: answers take milliseconds from a server that is up; the probe's requests time out after 2 s).
CONTEXT_WAIT = 3.0
#: The smallest budget that is still worth a model call (a dozen memories).
MIN_BUDGET = 400
MAX_BUDGET = 2_000_000

def is_local_endpoint(base_url: str) -> bool:
    """The endpoint runs on this computer or the local network (localhost, loopback, private and
    link-local addresses, ``*.local``, Docker's host name)."""
    host = (urlsplit(base_url.strip()).hostname or "").lower().rstrip(".")
    if not host:
        return False
    if host in ("localhost", "host.docker.internal") or host.endswith((".local", ".localhost", ".lan")):
        return True
    try:
        address = ipaddress.ip_address(host)
    except ValueError:
        return False
    return address.is_loopback or address.is_private or address.is_link_local or address.is_unspecified


@dataclass(frozen=True)
class ContextInfo:
    """What a server said about the model's context: ``tokens`` (None: nothing) and where from;
    ``ceiling``: the most the model was trained for, when the server says (Ollama)."""

    tokens: int | None
    source: str = ""
    ceiling: int | None = field(default=None, compare=False)

    @property
    def askable(self) -> bool:
        """The server takes a context length per request (Ollama's native API: ``num_ctx``)."""
        return self.source == "ollama"


#: A context that leaves an automatic budget below this is cutting recall: the person is told once.
SMALL_BUDGET = 6_000
#: A recall whose request made the server load the model for this long counts as a reload.
RELOAD_SECONDS = 1.0
#: After this many reloads in a row caused by asking for ``num_ctx``, the policy stops asking.
RELOADS_TO_STOP = 2


@dataclass(frozen=True)
class ContextNotice:
    """A local server's context is cutting recall (said once per endpoint and model): the model's
    context of ``context`` tokens leaves a listing budget of ``budget`` where ``wanted`` tokens of
    context would give ``LOCAL_BUDGET_MAX``. ``server``: "ollama", "lm-studio", "llama.cpp" or
    "models" (another server). ``reloads``: asking Ollama for a longer context made it load the
    model again at every recall, so the app stopped asking."""

    base_url: str
    model: str
    context: int
    budget: int
    server: str
    wanted: int = LOCAL_CONTEXT_WANTED
    reloads: bool = False
    model_limit: bool = False  # the model itself reads no more (Ollama's trained context): another model helps
    #: The memories' part (``budget``, estimated tokens) in the model's tokens, the unit of ``context``: what the
    #: line says (0: not known, ``budget`` is said). Said in estimated tokens, a context of 32,768 Qwen tokens
    #: "left about 37,690 tokens of memories", more than the model reads.
    memories: int = 0


def budget_for(base_url: str, context: int | None, *, setting: int = 0) -> int:
    """The listing budget in estimated tokens: ``setting`` when it is set (> 0), else by provider
    (see the module docstring). ``context``: the model's context length, when known."""
    if setting and setting > 0:
        return max(MIN_BUDGET, min(int(setting), MAX_BUDGET))
    from_context = None if not context else max(MIN_BUDGET, int(context) - REQUEST_RESERVE)
    if is_local_endpoint(base_url):
        return min(from_context, LOCAL_BUDGET_MAX) if from_context else LOCAL_BUDGET_UNKNOWN
    return min(from_context, CLOUD_BUDGET) if from_context else CLOUD_BUDGET


_TOO_LONG = re.compile(r"context|too long|too many tokens|maximum.{0,20}(length|tokens)|exceed"
                       r"|input.{0,12}length|length should be|token.{0,12}limit"  # DashScope (Qwen): "Range of input length should be [1, 30720]"
                       r"|过长|太长|超过.{0,12}(长度|上限|限制)|超出.{0,12}(长度|上限|限制)", re.IGNORECASE)


def says_too_long(status: int | None, message: str) -> bool:
    """An error answer that refuses the request as longer than the model's context."""
    return status in (400, 413, 422, 500) and bool(_TOO_LONG.search(message or ""))


# ── asking a server for its context length ──────────────────────────────────────────────────

_MODEL_KEYS = ("loaded_context_length", "context_length", "max_model_len", "context_window", "max_context_length",
               "n_ctx")


def _positive(value: Any) -> int | None:
    try:
        number = int(value)
    except (TypeError, ValueError):
        return None
    return number if number > 0 else None


def _from_model_list(payload: Any, model: str) -> int | None:
    """vLLM (``max_model_len``), LM Studio (``loaded_context_length``), OpenRouter and gateways
    (``context_length``) list the context with the model."""
    rows = payload.get("data") if isinstance(payload, dict) else None
    for row in rows if isinstance(rows, list) else []:
        if isinstance(row, dict) and str(row.get("id", "")) == model:
            for key in _MODEL_KEYS:
                found = _positive(row.get(key))
                if found:
                    return found
            meta = row.get("meta") if isinstance(row.get("meta"), dict) else {}
            found = _positive(meta.get("n_ctx") or meta.get("n_ctx_train"))  # llama.cpp's /v1/models
            if found:
                return found
    return None


def _from_llama_props(payload: Any) -> int | None:
    if not isinstance(payload, dict):
        return None
    settings = payload.get("default_generation_settings")
    if isinstance(settings, dict):
        found = _positive(settings.get("n_ctx"))
        if found:
            return found
    return _positive(payload.get("n_ctx"))


def _from_ollama_show(payload: Any) -> int | None:
    """``num_ctx`` of the Modelfile when set (what the runner loads), else None: the runner's own
    default is not in /api/show."""
    if not isinstance(payload, dict):
        return None
    for line in str(payload.get("parameters") or "").splitlines():
        parts = line.split()
        if len(parts) >= 2 and parts[0] == "num_ctx":
            return _positive(parts[1])
    return None


def _ollama_model_max(payload: Any) -> int | None:
    info = payload.get("model_info") if isinstance(payload, dict) else None
    if isinstance(info, dict):
        for key, value in info.items():
            if key.endswith(".context_length"):
                return _positive(value)
    return None


def _from_ollama_ps(payload: Any, model: str) -> int | None:
    rows = payload.get("models") if isinstance(payload, dict) else None
    for row in rows if isinstance(rows, list) else []:
        if isinstance(row, dict) and model in (row.get("name"), row.get("model")):
            return _positive(row.get("context_length"))
    return None


#: Ollama's runner context when neither the Modelfile nor a loaded runner says (0.6 and later).
OLLAMA_DEFAULT_CONTEXT = 4096


def probe_context(base_url: str, model: str, api_key: str = "", *, timeout: float = 2.0,
                  client: Any = None) -> ContextInfo:
    """Ask the server how long the model's context is. Blocking (a few quick GETs): call it from a
    worker. Never raises: a server that tells nothing gives ``ContextInfo(None)``."""
    server = ServerJson(base_url, api_key, timeout=timeout, client=client)
    base, root, get, post = server.base, server.root, server.get, server.post
    try:
        found = _from_model_list(get(f"{base}/models"), model)
        if found:
            return ContextInfo(found, "models")
        if not is_local_endpoint(base):
            return ContextInfo(None)
        found = _from_llama_props(get(f"{root}/props"))
        if found:
            return ContextInfo(found, "llama.cpp")
        found = _from_model_list(get(f"{root}/api/v0/models"), model)
        if found:
            return ContextInfo(found, "lm-studio")
        show = post(f"{root}/api/show", {"model": model})
        if show is not None:
            loaded = _from_ollama_ps(get(f"{root}/api/ps"), model)
            configured = _from_ollama_show(show)
            ceiling = _ollama_model_max(show)
            tokens = loaded or configured or OLLAMA_DEFAULT_CONTEXT
            return ContextInfo(min(tokens, ceiling) if ceiling else tokens, "ollama", ceiling)
        return ContextInfo(None)
    except Exception:  # a strange server must never break recall
        log.debug("context probe of %s failed", base, exc_info=True)
        return ContextInfo(None)
    finally:
        server.close()


class BudgetPolicy:
    """The listing budget for one endpoint: the setting, or the provider default, learning a local
    server's context in a background thread on first use (meanwhile the conservative default).

    ``probe`` (tests, benchmarks) replaces :func:`probe_context`. ``notify`` receives a
    :class:`ContextNotice` (once) when the server's context is cutting recall; it is called from the
    thread that learnt it. ``per_estimate``: the model's real tokens per estimated token (its
    tokenizer family's measured ratio, ``token_count.py``; 1.0: unknown): a context the server reports
    in its model's tokens is turned into estimated tokens, the budget's unit."""

    def __init__(self, base_url: str = "", model: str = "", api_key: str = "", *, setting: int = 0,
                 probe: Callable[[str, str, str], ContextInfo] | None = None,
                 notify: Callable[[ContextNotice], None] | None = None, per_estimate: float = 1.0) -> None:
        self.base_url, self.model, self._api_key = base_url, model, api_key
        self.setting = int(setting or 0)
        self.per_estimate = per_estimate if per_estimate > 0 else 1.0
        self._probe = probe or (lambda url, name, key: probe_context(url, name, key))
        self._notify = notify
        self.context_wait = CONTEXT_WAIT  # (:meth:`settle`)
        self._lock = threading.Lock()
        self._context: ContextInfo | None = None
        self._probing: threading.Thread | None = None
        self._cap: int | None = None  # halved by each "too long for the context" refusal
        self._scale = 1.0  # follows the model's speed (observe, timed_out)
        self._asking = True  # may ask the server for a longer context (until it reloads every time)
        self._reloads = 0  # recalls in a row whose request made the server load the model
        self._stopped = False  # stopped asking because asking reloaded the model every time
        self.notice: ContextNotice | None = None
        """What the person was told about the server's context (None: nothing)."""
        self._bank: int | None = None  # the bank's whole listing (estimated tokens) at the last recall

    @property
    def context(self) -> ContextInfo | None:
        """What the server said (None: not asked yet or still asking)."""
        return self._context

    @property
    def local(self) -> bool:
        return is_local_endpoint(self.base_url)

    def tokens(self) -> int:
        """The budget now (never blocks: the first call for a local server starts the probe). A bank
        whose listing fits in it is read whole (``WHOLE_BANK`` is the cloud budget itself). A budget
        the person set is kept, but a local server is asked too (Ollama then gets the ``num_ctx`` it
        needs) and the set budget is at most what the server's context holds: more would be refused
        as too long or cut by the server at every recall."""
        if not self.base_url:
            return budget_for(self.base_url, None, setting=self.setting)
        with self._lock:
            context, cap = self._context, self._cap
            if context is None and self._probing is None and self.local:
                self._probing = start_thread(self._learn, name="recall-context-probe", daemon=True)
        if context is None and self.local:  # not said yet: what the smallest usual context holds
            unknown = max(MIN_BUDGET, self._holds(OLLAMA_DEFAULT_CONTEXT))
            return min(unknown, budget_for(self.base_url, None, setting=self.setting))
        if self.setting > 0:
            chosen = budget_for(self.base_url, None, setting=self.setting)
            usable = self._usable(context) if self.local else None
            return chosen if not usable else max(MIN_BUDGET, min(chosen, self._holds(usable)))
        start, ceiling = self._range(self._usable(context))
        tokens = max(MIN_BUDGET, min(ceiling, int(start * self._scale)))
        return tokens if cap is None else max(MIN_BUDGET, min(tokens, cap))

    def settle(self) -> None:
        """Before a recall (blocks up to ``context_wait`` seconds: call it off the UI thread): a local
        server whose context is not known yet is asked now and its answer waited for briefly. Before:
        the first recall went through /v1 with a 16,000-token (or the set) listing before the answer,
        and Ollama cut it to its 4,096 tokens without a word."""
        if not self.base_url or not self.local:
            return
        with self._lock:
            if self._context is not None:
                return
            if self._probing is None:
                self._probing = start_thread(self._learn, name="recall-context-probe", daemon=True)
            thread = self._probing
        thread.join(self.context_wait)

    def num_ctx(self) -> int | None:
        """The context to ask the server for with each recall request (Ollama's ``num_ctx``), or
        None: the server cannot be asked, already holds enough, or asking made it reload every time.
        One number per endpoint (a different one would make Ollama load the model again)."""
        with self._lock:
            info, asking = self._context, self._asking
        if info is None or not info.askable or not asking:
            return None
        wanted = self._wanted(info)
        return wanted if wanted > (info.tokens or 0) else None

    def _wanted(self, info: ContextInfo) -> int:
        need = LOCAL_CONTEXT_WANTED
        if self.setting > 0:
            need = max(need, -(-(self.setting + REQUEST_RESERVE) // 4096) * 4096)
        return min(need, info.ceiling) if info.ceiling else need

    def _usable(self, info: ContextInfo | None) -> int | None:
        """The context the budget may count on: what the server has, or what it is asked for."""
        if info is None or not info.tokens:
            return None
        if info.askable and self._asking:
            return max(info.tokens, self._wanted(info))
        return info.tokens

    def _holds(self, context: int) -> int:
        """The listing (estimated tokens) a context of ``context`` model tokens holds with the rest of the request."""
        return round(context / self.per_estimate) - REQUEST_RESERVE

    def _range(self, context: int | None) -> tuple[int, int]:
        """(the starting budget, the most it may grow to) for an automatic budget."""
        context = round(context / self.per_estimate) if context else context  # the model's tokens → estimated
        start = budget_for(self.base_url, context)
        if not self.local or not context:
            return start, start
        return start, max(start, min(CLOUD_BUDGET, context - REQUEST_RESERVE))

    def loaded(self, seconds: float | None) -> None:
        """A recall that asked for :meth:`num_ctx` made the server spend ``seconds`` loading the
        model (Ollama's ``load_duration``; None: not told). Loading at ``RELOADS_TO_STOP`` recalls in
        a row means the app's other requests load it back at the server's own context each time:
        the policy stops asking (the budget falls to what that context holds) and tells the person."""
        if seconds is None:
            return
        with self._lock:
            self._reloads = self._reloads + 1 if seconds >= RELOAD_SECONDS else 0
            stop = self._asking and self._reloads >= RELOADS_TO_STOP
            if stop:
                self._asking = False
        if stop:
            log.warning("recall budget: asking %s for a context of %s tokens reloads the model at every recall; "
                        "no longer asking", self.base_url, self._context and self._wanted(self._context))
            # ask the server again: the model is now loaded at the context the app's other requests get
            # (what the first probe could only assume when nothing was loaded); the person is told then
            with self._lock:
                self._stopped = True
                self._probing = start_thread(self._learn, name="recall-context-probe", daemon=True)

    def observe(self, seconds: float, timeout: float, used: int, budget: int) -> None:
        """A recall of ``used`` listing tokens (of ``budget``) answered in ``seconds``: an automatic
        budget grows when that was quick and the listing was full, shrinks when it was slow."""
        if self.setting > 0 or not self.base_url or timeout <= 0:
            return
        with self._lock:
            start, ceiling = self._range(self._usable(self._context))
            if seconds <= FAST * timeout and used >= 0.9 * budget:
                self._scale = min(ceiling / start, self._scale * STEP)
            elif seconds >= SLOW * timeout:
                self._scale = max(MIN_BUDGET / start, self._scale / STEP)

    def timed_out(self) -> None:
        """The recall model did not answer in time: an automatic budget halves."""
        if self.setting > 0 or not self.base_url:
            return
        with self._lock:
            start, _ = self._range(self._usable(self._context))
            self._scale = max(MIN_BUDGET / start, self._scale / 2)

    def too_long(self, used: int) -> int:
        """The server refused a listing of ``used`` tokens as too long: the automatic budget halves
        (a set budget stays: the person chose it). Returns the budget from now on."""
        if self.setting <= 0:
            with self._lock:
                self._cap = max(MIN_BUDGET, min(self._cap or used, used) // 2)
            log.warning("recall budget: the model refused %d listing tokens as too long; using %d", used, self._cap)
        return self.tokens()

    def bank(self, tokens: int) -> None:
        """Before a recall: the bank's whole listing is ``tokens`` estimated tokens. The context is said
        (:meth:`_tell`) only once it cuts what recall would read: a bank that fits in what the context
        holds is read whole, however small the context."""
        self._bank = max(0, int(tokens))
        if self.notice is None and self._context is not None:
            self._tell()

    def learn(self) -> ContextInfo:
        """Ask the server now (blocking) and remember the answer."""
        info = self._probe(self.base_url, self.model, self._api_key)
        with self._lock:
            self._context = info
        if info.tokens:
            log.info("recall budget: %s reports a context of %d tokens (%s)", self.base_url, info.tokens, info.source)
        self._tell()
        return info

    def _tell(self) -> None:
        """Tell the person (once) when the context the app can count on cuts the budget well below
        what recall wants (``SMALL_BUDGET``, or the budget they set) and the bank's listing is larger
        than that budget (:meth:`bank`; not known yet: not said yet)."""
        info, bank = self._context, self._bank
        if info is None or not info.tokens or self.notice is not None or not self.local or bank is None:
            return
        usable = self._usable(info) or info.tokens
        budget = max(MIN_BUDGET, self._holds(usable))  # in estimated tokens
        if budget >= (self.setting if self.setting > 0 else SMALL_BUDGET) or bank <= budget:
            return
        limit = bool(info.ceiling) and usable >= (info.ceiling or 0)  # the model reads no more than this
        with self._lock:
            if self.notice is not None:  # (told meanwhile by the other thread: the probe's, or a recall's)
                return
            self.notice = ContextNotice(self.base_url, self.model, usable, budget, info.source,
                                        self._wanted(ContextInfo(info.tokens, info.source)), self._stopped, limit,
                                        round(budget * self.per_estimate))
        log.warning("recall budget: %s's context of %d tokens leaves %d listing tokens", self.base_url, usable,
                    budget)
        if self._notify is not None:
            try:
                self._notify(self.notice)
            except Exception:
                log.exception("telling about the recall context failed")

    def wait(self, timeout: float | None = None) -> None:
        """Wait for a running probe (tests, benchmarks)."""
        thread = self._probing
        if thread is not None:
            thread.join(timeout)

    def _learn(self) -> None:
        try:
            self.learn()
        except Exception:
            log.debug("context probe failed", exc_info=True)
            with self._lock:
                self._context = ContextInfo(None)
