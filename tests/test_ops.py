"""Operations below Qt (issue 39 item 2): the window's operations are values that ``AppServices.run``
runs for any front end, returning ``Done`` or ``Failed`` worded once (``presentation/errors.py``)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from sonetto_desktop import ops
from sonetto_desktop.memory import MemoryNotFound, YamlMemoryManager
from sonetto_desktop.presentation.errors import describe_error
from sonetto_desktop.services import AppServices

from test_services import settings_for

HERE = Path(__file__).resolve().parent
TYPE_NAMES = ("Error", "Exception", "NotFound")


def test_a_front_end_without_qt_runs_the_same_operations(tmp_path):
    done = subprocess.run([sys.executable, str(HERE / "ops_child.py"), str(tmp_path / "data")],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    out = json.loads(done.stdout.strip().splitlines()[-1])
    assert out["qt_loaded"] is False
    memory_id = out["done"]["add"][1]
    assert out["done"]["add"][0] and out["done"]["edit"] == [True, True] and out["done"]["undo"] == [True, 1]
    assert out["done"]["snapshot"] == [True, {memory_id: "小林喜欢猫"}]  # the edit was undone
    assert out["done"]["forget"] == [True, ["别记住我的生日"]]
    kinds = [change[:2] for change in out["changes"]]
    assert kinds[:3] == [["add", "user"], ["update", "user"], ["revert", "user"]]
    add_turn, edit_turn = out["changes"][0][2], out["changes"][1][2]
    assert add_turn.startswith("ui-") and edit_turn.startswith("ui-") and add_turn != edit_turn  # one action each
    failed = out["failed"]
    assert {name: (ok, error) for name, (ok, _, error) in failed.items()} == {
        "edit": (False, "MemoryNotFound"), "read": (False, "MemoryNotFound"),
        "call": (False, "FileNotFoundError"), "services": (False, "ValueError")}
    assert out["one_wording"] is True
    assert failed["edit"][1] == failed["read"][1] == "找不到这条记忆，它可能已被删除或移动。"
    assert failed["call"][1].startswith("读写文件或连接失败：") and "missing.txt" in failed["call"][1]
    assert "dont_remember.json" in failed["services"][1]
    assert not any(name in message for _, message, _ in failed.values() for name in TYPE_NAMES)
    assert out["after"] == {memory_id: "小林喜欢猫"}  # the failures changed nothing


async def test_app_services_run_words_a_failure_once_and_changes_nothing(tmp_path):
    services = await AppServices.open(settings=settings_for(tmp_path), watch=False)
    try:
        kept = services.memory.add("用户住在成都", "身份").ids[0]
        before = services.memory.get(kept).to_dict()
        outcome = await services.run(ops.MergeMemories(kept, "gone-already", "合并", "身份"))
        assert isinstance(outcome, ops.Failed) and not outcome.ok and outcome.value is None
        assert isinstance(outcome.error, MemoryNotFound)
        assert outcome.message == describe_error(outcome.error) == "找不到这条记忆，它可能已被删除或移动。"
        assert services.memory.get(kept).to_dict() == before
        empty = await services.run(ops.AddMemory("", "身份"))
        assert empty.message.startswith("输入无效：") and services.memory.count() == 1
        silent = await services.run(ops.Call.of(_raise_bare))  # an exception with no text of its own
        assert silent.message == "操作失败：出了意外的问题，详情已写入日志。"
    finally:
        await services.close()


def _raise_bare() -> None:
    raise RuntimeError()


async def test_operations_run_over_a_bare_store_for_tools(tmp_path):
    store = YamlMemoryManager(tmp_path / "memory.yaml")
    try:
        added = await ops.run(ops.AddMemory("小林喜欢猫", "品味"), store)
        assert isinstance(added, ops.Done) and store.get(added.value).description == "小林喜欢猫"
        moved = await ops.run(ops.MoveMany(ops.ids([added.value]), "生活"), store)
        assert moved.ok and store.get(added.value).theme == "生活"
        needs = await ops.run(ops.ForgetTurn("t", "x"), store)  # the services' own: said, not raised
        assert not needs.ok and needs.message.startswith("操作失败：")
    finally:
        store.close()


def test_operations_are_values():
    assert ops.DeleteMemory("m1", "过时") == ops.DeleteMemory("m1", "过时")
    assert hash(ops.UndoTurn("t1")) == hash(ops.UndoTurn("t1"))
    assert ops.AddMemory("a", "b").changes and not ops.Snapshot().changes
    assert ops.Call.of(print, "x").changes is False and ops.Call(print, writes=True).changes is True


def test_a_file_failure_says_its_cause_in_the_persons_language():
    """The disk full, a file too large, a read-only disk, no permission: said as such (was the system's
    English 'No space left on device' in a Chinese sentence); the command line and MCP say it in English."""
    import errno

    from sonetto_desktop.presentation.errors import error_detail
    from sonetto_desktop.presentation.i18n import english, translating

    full = OSError(errno.ENOSPC, "No space left on device", "/data/export.yaml")
    assert describe_error(full) == "读写文件或连接失败：磁盘已满（/data/export.yaml）"
    assert error_detail(OSError(errno.EACCES, "Permission denied")) == "没有权限"
    with translating(english()):
        assert describe_error(full) == "A file or connection failed: the disk is full (/data/export.yaml)"
        assert "file size limit" in error_detail(OSError(errno.EFBIG, "File too large"))
        assert error_detail(OSError(errno.EIO, "Input/output error", "/x")) == "Input/output error (/x)"
    assert error_detail(OSError(errno.EROFS, "Read-only file system")) == "磁盘或文件夹是只读的"


def test_a_store_that_could_not_save_says_why_in_the_persons_language(tmp_path):
    """An edit on a full disk (a data folder on a small partition): the window's toast read
    "记忆库出错：could not save to memory store …/memory.yaml: the disk is full; nothing was changed", the
    store's English sentence inside a Chinese one. The store's own failures (not saved, read-only) are
    said in the person's language, with the cause and the store's file, and no English left over."""
    import errno

    from sonetto_desktop.memory.errors import StoreReadOnly, StoreWriteFailed, describe_os_error
    from sonetto_desktop.presentation.errors import describe_error_exactly
    from sonetto_desktop.presentation.i18n import english, translating

    path = str(tmp_path / "memory.yaml")

    def failed(code: int, text: str) -> StoreWriteFailed:  # as the stores raise it (stores/yaml/store.py)
        try:
            try:
                raise OSError(code, text)
            except OSError as exc:
                raise StoreWriteFailed(path, describe_os_error(exc)) from exc
        except StoreWriteFailed as exc:
            return exc

    full = failed(errno.ENOSPC, "No space left on device")
    said = describe_error(full)
    assert said == f"没有保存，什么都没有改动：磁盘已满（{path}）", said
    assert describe_error_exactly(full) == said  # (the sentence says all the failure's own text does)
    assert "没有权限" in describe_error(failed(errno.EACCES, "Permission denied"))
    assert "文件大小限制" in describe_error(failed(errno.EFBIG, "File too large"))
    assert "Input/output error" in describe_error(failed(errno.EIO, "Input/output error"))  # (no words of ours)
    read_only = describe_error(StoreReadOnly(path))
    assert read_only.startswith("记忆库是只读的") and path in read_only and "read-only" not in read_only, read_only
    with translating(english()):
        assert describe_error(full) == f"Not saved, nothing was changed: the disk is full ({path})"
        assert describe_error_exactly(full) == describe_error(full)  # (not its English twice)
        assert describe_error(StoreReadOnly(path)).startswith("The memory store is read-only")


def test_a_data_folder_turned_read_only_is_said_as_the_folder_not_a_lock_file(tmp_path):
    """Edges 18 item 2: the data folder turns read-only while the store is open (a remount after disk
    errors): an edit said "读写文件或连接失败：磁盘或文件夹是只读的（…/memory.yaml.lock）", a file the person
    never made. It says the data folder (its path) cannot be written, in the person's language."""
    from helpers import SmallDisk
    from sonetto_desktop.memory.errors import StoreReadOnly
    from sonetto_desktop.presentation.i18n import english, translating

    disk = SmallDisk(tmp_path / "data", size="1m")
    try:
        store = YamlMemoryManager(disk.path / "memory.yaml", flush_delay=None)
        store.add("喜欢喝绿茶", "饮食")
        disk.read_only()
        with pytest.raises(StoreReadOnly) as caught:
            store.add("只读之后写的", "瞬间")
        failure = caught.value
        said = describe_error(failure)
        assert said.startswith("数据文件夹") and str(disk.path) in said and ".lock" not in said, said
        with translating(english()):
            said = describe_error(failure)
            assert said.startswith(f"The data folder {disk.path} is read-only") and ".lock" not in said, said
        assert store.count() == 1
        store.writer._closed = True  # (nothing to write at close: the folder cannot take it)
    finally:
        disk.unmount()
