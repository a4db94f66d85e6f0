"""``sonetto history import`` in real subprocesses against the scripted model: kill -9 in the middle
of a batch and run the same command again (each batch written once, none asked twice), Ctrl+C
pauses, the JSON result, ``sonetto memory undo <undo_id>``, a malformed file, and ChatGPT's saved
memories from standard input."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from history_helpers import (bad_values_export, env_shanghai, fixture, is_writer, remember_each_line, said,
                             shanghai, two_apps_zip, writer_prompt)  # noqa: F401 - a fixture
from llm_server import HangResponse, tool_calls
from sonetto_desktop.history_import.ledger import ImportLedger
from sonetto_desktop.memory.stores.yaml.store import YamlMemoryManager

pytestmark = pytest.mark.usefixtures("shanghai")


def _env(server) -> dict[str, str]:
    return {**env_shanghai(), "SONETTO_BASE_URL": server.base_url, "SONETTO_MODEL": "test-model",
            "OPENAI_API_KEY": "sk-test"}


def _cli(server, *args: str, stdin: str | None = None, timeout: float = 120,
         env: dict[str, str] | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "sonetto_desktop", *args], capture_output=True, text=True,
                          timeout=timeout, env={**_env(server), **(env or {})}, input=stdin)


def _spawn(server, *args: str) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-m", "sonetto_desktop", *args], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, env=_env(server))


def _days_file(folder: Path, days: int, marker_day: int | None = None) -> Path:
    """One conversation per day (so one batch each), two user messages a day."""
    lines = []
    for d in range(days):
        for n in range(2):
            text = f"第{d}天的第{n}件事" + ("，HANG" if d == marker_day and n == 0 else "")
            lines.append({"conversation": f"day-{d}", "role": "user", "content": text,
                          "time": f"2024-03-{d + 1:02d}T2{n}:00:00+08:00"})
            lines.append({"conversation": f"day-{d}", "role": "assistant", "content": "好",
                          "time": f"2024-03-{d + 1:02d}T2{n}:00:05+08:00"})
    path = folder / "days.jsonl"
    path.write_text("\n".join(json.dumps(line, ensure_ascii=False) for line in lines), encoding="utf-8")
    return path


def _texts(store: Path) -> list[str]:
    manager = YamlMemoryManager(store)
    try:
        return sorted(i.description for i in manager.all_items().values())
    finally:
        manager.close()


def test_kill_9_in_the_middle_of_a_batch_then_the_same_command_finishes_it_once(llm_server, tmp_path):
    store = tmp_path / "data" / "memory.yaml"
    source = _days_file(tmp_path, 6, marker_day=3)
    hung = threading.Event()
    asked: list[str] = []  # per writer request: the batch's first words, and whether tool results were in it

    def write(body):
        if not is_writer(body):
            return "好"
        first = said(body)[0][1]
        followup = any(m["role"] == "tool" for m in body["messages"])
        asked.append(f"{first}{' +tools' if followup else ''}")
        if "HANG" in first:
            if not followup:  # one call that writes, one that fails: the model is asked again
                return tool_calls([("create_memory", {"content": "用户第3天说了一件要紧的事", "section": "身份"}),
                                   ("update_memory", {"id": "no-such-id", "content": "x", "reason": "y"})])
            if not hung.is_set():
                hung.set()
                return HangResponse(60)  # killed here: the create above is journaled done
            return "好的"
        if followup:
            return "好的"
        return tool_calls([("create_memory", {"content": f"用户说：{text}", "section": "身份"})
                           for _, text in said(body)])

    llm_server.responder = write
    args = ("history", "--store", str(store), "--create", "import", str(source), "--json")
    child = _spawn(llm_server, *args)
    try:
        assert hung.wait(60), "the import never reached the batch that hangs"
    finally:
        child.send_signal(signal.SIGKILL)
        child.communicate(timeout=30)
    assert child.returncode == -signal.SIGKILL
    ledger = ImportLedger(store.with_name("memory.imports"))
    (state,) = ledger.imports()
    assert state.status == "running" and sorted(ledger.written_batches(state.id)) == [0, 1, 2]
    assert "用户第3天说了一件要紧的事" in _texts(store)  # written before the kill, not yet in the ledger
    before = list(asked)

    result = _cli(llm_server, *args)
    assert result.returncode == 0, result.stderr
    assert "继续未完成的导入" in result.stderr
    out = json.loads(result.stdout)
    assert out["turns_written"] == 12 and out["undo_id"] == state.id and out["failed_turns"] == 0
    texts = _texts(store)
    assert len(texts) == len(set(texts)) == 1 + 2 * 5  # every batch's memories exactly once
    assert texts.count("用户第3天说了一件要紧的事") == 1
    again = asked[len(before):]
    # The killed batch resumed from its journal: its first model reply was not asked for again, and
    # the batches written before the kill were not sent again.
    assert again[0] == "第3天的第0件事，HANG +tools"
    assert [a for a in again if not a.endswith("+tools")] == ["第4天的第0件事", "第5天的第0件事"]
    assert sorted(ledger.written_batches(state.id)) == list(range(6))
    keys = [k for line in (ledger.folder / "ledger.jsonl").read_text().splitlines() for k in json.loads(line)["keys"]]
    assert len(keys) == len(set(keys)) == 12
    assert not ledger.journal_path(state.id).exists() and not (ledger.folder_of(state.id) / "batches.jsonl").exists()

    rerun = _cli(llm_server, *args)  # a third time: nothing to do, nothing asked
    assert json.loads(rerun.stdout)["turns_written"] == 0 and len(asked) == len(before) + len(again)


def _writes_one_memory_a_batch(llm_server) -> threading.Event:
    """The scripted model writes one memory a batch; the event is set at the first batch."""
    first = threading.Event()

    def write(body):
        if any(m["role"] == "tool" for m in body["messages"]):
            return "好的"
        first.set()
        return tool_calls([("create_memory", {"content": f"用户说：{said(body)[0][1]}", "section": "身份"})])

    llm_server.responder = write
    return first


def test_ctrl_c_pauses_after_the_batch_and_the_same_command_goes_on(llm_server, tmp_path):
    store, source, first = tmp_path / "memory.yaml", _days_file(tmp_path, 4), _writes_one_memory_a_batch(llm_server)
    llm_server.delay = 0.4  # each answer: the interrupt lands while a batch is at the model
    args = ("history", "--store", str(store), "--create", "import", str(source), "--json")
    child = _spawn(llm_server, *args)
    assert first.wait(60)
    child.send_signal(signal.SIGINT)
    out, err = child.communicate(timeout=60)
    assert child.returncode == 130, err
    assert "导入已暂停" in err and out == ""
    (state,) = ImportLedger(store.with_name("memory.imports")).imports()
    assert state.status == "paused" and 1 <= state.batches_done < 4
    llm_server.delay = 0
    result = _cli(llm_server, *args)
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout)["turns_written"] == 8  # the whole import's, before and after the pause
    assert len(_texts(store)) == 4
    asked_twice = [b for b in llm_server.requests if not any(m["role"] == "tool" for m in b["messages"])]
    assert len(asked_twice) == 4  # no batch was sent twice


def _import_each_line(llm_server, store) -> tuple[tuple[str, ...], dict]:
    """``history import`` of the sample history, each user line remembered: (the command's arguments, its JSON)."""
    llm_server.responder = lambda body: "好的" if any(m["role"] == "tool" for m in body["messages"]) else tool_calls(
        [("create_memory", {"content": f"用户说：{text}", "section": "身份"}) for _, text in said(body)])
    args = ("history", "--store", str(store), "--create", "import", str(fixture("history.jsonl")), "--json")
    return args, json.loads(_cli(llm_server, *args).stdout)


def test_undo_from_the_command_line_and_a_second_import(llm_server, tmp_path):
    store = tmp_path / "memory.yaml"
    args, out = _import_each_line(llm_server, store)
    assert set(out) == {"turns_written", "memories_created", "memories_updated", "memories_deleted", "proposals",
                        "failed_turns", "batches", "failed_batches", "error", "undo_id", "skipped_conversations",
                        "left_unread"}
    assert (out["batches"], out["failed_batches"], out["error"]) == (2, 0, None)
    assert (out["turns_written"], out["memories_created"]) == (3, 3)
    undo = _cli(llm_server, "memory", "--store", str(store), "undo", out["undo_id"])
    assert undo.returncode == 0, undo.stderr
    assert f"撤销了 {out['undo_id']} 的 3 处改动" in undo.stdout, undo.stdout  # the terminal's language, as history's
    assert _texts(store) == []
    status = json.loads(_cli(llm_server, "history", "--store", str(store), "status", "--json").stdout)
    assert status["imports"][0]["status"] == "undone"
    again = json.loads(_cli(llm_server, *args).stdout)  # undone: the same chats come in again
    assert again["turns_written"] == 3 and again["undo_id"] != out["undo_id"]


def test_undo_one_conversation_and_redo_an_import_from_the_command_line(llm_server, tmp_path):
    """Issue 38, item 4: ``history undo IMPORT --conversation ID`` and ``history redo IMPORT``."""
    store = tmp_path / "memory.yaml"
    args, out = _import_each_line(llm_server, store)
    everything = _texts(store)
    listed = _cli(llm_server, "history", "--store", str(store), "import", str(fixture("history.jsonl")), "--dry-run")
    ids = ["trip-2023", "work"]  # the ids the dry run lists beside each conversation
    assert all(cid in listed.stdout for cid in ids)
    one = _cli(llm_server, "history", "--store", str(store), "undo", out["undo_id"], "--conversation", ids[0], "--json")
    assert one.returncode == 0, one.stderr
    undone = json.loads(one.stdout)
    assert undone["undone"] and undone["conversation"] == ids[0]
    left = _texts(store)
    assert 0 < len(left) < len(everything)
    again = json.loads(_cli(llm_server, *args).stdout)  # that conversation's chats come in again, the other's not
    assert again["turns_written"] == len(everything) - len(left) and again["undo_id"] != out["undo_id"]

    whole = _cli(llm_server, "history", "--store", str(store), "undo", again["undo_id"], "--json")
    assert whole.returncode == 0 and json.loads(whole.stdout)["undone"]
    refused = _cli(llm_server, "history", "--store", str(store), "undo", again["undo_id"], "--json")
    assert refused.returncode == 2 and f"sonetto history redo {again['undo_id']}" in json.loads(refused.stdout)["error"]
    redo = _cli(llm_server, "history", "--store", str(store), "redo", again["undo_id"], "--json")
    assert redo.returncode == 0 and json.loads(redo.stdout)["redone"], redo.stderr
    assert _texts(store) == everything
    not_undone = _cli(llm_server, "history", "--store", str(store), "redo", again["undo_id"], "--json")
    assert not_undone.returncode == 2 and "is not undone" not in not_undone.stdout  # (Chinese: C locale)
    assert "没有被撤销" in json.loads(not_undone.stdout)["error"]


def test_undo_after_the_person_changed_cards_names_them_and_undoes_the_rest_on_request(llm_server, tmp_path):
    """Issue 35, item 4: ``sonetto history undo`` refuses while cards the person changed since would be
    lost, naming them by their text (not their ids) and why, in text and JSON; ``--rest`` keeps them
    and undoes the rest; the ledger says so."""
    store = tmp_path / "memory.yaml"
    llm_server.responder = lambda body: "好的" if any(m["role"] == "tool" for m in body["messages"]) else tool_calls(
        [("create_memory", {"content": f"用户说：{text}", "section": "身份"}) for _, text in said(body)])
    out = json.loads(_cli(llm_server, "history", "--store", str(store), "--create", "import",
                          str(fixture("history.jsonl")), "--json").stdout)
    import_id = out["undo_id"]
    manager = YamlMemoryManager(store)
    items = manager.all_items()
    manager.close()
    exam = next(mid for mid, i in items.items() if "N3" in i.description)
    assert _cli(llm_server, "memory", "--store", str(store), "update", exam, "用户2023年3月22日考了日语 N3").returncode == 0

    before = store.read_bytes()
    dry = _cli(llm_server, "history", "--store", str(store), "undo", import_id, "--dry-run")  # undo16: asked first
    assert dry.returncode == 0 and store.read_bytes() == before, dry.stderr
    assert dry.stdout.splitlines() == ["有 1 张卡片之后又被改过，会原样保留：",
                                       "  「用户2023年3月22日考了日语 N3」：你之后改过它（刚刚）",
                                       "其余的改动可以撤销：2 条移到回收站。",
                                       "（不加 --rest 时撤销会被拒绝，什么都不改）", "（试运行：什么都没改）"]
    dry_json = json.loads(_cli(llm_server, "history", "--store", str(store), "undo", import_id, "--dry-run",
                               "--json").stdout)
    assert dry_json["dry_run"] and dry_json["effects"] == {"trashed": 2} and [k["id"] for k in dry_json["kept"]] == [exam]

    refused = _cli(llm_server, "history", "--store", str(store), "undo", import_id)
    assert refused.returncode == 2 and _texts(store) == sorted([*(i.description for m, i in items.items() if m != exam),
                                                               "用户2023年3月22日考了日语 N3"])
    assert refused.stdout.splitlines() == ["有 1 张卡片之后又被改过，会原样保留：",
                                           "  「用户2023年3月22日考了日语 N3」：你之后改过它（刚刚）",
                                           "其余的改动可以撤销：2 条移到回收站。"]
    assert exam not in refused.stdout and f"sonetto history undo {import_id} --rest" in refused.stderr
    as_json = json.loads(_cli(llm_server, "history", "--store", str(store), "undo", import_id, "--json").stdout)
    assert as_json["undone"] is False and as_json["rest"] == 2 and as_json["effects"] == {"trashed": 2}
    assert [(k["id"], k["why"], k["actor"], k["description"]) for k in as_json["kept"]] == [
        (exam, "edited", "cli", "用户2023年3月22日考了日语 N3")]

    done = _cli(llm_server, "history", "--store", str(store), "undo", import_id, "--rest", "--json")
    result = json.loads(done.stdout)
    assert result["undone"] is True and result["effects"] == {"trashed": 2} and [k["id"] for k in result["kept"]] == [exam]
    assert _texts(store) == ["用户2023年3月22日考了日语 N3"]  # the person's card stays, the rest went
    status = json.loads(_cli(llm_server, "history", "--store", str(store), "status", "--json").stdout)
    assert (status["imports"][0]["status"], status["imports"][0]["kept"]) == ("undone", 1)
    again = _cli(llm_server, "history", "--store", str(store), "undo", import_id)
    assert again.returncode == 2 and f"sonetto memory undo {result['undo_turn_id']}" in again.stderr


def test_a_malformed_file_is_one_clear_line_and_changes_nothing(llm_server, tmp_path):
    store = tmp_path / "data" / "memory.yaml"
    store.parent.mkdir()
    store.write_text("{}\n", encoding="utf-8")
    llm_server.responder = lambda body: pytest.fail("no model may be asked")
    bad_json = tmp_path / "conversations.json"
    bad_json.write_text('[{"id": "x", "mapping": {"root": ', encoding="utf-8")
    bad_lines = tmp_path / "chats.jsonl"
    bad_lines.write_text('{"conversation": "c", "role": "user", "content": "hi", "time": "2024-01-01T00:00:00Z"}\n'
                         '{"conversation": "c", "role": "user", "content": "hi", "time": "soon"}\n', encoding="utf-8")
    empty_zip = tmp_path / "export.zip"
    import zipfile

    with zipfile.ZipFile(empty_zip, "w") as zf:
        zf.writestr("user.json", "{}")
    notes = tmp_path / "notes.txt"
    notes.write_text("今天天气不错\n去超市买牛奶\n", encoding="utf-8")
    for path, words in ((bad_json, "不是完整的 JSON"), (bad_lines, "第 2 行：time"), (empty_zip, "没有聊天记录"),
                        (notes, "不认识 notes.txt 的内容")):
        result = _cli(llm_server, "history", "--store", str(store), "import", str(path))
        assert result.returncode == 2 and result.stdout == ""
        assert result.stderr.startswith("错误：") and words in result.stderr and result.stderr.count("\n") == 1
    assert not llm_server.requests
    assert sorted(p.name for p in store.parent.iterdir() if not p.name.endswith(".lock")) == ["memory.yaml"]
    assert store.read_text(encoding="utf-8") == "{}\n"


def test_a_missing_or_damaged_file_is_said_in_chinese_without_the_systems_english(llm_server, tmp_path):
    """Not "No such file" or zlib's "Error -3 while decompressing data" in the Chinese command line."""
    import re
    import zipfile

    store = tmp_path / "data" / "memory.yaml"
    store.parent.mkdir()
    store.write_text("{}\n", encoding="utf-8")
    llm_server.responder = lambda body: pytest.fail("no model may be asked")
    damaged = tmp_path / "export.zip"
    with zipfile.ZipFile(damaged, "w", zipfile.ZIP_DEFLATED) as zf:
        zf.writestr("conversations.json", json.dumps([{"id": f"c{i}", "title": "题", "mapping": {}} for i in range(300)]))
    data = bytearray(damaged.read_bytes())
    for at in range(120, 180):
        data[at] ^= 0x55
    damaged.write_bytes(bytes(data))
    for path, words in ((tmp_path / "gone.json", "找不到这个文件"), (damaged, "已损坏")):
        chinese = _cli(llm_server, "history", "--store", str(store), "import", str(path), env={"LANG": "zh_CN.UTF-8"})
        assert chinese.returncode == 2 and words in chinese.stderr, chinese.stderr
        said = chinese.stderr.removeprefix("错误：").replace(str(path), "").replace("conversations.json", "")
        assert not [w for w in re.findall(r"[A-Za-z]{2,}", said) if w not in ("zip", "json")], chinese.stderr
        english = _cli(llm_server, "history", "--store", str(store), "import", str(path), env={"LANG": "en_US.UTF-8"})
        assert english.returncode == 2 and not re.search(r"[\u4e00-\u9fff]", english.stderr.replace(str(path), ""))
    assert store.read_text(encoding="utf-8") == "{}\n" and not llm_server.requests


def test_errors_honour_json_and_the_persons_language(llm_server, tmp_path):
    """Issue 38, item 2: with ``--json`` a refusal is a JSON object on stdout too; an English locale or
    the app set to English gives English words."""
    store = tmp_path / "data" / "memory.yaml"
    store.parent.mkdir()
    store.write_text("{}\n", encoding="utf-8")
    llm_server.responder = lambda body: pytest.fail("no model may be asked")
    bad_json = tmp_path / "conversations.json"
    bad_json.write_text('[{"id": "x", "mapping": {"root": ', encoding="utf-8")
    base = ("history", "--store", str(store), "import", str(bad_json))

    result = _cli(llm_server, *base, "--json")
    assert result.returncode == 2 and result.stderr.startswith("错误：")
    out = json.loads(result.stdout)
    assert out["exit_code"] == 2 and "不是完整的 JSON" in out["error"] and result.stdout.count("\n") == 1

    english = _cli(llm_server, *base, "--json", env={"LANG": "en_US.UTF-8"})
    assert english.returncode == 2 and "is not complete JSON" in json.loads(english.stdout)["error"]
    assert "is not complete JSON" in english.stderr and "不是" not in english.stderr
    chinese = _cli(llm_server, *base, env={"LANG": "en_US.UTF-8", "LC_ALL": "zh_CN.UTF-8"})  # LC_ALL goes first
    assert chinese.returncode == 2 and "不是完整的 JSON" in chinese.stderr and chinese.stdout == ""

    config = tmp_path / "config"
    config.mkdir()
    (config / "settings.json").write_text(json.dumps({"language": "en"}), encoding="utf-8")
    set_english = _cli(llm_server, *base, env={"SONETTO_CONFIG_DIR": str(config)})
    assert set_english.returncode == 2 and "is not complete JSON" in set_english.stderr
    missing = _cli(llm_server, "history", "--store", str(tmp_path / "none.yaml"), "status", "--json",
                   env={"LANG": "en_US.UTF-8"})
    assert missing.returncode == 2 and "does not exist" in json.loads(missing.stdout)["error"]
    wrong = _cli(llm_server, "history", "import", "--json")  # no path: argparse's refusal, as JSON too
    assert wrong.returncode == 2 and "path" in json.loads(wrong.stdout)["error"]
    assert store.read_text(encoding="utf-8") == "{}\n" and not llm_server.requests


def test_chatgpt_saved_memories_from_standard_input(llm_server, tmp_path):
    store = tmp_path / "memory.yaml"
    pasted = fixture("chatgpt_saved_memories.txt").read_text(encoding="utf-8") + "我的密码是 hunter2024x\n"
    args = ("history", "--store", str(store), "--create", "import", "-", "--format", "chatgpt-memories", "--json")
    result = _cli(llm_server, *args, stdin=pasted)
    assert result.returncode == 0, result.stderr
    out = json.loads(result.stdout)
    assert (out["memories_created"], out["skipped"]) == (4, 1)  # the password is never stored
    manager = YamlMemoryManager(store)
    try:
        items = {i.description: i for i in manager.all_items().values()}
        assert items["Prefers concise answers with bullet points."].theme == "品味"
        entry = items["User is learning Japanese and plans to visit Kyoto in spring."].own_history()[-1]
        assert entry["actor"] == "import:chatgpt" and entry["turn_id"] == out["undo_id"]
        assert entry["origin"] == "ChatGPT 已保存的记忆 · 2024-09-29"
    finally:
        manager.close()
    again = json.loads(_cli(llm_server, *args, stdin=pasted).stdout)
    assert again["memories_created"] == 0 and again["undo_id"] is None
    assert _cli(llm_server, "memory", "--store", str(store), "undo", out["undo_id"]).returncode == 0
    assert _texts(store) == [] and not llm_server.requests
    assert os.environ.get("TZ") == "Asia/Shanghai"


def test_an_exports_saved_memories_are_imported_when_asked(llm_server, tmp_path):
    """A ChatGPT export carries the memory list ChatGPT kept (its ``model_editable_context``): the dry run
    names them and how to import them, and ``--saved-memories`` imports them, as the window does
    (before, the command line could not import them at all)."""
    store = tmp_path / "memory.yaml"
    conversations = json.loads(fixture("chatgpt_conversations.json").read_text(encoding="utf-8"))
    chat = conversations[1]
    chat["mapping"]["n-a2"]["message"]["content"] = {
        "content_type": "model_editable_context",
        "model_set_context": "1. [2024-09-29]. User runs every morning.\n\n2. [2024-09-30]. User lives in Hangzhou."}
    source = tmp_path / "conversations.json"
    source.write_text(json.dumps([chat]), encoding="utf-8")
    base = ("history", "--store", str(store), "--create", "import", str(source))
    dry = _cli(llm_server, *base, "--dry-run")
    assert dry.returncode == 0 and "--saved-memories" in dry.stdout, dry.stdout
    result = _cli(llm_server, *base, "--saved-memories", "--json")
    assert result.returncode == 0, result.stderr
    out = json.loads(result.stdout)
    assert out["memories_created"] == 2 and out["undo_id"]
    assert sorted(_texts(store)) == ["User lives in Hangzhou.", "User runs every morning."]
    assert not llm_server.requests  # the list is written as it is: no model reads it
    none = _cli(llm_server, "history", "--store", str(store), "import", str(fixture("history.jsonl")),
                "--saved-memories", "--json")
    assert none.returncode == 2 and "没有 ChatGPT 已保存的记忆" in json.loads(none.stdout)["error"]



def test_saved_memories_are_filed_under_the_banks_themes_where_their_words_point(llm_server, tmp_path):
    """ChatGPT's saved memories are filed by their words among the house's themes and the bank's own
    (a cat under the person's 宠物, an appointment under 时效待办): before, everything outside four
    themes' few words went to 身份."""
    store = tmp_path / "memory.yaml"
    manager = YamlMemoryManager(store)
    try:
        manager.add("用户养了一只猫", "宠物")
    finally:
        manager.close()
    pasted = "已保存的记忆\n• Has a dog named Wangcai.\n• 下周三要去医院复查牙齿\n• 在杭州做产品经理\n"
    result = _cli(llm_server, "history", "--store", str(store), "import", "-", "--format", "chatgpt-memories",
                  "--json", stdin=pasted)
    assert result.returncode == 0, result.stderr
    manager = YamlMemoryManager(store)
    try:
        themes = {i.description: i.theme for i in manager.all_items().values()}
    finally:
        manager.close()
    assert themes == {"用户养了一只猫": "宠物", "Has a dog named Wangcai.": "宠物", "下周三要去医院复查牙齿": "时效待办",
                      "在杭州做产品经理": "身份"}, themes


def test_why_saved_memories_were_left_out_is_said_in_the_persons_language(llm_server, tmp_path):
    """What the import of saved memories left out, and why, in English for an English reader (before,
    every reason was printed in Chinese whatever the language: "以前导入过", "疑似包含密码"...)."""
    store = tmp_path / "memory.yaml"
    pasted = fixture("chatgpt_saved_memories.txt").read_text(encoding="utf-8") + "我的密码是 hunter2024x\n"
    args = ("history", "--store", str(store), "--create", "import", "-", "--format", "chatgpt-memories")
    english = {"LANG": "en_US.UTF-8"}
    first = _cli(llm_server, *args, stdin=pasted, env=english)
    assert first.returncode == 0, first.stderr
    assert "4 new memories" in first.stdout and "looks like a secret" in first.stdout, first.stdout
    again = _cli(llm_server, *args, stdin=pasted, env=english)
    assert again.returncode == 0, again.stderr
    assert again.stdout.count(": imported before") == 4, again.stdout
    assert not any("\u4e00" <= ch <= "\u9fff" for line in again.stdout.splitlines()[1:]
                   for ch in line.split(":")[-1]), again.stdout
    chinese = _cli(llm_server, *args, stdin=pasted, env={"LANG": "zh_CN.UTF-8"})
    assert chinese.stdout.count("：以前导入过") == 4, chinese.stdout


def test_bad_conversations_are_named_and_the_rest_is_imported(llm_server, tmp_path):
    store = tmp_path / "memory.yaml"
    source = bad_values_export(tmp_path)
    llm_server.responder = lambda body: "好的" if any(m["role"] == "tool" for m in body["messages"]) else tool_calls(
        [("create_memory", {"content": f"用户说：{text}", "section": "身份"}) for _, text in said(body)])
    dry = _cli(llm_server, "history", "--store", str(store), "--create", "import", str(source), "--dry-run")
    assert dry.returncode == 0, dry.stderr
    assert "跳过 2 个读不了的对话：" in dry.stdout
    assert "conversations.json 的第 2 个对话「坏时间」：时间 nan 超出范围" in dry.stdout
    assert "conversations.json 的第 3 个对话：嵌套层数太多" in dry.stdout and "1 个对话 · 1 轮" in dry.stdout
    out = json.loads(_cli(llm_server, "history", "--store", str(store), "--create", "import", str(source),
                          "--dry-run", "--json").stdout)
    assert [(b["index"], b["title"]) for b in out["skipped_conversations"]] == [(2, "坏时间"), (3, "")]
    result = _cli(llm_server, "history", "--store", str(store), "--create", "import", str(source))
    assert result.returncode == 0, result.stderr
    assert "跳过 2 个读不了的对话" in result.stderr and "新记忆 1 条" in result.stdout
    assert _texts(store) == ["用户说：好的：我搬去杭州了"]


def test_an_import_whose_every_batch_fails_exits_non_zero_with_the_reason(llm_server, tmp_path):
    store = tmp_path / "memory.yaml"
    # a model whose server passes its tool calls on as text: the writer gives each batch up at once
    llm_server.responder = lambda body: '<tool_call>{"name": "create_memory", "arguments": {}}</tool_call>'
    args = ("history", "--store", str(store), "--create", "import", str(fixture("history.jsonl")))
    result = _cli(llm_server, *args)
    assert result.returncode == 1 and result.stdout == ""
    assert result.stderr.startswith("错误：导入失败：2 批都没能写入（模型把工具调用写成了文字") and "什么也没有写入" in result.stderr
    as_json = _cli(llm_server, *args, "--json")  # nothing was written: the same chats are tried again
    assert as_json.returncode == 1, as_json.stderr
    out = json.loads(as_json.stdout)
    assert (out["batches"], out["failed_batches"], out["turns_written"]) == (2, 2, 0)
    assert out["error"].startswith("模型把工具调用写成了文字") and "错误：导入失败" in as_json.stderr
    assert _texts(store) == []
    status = _cli(llm_server, "history", "--store", str(store), "status")
    assert status.stdout.count("2 批失败") == 2


@pytest.mark.parametrize("setting, environ, expected", [
    ("zh_CN", {"LANG": "en_US.UTF-8"}, "en"),
    ("zh_CN", {"LANG": "C.UTF-8"}, "zh_CN"),
    ("zh_CN", {}, "zh_CN"),
    ("en", {"LANG": "zh_CN.UTF-8"}, "en"),  # the app set to English: English
    ("zh_CN", {"LANG": "en_US.UTF-8", "LC_MESSAGES": "zh_TW.UTF-8"}, "zh_CN"),
    ("zh_CN", {"LC_ALL": "fr_FR.UTF-8", "LANG": "zh_CN.UTF-8"}, "en"),  # not Chinese: English, the second language
    ("zh_CN", {"LC_ALL": "", "LANG": "POSIX"}, "zh_CN"),
])
def test_the_command_lines_language(setting, environ, expected):
    from sonetto_desktop.cli_words import cli_language

    assert cli_language(setting, environ) == expected


def test_a_refusal_is_worded_as_the_window_words_it_in_the_persons_language():
    """A failure without Chinese words of its own reads as presentation.errors says it, in the person's
    language (it was the English exception text for a Chinese reader too); the id stays in it."""
    from sonetto_desktop.cli_words import Words, words_of
    from sonetto_desktop.memory.errors import MemoryNotFound, StoreUnavailable

    gone = MemoryNotFound("ab12")
    assert words_of(gone, Words("zh_CN")) == ("找不到这条记忆，它可能已被删除或移动。 "
                                               "(记忆库里没有 id 为 'ab12' 的记忆)")  # (our own words: Chinese too)
    assert words_of(gone, Words("en")).startswith("This memory can't be found; it may have been deleted or moved.")
    assert words_of(ValueError("the date 'soon' is not a date"), Words("en")) == (
        "Invalid input: the date 'soon' is not a date")
    folder = StoreUnavailable("/x", "a file is in the way")
    assert words_of(folder, Words("zh_CN")) == folder.zh  # its own Chinese first


def test_chats_left_to_a_paused_import_are_said_and_it_goes_on_without_its_file(llm_server, tmp_path):
    """Ctrl+C, then the same chats from another copy of the export (downloaded again: another file):
    the command said "nothing to import (all imported before…)" while they waited in the paused import,
    which only its own file could take on; ``history resume`` goes on with it by its id."""
    store, source, first = tmp_path / "memory.yaml", _days_file(tmp_path, 4), _writes_one_memory_a_batch(llm_server)
    llm_server.delay = 0.4
    child = _spawn(llm_server, "history", "--store", str(store), "--create", "import", str(source))
    assert first.wait(60)
    child.send_signal(signal.SIGINT)
    child.communicate(timeout=60)
    assert child.returncode == 130
    (state,) = ImportLedger(store.with_name("memory.imports")).imports()
    again = tmp_path / "again.jsonl"
    again.write_text(source.read_text(encoding="utf-8") + "\n", encoding="utf-8")
    source.unlink()  # the first download is gone
    llm_server.delay = 0
    told = _cli(llm_server, "history", "--store", str(store), "import", str(again))
    assert told.returncode == 0, told.stderr
    assert "都导入过了" not in told.stdout and f"sonetto history resume {state.id}" in told.stdout, told.stdout
    resumed = _cli(llm_server, "history", "--store", str(store), "resume", state.id, "--json")
    assert resumed.returncode == 0, resumed.stderr
    assert json.loads(resumed.stdout)["turns_written"] == 8 and len(_texts(store)) == 4


def test_the_terminals_progress_says_a_failing_batch_is_retried_and_why(capsys):
    """A model that kept failing: the progress line said "已写入 0/3 轮 · 新记忆 0 · 更新 0" for about a
    minute before the failure; now it says that the batch is tried again, and why (its first line)."""
    from sonetto_desktop.cli_history import _progress
    from sonetto_desktop.cli_words import Words
    from sonetto_desktop.history_import.runner import ImportProgress

    retrying = ImportProgress("imp-0badc0de", "running", 2, 0, 3, 0, retrying="模型服务内部出错了（HTTP 503）\n详情：…",
                              failed_tries=2, retrying_en="The model service failed (HTTP 503)\nDetails: …")
    _progress(retrying, Words("zh_CN"))
    line = capsys.readouterr().err
    assert "出错了，稍后自动重试（已失败 2 次）：模型服务内部出错了（HTTP 503）" in line and "详情" not in line, line
    _progress(retrying, Words("en"))  # the reason in the terminal's language too
    line = capsys.readouterr().err
    assert "failed (try 2), trying again shortly: The model service failed (HTTP 503)" in line and "Details" not in line, line


def test_an_english_terminal_is_told_why_an_import_failed_in_english(llm_server, tmp_path):
    """LANG=en_US.UTF-8 (the app's language left at Chinese): the command speaks English, but why its
    batches failed was the writer's Chinese: "error: the import failed: none of its 2 batches could be
    written (模型把工具调用写成了文字…)", and the same in --json's ``error``."""
    store = tmp_path / "memory.yaml"
    llm_server.responder = lambda body: '<tool_call>{"name": "create_memory", "arguments": {}}</tool_call>'
    args = ("history", "--store", str(store), "--create", "import", str(fixture("history.jsonl")))
    english = {"LANG": "en_US.UTF-8"}
    result = _cli(llm_server, *args, env=english)
    assert result.returncode == 1, result.stderr
    assert result.stderr.startswith("error: the import failed: none of its 2 batches could be written ("), result.stderr
    assert not any("\u4e00" <= ch <= "\u9fff" for ch in result.stderr), result.stderr
    as_json = json.loads(_cli(llm_server, *args, "--json", env=english).stdout)
    assert as_json["error"] and not any("\u4e00" <= ch <= "\u9fff" for ch in as_json["error"]), as_json
    assert _texts(store) == []


def test_a_zip_of_two_apps_exports_says_on_the_command_line_which_was_read(llm_server, tmp_path):
    """A zip with ChatGPT's and LM Studio's exports: ``history import`` read ChatGPT's and said nothing of
    LM Studio's chats. The dry run says whose were read and how to import the others (in the terminal's
    language; --json lists them), an import says it on stderr, and --format lmstudio imports them."""
    store = tmp_path / "memory.yaml"
    base = ("history", "--store", str(store), "--create", "import", str(two_apps_zip(tmp_path)))
    dry = _cli(llm_server, *base, "--dry-run")
    assert dry.returncode == 0, dry.stderr
    assert "只读取了 ChatGPT 的聊天记录，LM Studio 的 2 个文件没有读取" in dry.stdout, dry.stdout
    assert "（命令行：--format lmstudio）" in dry.stdout, dry.stdout
    english = _cli(llm_server, *base, "--dry-run", env={"LANG": "en_US.UTF-8"})
    assert "only ChatGPT's chats were read; 2 files of LM Studio were not" in english.stdout, english.stdout
    listed = json.loads(_cli(llm_server, *base, "--dry-run", "--json").stdout)
    assert listed["left_unread"] == {"lmstudio": ["lmstudio/1735689600000.conversation.json",
                                                  "lmstudio/学习/1736294400000.conversation.json"]}
    llm_server.responder = remember_each_line
    imported = _cli(llm_server, *base)
    assert imported.returncode == 0 and "--format lmstudio" in imported.stderr, imported.stderr
    other = _cli(llm_server, *base, "--format", "lmstudio", "--json")
    assert other.returncode == 0, other.stderr
    out = json.loads(other.stdout)
    assert out["turns_written"] > 0 and out["left_unread"] == {"chatgpt": ["chatgpt/conversations.json"]}, out


@pytest.mark.parametrize("terminal, said", [
    ("zh_CN.UTF-8", "参数 --since：不是日期（应写成 YYYY-MM-DD，比如 2024-03-01）：'2024-13-01'"),
    ("en_US.UTF-8", "argument --since: not a date (write it as YYYY-MM-DD, e.g. 2024-03-01): '2024-13-01'")])
def test_a_date_that_is_not_one_is_said_in_the_terminals_language(tmp_path, capsys, monkeypatch, terminal, said):
    """`--since 2024-13-01` in a Chinese terminal ended "invalid fromisoformat value: '2024-13-01'" (a Python
    function's name, in English): the date is refused in the terminal's language."""
    from sonetto_desktop.cli_history import main as history_main

    for name in ("LC_ALL", "LC_MESSAGES"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("LANG", terminal)
    with pytest.raises(SystemExit) as refused:
        history_main(["--store", str(tmp_path / "memory.yaml"), "import", str(tmp_path / "x.json"),
                      "--since", "2024-13-01"])
    assert refused.value.code == 2
    err = capsys.readouterr().err
    assert err.rstrip().endswith(said), err
