"""UI benchmarks: launch to window shown, idle memory, and event-loop stalls while the memory writer
consumes 20 turns. Numbers go to docs/benchmarks.md.

    python bench/ui_launch.py            # offscreen; 5 launches
    xvfb-run -a python bench/ui_launch.py --platform xcb
    python bench/ui_launch.py --memories 10000 --backend sqlite   # a filled store (issue 14)
    python -m bench.ui_launch --table --runs 3   # issue 37's table against its anchors (bare list, bare window)
    python -m bench.ui_launch --parts --memories 100000 --backend sqlite --runs 2   # RSS each start-up step keeps

Each launch is a fresh process (cold imports, as a user double-clicking), timed from just before
the process is spawned to the first processed frame after ``window.show()``. The writer's model is
the scripted OpenAI-compatible server (tests/llm_server.py) on 127.0.0.1: for every turn it asks to
create one memory, then answers; so each turn is two real HTTP calls plus a store write that the
wall shows live. A 5 ms asyncio ticker on the Qt loop records how late it wakes up (the stall).
"""

from __future__ import annotations

import argparse
import atexit
import gc
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
TICK = 0.005
TURNS = 20
_start_profiler = None


class LoopTicker:
    """How late a ``TICK``-second sleep on the running loop wakes up (the loop's stalls, in ms)."""

    def __init__(self) -> None:
        import asyncio

        self.stalls: list[float] = []
        self._running = True
        self._ticked = time.perf_counter()
        self._task = asyncio.ensure_future(self._run())
        if os.environ.get("BENCH_STALL_STACKS"):  # what the Qt thread runs while the loop is late
            threading.Thread(target=self._watch, args=(threading.main_thread().ident,), daemon=True).start()

    async def _run(self) -> None:
        import asyncio

        while self._running:
            start = time.perf_counter()
            await asyncio.sleep(TICK)
            self._ticked = time.perf_counter()
            self.stalls.append((self._ticked - start - TICK) * 1000)

    def _watch(self, main: int) -> None:
        """Every 5 ms: while the loop is over 20 ms late, print the Qt thread's Python stack; when it
        ticks again, how much of the late stretch the Qt thread spent on the CPU (the rest it waited,
        for the GIL or the OS)."""
        import traceback

        clock = time.pthread_getcpuclockid(main)
        stalled_at, cpu_at, seen = None, 0.0, self._ticked
        while self._running:
            time.sleep(0.005)
            now = time.perf_counter()
            if stalled_at is not None and self._ticked != seen:
                cpu = (time.clock_gettime(clock) - cpu_at) * 1000
                print(f"STALL ENDED: {(self._ticked - stalled_at) * 1000:.0f} ms from detection, Qt thread CPU "
                      f"{cpu:.0f} ms", file=sys.stderr)
                stalled_at = None
            seen = self._ticked
            if now - self._ticked > 0.02 + TICK:
                if stalled_at is None:
                    stalled_at, cpu_at = now, time.clock_gettime(clock)
                frames = sys._current_frames()
                stack = "".join(traceback.format_stack(frames[main], limit=40)) if main in frames else "?"
                names = {t.ident: t.name for t in threading.enumerate()}
                others = "".join(f"  [{names.get(ident, ident)}] " + "".join(traceback.format_stack(f, limit=3))
                                 for ident, f in frames.items() if ident not in (main, threading.get_ident()))
                print(f"STALL {(now - self._ticked) * 1000:.0f} ms so far; the Qt thread is in:\n{stack}"
                      f"the other threads are in:\n{others}", file=sys.stderr)

    async def stop(self) -> list[float]:
        self._running = False
        await self._task
        return self.stalls


class GcPauses:
    """Garbage collections on the Qt (main) thread while installed, in ms per generation."""

    def __init__(self) -> None:
        self.pauses: dict[int, list[float]] = {0: [], 1: [], 2: []}
        self._started = 0.0
        gc.callbacks.append(self._on_gc)

    def _on_gc(self, phase: str, info: dict) -> None:
        if phase == "start":
            if os.environ.get("BENCH_GC_TYPES") and info["generation"] >= int(os.environ["BENCH_GC_TYPES"]):  # what the collection walks
                from collections import Counter

                kinds = Counter(type(o).__qualname__ for g in range(info["generation"] + 1)
                                for o in gc.get_objects(generation=g))
                self._walked = (f"GC gen{info['generation']} on {threading.current_thread().name}: "
                                f"{sum(kinds.values())} objects, {kinds.most_common(8)}")
            self._started = time.perf_counter()
        elif threading.current_thread() is threading.main_thread():
            self.pauses[info["generation"]].append((time.perf_counter() - self._started) * 1000)
            if os.environ.get("BENCH_GC_TYPES") and info["generation"] >= int(os.environ["BENCH_GC_TYPES"]):
                print(f"{self.pauses[info['generation']][-1]:.1f} ms {self._walked}", file=sys.stderr)

    def stop(self) -> None:
        gc.callbacks.remove(self._on_gc)

    def longest(self) -> float:
        return max((ms for pauses in self.pauses.values() for ms in pauses), default=0.0)


class RssParts:
    """What each part of the start-up holds (``--parts``, ``BENCH_RSS_PARTS=1``): RSS after a full
    collection and ``malloc_trim`` at each step, so a step's growth is what it keeps, not its garbage.
    The services' steps after the wall (self-check, agents, recall warm-up, writer index) are wrapped
    where the app awaits them; ``BENCH_RSS_TOP=N`` also prints the N source lines whose allocations
    grew most over each step (``tracemalloc``: slow, for finding what a part holds)."""

    def __init__(self) -> None:
        self.steps: list[tuple[str, float]] = []
        self.raw: list[tuple[str, float]] = []
        self._top = int(os.environ.get("BENCH_RSS_TOP", "0") or 0)
        self._snapshot = None
        if self._top:
            import tracemalloc

            tracemalloc.start(1)
            self._snapshot = tracemalloc.take_snapshot()

    def mark(self, name: str) -> None:
        self.raw.append((name, _rss_mb()))  # as it is, before the collection and the trim
        gc.collect()
        from sonetto_desktop.aio import trim_heap

        trim_heap()
        self.steps.append((name, _rss_mb()))
        if self._top:
            import tracemalloc

            snapshot = tracemalloc.take_snapshot()
            grown = snapshot.compare_to(self._snapshot, "lineno")[:self._top]
            self._snapshot = snapshot
            print(f"-- {name}: {self.steps[-1][1]:.0f} MB; grew most:", file=sys.stderr)
            for stat in grown:
                print(f"   {stat.size_diff / 2**20:+8.1f} MB {stat.count_diff:+9d} blocks  {stat.traceback[0]}",
                      file=sys.stderr)

    def wrap_services(self) -> None:
        """Mark after each step ``SonettoApp._start_agents`` awaits (on the class: the app's instance
        is made inside ``start``)."""
        from sonetto_desktop.services import AppServices

        for method, name in (("checked", "self-check"), ("start_agents", "agents"),
                             ("warm_up", "recall warm-up"), ("warm_up_writer", "writer index")):
            original = getattr(AppServices, method)

            def wrapped(services, *args, _original=original, _name=name, **kwargs):
                async def run():
                    result = await _original(services, *args, **kwargs)
                    if not any(step == _name for step, _ in self.steps):
                        self.mark(_name)
                    return result
                return run()

            setattr(AppServices, method, wrapped)


_PARTS: RssParts | None = None


def _rss_mb() -> float:
    """``bench.proc.rss_mb``; without ``/proc``, the peak (``getrusage``) instead."""
    if str(ROOT) not in sys.path:  # a child runs this file as a script
        sys.path.insert(0, str(ROOT))
    from bench.proc import rss_mb

    now = rss_mb()
    if now:
        return now
    import resource

    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


async def _child_main(qapp, t0: float, measure_writer: bool) -> dict:
    import asyncio

    sys.path.insert(0, str(ROOT / "tests"))
    from sonetto_desktop.config.settings import Settings
    from sonetto_desktop.ui.shell import SonettoApp

    global _FirstPaint
    _FirstPaint = _first_paint_filter()
    result: dict = {}
    server = None
    base_url = "http://127.0.0.1:9/v1"
    if measure_writer:
        from llm_server import ScriptedLLMServer, tool_calls

        server = ScriptedLLMServer()
        server.start()
        counter = {"n": 0}

        def respond(body):
            last = body["messages"][-1]
            if last.get("role") == "tool":
                return "好的"
            counter["n"] += 1
            return tool_calls([("create_memory", {"content": f"用户提到的第 {counter['n']} 件事", "section": "测试"})])

        server.responder = respond
        base_url = server.base_url
    settings = Settings(base_url=base_url, model="test-model", api_key="sk-bench", retrieval_mode="mechanical",
                        data_dir=os.environ["SONETTO_DATA_DIR"], theme="light",
                        store_backend=os.environ.get("BENCH_BACKEND", "yaml"))
    app = SonettoApp(qapp, settings, interactive=False, use_tray=True)
    app_created = time.time()
    try:
        painted = asyncio.get_running_loop().create_future()
        watcher = _FirstPaint(painted)
        from PySide6.QtWidgets import QMainWindow

        original_show = QMainWindow.show

        def show_and_watch(window):
            window.installEventFilter(watcher)
            original_show(window)

        QMainWindow.show = show_and_watch
        try:
            await app.start()
        finally:
            QMainWindow.show = original_show
        await asyncio.wait_for(painted, 10)
        if _PARTS is not None:
            _PARTS.mark("window shown")
        result["launch_to_window_ms"] = (painted.result() - t0) * 1000
        result["start_steps_ms"] = {"app_created": (app_created - t0) * 1000, **{
            name: (app_created - t0) * 1000 + ms for name, ms in app.timings.items()}}
        if _start_profiler is not None:
            _start_profiler.disable()
            _start_profiler.dump_stats(os.environ["BENCH_START_PROFILE"])
        # how late a 5 ms ticker wakes up while the wall is read and filled in slices (issue 14)
        fill_ticker = LoopTicker()
        # where the time of the Qt thread goes meanwhile: the wall's own steps, the collector
        spans: dict[str, list[float]] = {"wall": [], "wall_cpu": []}

        def timed_method(obj, name):
            method = getattr(obj, name)

            def run(*args, **kwargs):
                start, cpu = time.perf_counter(), time.thread_time()
                try:
                    return method(*args, **kwargs)
                finally:
                    spans["wall"].append((time.perf_counter() - start) * 1000)
                    spans["wall_cpu"].append((time.thread_time() - cpu) * 1000)

            setattr(obj, name, run)

        timed_method(app.wall.model, "set_cards")
        timed_method(app.wall.loader, "_step")
        fill_gc = GcPauses()
        if os.environ.get("BENCH_FILL_PROFILE"):  # what runs on the Qt thread while the wall fills
            import cProfile

            fill_profiler = cProfile.Profile()
            fill_profiler.enable()
        await app.wall_loaded
        result["launch_to_wall_ms"] = (time.time() - t0) * 1000
        if _PARTS is not None:
            _PARTS.mark("cards read")
        await app.wall.loader.wait()
        result["launch_to_wall_shown_ms"] = (time.time() - t0) * 1000
        if _PARTS is not None:
            _PARTS.mark("wall filled")
        fill_stalls = await fill_ticker.stop()
        if os.environ.get("BENCH_FILL_PROFILE"):
            fill_profiler.disable()
            fill_profiler.dump_stats(os.environ["BENCH_FILL_PROFILE"])
        result["max_fill_stall_ms"] = max(fill_stalls, default=0.0)
        fill_gc.stop()
        result["max_wall_step_ms"] = max(spans["wall"], default=0.0)
        result["max_wall_step_cpu_ms"] = max(spans["wall_cpu"], default=0.0)
        result["max_gc_ms"] = fill_gc.longest()
        await app.wait_until_ready()
        result["launch_to_engine_ready_ms"] = (time.time() - t0) * 1000
        await asyncio.sleep(2.0)
        if os.environ.get("BENCH_GC_TYPES"):  # what a full collection walks once the app is idle
            from collections import Counter

            gc.collect()
            cpu = time.thread_time()
            gc.collect()  # a full pass over what is left: what the next one costs the thread it runs on
            cpu = (time.thread_time() - cpu) * 1000
            kinds = Counter(type(o).__qualname__ for o in gc.get_objects())
            count = app.store.count()
            print(f"tracked at idle: {sum(kinds.values())} objects, {sum(kinds.values()) / max(count, 1):.2f} per "
                  f"memory ({count} memories), a full collection {cpu:.1f} ms of CPU: {kinds.most_common(8)}",
                  file=sys.stderr)
        result["idle_rss_mb"] = _rss_mb()
        result["llm_stack_loaded"] = sorted(name for name in ("langchain_core", "langchain", "langgraph", "openai",
                                                              "langchain_openai") if name in sys.modules)
        if _PARTS is not None:
            _PARTS.mark("idle")
            # the built-in embeddings model starts later (BUILTIN_START_DELAY after the agents): once it
            # embeds the memories without a vector, what the app holds while it does
            agents = getattr(app.services, "_agents", None)
            sync = getattr(getattr(agents, "vectors", None), "sync", None)
            if sync is not None:
                deadline = time.monotonic() + 60
                while sync.status.state != "running" and time.monotonic() < deadline:
                    await asyncio.sleep(0.25)
                await asyncio.sleep(2.0)
                _PARTS.mark(f"vectors {sync.status.state}")
            result["rss_parts_mb"] = [[name, round(mb, 1)] for name, mb in _PARTS.steps]
            result["rss_parts_raw_mb"] = [[name, round(mb, 1)] for name, mb in _PARTS.raw]
        if measure_writer:
            if os.environ.get("BENCH_PRELOAD_LLM"):  # the stack imported before the ticker: steady state
                from sonetto_desktop.aio import import_off_loop
                from sonetto_desktop.memory.lazy_model import resolve

                # as the app imports them (a first message's prepare(), the writer's first turn)
                await import_off_loop(("sonetto_desktop.memory.writer.consumer", "langchain_openai"))
                await asyncio.to_thread(resolve, app.writer.llm)
            if os.environ.get("BENCH_PROFILE"):
                import cProfile

                profiler = cProfile.Profile()
                profiler.enable()
            writer_gc = GcPauses()
            if os.environ.get("BENCH_GC_TYPES") or os.environ.get("BENCH_STALL_STACKS"):
                print("-- the writer's turns start", file=sys.stderr)
            ticker = LoopTicker()
            started = time.perf_counter()
            for i in range(TURNS):
                await app.writer.send_history([{"role": "user", "content": f"第 {i} 轮：今天发生了一件事"},
                                            {"role": "assistant", "content": "听起来不错"}], session_id="bench")
            deadline = time.monotonic() + 120
            while (app.writer.pending or app.writer.busy) and time.monotonic() < deadline:
                await asyncio.sleep(0.05)
            result["writer_turns"] = TURNS - app.writer.pending
            result["writer_seconds"] = time.perf_counter() - started
            stalls = await ticker.stop()
            writer_gc.stop()
            result["gc"] = {f"gen{g}": [len(p), round(max(p, default=0.0), 1)] for g, p in writer_gc.pauses.items()}
            if os.environ.get("BENCH_PROFILE"):
                profiler.disable()
                profiler.dump_stats(os.environ["BENCH_PROFILE"])
            stalls.sort()
            result["max_stall_ms"] = stalls[-1]
            result["p99_stall_ms"] = stalls[int(len(stalls) * 0.99) - 1]
            result["memories_written"] = app.store.count()
    finally:
        await app.shutdown()
        if server is not None:
            server.stop()
    return result


def _first_paint_filter():
    from PySide6.QtCore import QEvent, QObject

    class FirstPaint(QObject):
        """Resolves ``future`` with the wall-clock time of the window's first paint."""

        def __init__(self, future) -> None:
            super().__init__()
            self.future = future

        def eventFilter(self, obj, event):
            if event.type() == QEvent.Type.Paint and not self.future.done():
                self.future.set_result(time.time())
            return False

    return FirstPaint


def child(measure_writer: bool) -> None:
    t0 = float(os.environ["BENCH_T0"])
    from sonetto_desktop.heap import share_one_arena

    share_one_arena()  # as the app's entry point (``sonetto_desktop.__main__``) does
    if os.environ.get("BENCH_START_PROFILE"):  # where the time to the first paint goes
        import cProfile

        global _start_profiler
        _start_profiler = cProfile.Profile()
        _start_profiler.enable()
    global _PARTS
    if os.environ.get("BENCH_RSS_PARTS"):
        _PARTS = RssParts()
        _PARTS.mark("python")
    os.environ.setdefault("QT_API", "pyside6")
    import asyncio

    import qasync

    from sonetto_desktop.ui.app import create_qapp

    qapp = create_qapp([])
    if _PARTS is not None:
        _PARTS.mark("Qt")
        _PARTS.wrap_services()
    try:  # a tree from before issue 39 switched Python's collector off in app.main: measure it as it ran
        from sonetto_desktop.ui.gc_guard import MainThreadGarbageCollector
    except ImportError:
        collector = None
    else:
        collector = MainThreadGarbageCollector()
    with asyncio.Runner(loop_factory=lambda: qasync.QEventLoop(qapp)) as runner:
        result = runner.run(_child_main(qapp, t0, measure_writer))
    if collector is not None:
        collector.stop()
    print("BENCH " + json.dumps(result))


def bare_child(exit_at_once: bool = False) -> None:
    """The anchor of issue 37's table: a bare ``QListView`` (``QStringListModel``) in a plain window,
    showing the descriptions read from the same SQLite store with one query; nothing else loaded.
    Timed like the app, from before the process was spawned to the strings laid out and painted;
    idle RSS after the same 2 s. Without a store (the empty row), a bare window. ``exit_at_once``:
    exit once shown (the anchor of ``sonetto --self-test``, which also exits once its checks pass)."""
    t0 = float(os.environ["BENCH_T0"])
    import sqlite3

    from PySide6.QtCore import QStringListModel
    from PySide6.QtWidgets import QApplication, QListView, QMainWindow

    qapp = QApplication([])
    window = QMainWindow()
    window.resize(1000, 800)
    path = Path(os.environ["SONETTO_DATA_DIR"]) / "memory.db"
    strings: list[str] = []
    if path.exists():
        db = sqlite3.connect(path)
        strings = [row[0] for row in db.execute("SELECT description FROM memories")]
        db.close()
    view = QListView()
    view.setModel(QStringListModel(strings))
    window.setCentralWidget(view)
    window.show()
    view.doItemsLayout()  # every string laid out (the wall: every card shown)
    window.repaint()
    qapp.processEvents()
    shown = (time.time() - t0) * 1000
    if exit_at_once:
        return
    deadline = time.monotonic() + 2.0
    while time.monotonic() < deadline:
        qapp.processEvents()
        time.sleep(0.02)
    print("BENCH " + json.dumps({"launch_to_wall_shown_ms": shown, "idle_rss_mb": _rss_mb(), "strings": len(strings)}))


def _fill(data_dir: Path, memories: int, backend: str) -> None:
    """A store of ``memories`` items over 12 themes, written once (as a user's grown store)."""
    from sonetto_desktop.memory import MemoryItem, SqliteMemoryManager, YamlMemoryManager

    data_dir.mkdir(parents=True, exist_ok=True)
    themes = ["身份", "品味", "瞬间", "项目", "音乐", "爱好", "工作", "家人", "朋友", "健康", "学习", "旅行"]
    items = {f"{i:08x}": MemoryItem(f"用户提到的第 {i} 件事：周末去了{themes[i % 12]}相关的地方",
                                    themes[i % 12], hit=i % 7)
             for i in range(memories)}
    store = (SqliteMemoryManager(data_dir / "memory.db") if backend == "sqlite"
             else YamlMemoryManager(data_dir / "memory.yaml"))
    store.import_items(items)
    store.close()


_FILLED: dict[tuple[int, str], Path] = {}
_MADE: list[Path] = []  # the folders this run made, removed when it ends (not by the children)


def _folder(prefix: str) -> Path:
    if not _MADE:
        atexit.register(lambda: [shutil.rmtree(folder, ignore_errors=True) for folder in _MADE])
    _MADE.append(Path(tempfile.mkdtemp(prefix=prefix)))
    return _MADE[-1]


def _pycache() -> str:
    """One bytecode folder for every launch of this run, filled by the uncounted first launch."""
    if not hasattr(_pycache, "path"):
        _pycache.path = str(_folder("sonetto-bench-pycache-"))
    return _pycache.path


def _launch(platform: str, measure_writer: bool, memories: int = 0, backend: str = "yaml", *,
            mode: str = "app") -> dict:
    """One launch in a fresh process: ``mode`` "app" (the app's child), "bare" (the anchor:
    :func:`bare_child`), "self-test" (``sonetto --self-test``, timed from spawn to exit) or
    "bare-window" (the bare list shown, then exit: the self-test's anchor)."""
    if memories:  # one filled store per size, used by every launch (as a person's store is): the
        # first, uncounted launch builds what the app keeps beside the store (the recall index)
        if (memories, backend) not in _FILLED:
            seed = _folder("sonetto-bench-seed-")
            _fill(seed / "data", memories, backend)
            _FILLED[(memories, backend)] = seed
        home = _FILLED[(memories, backend)]
    else:
        home = _folder("sonetto-bench-")
    env = dict(os.environ, SONETTO_DATA_DIR=str(home / "data"), SONETTO_CONFIG_DIR=str(home / "config"),
               PYTHON_KEYRING_BACKEND="keyring.backends.fail.Keyring", QT_QPA_PLATFORM=platform,
               PYTHONPATH=str(ROOT), BENCH_BACKEND=backend)
    args = {"app": [sys.executable, __file__, "--child"] + (["--writer"] if measure_writer else []),
            "bare": [sys.executable, __file__, "--child-bare"],
            "self-test": [sys.executable, "-m", "sonetto_desktop", "--self-test"],
            "bare-window": [sys.executable, __file__, "--child-bare", "--exit"]}[mode]
    if mode == "self-test":  # the app's own settings file: the store's backend, no model
        (home / "config").mkdir(parents=True, exist_ok=True)
        (home / "config" / "settings.json").write_text(json.dumps(
            {"store_backend": backend, "retrieval_mode": "mechanical", "theme": "light"}), encoding="utf-8")
    # compiled bytecode as an installed app has it (pip compiles at install): a shell that sets
    # PYTHONDONTWRITEBYTECODE would otherwise have every launch compile the app's modules again
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    env["PYTHONPYCACHEPREFIX"] = _pycache()
    env["BENCH_T0"] = repr(time.time())
    started = time.perf_counter()
    out = subprocess.run(args, env=env, capture_output=True, text=True, timeout=300)
    if mode in ("self-test", "bare-window"):
        if out.returncode != 0:  # (a self-test over its time limit on a loaded machine: said in the table)
            print(f"{mode} failed ({out.returncode}):\n{out.stdout}\n{out.stderr}", file=sys.stderr)
        return {"seconds": time.perf_counter() - started, "exit": out.returncode}
    # the watcher's report, what each collection walked (on the child's stderr)
    if (os.environ.get("BENCH_STALL_STACKS") or os.environ.get("BENCH_GC_TYPES")) and out.stderr:
        print(out.stderr, file=sys.stderr)
    for line in out.stdout.splitlines():
        if line.startswith("BENCH "):
            return json.loads(line[6:])
    raise SystemExit(f"child failed:\n{out.stdout}\n{out.stderr}")


def issue_table(platform: str, runs: int, sizes: list[int]) -> None:
    """Issue 37's table, each figure against its anchor in the same run (app and anchor launches
    interleaved, on one SQLite store per size): launch -> every card shown vs the bare list, the
    longest loop stall while the wall fills (and the longest collection on the Qt thread in it),
    idle RSS vs the bare window, and ``sonetto --self-test`` vs the bare list's start, show and exit."""
    rows = []
    for memories in sizes:
        size = (memories, "sqlite")
        _launch(platform, False, *size)  # uncounted: fills the store, builds the index, compiles bytecode
        _launch(platform, False, *size, mode="bare")
        app, bare = [], []
        for _ in range(runs):
            app.append(_launch(platform, False, *size))
            bare.append(_launch(platform, False, *size, mode="bare"))
        row = {"memories": memories,
               "shown_ms": statistics.median(r["launch_to_wall_shown_ms"] for r in app),
               "bare_shown_ms": statistics.median(r["launch_to_wall_shown_ms"] for r in bare),
               "stalls_ms": [round(r["max_fill_stall_ms"]) for r in app],
               "gc_ms": [round(r["max_gc_ms"]) for r in app],
               "rss_mb": statistics.median(r["idle_rss_mb"] for r in app),
               "bare_rss_mb": statistics.median(r["idle_rss_mb"] for r in bare)}
        if memories == max(sizes):
            tests, windows = [], []
            for _ in range(runs):
                tests.append(_launch(platform, False, *size, mode="self-test"))
                windows.append(_launch(platform, False, *size, mode="bare-window")["seconds"])
            row["self_test_s"] = statistics.median(r["seconds"] for r in tests)
            row["self_test_failed"] = sum(1 for r in tests if r["exit"] != 0)
            row["bare_window_s"] = statistics.median(windows)
        rows.append(row)
        print("ROW " + json.dumps(row), flush=True)
    print(f"\nissue 37's table ({platform}, python {sys.version.split()[0]}, SQLite, median of {runs}; "
          "app and anchor interleaved)")
    print("| memories | launch -> every card shown (ratio to the bare list) | longest loop stall while the wall "
          "fills (longest collection on the Qt thread) | idle RSS (ratio to the bare window) |")
    print("|---|---|---|---|")
    for r in rows:
        print(f"| {r['memories']:,} | {r['shown_ms']:,.0f} ms vs {r['bare_shown_ms']:,.0f} ms "
              f"(**{r['shown_ms'] / r['bare_shown_ms']:.2f}×**) | {' / '.join(map(str, r['stalls_ms']))} ms "
              f"({' / '.join(map(str, r['gc_ms']))} ms) | {r['rss_mb']:.0f} vs {r['bare_rss_mb']:.0f} MB "
              f"(**{r['rss_mb'] / r['bare_rss_mb']:.2f}×**) |")
    last = rows[-1]
    print(f"\n`sonetto --self-test` at {last['memories']:,}: {last['self_test_s']:.2f} s vs the bare list shown and closed "
          f"{last['bare_window_s']:.2f} s (**{last['self_test_s'] / last['bare_window_s']:.2f}×**)"
          + (f"; {last['self_test_failed']} of {runs} self-tests failed (over their time limit)" if last["self_test_failed"] else ""))


def parts_table(platform: str, runs: int, memories: int, backend: str) -> None:
    """What each start-up step holds (``RssParts``), median of ``runs`` launches after an uncounted one."""
    os.environ["BENCH_RSS_PARTS"] = "1"
    _launch(platform, False, memories, backend)  # uncounted: fills the store, builds the index
    launches = [_launch(platform, False, memories, backend) for _ in range(runs)]
    names = [name for name, _ in launches[0]["rss_parts_mb"]]
    print(f"\nRSS after each start-up step ({platform}, {memories:,} memories, {backend}, median of {runs}; "
          "after gc.collect() and malloc_trim)")
    print("| step | RSS | held by the step | RSS before the collection and trim |")
    print("|---|---|---|---|")
    previous = 0.0
    for name in names:
        mb = statistics.median(dict(r["rss_parts_mb"])[name] for r in launches)
        raw = statistics.median(dict(r["rss_parts_raw_mb"])[name] for r in launches)
        print(f"| {name} | {mb:.0f} MB | {mb - previous:+.0f} MB | {raw:.0f} MB |")
        previous = mb
    print("runs: " + "; ".join(", ".join(f"{mb:.0f}" for _, mb in r["rss_parts_mb"]) for r in launches))


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--child", action="store_true")
    parser.add_argument("--child-bare", action="store_true")
    parser.add_argument("--exit", action="store_true", help="--child-bare: exit once shown")
    parser.add_argument("--table", action="store_true",
                        help="issue 37's table: empty / 10k / 100k (SQLite) against the bare anchors (--runs each)")
    parser.add_argument("--table-sizes", default="0,10000,100000")
    parser.add_argument("--parts", action="store_true",
                        help="RSS after each start-up step (gc + malloc_trim), at --memories / --backend; "
                             "BENCH_RSS_TOP=N also prints what grew most in each step (tracemalloc)")
    parser.add_argument("--writer", action="store_true")
    parser.add_argument("--platform", default="offscreen")
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--memories", type=int, default=0, help="launch on a store of this many memories")
    parser.add_argument("--backend", choices=("yaml", "sqlite"), default="yaml")
    parser.add_argument("--writer-runs", type=int, default=3)
    parser.add_argument("--preload-llm", action="store_true",
                        help="writer runs: import the LLM stack before measuring (else the first turn imports it)")
    args = parser.parse_args()
    if args.child:
        child(args.writer)
        return 0
    if args.child_bare:
        bare_child(args.exit)
        return 0
    if args.parts:
        parts_table(args.platform, args.runs, args.memories, args.backend)
        return 0
    if args.table:
        issue_table(args.platform, args.runs, [int(n) for n in args.table_sizes.split(",")])
        return 0
    size = (args.memories, args.backend)
    if args.preload_llm:
        os.environ["BENCH_PRELOAD_LLM"] = "1"
    # warm the OS file cache once, and compile the bytecode an installed app has (pip compiles at install):
    # with writer runs, the LLM stack's too (the app imports it only at the writer's first turn); not counted
    _launch(args.platform, args.writer_runs > 0, *size)
    launches = [_launch(args.platform, False, *size) for _ in range(args.runs)]
    writers = [_launch(args.platform, True, *size) for _ in range(args.writer_runs)]
    shown = [r["launch_to_window_ms"] for r in launches]
    ready = [r["launch_to_engine_ready_ms"] for r in launches]
    print(f"platform: {args.platform}, python {sys.version.split()[0]}, {args.runs} launches, "
          f"{args.memories} memories ({args.backend})")
    print(f"launch -> window shown:  median {statistics.median(shown):.0f} ms (min {min(shown):.0f}, max {max(shown):.0f})")
    wall = [r["launch_to_wall_ms"] for r in launches]
    steps = {name: statistics.median(r["start_steps_ms"][name] for r in launches)
             for name in launches[0]["start_steps_ms"]}
    print("  on the way (median ms from the launch): " + ", ".join(f"{n} {v:.0f}" for n, v in steps.items()))
    print(f"launch -> wall loaded:   median {statistics.median(wall):.0f} ms (the cards read, the first slice shown)")
    wall_shown = [r["launch_to_wall_shown_ms"] for r in launches]
    print(f"launch -> every card shown: median {statistics.median(wall_shown):.0f} ms")
    fill = [r["max_fill_stall_ms"] for r in launches]
    print("loop stall from the window to every card shown: max " + ", ".join(f"{v:.1f}" for v in fill) + " ms")
    print("  of which the wall's longest step (model fill or a slice, without the paint): "
          + ", ".join(f"{r['max_wall_step_ms']:.1f}" for r in launches) + " ms (CPU of the Qt thread "
          + ", ".join(f"{r['max_wall_step_cpu_ms']:.1f}" for r in launches) + " ms); longest collection on the Qt thread: "
          + ", ".join(f"{r['max_gc_ms']:.1f}" for r in launches) + " ms")
    print(f"launch -> engine ready:  median {statistics.median(ready):.0f} ms")
    print(f"idle RSS after start:    {statistics.median(r['idle_rss_mb'] for r in launches):.0f} MB "
          f"(LLM stack imported: {', '.join(launches[0].get('llm_stack_loaded', [])) or 'none'})")
    if writers:
        writer = max(writers, key=lambda r: r["max_stall_ms"])
        print(f"writer: {writer['writer_turns']} turns in {writer['writer_seconds']:.1f} s, "
              f"{writer['memories_written']} memories written")
        print(f"event-loop stall while writing ({len(writers)} runs"
              f"{', LLM stack preloaded' if args.preload_llm else ', the first turn imports the LLM stack'}"
              "): max " + ", ".join(f"{r['max_stall_ms']:.1f}" for r in writers)
              + " ms; p99 " + ", ".join(f"{r['p99_stall_ms']:.1f}" for r in writers) + " ms")
        print("garbage collections while writing (count, longest ms per generation): "
              + "; ".join(json.dumps(r["gc"]) for r in writers))
    return 0


if __name__ == "__main__":
    sys.exit(main())
