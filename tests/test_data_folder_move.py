"""A new data folder chosen in the settings: when it holds no memories, the current folder's
memories, chats and lists are copied there (the current folder is left as it is), as a backend
switch migrates them; a folder that holds memories already is used as it is."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from sonetto_desktop.config.settings import Settings
from sonetto_desktop.services import DATA_FILES, AppServices


def _settings(data, backend="yaml") -> Settings:
    return Settings(data_dir=str(data), retrieval_mode="mechanical", store_backend=backend)


@pytest.mark.parametrize("backend", ["yaml", "sqlite"])
async def test_a_new_empty_data_folder_gets_the_memories(tmp_path, backend):
    old, new = tmp_path / "old", tmp_path / "elsewhere" / "sonetto"
    services = await AppServices.open(settings=_settings(old, backend), watch=False)
    try:
        kept = services.memory.add("用户喜欢爬山", "爱好").ids[0]
        gone = services.memory.add("下周出差", "时效待办").ids[0]
        services.memory.delete(gone, reason="取消了")
        services.dont_remember.add("我的体检结果")
        await services.apply_settings(dataclasses.replace(services.settings, data_dir=str(new)))
        assert services.data_dir == new
        assert services.memory.get(kept).description == "用户喜欢爬山"
        assert [t["id"] for t in services.store.list_trash()] == [gone]
        assert [e.text for e in services.dont_remember.entries()] == ["我的体检结果"]
        services.memory.add("在新文件夹里记住的", "瞬间")
    finally:
        await services.close()
    again = await AppServices.open(settings=_settings(old, backend), watch=False)  # the old folder as it was
    try:
        assert [m["description"] for m in again.store.show()] == ["用户喜欢爬山"]
    finally:
        await again.close()


async def test_a_data_folder_with_memories_is_used_as_it_is(tmp_path):
    old, new = tmp_path / "old", tmp_path / "new"
    other = await AppServices.open(settings=_settings(new), watch=False)
    try:
        other.memory.add("另一份记忆", "爱好")
    finally:
        await other.close()
    services = await AppServices.open(settings=_settings(old), watch=False)
    try:
        services.memory.add("用户喜欢爬山", "爱好")
        await services.apply_settings(dataclasses.replace(services.settings, data_dir=str(new)))
        assert [m["description"] for m in services.store.show()] == ["另一份记忆"]
    finally:
        await services.close()


async def test_a_data_folder_inside_the_current_one_gets_the_memories(tmp_path):
    old = tmp_path / "old"
    new = old / "moved"
    services = await AppServices.open(settings=_settings(old), watch=False)
    try:
        services.memory.add("用户喜欢爬山", "爱好")
        await services.apply_settings(dataclasses.replace(services.settings, data_dir=str(new)))
        assert [m["description"] for m in services.store.show()] == ["用户喜欢爬山"]
        assert not (new / "moved").exists()
    finally:
        await services.close()


async def _one_memory_in(folder):
    """A data folder at ``folder`` holding one memory (the app opened on it, then closed)."""
    services = await AppServices.open(settings=_settings(folder), watch=False)
    try:
        services.memory.add("用户喜欢爬山", "爱好")
    finally:
        await services.close()


def _disk_full_at_the_store(monkeypatch):
    """The disk fills up when the copy comes to the memories' file (the other files copy as they are);
    returns the real copy, to put back."""
    import errno
    import shutil

    copy = shutil.copy2

    def full_at_the_store(source, target, **kw):
        if str(source).endswith("memory.yaml"):
            raise OSError(errno.ENOSPC, "No space left on device")
        return copy(source, target, **kw)

    monkeypatch.setattr(shutil, "copy2", full_at_the_store)
    return copy


async def _a_move_the_full_disk_stops(services, monkeypatch, new):
    """A memory written, then the data folder moved to ``new`` while the disk fills at the memories' file:
    the move fails (``OSError``); returns the real copy, to put back."""
    services.memory.add("用户喜欢爬山", "爱好")
    copy = _disk_full_at_the_store(monkeypatch)
    with pytest.raises(OSError):
        await services.apply_settings(dataclasses.replace(services.settings, data_dir=str(new)))
    return copy


async def test_a_copy_that_fails_leaves_the_new_folder_without_a_store_and_keeps_the_old_one(tmp_path, monkeypatch):
    """The disk fills up while the memories are copied: nothing half copied stays in the new folder
    (its next use copies again, whole), and the current folder's store is opened again."""
    import shutil

    old, new = tmp_path / "old", tmp_path / "new"
    services = await AppServices.open(settings=_settings(old), watch=False)
    try:
        copy = await _a_move_the_full_disk_stops(services, monkeypatch, new)
        assert services.data_dir == old
        assert [m["description"] for m in services.store.show()] == ["用户喜欢爬山"]
        # (the copy's lock; the marker that the copy was stopped, until the settings are saved back)
        assert sorted(p.name for p in new.iterdir() if p.name != ".migration.lock") == [".carrying.json"]
        await services.forget_stopped_carry(new)  # (the window, once it saved the settings again)
        assert not new.exists()  # the copy made it: nothing of it is left
        monkeypatch.setattr(shutil, "copy2", copy)
        await services.apply_settings(dataclasses.replace(services.settings, data_dir=str(new)))
        assert [m["description"] for m in services.store.show()] == ["用户喜欢爬山"]
    finally:
        await services.close()


async def test_a_copy_that_fails_into_a_folder_of_the_persons_leaves_nothing_of_its_own_there(tmp_path, monkeypatch):
    """A copy into a folder that was there already (the person's Documents) fails: the folder keeps
    what it held and nothing of the app's; the copy's lock file stayed there for good (only a folder the
    copy had made itself went, with its lock)."""

    old, new = tmp_path / "old", tmp_path / "Documents"
    new.mkdir()
    (new / "读书笔记.md").write_text("三体读后感", encoding="utf-8")
    services = await AppServices.open(settings=_settings(old), watch=False)
    try:
        await _a_move_the_full_disk_stops(services, monkeypatch, new)
        assert services.data_dir == old
        await services.forget_stopped_carry(new)  # (the window, once it saved the settings again)
        assert sorted(p.name for p in new.iterdir()) == ["读书笔记.md"]
    finally:
        await services.close()


async def test_a_quit_while_another_process_holds_the_folder_does_not_wait_for_it(tmp_path, monkeypatch):
    """Forgetting a stopped copy waits for the new folder's lock; another process held it (a second
    copy into that folder) and the app quit meanwhile: the wait went on in its worker thread, which the
    process's exit waits for, until that process let go. Cancelled, it gives up now (the cancel completes
    once the worker has let go) and removes nothing: the marker stays for a later copy to replace."""
    import asyncio
    import threading

    import portalocker

    from sonetto_desktop.memory.stores.data_folder import CARRYING, carry_stopped
    from sonetto_desktop.memory.stores.migrate import _migration_lock

    old, new = tmp_path / "old", tmp_path / "new"
    holding, release = threading.Event(), threading.Event()

    def hold() -> None:  # (another process's lock: a lock on another open file of the same path)
        with _migration_lock(new):
            holding.set()
            release.wait()

    holder = threading.Thread(target=hold, name="other-process-lock")
    tried = threading.Event()
    acquire = portalocker.Lock.acquire

    def seen_trying(lock, *args, **kwargs):  # (portalocker's own, told when a try finds the lock held)
        try:
            return acquire(lock, *args, **kwargs)
        except portalocker.exceptions.AlreadyLocked:
            tried.set()
            raise

    monkeypatch.setattr(portalocker.Lock, "acquire", seen_trying)
    services = await AppServices.open(settings=_settings(old), watch=False)
    try:
        await _a_move_the_full_disk_stops(services, monkeypatch, new)
        assert carry_stopped(new) == old
        holder.start()
        assert await asyncio.to_thread(holding.wait, 30)
        forgetting = asyncio.ensure_future(services.forget_stopped_carry(new))
        assert await asyncio.to_thread(tried.wait, 30)  # its worker waits for the lock
        forgetting.cancel()
        with pytest.raises(asyncio.CancelledError):
            await forgetting
    finally:
        release.set()
        if holder.is_alive():
            holder.join(30)
        await services.close()
    await asyncio.get_running_loop().shutdown_default_executor()  # (every worker thread has ended)
    assert (new / CARRYING).exists() and carry_stopped(new) == old  # it gave up: nothing was removed after


async def test_the_settings_and_keys_kept_beside_the_memories_stay_behind(tmp_path, monkeypatch):
    """On Windows and macOS the default data folder is the config folder too (platformdirs gives
    the same folder): its settings, the API key files (no keyring), the MCP token and the window's
    state are not memories and are not copied into the new folder, which is often a synced one
    (OneDrive, iCloud): the keys would go to that server."""
    from sonetto_desktop.config.secrets import MCP_TOKEN, mcp_token, store_api_key, store_secret
    from sonetto_desktop.config.settings import EMBEDDINGS_API_KEY, SETTINGS_FILE

    old, new = tmp_path / "shared", tmp_path / "OneDrive" / "Sonetto"
    monkeypatch.setenv("SONETTO_CONFIG_DIR", str(old))
    services = await AppServices.open(settings=_settings(old), watch=False)
    try:
        services.memory.add("用户喜欢爬山", "爱好")
        services.settings.save()
        store_api_key("sk-secret-chat-key", old)
        store_secret(EMBEDDINGS_API_KEY, "sk-secret-embeddings-key", old)
        mcp_token(old)
        (old / "ui-state.ini").write_text("[window]\n", encoding="utf-8")
        await services.apply_settings(dataclasses.replace(services.settings, data_dir=str(new)))
        assert [m["description"] for m in services.store.show()] == ["用户喜欢爬山"]
        copied = {p.name for p in new.rglob("*")}
        for name in (SETTINGS_FILE, "api_key", EMBEDDINGS_API_KEY, MCP_TOKEN, "ui-state.ini"):
            assert (old / name).exists()
            assert name not in copied
        assert not any("sk-secret" in p.read_text(errors="replace") for p in new.rglob("*") if p.is_file())
    finally:
        await services.close()


def test_the_config_folders_own_files_are_all_named():
    from sonetto_desktop.config.settings import CONFIG_FILES
    from sonetto_desktop.mcp_server import app_tokens, clients_seen

    assert {app_tokens.SECRET, clients_seen.FILE_NAME} <= CONFIG_FILES


async def test_the_app_and_sonetto_mcp_carrying_the_same_folder_at_once_lose_nothing(tmp_path, monkeypatch):
    """The window and a running ``sonetto mcp`` (which follows the saved settings) both move to the new
    folder at once: the second carry waits for the first and finds the memories there; it copied
    the same files beside it, under the same temporary names, and one's clean-up took away what the
    other had copied (the new folder kept the memories without the don't-remember list or the chats)."""
    import shutil
    import threading

    from sonetto_desktop.memory.stores.data_folder import carry_data

    old, new = tmp_path / "old", tmp_path / "new"
    services = await AppServices.open(settings=_settings(old), watch=False)
    try:
        services.memory.add("用户喜欢爬山", "爱好")
        services.dont_remember.add("我的体检结果")
    finally:
        await services.close()
    kept = sorted(str(p.relative_to(old)) for p in old.rglob("*") if p.is_file() and not p.name.endswith(".lock"))
    copy, paused, go = shutil.copy2, threading.Event(), threading.Event()

    def slow_at_the_store(source, target, **kw):  # the window's copy of the store, done, not yet in place
        done = copy(source, target, **kw)
        if threading.current_thread().name == "window" and str(source).endswith("memory.yaml"):
            paused.set()
            go.wait(30)
        return done

    monkeypatch.setattr(shutil, "copy2", slow_at_the_store)
    failed: list[BaseException] = []

    def carry() -> None:
        try:
            carry_data(old, new, data_files=DATA_FILES)
        except BaseException as exc:  # noqa: BLE001 - said by the assertion below
            failed.append(exc)

    window, mcp = threading.Thread(target=carry, name="window"), threading.Thread(target=carry, name="mcp")
    window.start()
    assert paused.wait(30)
    mcp.start()
    mcp.join(1)  # done already without a lock; waiting for the window's copy with one
    go.set()
    window.join(30)
    mcp.join(30)
    assert failed == []
    assert sorted(str(p.relative_to(new)) for p in new.rglob("*") if p.is_file() and not p.name.endswith(".lock")) == kept


async def test_a_sqlite_store_another_process_writes_meanwhile_is_copied_whole(tmp_path, monkeypatch):
    """``sonetto mcp`` keeps the old folder's SQLite store open (the last writes still in the -wal
    file) and writes while the window copies: the copy is the store as it was at one moment, never
    the -wal of one moment laid over the database file of a later one (a damaged copy)."""
    import shutil
    import sqlite3

    old, new = tmp_path / "old", tmp_path / "new"
    services = await AppServices.open(settings=_settings(old, "sqlite"), watch=False)
    mcp = await AppServices.open(settings=_settings(old, "sqlite"), watch=False, actor="mcp")
    try:
        ids = [services.memory.add(f"用户的第 {n} 条记忆：" + "喜欢爬山" * 20, f"主题{n % 7}").ids[0] for n in range(150)]
        with sqlite3.connect(old / "memory.db") as conn:
            conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        services.memory.add("刚记下的一条", "瞬间")  # (in the -wal file)
        (old / "self-test.log").write_text("ok\n", encoding="utf-8")  # (copied after the -wal file was)
        copy = shutil.copy2

        def mcp_writes_meanwhile(source, target, **kw):
            done = copy(source, target, **kw)
            if str(source).endswith("self-test.log"):
                for n, memory_id in enumerate(ids[:100]):
                    mcp.memory.update(memory_id, description=f"应用改写的第 {n} 条：" + "周末去露营" * 40)
                with sqlite3.connect(old / "memory.db") as conn:
                    conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
            return done

        monkeypatch.setattr(shutil, "copy2", mcp_writes_meanwhile)
        await services.apply_settings(dataclasses.replace(services.settings, data_dir=str(new)))
        with sqlite3.connect(new / "memory.db") as conn:
            assert conn.execute("PRAGMA integrity_check").fetchone() == ("ok",)
        shown = [m["description"] for m in services.store.show()]
        assert len(shown) == 151 and "刚记下的一条" in shown
        assert sum("应用改写的" in text for text in shown) in (0, 100)
    finally:
        await mcp.close()
        await services.close()


CUT_SHORT = """
import asyncio, dataclasses, os, sys
from sonetto_desktop.config.settings import Settings
from sonetto_desktop.services import AppServices

async def main(old, new):
    services = await AppServices.open(settings=Settings(data_dir=old, retrieval_mode="mechanical",
                                                        store_backend="sqlite"), watch=False)
    services.memory.add("用户喜欢爬山", "爱好")
    services.dont_remember.add("我的体检结果")
    replace = os.replace
    def killed_at_the_store(source, target, **kw):
        if str(target).endswith("memory.db"):
            os._exit(9)  # the app killed (Task Manager, power cut) while the memories were copied
        return replace(source, target, **kw)
    os.replace = killed_at_the_store
    await services.apply_settings(dataclasses.replace(services.settings, data_dir=new))

asyncio.run(main(sys.argv[1], sys.argv[2]))
"""


async def test_a_copy_cut_short_is_finished_at_the_next_start(tmp_path):
    """The settings name the new folder before its copy begins: the app killed meanwhile started
    next on the new folder, without a store, and opened an empty one there (every memory seemed
    gone, and with a store there no later move copied them again). The next start finishes the copy."""
    import os
    import subprocess
    import sys

    old, new = tmp_path / "old", tmp_path / "new"
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(Path(__file__).resolve().parent.parent),
                                                        os.environ.get("PYTHONPATH", "")])}
    done = subprocess.run([sys.executable, "-c", CUT_SHORT, str(old), str(new)], capture_output=True, text=True,
                          timeout=120, env=env)
    assert done.returncode == 9, done.stderr[-2000:]
    services = await AppServices.open(settings=_settings(new, "sqlite"), watch=False)  # the next start
    try:
        assert [m["description"] for m in services.store.show()] == ["用户喜欢爬山"]
        assert [e.text for e in services.dont_remember.entries()] == ["我的体检结果"]
    finally:
        await services.close()


async def test_a_damaged_database_beside_the_memories_does_not_stop_the_move(tmp_path):
    """A damaged chat or index database is copied as it is (SQLite cannot copy it; the new folder
    says it is damaged as the old one did), not a reason to refuse the new folder."""
    old, new = tmp_path / "old", tmp_path / "new"
    services = await AppServices.open(settings=_settings(old), watch=False)
    try:
        services.memory.add("用户喜欢爬山", "爱好")
        damaged = b"SQLite format 3\x00" + b"\xff" * 5000
        (old / "recall-models.json").unlink(missing_ok=True)
        (old / "sessions.db").write_bytes(damaged)  # the chats' database (this test opens no chat)
        await services.apply_settings(dataclasses.replace(services.settings, data_dir=str(new)))
        assert services.data_dir == new
        assert [m["description"] for m in services.store.show()] == ["用户喜欢爬山"]
        assert (new / "sessions.db").read_bytes() == damaged
    finally:
        await services.close()


async def test_only_the_apps_own_files_go_to_the_new_data_folder(tmp_path):
    """A data folder may be one of the person's own (Documents, a synced folder): moving the data
    copied everything in it, photos and all, into the new folder."""
    old, new = tmp_path / "Documents", tmp_path / "new"
    services = await AppServices.open(settings=_settings(old), watch=False)
    try:
        services.memory.add("用户喜欢爬山", "爱好")
        services.dont_remember.add("我的体检结果")
        (old / "照片").mkdir()
        (old / "照片" / "海边.jpg").write_bytes(b"\xff\xd8 a photo")
        (old / "读书笔记.md").write_text("三体读后感", encoding="utf-8")
        (old / "memo.txt").write_text("not a memory file: another program's", encoding="utf-8")
        await services.apply_settings(dataclasses.replace(services.settings, data_dir=str(new)))
        assert [m["description"] for m in services.store.show()] == ["用户喜欢爬山"]
        assert [e.text for e in services.dont_remember.entries()] == ["我的体检结果"]
    finally:
        await services.close()
    assert not (new / "照片").exists() and not (new / "读书笔记.md").exists() and not (new / "memo.txt").exists()
    assert (old / "照片" / "海边.jpg").exists()  # the old folder is left as it is


def test_the_data_files_carried_are_the_ones_the_app_writes():
    from sonetto_desktop.agent.engine import DB_NAME
    from sonetto_desktop.history_import.dont_import import FILE_NAME as DONT_IMPORT
    from sonetto_desktop.mcp_server.quota import QUOTA_FILE
    from sonetto_desktop.memory.dont_remember import FILE_NAME as DONT_REMEMBER
    from sonetto_desktop.memory.review import FILE_NAME as INBOX
    from sonetto_desktop.memory.stores.data_folder import ours
    from sonetto_desktop.memory.writer.hygiene import STATE_FILE
    from sonetto_desktop.services import DATA_FILES
    from sonetto_desktop.store_lifecycle import AGREEMENT_FILE

    assert set(DATA_FILES) == {DB_NAME, DONT_IMPORT, QUOTA_FILE, DONT_REMEMBER, INBOX, AGREEMENT_FILE}
    assert ours(STATE_FILE) and ours("memory.yaml") and ours("memory.journal") and not ours("memories-backup.zip")


async def test_quitting_while_the_data_is_copied_opens_nothing_afterwards(tmp_path, monkeypatch):
    """The app quits (services closed) while the move to a new data folder still copies: the copy
    went on to open the new store and restart the agents on the closed services, left open at exit."""
    import asyncio


    old, new = tmp_path / "old", tmp_path / "new"
    services = await AppServices.open(settings=_settings(old), watch=False)
    services.memory.add("用户喜欢爬山", "爱好")
    copying, go = _held_copy(monkeypatch)
    moving = asyncio.create_task(services.apply_settings(dataclasses.replace(services.settings, data_dir=str(new))))
    while not copying.is_set():
        await asyncio.sleep(0.01)
    old_handle = services._handle
    closing = asyncio.create_task(services.close())
    await asyncio.sleep(0.1)
    go.set()
    await asyncio.wait_for(asyncio.gather(moving, closing, return_exceptions=True), 30)
    assert services._handle is old_handle  # no store opened after the close
    assert services._agents is None


def _files(folder: Path) -> dict[str, bytes]:
    """Every file under ``folder`` with its bytes (the copy's lock aside)."""
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*"))
            if p.is_file() and p.name != ".migration.lock"}


async def test_a_copy_the_person_cancels_leaves_the_old_folder_in_use_and_the_new_one_as_it_was(tmp_path, monkeypatch):
    """A long copy (many chats, a big store) says how far it has come, and the person may stop it:
    the old folder stays in use and untouched, what was copied into the new one is removed again, and
    what the new folder held before (the person's own files) is left alone."""
    import asyncio
    import shutil
    import threading

    from sonetto_desktop import services as services_module
    from sonetto_desktop.memory.stores.data_folder import CarryProgress, CopyCancelled

    monkeypatch.setattr(services_module, "CARRY_PROGRESS_INTERVAL", 0.0)  # every step reported
    old, new = tmp_path / "old", tmp_path / "Documents" / "Sonetto"
    services = await AppServices.open(settings=_settings(old, "sqlite"), watch=False)
    try:
        services.memory.add("用户喜欢爬山", "爱好")
        services.dont_remember.add("我的体检结果")
        (old / "memory.journal").mkdir(exist_ok=True)
        for n in range(30):  # a journal of many turns
            (old / "memory.journal" / f"turn-{n:03}.json").write_text(f'{{"turn": {n}}}', encoding="utf-8")
        (new / "旧照片").mkdir(parents=True)
        (new / "旧照片" / "海边.jpg").write_bytes(b"\xff\xd8 a photo")
        (new / "读书笔记.md").write_text("三体读后感", encoding="utf-8")
        new_before, old_before = _files(new), {name: data for name, data in _files(old).items()
                                               if not name.startswith("memory.db")}
        seen: list[CarryProgress] = []
        services.subscribe_events(lambda event: isinstance(event, CarryProgress) and seen.append(event))
        copy, copied, go = shutil.copy2, threading.Event(), threading.Event()

        def slow(source, target, **kw):  # the copy's worker, made slow after a few files
            result = copy(source, target, **kw)
            if len(list(new.rglob("*.json"))) >= 3:
                copied.set()
                go.wait(30)
            return result

        monkeypatch.setattr(shutil, "copy2", slow)
        moving = asyncio.ensure_future(services.apply_settings(dataclasses.replace(services.settings, data_dir=str(new))))
        while not copied.is_set():
            await asyncio.sleep(0.01)
        assert services.cancel_carry()
        go.set()
        with pytest.raises(CopyCancelled):
            await asyncio.wait_for(moving, 30)
        assert services.data_dir == old
        assert [m["description"] for m in services.store.show()] == ["用户喜欢爬山"]
        assert [e.text for e in services.dont_remember.entries()] == ["我的体检结果"]
        await services.forget_stopped_carry(new)  # (the window, once it saved the settings again)
        assert _files(new) == new_before  # the person's own files only, nothing half copied
        assert sorted(p.name for p in new.iterdir()) == ["旧照片", "读书笔记.md"]  # no lock, no marker left
        assert not (new / "memory.journal").exists()  # the folders the copy made are gone too
        assert {n: d for n, d in _files(old).items() if not n.startswith("memory.db")} == old_before
        assert seen and seen[0].files_done == 0 and seen[0].files > 30 and seen[0].total_bytes > 0
        assert any(0 < p.files_done < p.files for p in seen)
        going = [p.bytes_done for p in seen if not p.finished]
        assert going == sorted(going)
        assert seen[-1].finished  # (over: the window takes its progress away)
        assert not services.cancel_carry()  # nothing under way any more
    finally:
        await services.close()


def test_a_big_database_is_copied_in_steps_that_can_be_stopped(tmp_path):
    """A big SQLite file (the chats, the store) is copied a few MB at a time: its progress moves while
    it is copied, and a cancel stops it in the middle, the part copied removed."""
    import sqlite3
    import threading

    from sonetto_desktop.memory.stores import data_folder
    from sonetto_desktop.memory.stores.data_folder import CopyCancelled, carry_data

    old, new = tmp_path / "old", tmp_path / "new"
    old.mkdir()
    (old / "memory.yaml").write_text("{}\n", encoding="utf-8")
    with sqlite3.connect(old / "sessions.db") as db:  # ~12 MB of chats
        db.execute("CREATE TABLE chat (text BLOB)")
        db.executemany("INSERT INTO chat VALUES (?)", [(bytes(4000),)] * 3000)
    cancel, seen = threading.Event(), []

    def progress(step) -> None:
        seen.append(step)
        if step.files_done == 0 and step.bytes_done >= data_folder.BACKUP_PAGES * 4096:
            cancel.set()  # well into the chats' database, the first file

    with pytest.raises(CopyCancelled):
        carry_data(old, new, data_files=DATA_FILES, progress=progress, cancel=cancel)
    assert [p for p in new.iterdir() if p.name not in (".migration.lock", ".carrying.json")] == []
    inside = [p.bytes_done for p in seen if p.files_done == 0 and p.bytes_done]
    assert inside and 0 < inside[-1] < (old / "sessions.db").stat().st_size  # told, and stopped part way
    seen.clear()
    assert {p.name for p in carry_data(old, new, data_files=DATA_FILES, progress=progress)} == {
        "sessions.db", "memory.yaml"}  # and copied whole another time
    assert seen[-1].finished and seen[-1].bytes_done == seen[-1].total_bytes


async def test_settings_saved_again_while_the_data_is_copied_wait_for_the_copy(tmp_path, monkeypatch):
    """The copy takes long; the person saves the settings again meanwhile (the folder set back, say):
    the second change re-opened the store while the first still copied, and the first then opened a
    store of its own too, two open on one folder, the first never closed. The second waits."""
    import asyncio

    from sonetto_desktop.store_lifecycle import StoreHandle

    old, new = tmp_path / "old", tmp_path / "new"
    services = await AppServices.open(settings=_settings(old), watch=False)
    handles: list[StoreHandle] = []
    opened = StoreHandle.open

    async def counted(self, *args, **kwargs):
        handles.append(self)
        return await opened(self, *args, **kwargs)

    monkeypatch.setattr(StoreHandle, "open", counted)
    try:
        services.memory.add("用户喜欢爬山", "爱好")
        copying, go = _held_copy(monkeypatch)
        first = asyncio.ensure_future(services.apply_settings(dataclasses.replace(services.settings, data_dir=str(new))))
        while not copying.is_set():
            await asyncio.sleep(0.01)
        second = asyncio.ensure_future(services.apply_settings(dataclasses.replace(services.settings, data_dir=str(old))))
        await asyncio.sleep(0.2)
        go.set()
        await asyncio.wait_for(asyncio.gather(first, second), 30)
        assert services.data_dir == old
        assert [h.data_dir for h in handles] == [new, old]  # one after the other
        assert [h._closed for h in handles] == [True, False]  # the one in use is the only one open
        assert [m["description"] for m in services.store.show()] == ["用户喜欢爬山"]
    finally:
        await services.close()


def test_a_cancel_while_the_last_file_is_copied_still_cancels(tmp_path, monkeypatch):
    """The store is copied last, and a YAML store is one file: 取消 clicked while it was copied was not
    looked at again, and the copy went on to be used."""
    import shutil
    import threading

    from sonetto_desktop.memory.stores.data_folder import CopyCancelled, carry_data

    old, new = tmp_path / "old", tmp_path / "new"
    old.mkdir()
    (old / "memory.yaml").write_text("{}\n", encoding="utf-8")
    (old / "dont_remember.json").write_text("[]", encoding="utf-8")
    cancel, copy = threading.Event(), shutil.copy2

    def cancelled_meanwhile(source, target, **kw):
        result = copy(source, target, **kw)
        if str(source).endswith("memory.yaml"):
            cancel.set()  # the person's 取消, while this file was being copied
        return result

    monkeypatch.setattr(shutil, "copy2", cancelled_meanwhile)
    with pytest.raises(CopyCancelled):
        carry_data(old, new, data_files=DATA_FILES, cancel=cancel)
    assert [p for p in new.iterdir() if p.name not in (".migration.lock", ".carrying.json")] == []


KILLED_AFTER_A_FAILED_COPY = """
import asyncio, dataclasses, errno, os, shutil, sys
from sonetto_desktop.config.settings import Settings
from sonetto_desktop.services import AppServices

async def main(old, new):
    services = await AppServices.open(settings=Settings(data_dir=old, retrieval_mode="mechanical"), watch=False)
    services.memory.add("用户喜欢爬山", "爱好")
    moved = dataclasses.replace(services.settings, data_dir=new)
    moved.save()  # (the settings dialog saves them, then they are applied)
    copy = shutil.copy2
    def full_at_the_store(source, target, **kw):
        if str(source).endswith("memory.yaml"):
            raise OSError(errno.ENOSPC, "No space left on device")
        return copy(source, target, **kw)
    shutil.copy2 = full_at_the_store
    async def killed(self, **kw):
        os._exit(9)  # the app killed while the old store opens again, before the settings are saved back
    AppServices._open_store = killed
    await services.apply_settings(moved)

asyncio.run(main(sys.argv[1], sys.argv[2]))
"""


async def test_a_kill_after_a_stopped_copy_starts_on_the_old_folder(tmp_path, monkeypatch):
    """A copy cancelled or failed removed its marker before the settings were saved back to the old
    folder: the app killed in between started next on the new, empty folder (every memory seemed
    gone; they were in the old folder). The next start goes back to the old folder."""
    import os
    import subprocess
    import sys

    from sonetto_desktop.config.settings import load_settings

    old, new, config = tmp_path / "old", tmp_path / "elsewhere" / "new", tmp_path / "config"
    monkeypatch.setenv("SONETTO_CONFIG_DIR", str(config))
    monkeypatch.delenv("SONETTO_DATA_DIR", raising=False)  # (the saved settings name the folder)
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(Path(__file__).resolve().parent.parent),
                                                        os.environ.get("PYTHONPATH", "")])}
    done = subprocess.run([sys.executable, "-c", KILLED_AFTER_A_FAILED_COPY, str(old), str(new)],
                          capture_output=True, text=True, timeout=120, env=env)
    assert done.returncode == 9, done.stderr[-2000:]
    settings = load_settings()
    assert settings.resolved_data_dir() == new  # (the settings file still names the new folder)
    services = await AppServices.open(settings=settings, watch=False)  # the next start
    try:
        assert services.data_dir == old
        assert [m["description"] for m in services.store.show()] == ["用户喜欢爬山"]
        assert services.returned_from == new
    finally:
        await services.close()
    assert not (new / "memory.yaml").exists()


async def test_quitting_stops_a_long_copy_and_the_next_start_uses_the_old_folder(tmp_path, monkeypatch):
    """The app quit while a big copy into a new data folder went on: the process stayed (its worker
    copying) until the whole copy was done. Quitting stops the copy as 取消 does: nothing of it stays
    in the new folder, and the next start, on the settings that name the new folder, uses the old one."""
    import asyncio
    import shutil
    import threading

    old, new = tmp_path / "old", tmp_path / "new"
    services = await AppServices.open(settings=_settings(old), watch=False)
    services.memory.add("用户喜欢爬山", "爱好")
    copy, copying, stopped = shutil.copy2, threading.Event(), []

    def slow(source, target, **kw):  # a big file, copied until the copy is stopped
        cancel = services._carry_cancel
        copying.set()
        stopped.append(cancel is not None and cancel.wait(10))
        return copy(source, target, **kw)

    monkeypatch.setattr(shutil, "copy2", slow)
    moved = dataclasses.replace(services.settings, data_dir=str(new))
    moving = asyncio.ensure_future(services.apply_settings(moved))
    while not copying.is_set():
        await asyncio.sleep(0.01)
    old_handle = services._handle
    await services.close()
    await asyncio.wait_for(asyncio.gather(moving, return_exceptions=True), 30)
    assert stopped and stopped[0]  # told to stop at once, not after the whole copy
    assert services._handle is old_handle  # nothing opened on the closed services
    assert [p.name for p in new.iterdir() if p.name not in (".migration.lock", ".carrying.json")] == []
    again = await AppServices.open(settings=moved, watch=False)  # the next start (the settings saved name ``new``)
    try:
        assert again.data_dir == old
        assert [m["description"] for m in again.store.show()] == ["用户喜欢爬山"]
    finally:
        await again.close()


def _held_copy(monkeypatch):
    """The copy into a new data folder held at its start: (set once it started, set to let it go on)."""
    import threading

    from sonetto_desktop import services as services_module

    copying, go = threading.Event(), threading.Event()
    carry = services_module._carry_data

    def slow_carry(*args, **kwargs):
        copying.set()
        go.wait(30)
        return carry(*args, **kwargs)

    monkeypatch.setattr(services_module, "_carry_data", slow_carry)
    return copying, go


MCP_FOLLOWING_A_MOVE = """
import asyncio, contextlib, dataclasses, sys
import portalocker
from sonetto_desktop.config.settings import Settings
from sonetto_desktop.memory.stores import data_folder
from sonetto_desktop.services import AppServices

held = data_folder._migration_lock

@contextlib.contextmanager
def said(folder, *args):  # says once whether another process holds the copy's lock, then takes it as the copy does
    with open(folder / ".migration.lock", "a") as probe:
        try:
            portalocker.lock(probe, portalocker.LOCK_EX | portalocker.LOCK_NB)
        except portalocker.exceptions.LockException:
            print("waiting", flush=True)
        else:
            portalocker.unlock(probe)
            print("free", flush=True)
    with held(folder, *args) as waited:
        yield waited

data_folder._migration_lock = said

async def main(old, new, how):
    if how == "starts":  # started on the settings the app saved, while the app copies
        services = await AppServices.open(settings=Settings(data_dir=new, retrieval_mode="mechanical"), actor="mcp",
                                          watch=False)
    else:  # running, it follows them
        services = await AppServices.open(settings=Settings(data_dir=old, retrieval_mode="mechanical"), actor="mcp",
                                          watch=False)
        try:
            # as sonetto mcp follows the settings the app saved (mcp_server/entry.py): followed. Without it the
            # refusal rested on this process having waited for the lock, which the app may let go between
            # the probe above and the copy's own try (a flaky run at load 5: it copied)
            await services.apply_settings(dataclasses.replace(services.settings, data_dir=new), followed=True)
        except Exception as exc:
            print("refused", type(exc).__name__, flush=True)
    print("serving", services.data_dir, [m["description"] for m in services.store.show()], flush=True)
    await services.close()

asyncio.run(main(*sys.argv[1:]))
"""


def _the_apps_copy_held(monkeypatch, old, new):
    """The app's copy of ``old`` into ``new`` on a thread named "window", held at its first file until
    ``go`` is set (``copying`` set then); ``cancel`` is the person's 取消; what ended it goes in ``ended``.
    Returns (thread, not started; copying, go, cancel, ended)."""
    import shutil
    import threading

    from sonetto_desktop.memory.stores.data_folder import carry_data

    copy, copying, go, cancel = shutil.copy2, threading.Event(), threading.Event(), threading.Event()

    def held(source, target, **kw):
        if threading.current_thread().name == "window":
            copying.set()
            go.wait(60)
        return copy(source, target, **kw)

    monkeypatch.setattr(shutil, "copy2", held)
    ended: list[BaseException] = []

    def window() -> None:
        try:
            carry_data(old, new, data_files=DATA_FILES, cancel=cancel)
        except BaseException as exc:  # noqa: BLE001 - said by the caller's assertions
            ended.append(exc)

    return threading.Thread(target=window, name="window"), copying, go, cancel, ended


@pytest.mark.parametrize("how", ["follows", "starts"])
async def test_sonetto_mcp_does_not_copy_into_a_folder_whose_copy_the_person_cancelled_in_the_app(tmp_path, monkeypatch,
                                                                                                  how):
    """``sonetto mcp`` follows the settings the app saved (a new data folder) while the app copies into it,
    and waits for the app's copy; the person cancels it: mcp then made its own copy there (a second
    store the app never used, found "with memories" the next time that folder was chosen) and served it.
    Now it does not copy, says why, and keeps serving the old folder, as the app does; started meanwhile on
    those settings, it waits for the app's copy too and serves the old folder."""
    import os
    import subprocess
    import sys

    from sonetto_desktop.memory.stores.data_folder import CopyCancelled, store_files

    old, new = tmp_path / "old", tmp_path / "Documents" / "Sonetto"
    monkeypatch.setenv("SONETTO_CONFIG_DIR", str(tmp_path / "config"))
    await _one_memory_in(old)
    app, copying, go, cancel, ended = _the_apps_copy_held(monkeypatch, old, new)
    app.start()
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(Path(__file__).resolve().parent.parent),
                                                        os.environ.get("PYTHONPATH", "")])}
    mcp = subprocess.Popen([sys.executable, "-c", MCP_FOLLOWING_A_MOVE, str(old), str(new), how], env=env,
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        assert copying.wait(30)
        first = mcp.stdout.readline().strip()
        assert first == "waiting", first + mcp.stderr.read()[-2000:]  # (for the app's copy)
        cancel.set()  # 取消 in the app
        go.set()
        app.join(30)
        out, err = mcp.communicate(timeout=120)
    finally:
        go.set()
        if mcp.poll() is None:
            mcp.kill()
    assert len(ended) == 1 and isinstance(ended[0], CopyCancelled)
    serving = f"serving {old} ['用户喜欢爬山']"
    assert out.splitlines() == (["refused CancelledElsewhere", serving] if how == "follows" else [serving]), err[-2000:]
    assert "the copy another Sonetto process made there was cancelled" in err  # (its log says why)
    assert store_files(new) == []  # no second copy of the memories there


async def test_a_late_follower_does_not_copy_into_a_folder_whose_copy_was_just_cancelled(tmp_path, monkeypatch):
    """The app saved settings naming a new data folder, copied into it and the person cancelled; in the
    moment before the app saves the settings back, ``sonetto mcp`` (following them) took them up. The
    folder's lock was free by then (the app's copy had ended), so it took it without waiting, did not look
    at the folder's "cancelled" mark (only a process that had waited did), made its own copy there — the
    memories in a folder the person had just said no to, found "with memories" the next time it was chosen —
    and served it. Now a follower never copies over a copy the person cancelled there."""
    import asyncio
    import threading

    from sonetto_desktop.mcp_server.entry import follow_settings
    from sonetto_desktop.memory.stores.data_folder import CopyCancelled, carry_data, carry_stopped, store_files

    old, new = tmp_path / "old", tmp_path / "OneDrive" / "Sonetto"
    monkeypatch.setenv("SONETTO_CONFIG_DIR", str(tmp_path / "config"))
    monkeypatch.delenv("SONETTO_DATA_DIR", raising=False)  # (it would override the folder the settings name)
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "xdg"))  # (never the real default folder)
    _settings(old).save()
    await _one_memory_in(old)
    mcp = await AppServices.open(settings=_settings(old), actor="mcp", watch=False)
    following = follow_settings(mcp)
    try:
        assert not await following.refresh()  # (the settings as saved so far: the old folder)
        _settings(new).save()  # the app: the new folder, saved before its copy begins
        cancel = threading.Event()
        cancel.set()  # the person's 取消, before the first file
        with pytest.raises(CopyCancelled):
            await asyncio.to_thread(carry_data, old, new, data_files=DATA_FILES, cancel=cancel)
        assert carry_stopped(new) == old  # (the app saves the settings back to the old folder next)
        await following.refresh()  # sonetto mcp takes up the saved settings in that moment
        assert mcp.data_dir == old, mcp.data_dir
        assert [m["description"] for m in mcp.store.show()] == ["用户喜欢爬山"]
    finally:
        await mcp.close()
    assert store_files(new) == []  # no copy of the memories there


async def test_a_follower_starting_while_a_copy_goes_on_does_not_copy_after_it_is_cancelled(tmp_path, monkeypatch):
    """``sonetto mcp`` started on the settings naming the new folder while the app copied into it: it found
    the copy under way (to be finished), and the person cancelled it before this process reached the
    folder's lock. Taking the lock without a wait, it made the copy the person had cancelled. Now it sees
    the mark and serves the old folder."""
    import asyncio

    from sonetto_desktop import services as services_module
    from sonetto_desktop.memory.stores.data_folder import CopyCancelled, store_files

    old, new = tmp_path / "old", tmp_path / "OneDrive" / "Sonetto"
    await _one_memory_in(old)
    app, copying, go, cancel, ended = _the_apps_copy_held(monkeypatch, old, new)
    found = services_module._carrying_from

    def then_cancelled(folder):  # the real look; then the person's 取消, the app's copy ended, before the lock
        source = found(folder)
        cancel.set()
        go.set()
        app.join(30)
        return source

    monkeypatch.setattr(services_module, "_carrying_from", then_cancelled)
    app.start()
    try:
        assert await asyncio.to_thread(copying.wait, 30)
        mcp = await AppServices.open(settings=_settings(new), actor="mcp", watch=False)
        try:
            assert mcp.data_dir == old and mcp.returned_from == new
            assert [m["description"] for m in mcp.store.show()] == ["用户喜欢爬山"]
        finally:
            await mcp.close()
    finally:
        go.set()
        app.join(30)
    assert len(ended) == 1 and isinstance(ended[0], CopyCancelled)
    assert store_files(new) == []
