"""Issue 11 items 3, 7, 11, 16 (data dir), 21: exports are atomic, killed writers' temp files are
cleaned up (never a live one's), files are owner-only, a full disk or a read-only folder gives one
clear line, never a traceback."""

from __future__ import annotations

import json
import os
import shutil
import signal
import stat
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest

from memory_stores import LOCAL_BACKENDS as BACKENDS, open_store, store_path  # files on this machine
from sonetto_desktop.cli import main as cli_main
from sonetto_desktop.memory import MemoryItem, YamlMemoryManager
from sonetto_desktop.memory.errors import StoreUnavailable
from sonetto_desktop.memory.files import remove_stale_temps

CHILD = Path(__file__).parent / "store_files_child.py"
POSIX = os.name == "posix"

# The command line's words asserted here are its English ones.
pytestmark = pytest.mark.usefixtures("english_terminal")


def _child(limit: str, uid: str, *args: str, timeout: float = 60) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, str(CHILD), limit, uid, *args], capture_output=True, text=True,
                          timeout=timeout)


def _fill(backend: str, folder: Path, n: int, words: int = 10) -> None:
    mm = open_store(backend, folder)
    mm.import_items({f"m{i:05d}": MemoryItem(f"第{i}条记忆，" + "细节" * words, f"主题{i % 5}") for i in range(n)})
    mm.close()


def _one_error_line(done: subprocess.CompletedProcess) -> str:
    assert done.returncode != 0, done.stdout
    assert "Traceback" not in done.stderr, done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), done.stderr
    return lines[0]


# ── item 3: export ───────────────────────────────────────────────────


@pytest.mark.parametrize("backend", BACKENDS)
def test_export_on_a_full_disk_keeps_the_previous_export(backend, tmp_path):
    _fill(backend, tmp_path, 2000)
    store, out = store_path(backend, tmp_path), tmp_path / "backup.yaml"
    assert cli_main(["--store", str(store), "export", "-o", str(out)]) == 0
    before = out.read_bytes()
    assert len(before) > 200_000
    line = _one_error_line(_child(str(64 * 1024), "-", "--store", str(store), "export", "-o", str(out)))
    assert "file size limit" in line or "disk is full" in line
    assert out.read_bytes() == before  # the previous export, whole
    assert not list(tmp_path.glob(".backup.yaml.*.tmp")), "no temp file left behind"


def test_export_killed_mid_write_never_leaves_a_truncated_file(tmp_path):
    _fill("sqlite", tmp_path, 6000)
    store, out = store_path("sqlite", tmp_path), tmp_path / "backup.json"
    assert cli_main(["--store", str(store), "export", "-o", str(out)]) == 0
    whole = json.loads(out.read_text(encoding="utf-8"))
    for delay in (0.2, 0.35, 0.5, 0.7, 0.9):
        child = subprocess.Popen([sys.executable, str(CHILD), "-", "-", "--store", str(store), "export", "-o", str(out)],
                                 stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        time.sleep(delay)
        os.kill(child.pid, signal.SIGKILL)
        child.wait()
        assert json.loads(out.read_text(encoding="utf-8"))["memories"] == whole["memories"]
    assert cli_main(["--store", str(store), "export", "-o", str(out)]) == 0
    assert not list(tmp_path.glob(".backup.json.*.tmp")), "a killed export's temp file is cleaned up"


# ── item 7: temp files of killed writers ─────────────────────────────


def test_a_killed_writers_temp_file_is_removed_a_live_ones_is_kept(tmp_path):
    _fill("yaml", tmp_path, 10)
    dead = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True)
    dead_pid = int(dead.stdout)
    live = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    try:
        stale = tmp_path / f".memory.yaml.{dead_pid}.140000000000.tmp"
        stale.write_bytes(b"x" * 6_000_000)  # what a kill -9 mid-write left behind
        busy = tmp_path / f".memory.yaml.{live.pid}.140000000000.tmp"
        busy.write_bytes(b"being written")
        other = tmp_path / f".notes.txt.{dead_pid}.1.tmp"  # not ours: never touched
        other.write_bytes(b"y")
        YamlMemoryManager(tmp_path / "memory.yaml").close()
        assert not stale.exists()
        assert busy.exists() and other.exists()
    finally:
        live.kill()
        live.wait()


def test_a_store_writer_killed_mid_compaction_leaves_no_temp_file_for_ever(tmp_path):
    _fill("yaml", tmp_path, 20000, words=30)
    code = ("import sys; sys.path.insert(0, %r); from sonetto_desktop.memory import YamlMemoryManager; "
            "mm = YamlMemoryManager(%r); mm.add('x', 'y'); print('ready', flush=True); "
            "[mm.compact() for _ in range(1000)]") % (str(Path(__file__).parent.parent), str(tmp_path / "memory.yaml"))
    child = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, text=True)
    assert child.stdout.readline().strip() == "ready"
    leftovers: list[Path] = []
    for _ in range(2000):  # kill it while its temp file is on disk
        leftovers = list(tmp_path.glob(".memory.yaml.*.tmp"))
        if leftovers:
            break
        time.sleep(0.002)
    os.kill(child.pid, signal.SIGKILL)
    child.wait()
    child.stdout.close()
    assert leftovers, "the writer was killed while its temp file existed"
    mm = YamlMemoryManager(tmp_path / "memory.yaml")
    assert mm.count() == 20001
    mm.close()
    assert not list(tmp_path.glob(".memory.yaml.*.tmp"))


def test_remove_stale_temps_ignores_other_names(tmp_path):
    (tmp_path / ".memory.yaml.1.2.tmp.keep").write_text("x")
    assert remove_stale_temps(tmp_path, ("memory.yaml",)) == []


# ── item 11: file modes ──────────────────────────────────────────────


@pytest.mark.skipif(not POSIX, reason="file modes are POSIX")
@pytest.mark.parametrize("backend", BACKENDS)
async def test_data_dir_and_files_are_owner_only_including_old_ones(backend, tmp_path):
    from sonetto_desktop.config.settings import Settings
    from sonetto_desktop.services import AppServices

    data = tmp_path / "data"
    data.mkdir(mode=0o755)
    _fill(backend, data, 3)
    for path in data.iterdir():
        path.chmod(0o644)  # as an older version left them
    data.chmod(0o755)
    journal = data / "memory.journal" / "pending"
    journal.mkdir(parents=True)
    services = await AppServices.open(settings=Settings(data_dir=str(data), store_backend=backend), watch=False)
    try:
        mid = services.memory.add("新的记忆", "瞬间").ids[0]
        services.memory.delete(mid)
        out = tmp_path / "export.yaml"
        from sonetto_desktop.memory.transfer import write_export

        write_export(services.store, out, "yaml")
        from sonetto_desktop.agent.sessions import SessionStore

        sessions = SessionStore(data / "sessions.db")
        await sessions.open()
        await sessions.close()
        from sonetto_desktop.memory.writer.journal import TurnJournal

        TurnJournal(data / "memory.journal")._ensure_dirs()
    finally:
        await services.close()
    assert stat.S_IMODE(data.stat().st_mode) == 0o700
    assert stat.S_IMODE((data / "memory.journal").stat().st_mode) == 0o700
    loose = [p.name for p in list(data.iterdir()) + [out] if p.is_file() and stat.S_IMODE(p.stat().st_mode) & 0o077]
    assert loose == [], loose


# ── item 16: an unusable data dir ────────────────────────────────────


async def test_an_unusable_data_dir_is_one_typed_error(tmp_path):
    from sonetto_desktop.config.settings import Settings
    from sonetto_desktop.services import AppServices

    blocker = tmp_path / "not-a-folder"
    blocker.write_text("a file where the data dir should be")
    with pytest.raises(StoreUnavailable) as caught:
        await AppServices.open(settings=Settings(data_dir=str(blocker)), watch=False)
    assert str(blocker) in str(caught.value) and caught.value.zh


def test_cli_with_an_unusable_data_dir_or_bad_settings_prints_one_line(tmp_path):
    blocker = tmp_path / "not-a-folder"
    blocker.write_text("x")
    env = dict(os.environ, SONETTO_DATA_DIR=str(blocker))
    done = subprocess.run([sys.executable, "-m", "sonetto_desktop", "memory", "list"], env=env, capture_output=True,
                          text=True, timeout=60, cwd=Path(__file__).parent.parent)
    assert "cannot use the data folder" in _one_error_line(done)
    config = tmp_path / "config"
    config.mkdir()
    (config / "settings.json").write_bytes(b'{"model": "\xff\xfe\xc0"}')  # not UTF-8
    env = dict(os.environ, SONETTO_CONFIG_DIR=str(config), SONETTO_DATA_DIR=str(tmp_path / "data"))
    done = subprocess.run([sys.executable, "-m", "sonetto_desktop", "memory", "list"], env=env, capture_output=True,
                          text=True, timeout=60, cwd=Path(__file__).parent.parent)
    assert done.returncode == 0 and "Traceback" not in done.stderr, done.stderr
    assert list(config.glob("settings.json.corrupt-*")), "the unreadable settings file is kept aside"


# ── item 21: full disk and read-only ─────────────────────────────────


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_write_on_a_full_disk_is_one_line_and_reads_still_work(backend, tmp_path):
    _fill(backend, tmp_path, 50)
    store = str(store_path(backend, tmp_path))
    big = tmp_path / "big.json"
    big.write_text(json.dumps({f"n{i}": {"description": f"新的第{i}条" + "长" * 200, "theme": "瞬间"}
                               for i in range(500)}, ensure_ascii=False), encoding="utf-8")
    limit = str(40 * 1024)  # room for SQLite's 32 KB -shm file, none for the write
    line = _one_error_line(_child(limit, "-", "--store", store, "import", str(big)))
    # (SQLite reports the size limit as "disk I/O error"; a full disk as "database or disk is full")
    assert "Not saved, nothing was changed" in line and line.count("nothing was changed") == 1, line
    listed = _child(limit, "-", "--store", store, "list")
    assert listed.returncode == 0 and "第1条记忆" in listed.stdout, listed.stderr
    mm = open_store(backend, tmp_path)
    assert mm.count() == 50 and mm.self_check().status == "OK"
    mm.close()


@pytest.mark.skipif(not POSIX, reason="permissions are POSIX")
@pytest.mark.parametrize("backend", BACKENDS)
def test_a_read_only_store_lists_and_exports_and_refuses_writes_in_one_line(backend, tmp_path):
    folder = Path(tempfile.mkdtemp(prefix="sonetto-ro-"))  # reachable by another user (tmp_path is not)
    try:
        _fill(backend, folder, 30)
        for path in folder.iterdir():
            path.chmod(0o444)
        folder.chmod(0o555)
        uid = "65534" if os.geteuid() == 0 else "-"  # root may write anything: run as nobody
        store = str(store_path(backend, folder))
        listed = _child("-", uid, "--store", store, "list")
        assert listed.returncode == 0 and "第29条记忆" in listed.stdout, listed.stderr
        exported = _child("-", uid, "--store", store, "export", "--format", "json")
        assert exported.returncode == 0, exported.stderr
        assert len(json.loads(exported.stdout)["memories"]) == 30
        line = _one_error_line(_child("-", uid, "--store", store, "add", "只读时写的", "--theme", "瞬间"))
        assert "read-only" in line
        checked = _child("-", uid, "--store", store, "check")
        assert checked.returncode == 0 and "read-only" in checked.stdout, checked.stderr
    finally:
        folder.chmod(0o755)
        shutil.rmtree(folder, ignore_errors=True)
