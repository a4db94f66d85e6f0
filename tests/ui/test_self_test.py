"""``sonetto --self-test`` in a real subprocess: 0 on a fresh data dir, non-zero with the reason on a
corrupt store."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from shell_fixtures import OFFSCREEN_RAISE, OFFSCREEN_SIZE_HINTS, app_settings

ROOT = Path(__file__).resolve().parents[2]


def _self_test(home: Path, data: Path, locale: str = "en_US.UTF-8") -> subprocess.CompletedProcess:
    """``sonetto --self-test`` in a terminal whose locale is ``locale`` (English unless a test says)."""
    env = {k: v for k, v in os.environ.items() if k not in ("LC_ALL", "LC_MESSAGES")}
    env.update(SONETTO_DATA_DIR=str(data), SONETTO_CONFIG_DIR=str(home / "config"), QT_QPA_PLATFORM="offscreen",
               PYTHON_KEYRING_BACKEND="keyring.backends.fail.Keyring", PYTHONPATH=str(ROOT), LANG=locale)
    return subprocess.run([sys.executable, "-m", "sonetto_desktop", "--self-test"], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=60)


def test_self_test_passes_on_a_fresh_data_dir(tmp_path):
    result = _self_test(tmp_path, tmp_path / "fresh")
    assert result.returncode == 0, result.stdout + result.stderr
    assert "SELF-TEST OK" in result.stdout
    for timing in ("window_shown", "wall_rendered", "engine_ready"):
        assert timing in result.stdout
    assert (tmp_path / "fresh" / "memory.yaml").exists()
    assert (tmp_path / "fresh" / "sessions.db").exists() or list((tmp_path / "fresh").glob("*.db"))
    assert "embeddings model     multilingual-e5-small (4-bit): 384 dims" in result.stdout  # the built-in model runs


def test_self_test_fails_with_the_reason_on_a_corrupt_store(tmp_path):
    data = tmp_path / "broken"
    data.mkdir()
    (data / "memory.yaml").write_text("key: [never closed\n", encoding="utf-8")
    result = _self_test(tmp_path, data)
    assert result.returncode != 0
    assert "SELF-TEST FAILED" in result.stdout
    assert "memory.yaml" in result.stdout
    assert (data / "memory.yaml").read_text(encoding="utf-8") == "key: [never closed\n"


#: What a script reads in the self-test's output whatever the terminal's language (packaging/smoke.py): the
#: first line's start, the verdict and the timings' names.
_FOR_SCRIPTS = re.compile(r"sonetto self-test:|SELF-TEST (?:OK|FAILED)|\b[a-z]+(?:_[a-z]+)+\b|\bshutdown\b|\bms\b")


def test_the_self_test_speaks_a_chinese_terminals_language(tmp_path):
    """In a zh_CN terminal every line was English ("data dir …", "memories", "writer  idle", "model configured
    no", "embeddings model … dims", "SELF-TEST OK"): its lines are in the terminal's language, what scripts
    read in them (the first line's start, the verdict, the timings' names) as before."""
    result = _self_test(tmp_path, tmp_path / "fresh", "zh_CN.UTF-8")
    assert result.returncode == 0, result.stdout + result.stderr
    out = result.stdout
    assert out.startswith(f"sonetto self-test: 自检，数据文件夹 {tmp_path / 'fresh'}（yaml）\n"), out
    assert "\n  记忆条数             0\n" in out and "\n  已配置模型           否\n" in out, out
    assert "\n  记忆写入器           " in out and "multilingual-e5-small (4-bit)：384 维，" in out, out
    assert re.search(r"\n  窗口已显示 +window_shown +\d+ ms\n", out), out
    assert out.rstrip().endswith("自检通过（SELF-TEST OK）"), out
    people = _FOR_SCRIPTS.sub("", out.replace(str(tmp_path / "fresh"), "").replace("multilingual-e5-small (4-bit)", ""))
    assert not re.findall(r"[A-Za-z]{2,}", people.replace("yaml", "")), out


def test_a_failed_self_test_says_why_in_a_chinese_terminals_language(tmp_path):
    data = tmp_path / "broken"
    data.mkdir()
    (data / "memory.yaml").write_text("key: [never closed\n", encoding="utf-8")
    result = _self_test(tmp_path, data, "zh_CN.UTF-8")
    assert result.returncode == 1, result.stdout + result.stderr
    assert "自检失败（SELF-TEST FAILED）：记忆库自检没有通过：" in result.stdout, result.stdout
    assert result.stdout.rstrip().endswith("退出码 1"), result.stdout


def test_sigterm_runs_the_ordered_shutdown_and_exits_cleanly(tmp_path):
    import signal
    import time

    data = tmp_path / "data"
    env = dict(os.environ)
    env.update(SONETTO_DATA_DIR=str(data), SONETTO_CONFIG_DIR=str(tmp_path / "config"), QT_QPA_PLATFORM="offscreen",
               PYTHON_KEYRING_BACKEND="keyring.backends.fail.Keyring", PYTHONPATH=str(ROOT))
    proc = subprocess.Popen([sys.executable, "-m", "sonetto_desktop"], cwd=ROOT, env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    try:
        deadline = time.monotonic() + 30
        while not (data / "sessions.db").exists() and proc.poll() is None and time.monotonic() < deadline:
            time.sleep(0.1)
        assert proc.poll() is None, proc.communicate()[0]
        time.sleep(0.5)  # let the engine finish starting
        proc.send_signal(signal.SIGTERM)
        output, _ = proc.communicate(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate()
    assert proc.returncode == 0, output
    assert "Traceback" not in output, output
    assert (data / "memory.yaml").exists()


def test_the_postgresql_driver_check_reports_libpq():
    # run by the frozen bundle's self-test (CI's smoke check): its PostgreSQL store must load there
    from sonetto_desktop.ui.self_test import postgres_driver

    assert postgres_driver() >= 100000  # libpq's version number, e.g. 170006 for 17.6


@pytest.mark.qt_log_ignore(OFFSCREEN_RAISE, OFFSCREEN_SIZE_HINTS)
async def test_the_built_in_model_is_checked_beside_the_start_not_after_it(qapp, tmp_path, llm_server, monkeypatch):
    """Before: the self-test loaded and tried the built-in embeddings model only after every other
    check, adding its load to the self-test's time; its engine lets go of the GIL, so it runs beside them."""
    import io

    from sonetto_desktop.ui import self_test
    from sonetto_desktop.ui.shell import SonettoApp

    app = SonettoApp(qapp, app_settings(tmp_path / "data", llm_server), writer_drain_timeout=2.0, interactive=False)
    started_before_ready: list[bool] = []
    real_test = self_test.builtin_model_test

    def model_test(model):
        started_before_ready.append("engine_ready" not in app.timings)
        return real_test(model)

    monkeypatch.setattr(self_test, "builtin_model_test", model_test)
    out = io.StringIO()
    try:
        await self_test._checks(app, out)
    finally:
        await app.shutdown()
    if app.services.embeddings_plan().builtin is None:  # a platform without a built-in model: nothing to check
        assert "none built in here" in out.getvalue()
        return
    assert started_before_ready == [True]
    assert "embeddings model     " in out.getvalue() and "dims" in out.getvalue()
