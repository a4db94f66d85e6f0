"""Issue 11 item 1: a backend switch killed with kill -9 at any step loses nothing and is finished
(or rolled back) at the next open; a failed switch opens the old store and says why."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from memory_stores import open_store as open_backend
from sonetto_desktop.memory.stores.migrate import open_store

CHILD = Path(__file__).parent / "migration_crash_child.py"
STEPS = ("copy", "trash_copied", "items_copied", "verify", "install", "installed", "retire")
DIRECTIONS = (("yaml", "sqlite"), ("sqlite", "yaml"))


def _fill(backend: str, folder: Path) -> tuple[dict, set]:
    mm = open_backend(backend, folder)
    ids = [mm.add(f"第{i}条记忆：小林喜欢第{i}种东西", f"主题{i % 3}", reason="测试") for i in range(12)]
    mm.update(ids[0], "更准确", new_description="小林最喜欢猫")
    mm.hit(ids[1])
    for mid in ids[:3]:
        mm.delete(mid, "不再需要")
    items = {mid: item.to_dict() for mid, item in mm.all_items().items()}
    trash = set(mm._load_trash())
    mm.close()
    return items, trash


def _kill_at(folder: Path, backend: str, step: str) -> list[str]:
    child = subprocess.Popen([sys.executable, str(CHILD), str(folder), backend, step],
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    seen = []
    try:
        while True:
            line = child.stdout.readline()
            assert line, f"the child ended before {step}: {seen} {child.stderr.read()}"
            seen.append(line.strip())
            if seen[-1] == "stopped":
                break
        os.kill(child.pid, signal.SIGKILL)
        child.wait(timeout=30)
    finally:
        if child.poll() is None:
            child.kill()
        child.stdout.close()
        child.stderr.close()
    return seen


@pytest.mark.parametrize("step", STEPS)
@pytest.mark.parametrize("source,target", DIRECTIONS, ids=["yaml->sqlite", "sqlite->yaml"])
def test_kill_9_at_any_step_of_a_switch_loses_nothing(tmp_path, source, target, step):
    items, trash = _fill(source, tmp_path)
    seen = _kill_at(tmp_path, target, step)
    assert seen[-2:] == [step, "stopped"]
    assert (tmp_path / "migration.json").exists()  # the interrupted switch is on record

    store, report = open_store(tmp_path, target)  # the next start finishes (or redoes) the switch
    try:
        assert report is not None and report.ok, report
        assert report.resumed or report.items == len(items)
        assert {mid: item.to_dict() for mid, item in store.all_items().items()} == items
        assert set(store._load_trash()) == trash
        assert store.self_check().status == "OK"
        assert not (tmp_path / "migration.json").exists() and not (tmp_path / ".migrating").exists()
        old = tmp_path / ("memory.yaml" if source == "yaml" else "memory.db")
        assert not old.exists() and list(tmp_path.glob(old.name + ".migrated-*")), "the old store is kept, renamed"
        store.add("切换之后写的", "瞬间")
    finally:
        store.close()
    # switching back later carries the current memories, never a stale copy
    back, report = open_store(tmp_path, source)
    try:
        assert report is not None and report.ok and back.count() == len(items) + 1
    finally:
        back.close()


@pytest.mark.parametrize("source,target", DIRECTIONS, ids=["yaml->sqlite", "sqlite->yaml"])
def test_switching_back_before_an_interrupted_copy_is_redone_keeps_the_old_store(tmp_path, source, target):
    items, _ = _fill(source, tmp_path)
    _kill_at(tmp_path, target, "items_copied")
    store, report = open_store(tmp_path, source)  # the user went back to the old backend
    try:
        assert {mid: item.to_dict() for mid, item in store.all_items().items()} == items
        assert not (tmp_path / "migration.json").exists()
    finally:
        store.close()


def test_old_code_leftover_trash_does_not_hide_the_memories(tmp_path):
    """The red-team's case: an SQLite -> YAML switch killed after the trash file was written left a
    non-empty trash beside no memory.yaml; the next start showed 0 memories and never resumed."""
    items, trash = _fill("sqlite", tmp_path)
    (tmp_path / "memory.trash.yaml").write_text(
        "zz000001:\n  item: {description: 旧的回收站条目, theme: 瞬间, history: [], hit: 0}\n"
        "  deleted_at: '2026-11-01T10:00:00'\n  reason: ''\n", encoding="utf-8")
    store, report = open_store(tmp_path, "yaml")
    try:
        assert report is not None and report.ok and report.items == len(items)
        assert {mid: item.to_dict() for mid, item in store.all_items().items()} == items
        assert set(store._load_trash()) == trash | {"zz000001"}  # nothing dropped, not even that trash
    finally:
        store.close()


def test_old_code_verify_crash_leftover_is_retired_not_reopened_later(tmp_path):
    """YAML -> SQLite killed in its verify step (old code) never renamed memory.yaml; switching back
    later opened that stale file. Now a source whose every memory the target holds is retired."""
    items, _ = _fill("yaml", tmp_path)
    db = open_backend("sqlite", tmp_path)
    src = open_backend("yaml", tmp_path)
    db.import_items(src.all_items())
    src.close()
    db.close()
    store, report = open_store(tmp_path, "sqlite")
    try:
        assert report is not None and report.ok
        assert not (tmp_path / "memory.yaml").exists() and list(tmp_path.glob("memory.yaml.migrated-*"))
        store.add("之后写在 SQLite 里的", "瞬间")
    finally:
        store.close()
    back, _ = open_store(tmp_path, "yaml")
    try:
        assert "之后写在 SQLite 里的" in [r["description"] for r in back.show()]
    finally:
        back.close()


def test_two_stores_with_different_memories_are_reported_not_mixed(tmp_path):
    _fill("yaml", tmp_path)
    db = open_backend("sqlite", tmp_path)
    db.add("只在 SQLite 里的记忆", "瞬间")
    db.close()
    store, report = open_store(tmp_path, "sqlite")
    try:
        assert report is not None and report.problem is not None and report.problem.opened == "sqlite"
        assert "memory.yaml" in report.problem.en and "memory.yaml" in report.problem.zh
        assert (tmp_path / "memory.yaml").exists()  # left as it is
    finally:
        store.close()


@pytest.mark.parametrize("source,target", DIRECTIONS, ids=["yaml->sqlite", "sqlite->yaml"])
def test_a_failing_copy_opens_the_old_store_and_reports_why(tmp_path, source, target):
    """A switch that fails (here: the disk fills up while the new store is written) keeps the old
    store authoritative and open, with the reason in the report — not 0 memories and a log line."""
    mm = open_backend(source, tmp_path)
    from sonetto_desktop.memory import MemoryItem

    mm.import_items({f"m{i:04d}": MemoryItem(f"第{i}条记忆，" + "细节" * 40, "瞬间") for i in range(400)})
    items = {mid: item.to_dict() for mid, item in mm.all_items().items()}
    mm.close()
    done = subprocess.run([sys.executable, str(CHILD), str(tmp_path), target, "", str(48 * 1024)],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    last = done.stdout.strip().splitlines()[-1]
    assert last.startswith("finished 400 ") and f"still using {source}" in last, done.stdout
    store, report = open_store(tmp_path, source)  # the old store is untouched and complete
    try:
        assert {mid: item.to_dict() for mid, item in store.all_items().items()} == items
        assert not (tmp_path / "migration.json").exists() and not (tmp_path / ".migrating").exists()
    finally:
        store.close()


def test_self_test_fails_while_a_switch_is_unresolved(tmp_path):
    import json

    data, config = tmp_path / "data", tmp_path / "config"
    _fill("yaml", data)
    db = open_backend("sqlite", data)
    db.add("只在 SQLite 里的记忆", "瞬间")
    db.close()
    config.mkdir()
    (config / "settings.json").write_text(json.dumps({"store_backend": "sqlite"}), encoding="utf-8")
    env = dict(os.environ, SONETTO_DATA_DIR=str(data), SONETTO_CONFIG_DIR=str(config), QT_QPA_PLATFORM="offscreen",
               PYTHON_KEYRING_BACKEND="keyring.backends.fail.Keyring", PYTHONPATH=str(Path(__file__).parent.parent),
               LANG="en_US.UTF-8", LC_ALL="", LC_MESSAGES="")  # (the self-test speaks the terminal's language)
    done = subprocess.run([sys.executable, "-m", "sonetto_desktop", "--self-test"], env=env, capture_output=True,
                          text=True, timeout=90, cwd=Path(__file__).parent.parent)
    assert done.returncode != 0, done.stdout + done.stderr
    assert "SELF-TEST FAILED" in done.stdout and "memory store switch FAILED" in done.stdout
