"""What a person does in the running app at 10,000-100,000 memories, and how long the Qt thread is held (issue 37).

    python -m bench.ui_interactions --sizes 10000,100000 --backends sqlite,yaml
    BENCH_STALL_STACKS=1 python -m bench.ui_interactions --sizes 100000 --backends sqlite --only search-typed

For each size and backend one store is filled (as ``bench/ui_launch.py`` fills it: 12 themes, 5% of the
memories deleted into the trash), then a fresh child process starts the real app on it (``SonettoApp``,
offscreen, the scripted OpenAI-compatible server of ``tests/llm_server.py`` on 127.0.0.1 as its model),
waits until every card is shown and the chat engine is ready, lets it settle and runs the interactions
below one after the other, each as a person would start it (the widget's own signal or slot) and
followed until its result is on screen (the wall's slices done, the dialog loaded) plus a short settle.

The stall: a 5 ms ``QTimer`` heartbeat on the Qt thread records how late each beat comes; per
interaction the longest lateness is reported (ms). With ``BENCH_STALL_STACKS`` a watcher thread takes
the Qt thread's Python stack while a beat is over 60 ms late and prints the one of the longest stall
(what held the thread), with the Qt thread's CPU time over that stall. With ``BENCH_GC`` it prints each
interaction's collections over 20 ms: Python's cyclic collector holds the GIL through a pass, on
whichever thread allocated (a stall with no stack and no CPU of the Qt thread). ``--only
chat-typed,chat-typed-send`` types the first message into the chat's composer (its first key starts the
LLM stack's import), then sends it, where ``chat-turn`` sends at once; those two run only when named.
Not a test: the numbers go to
docs/benchmarks.md ("The running app at 100,000: what a person does after start-up").
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import subprocess
import sys
import threading
import time
import traceback
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
TRASHED = 0.05  # share of the memories deleted into the trash before the launch
#: run only when named in ``--only``: ``chat-typed`` types the first message into the composer (until the
#: import it starts has ended) and ``chat-typed-send`` sends it, which makes ``chat-turn`` (the first
#: turn in a default run) a second one
OPT_IN = {"chat-typed", "chat-typed-send"}
THEMES = ["身份", "品味", "瞬间", "项目", "音乐", "爱好", "工作", "家人", "朋友", "健康", "学习", "旅行"]


class Heartbeat:
    """A 5 ms QTimer on the Qt thread: how late each beat comes (the thread held by something else)."""

    def __init__(self, stacks: bool) -> None:
        from PySide6.QtCore import Qt, QTimer

        self.interval = 5
        self.last = time.perf_counter()
        self.longest = 0.0
        self.worst_stack = ""
        self.worst_cpu = 0.0
        self._stack = ""
        self._timer = QTimer()
        self._timer.setTimerType(Qt.TimerType.PreciseTimer)
        self._timer.setInterval(self.interval)
        self._timer.timeout.connect(self._beat)
        self._main = threading.main_thread().ident
        self._clock = time.pthread_getcpuclockid(self._main)
        self._cpu_at = time.clock_gettime(self._clock)
        self._running = True
        if stacks:
            threading.Thread(target=self._watch, daemon=True, name="bench-watch").start()

    def start(self) -> None:
        self.last = time.perf_counter()
        self.longest = 0.0
        self.worst_stack, self._stack, self.worst_cpu = "", "", 0.0
        self._cpu_at = time.clock_gettime(self._clock)
        self._timer.start()

    def stop(self) -> float:
        self._timer.stop()
        return self.longest

    def _beat(self) -> None:
        now = time.perf_counter()
        late = (now - self.last) * 1000 - self.interval
        cpu = time.clock_gettime(self._clock)
        if late > self.longest:
            self.longest = late
            self.worst_stack = self._stack
            self.worst_cpu = (cpu - self._cpu_at) * 1000
        self._stack = ""
        self._cpu_at = cpu
        self.last = now

    def _watch(self) -> None:
        while self._running:
            time.sleep(0.01)
            if (time.perf_counter() - self.last) * 1000 > 60 and not self._stack:
                frames = sys._current_frames()
                if self._main in frames:  # the Qt thread's stack, then the other threads' tops (the GIL's holder)
                    names = {t.ident: t.name for t in threading.enumerate()}
                    self._stack = "".join(traceback.format_stack(frames[self._main], limit=25)) + "".join(
                        f"  [{names.get(ident, ident)}]\n" + "".join(traceback.format_stack(frame, limit=4))
                        for ident, frame in frames.items() if ident not in (self._main, threading.get_ident())
                        and frame.f_code.co_name not in ("wait", "get", "select"))  # (idle workers left out)


class Collections:
    """``BENCH_GC``: Python's cyclic collections over 20 ms during an interaction (generation, ms, the thread
    that ran it, the objects tracked after it), each a stretch in which the collecting thread held the GIL.
    Counting the tracked objects adds a few ms to the pass it reports."""

    def __init__(self) -> None:
        import gc

        self.passes: list[tuple[int, float, str, int]] = []
        self._started = 0.0
        gc.callbacks.append(self._callback)

    def start(self) -> None:
        self.passes = []

    def _callback(self, phase: str, info: dict) -> None:
        if phase == "start":
            self._started = time.perf_counter()
            return
        ms = (time.perf_counter() - self._started) * 1000
        if ms > 20:
            import gc

            self.passes.append((info["generation"], ms, threading.current_thread().name, len(gc.get_objects())))

    def report(self) -> str:
        return ", ".join(f"gen{gen} {ms:.0f} ms ({thread}, {tracked:,} tracked)" for gen, ms, thread, tracked in self.passes)


# ── the child: the app and the interactions ───────────────────────────


class Hand:
    """The person's hand while an interaction runs: a pointer move over the window every 0.2 s, delivered
    through the application as a real one is. The interactions call the widgets' own slots, which makes
    no input event; the app keeps Python's due full collection for a moment with no input for 2.5 s
    (ui/quiet_collector.py), and a person doing something makes input. The pause after the last
    interaction makes none: the row "pause" is that quiet moment (the due pass, if any, runs in it)."""

    def __init__(self, window) -> None:
        from PySide6.QtCore import QTimer

        self._window = window
        self._timer = QTimer()
        self._timer.setInterval(200)
        self._timer.timeout.connect(self.move)

    def move(self) -> None:
        from PySide6.QtCore import QCoreApplication, QEvent, QPointF, Qt
        from PySide6.QtGui import QMouseEvent

        window = self._window()
        if window is None:
            return
        at = QPointF(window.width() / 2, window.height() / 2)
        event = QMouseEvent(QEvent.Type.MouseMove, at, window.mapToGlobal(at), Qt.MouseButton.NoButton,
                            Qt.MouseButton.NoButton, Qt.KeyboardModifier.NoModifier)
        QCoreApplication.sendEvent(window, event)

    def start(self) -> None:
        self.move()
        self._timer.start()

    def stop(self) -> None:
        self._timer.stop()


async def _settle(app, seconds: float = 0.3) -> None:
    import asyncio

    await asyncio.sleep(0.05)
    await app.wall.loader.wait()
    await asyncio.sleep(seconds)


def _interactions(app, qapp, server_state: dict):
    """(name, coroutine function) in the order a person might do them."""
    import asyncio

    from PySide6.QtCore import Qt
    from PySide6.QtTest import QTest

    def wall():
        return app.wall

    def some_ids(theme_index: int, count: int = 1) -> list[str]:
        section = wall().section(THEMES[theme_index])
        return section.proxy.ids()[:count]

    async def type_search(text: str) -> None:
        edit = wall().search_edit
        edit.setFocus()
        for char in text:
            edit.insert(char)  # as a key press or an input method commits it (textChanged)
            await asyncio.sleep(0.25)  # a typist's pace: each key after the search box's debounce
        await _settle(app)

    async def search_typed() -> None:
        await type_search("周末音乐")

    async def search_cleared() -> None:
        QTest.keyClick(wall().search_edit, Qt.Key.Key_Escape)
        await _settle(app)

    async def search_pinyin() -> None:
        await type_search("yinyue")
        search = wall().search
        if search.warming is not None:
            await search.warming
        await _settle(app)
        QTest.keyClick(wall().search_edit, Qt.Key.Key_Escape)
        await _settle(app)

    async def sort_hits() -> None:
        wall().toolbar.sort_combo.setCurrentIndex(1)
        await _settle(app)

    async def sort_recent() -> None:
        wall().toolbar.sort_combo.setCurrentIndex(0)
        await _settle(app)

    async def collapse() -> None:
        wall().section(THEMES[0]).toggle()
        await _settle(app)

    async def expand() -> None:
        wall().section(THEMES[0]).toggle()
        await _settle(app)

    async def outline_jump() -> None:
        wall().set_outline_shown(True)
        await _settle(app, 0.2)
        for theme in (THEMES[11], THEMES[5], THEMES[0]):
            wall().outline.theme_activated.emit(theme)
            await _settle(app, 0.2)

    async def scroll_fast() -> None:
        bar = wall().scroll.verticalScrollBar()
        step = max(1, bar.maximum() // 60)
        for i in range(60):
            bar.setValue(i * step)
            await asyncio.sleep(0.016)
        bar.setValue(bar.maximum())
        await asyncio.sleep(0.1)
        bar.setValue(0)
        await _settle(app)

    async def edit_dialog() -> None:
        memory_id = some_ids(3)[0]
        dialog = wall().actions.edit_card(memory_id)
        await asyncio.sleep(0.5)
        dialog.description_edit.setPlainText(dialog.description_edit.toPlainText() + "（改）")
        dialog.accept()
        await asyncio.sleep(1.0)
        await _settle(app)

    async def history_dialog() -> None:
        memory_id = some_ids(3)[0]
        dialog = wall().actions.show_history(memory_id)
        await dialog.wait_loaded()
        await asyncio.sleep(0.3)
        dialog.reject()
        await _settle(app)

    async def delete_undo() -> None:
        ids = some_ids(4)
        task = wall().actions.delete_cards(ids)
        if task is not None:
            await task
        await _settle(app)
        for undo in wall().actions.undo_delete(ids):
            await undo
        await _settle(app)

    async def drag_to_theme() -> None:
        ids = some_ids(6)
        from sonetto_desktop.ui.wall.memory_model import encode_ids

        result = wall().handle_drop(encode_ids(ids), THEMES[7])
        for task in result if isinstance(result, list) else [result]:
            if asyncio.isfuture(task):
                await task
        await asyncio.sleep(0.5)
        await _settle(app)

    async def trash() -> None:
        dialog = wall().actions.show_trash()
        loaded = asyncio.get_running_loop().create_future()
        dialog.loaded.connect(lambda: loaded.done() or loaded.set_result(None))
        await asyncio.wait_for(loaded, 120)
        await asyncio.sleep(0.3)
        dialog.reject()
        await _settle(app)

    async def chat_turn() -> None:
        server_state["writer_creates"] = 3
        task = app.controller.send("今天去听了一场音乐会，还吃了火锅")
        if task is not None:
            await task
        deadline = time.monotonic() + 60
        while (app.writer.pending or app.writer.busy) and time.monotonic() < deadline:
            await asyncio.sleep(0.05)
        await _settle(app, 0.5)

    async def chat_typed() -> None:
        # the first message typed into the chat's composer, as a person types it: the first key starts the
        # import of the LLM stack and the writer's index (ChatController.prepare, SonettoApp._on_typing)
        composer = app.window.chat_panel.composer
        composer.input.setFocus()
        for char in "今天去听了一场音乐会，还吃了火锅":
            composer.input.insertPlainText(char)  # as a key press or an input method commits it (textChanged)
            await asyncio.sleep(0.25)
        preparing = app.controller._engine.model._preparing  # the import the typing started (ChatModel.prepare)
        if preparing is not None:
            await asyncio.wait_for(asyncio.shield(preparing), 120)
        await _settle(app)

    async def chat_typed_send() -> None:
        server_state["writer_creates"] = 3
        app.window.chat_panel.composer.submit()
        await asyncio.sleep(0.05)
        deadline = time.monotonic() + 60
        while (app.controller.busy or app.writer.pending or app.writer.busy) and time.monotonic() < deadline:
            await asyncio.sleep(0.05)
        await _settle(app, 0.5)

    async def settings_recall() -> None:
        dialog = app.open_settings() if hasattr(app, "open_settings") else app.dialogs.open_settings()
        await asyncio.sleep(0.3)
        dialog.show_page(dialog.recall_page)
        await asyncio.sleep(3.0)  # it counts the memories' tokens (in a worker)
        dialog.reject()
        await _settle(app)

    async def quick_chat() -> None:
        app.show_quick_chat()
        await asyncio.sleep(0.5)
        app.quick_chat.hide()
        await _settle(app)

    async def language() -> None:
        from sonetto_desktop.ui.language_switch import change_language

        await change_language(app, "en")
        await asyncio.sleep(0.2)
        await _settle(app, 0.5)

    return [("search-typed", search_typed), ("search-cleared", search_cleared), ("search-pinyin", search_pinyin),
            ("sort-hits", sort_hits), ("sort-recent", sort_recent), ("collapse", collapse), ("expand", expand),
            ("outline-jump", outline_jump), ("scroll-fast", scroll_fast), ("edit-dialog", edit_dialog),
            ("history-dialog", history_dialog), ("delete-undo", delete_undo), ("drag-to-theme", drag_to_theme),
            ("trash", trash), ("chat-typed", chat_typed), ("chat-typed-send", chat_typed_send),
            ("chat-turn", chat_turn), ("chat-turn-again", chat_turn),
            ("settings-recall", settings_recall),
            ("quick-chat", quick_chat), ("language", language)]


async def _child_main(qapp, only: set[str]) -> dict:
    import asyncio

    sys.path.insert(0, str(ROOT / "tests"))
    from llm_server import ScriptedLLMServer, caller, tool_calls

    from sonetto_desktop.config.settings import Settings
    from sonetto_desktop.ui.shell import SonettoApp

    state = {"writer_creates": 0, "n": 0}
    server = ScriptedLLMServer()

    def respond(body):
        if caller(body) == "writer" and body["messages"][-1].get("role") != "tool" and state["writer_creates"]:
            state["writer_creates"] -= 1
            state["n"] += 1
            return tool_calls([("create_memory", {"content": f"用户去听了第 {state['n']} 场音乐会", "section": "音乐"})])
        return "好的"

    server.responder = respond
    server.start()
    settings = Settings(base_url=server.base_url, model="test-model", api_key="sk-bench", retrieval_mode="mechanical",
                        data_dir=os.environ["SONETTO_DATA_DIR"], theme="light",
                        store_backend=os.environ.get("BENCH_BACKEND", "sqlite"))
    app = SonettoApp(qapp, settings, interactive=False, use_tray=True)
    result: dict = {}
    try:
        await app.start()
        await app.wall_loaded
        await app.wall.loader.wait()
        await app.wait_until_ready()
        await asyncio.sleep(3.0)  # the start-up's work after the wall (self-check, recall warm-up)
        heartbeat = Heartbeat(bool(os.environ.get("BENCH_STALL_STACKS")))
        collections = Collections() if os.environ.get("BENCH_GC") else None
        if collections is not None:
            import gc

            print(f"== after start-up: {getattr(getattr(app, 'full_passes', None), 'passes', '-')} full passes at quiet "
                  f"moments, collector counts {gc.get_count()}", file=sys.stderr)
        hand = Hand(lambda: app.window)
        hand.start()
        heartbeat.start()
        await asyncio.sleep(1.0)
        result["idle"] = round(heartbeat.stop(), 1)
        for name, run in _interactions(app, qapp, state):
            if name not in only and (only or name in OPT_IN):
                continue
            heartbeat.start()
            if collections is not None:
                collections.start()
            started = time.perf_counter()
            try:
                await asyncio.wait_for(run(), 180)
            except Exception as exc:  # noqa: BLE001 - said in the table, the other rows still run
                result[name] = f"failed: {type(exc).__name__}: {exc}"
                heartbeat.stop()
                continue
            result[name] = round(heartbeat.stop(), 1)
            result[f"{name}:took_s"] = round(time.perf_counter() - started, 1)
            result[f"{name}:cpu"] = round(heartbeat.worst_cpu, 1)  # the Qt thread's CPU over that stall
            if collections is not None and collections.passes:
                print(f"== {name}: collections over 20 ms: {collections.report()}", file=sys.stderr)
            if heartbeat.worst_stack and heartbeat.longest > 100:
                print(f"== {name}: longest stall {heartbeat.longest:.0f} ms (Qt thread CPU {heartbeat.worst_cpu:.0f} ms)"
                      f"\n{heartbeat.worst_stack}", file=sys.stderr)
        hand.stop()
        heartbeat.start()  # a pause: nobody waits for the window (the due full collection's moment)
        if collections is not None:
            collections.start()
        await asyncio.sleep(4.0)
        result["pause"] = round(heartbeat.stop(), 1)
        result["pause:cpu"] = round(heartbeat.worst_cpu, 1)
        if collections is not None and collections.passes:
            print(f"== pause: collections over 20 ms: {collections.report()}", file=sys.stderr)
    finally:
        await app.shutdown()
        server.stop()
    return result


def child(only: set[str]) -> None:
    from sonetto_desktop.heap import share_one_arena

    share_one_arena()
    os.environ.setdefault("QT_API", "pyside6")
    import asyncio

    import qasync

    from sonetto_desktop.ui.app import create_qapp

    qapp = create_qapp([])
    with asyncio.Runner(loop_factory=lambda: qasync.QEventLoop(qapp)) as runner:
        result = runner.run(_child_main(qapp, only))
    print("BENCH " + json.dumps(result, ensure_ascii=False))


# ── the parent ─────────────────────────────────────────────────────────


def fill(data_dir: Path, memories: int, backend: str) -> None:
    """``memories`` memories over 12 themes (as ``bench/ui_launch.py``), 5% of them deleted since."""
    from sonetto_desktop.memory import MemoryItem, SqliteMemoryManager, YamlMemoryManager

    data_dir.mkdir(parents=True, exist_ok=True)
    items = {f"{i:08x}": MemoryItem(f"用户提到的第 {i} 件事：周末去了{THEMES[i % 12]}相关的地方",
                                    THEMES[i % 12], hit=i % 7,
                                    latest_update_time=f"2026-{i % 11 + 1:02d}-{i % 28 + 1:02d}T{i % 24:02d}:00:00")
             for i in range(memories)}
    store = (SqliteMemoryManager(data_dir / "memory.db") if backend == "sqlite"
             else YamlMemoryManager(data_dir / "memory.yaml"))
    store.import_items(items)
    with store.group():
        for i in range(0, memories, int(1 / TRASHED)):
            store.delete(f"{i + 1:08x}", reason="不再需要")
    store.close()


def launch(home: Path, backend: str, only: list[str]) -> dict:
    env = dict(os.environ, SONETTO_DATA_DIR=str(home / "data"), SONETTO_CONFIG_DIR=str(home / "config"),
               PYTHON_KEYRING_BACKEND="keyring.backends.fail.Keyring",
               QT_QPA_PLATFORM=os.environ.get("QT_QPA_PLATFORM", "offscreen"),
               PYTHONPATH=str(ROOT), BENCH_BACKEND=backend)
    command = [sys.executable, "-m", "bench.ui_interactions", "--child"] + (["--only", ",".join(only)] if only else [])
    out = subprocess.run(command, env=env, capture_output=True, text=True, timeout=1800, cwd=ROOT)
    if out.stderr and (os.environ.get("BENCH_STALL_STACKS") or os.environ.get("BENCH_GC")):
        print(out.stderr, file=sys.stderr)
    for line in out.stdout.splitlines():
        if line.startswith("BENCH "):
            return json.loads(line[6:])
    raise SystemExit(f"child failed:\n{out.stdout[-3000:]}\n{out.stderr[-5000:]}")


def _cell(result: dict, name: str) -> str:
    """The longest stall (the Qt thread's CPU over it), ms."""
    stall = result.get(name, "—")
    if not isinstance(stall, float):
        return str(stall)
    cpu = result.get(f"{name}:cpu")
    return f"{stall:,.0f} ({cpu:,.0f})" if cpu is not None else f"{stall:,.0f}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sizes", default="10000,100000")
    parser.add_argument("--backends", default="sqlite,yaml")
    parser.add_argument("--only", default="", help="interactions to run, comma separated")
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    only = [name for name in args.only.split(",") if name]
    if args.child:
        child(set(only))
        return
    import shutil
    import tempfile

    print(f"offscreen, Python {platform.python_version()}, {platform.machine()}, {os.cpu_count()} CPUs, "
          f"load average {os.getloadavg()[0]:.1f}")
    results: dict[str, dict] = {}
    for backend in args.backends.split(","):
        for size in (int(s) for s in args.sizes.split(",")):
            home = Path(tempfile.mkdtemp(prefix="sonetto-bench-interactions-"))
            try:
                fill(home / "data", size, backend)
                results[f"{size:,} {backend}"] = launch(home, backend, only)
            finally:
                shutil.rmtree(home, ignore_errors=True)
            print(json.dumps({f"{size:,} {backend}": results[f"{size:,} {backend}"]}, ensure_ascii=False), flush=True)
    columns = list(results)
    names = [k for k in next(iter(results.values())) if ":" not in k]
    print()
    print("| interaction: longest stall, ms (Qt thread CPU in it) | " + " | ".join(columns) + " |")
    print("|---|" + "---:|" * len(columns))
    for name in names:
        print(f"| {name} | " + " | ".join(_cell(results[c], name) for c in columns) + " |")
    print(f"\nload average at the end {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
