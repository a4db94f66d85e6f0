"""Start-up without a usable place to run (issue 11 item 16, issue 15 items 16–17): no display is said in
one line (not a Qt abort), an unusable data folder is explained with a way out instead of killing the
app, a failed backend switch is shown, and a normal launch logs nothing below a warning."""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
from pathlib import Path

import pytest
from PySide6.QtWidgets import QApplication, QFileDialog, QMessageBox

from shell_fixtures import OFFSCREEN_SIZE_HINTS, app_settings
from sonetto_desktop.ui.display_check import display_problem

ROOT = Path(__file__).resolve().parents[2]


def test_display_problem_says_what_is_missing():
    linux = "linux"
    assert "no display" in display_problem({}, linux)
    assert display_problem({"QT_QPA_PLATFORM": "offscreen"}, linux) is None
    assert "no display" in display_problem({"QT_QPA_PLATFORM": "wayland", "DISPLAY": ":0"}, linux)
    assert display_problem({"WAYLAND_DISPLAY": "wayland-0"}, linux) is None
    assert display_problem({}, "win32") is None and display_problem({}, "darwin") is None


def test_no_display_is_one_line_and_exit_code_2(tmp_path):
    env = {k: v for k, v in os.environ.items() if k not in ("DISPLAY", "WAYLAND_DISPLAY", "QT_QPA_PLATFORM", "LC_ALL",
                                                            "LC_MESSAGES")}
    env.update(SONETTO_DATA_DIR=str(tmp_path / "d"), SONETTO_CONFIG_DIR=str(tmp_path / "c"), PYTHONPATH=str(ROOT),
               LANG="en_US.UTF-8")
    done = subprocess.run([sys.executable, "-m", "sonetto_desktop"], cwd=ROOT, env=env, capture_output=True,
                          text=True, timeout=60)
    assert done.returncode == 2  # not Qt's abort (134)
    assert done.stderr.startswith("sonetto: no display") and "xcb" not in done.stderr


def test_what_the_app_says_in_a_chinese_terminal_is_chinese(tmp_path):
    """`sonetto` in a zh_CN terminal without a display said "sonetto: no display: DISPLAY / WAYLAND_DISPLAY is
    not set…" (and what to install, "Sonetto is already running") in English, as the command lines did."""
    from sonetto_desktop.cli_words import Words
    from sonetto_desktop.ui.display_check import missing_library_problem, xcb_problem

    zh = Words("zh_CN")
    assert display_problem({}, "linux", zh).startswith("没有显示器：没有设置 DISPLAY / WAYLAND_DISPLAY")
    loader = "libQt6XcbQpa.so.6: libxcb-cursor.so.0: cannot open shared object file: No such file or directory"
    said = missing_library_problem(loader, zh)
    assert said.startswith("Qt 在 X11 上打开窗口需要 libxcb-cursor.so.0") and "sudo apt install libxcb-cursor0" in said
    assert xcb_problem(__file__, zh).startswith("Qt 的 X11 插件无法加载：")
    env = {k: v for k, v in os.environ.items() if k not in ("DISPLAY", "WAYLAND_DISPLAY", "QT_QPA_PLATFORM", "LC_ALL",
                                                            "LC_MESSAGES")}
    env.update(SONETTO_DATA_DIR=str(tmp_path / "d"), SONETTO_CONFIG_DIR=str(tmp_path / "c"), PYTHONPATH=str(ROOT),
               LANG="zh_CN.UTF-8")
    done = subprocess.run([sys.executable, "-m", "sonetto_desktop"], cwd=ROOT, env=env, capture_output=True,
                          text=True, timeout=60)
    assert done.returncode == 2 and done.stderr.startswith("sonetto：没有显示器："), done.stderr


def test_a_normal_launch_is_quiet(tmp_path):
    env = dict(os.environ, SONETTO_DATA_DIR=str(tmp_path / "d"), SONETTO_CONFIG_DIR=str(tmp_path / "c"),
               QT_QPA_PLATFORM="offscreen", PYTHON_KEYRING_BACKEND="keyring.backends.fail.Keyring",
               PYTHONPATH=str(ROOT))
    done = subprocess.run([sys.executable, "-m", "sonetto_desktop", "--self-test"], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=90)
    assert done.returncode == 0, done.stdout + done.stderr
    assert " INFO " not in done.stderr and " DEBUG " not in done.stderr


def _top(kind):
    QApplication.instance().setQuitOnLastWindowClosed(False)  # as the app's own QApplication is set up
    return [w for w in QApplication.topLevelWidgets() if isinstance(w, kind) and w.isVisible()]


async def test_an_unusable_data_folder_offers_another_one(qapp, qtbot, tmp_path, wait):
    from sonetto_desktop.ui.shell import SonettoApp

    qtbot.qt_log_ignore = [OFFSCREEN_SIZE_HINTS]
    not_a_folder = tmp_path / "data"
    not_a_folder.write_text("a file where the data folder should be", encoding="utf-8")
    app = SonettoApp(qapp, app_settings(not_a_folder), interactive=True, use_tray=False)
    starting = asyncio.ensure_future(app.start())
    try:
        await wait(lambda: _top(QMessageBox), message="the explanation")
        box = _top(QMessageBox)[0]
        assert "无法使用" in box.text() and str(not_a_folder) in box.informativeText()
        choose = next(b for b in box.buttons() if b.text() == "选择其他文件夹…")
        choose.click()
        await wait(lambda: _top(QFileDialog), message="the folder picker")
        picker = _top(QFileDialog)[0]
        good = tmp_path / "good"
        good.mkdir()
        picker.setDirectory(str(good))
        picker.accept()
        assert await asyncio.wait_for(starting, 20) is True
        assert app.store.path.parent == good and app.window.isVisible()
        assert not_a_folder.read_text(encoding="utf-8").startswith("a file")  # nothing written over it
    finally:
        await app.shutdown()


async def test_quitting_at_the_explanation_starts_nothing(qapp, qtbot, tmp_path, wait):
    from sonetto_desktop.ui.shell import SonettoApp

    not_a_folder = tmp_path / "data"
    not_a_folder.write_text("x", encoding="utf-8")
    app = SonettoApp(qapp, app_settings(not_a_folder), interactive=True, use_tray=False)
    starting = asyncio.ensure_future(app.start())
    try:
        await wait(lambda: _top(QMessageBox))
        box = _top(QMessageBox)[0]
        next(b for b in box.buttons() if b.text() == "退出").click()
        assert await asyncio.wait_for(starting, 10) is False
        assert app.quit_requested.is_set() and app.window is None
    finally:
        await app.shutdown()


def test_a_missing_x11_library_is_one_line_naming_the_package():
    """Issue 38 item 8: Qt's raw "could not load the Qt platform plugin xcb" becomes what to install."""
    from sonetto_desktop.ui.display_check import debian_package, missing_library_problem, xcb_problem

    loader = ("/opt/sonetto/PySide6/Qt/lib/libQt6XcbQpa.so.6: libxcb-cursor.so.0: cannot open shared object "
              "file: No such file or directory")
    said = missing_library_problem(loader)
    assert said is not None and "\n" not in said
    assert "libxcb-cursor.so.0" in said and "sudo apt install libxcb-cursor0" in said
    assert [debian_package(n) for n in ("libxkbcommon-x11.so.0", "libxcb-icccm.so.4", "libEGL.so.1")] == \
        ["libxkbcommon-x11-0", "libxcb-icccm4", "libegl1"]
    assert missing_library_problem("undefined symbol: xcb_foo") is None
    assert xcb_problem() is None  # this machine's plugin loads
    assert "cannot be loaded" in xcb_problem(__file__)  # not a library at all: said, not Qt's abort


@pytest.mark.parametrize("when", ["running", "quitting"])
def test_the_process_ends_when_qts_loop_is_quit_from_under_it(tmp_path, llm_server, when):
    """The X server went away (a logout, a crash): Qt's X11 plugin quits the event loop before the
    ordered shutdown can run. The process lingered for ever, holding the memory store (the chat's
    session database thread waited for a close that never came); now it logs why and ends, with
    what was acknowledged on disk. Run as a child process: the app's own main, offscreen. Also when
    the ordered shutdown had begun (a logout sends SIGTERM too): it stopped on "no running event loop"
    and the process lingered the same way, the next launch saying "already running" and showing nothing."""
    from sonetto_desktop.config.settings import Settings

    env = dict(os.environ, SONETTO_DATA_DIR=str(tmp_path / "d"), SONETTO_CONFIG_DIR=str(tmp_path / "c"),
               PYTHONPATH=str(ROOT), QT_QPA_PLATFORM="offscreen")
    env.pop("PYTHONUNBUFFERED", None)
    (tmp_path / "c").mkdir()
    settings = Settings(base_url=llm_server.base_url, model="test-model", store_backend="sqlite",
                        retrieval_mode="mechanical", embeddings_source="off")  # (a local server needs no key)
    settings.save(tmp_path / "c" / "settings.json", with_secret=False)
    child = subprocess.Popen([sys.executable, str(ROOT / "tests" / "display_gone_child.py"), "5", when], cwd=ROOT, env=env,
                             stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    try:
        out, _ = child.communicate(timeout=90)
    except subprocess.TimeoutExpired:
        child.kill()
        out, _ = child.communicate()
        raise AssertionError("the process did not end after Qt's loop was quit:\n" + out[-2000:]) from None
    assert "quitting Qt's loop" in out
    assert child.returncode == 1 and "the window system went away before Sonetto could shut down" in out, out[-2000:]


LINGERING_CHILD = """
import logging, sys, threading
from sonetto_desktop.ui import app
logging.basicConfig(level=logging.INFO)
app.LINGER_SECONDS = 0.5
threading.Thread(target=threading.Event().wait, name="a-database-worker").start()  # never ends, not a daemon
try:
    raise RuntimeError("no running event loop")
except RuntimeError as exc:
    app._not_lingering(exc)
print("returned", flush=True)
"""


def test_an_error_that_stops_the_app_does_not_leave_the_process_running():
    """The app stopped on an error in its shutdown (a logout: SIGTERM and the X server gone at once,
    and `quitting` found no running loop): the chat's database thread waited for a close that never
    came and the process lived on, holding the profile — the next launch said "already running" and
    showed nothing. Now threads that would keep it get a moment, then the process ends, saying why."""
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    done = subprocess.run([sys.executable, "-c", LINGERING_CHILD], cwd=ROOT, env=env, capture_output=True,
                          text=True, timeout=60)
    assert done.returncode == 1 and "returned" not in done.stdout, done.stdout + done.stderr
    assert "threads still running (a-database-worker): exiting now" in done.stderr, done.stderr
    assert "RuntimeError: no running event loop" in done.stderr
