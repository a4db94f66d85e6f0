"""Reading exports safely (issue 35, items 11 and 12): a file is read a conversation at a time and
never whole; a zip bomb or an oversized member is refused before it is read, with a clear line; a
conversation holding a value no real export has (a time that is NaN, ±1e20 or in the year 9999,
nesting 100,000 deep) is left out and named, and the rest of the file is read."""

from __future__ import annotations

import json
import tracemalloc
import zipfile
from datetime import datetime

import pytest

from history_helpers import fixture, shanghai  # noqa: F401 - a fixture
from sonetto_desktop.history_import import source_files
from sonetto_desktop.history_import.model import HistoryFormatError
from sonetto_desktop.history_import.sources import detect, read_history
from sonetto_desktop.history_import.source_files import open_source

pytestmark = pytest.mark.usefixtures("shanghai")

DEEP = "[" * 100_000 + "]" * 100_000


# ── limits on what is read ─────────────────────────────────────────────


def _bomb(path, megabytes: int = 20):
    with zipfile.ZipFile(path, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        with archive.open("conversations.json", "w") as member:
            member.write(b"[")
            for n in range(megabytes * 64):
                member.write((b"," if n else b"") + json.dumps({"id": str(n), "title": "x" * 16_000,
                                                               "mapping": {}}).encode())
            member.write(b"]")
    return path


def test_a_zip_bomb_is_refused_before_a_byte_of_it_is_read(tmp_path):
    path = _bomb(tmp_path / "export.zip")
    info = zipfile.ZipFile(path).infolist()[0]
    assert info.file_size > 100 * info.compress_size  # what the limit is for
    source = open_source(path)
    opened = []
    real_open = source._open
    source._open = lambda name: opened.append(name) or real_open(name)
    with pytest.raises(HistoryFormatError) as caught:
        detect(source)
    assert opened == []  # refused from the sizes the zip declares
    assert "zip 炸弹" in caught.value.zh and "zip bomb" in caught.value.en and "conversations.json" in caught.value.zh
    with pytest.raises(HistoryFormatError, match="zip 炸弹"):
        read_history(path, "chatgpt")


def test_a_member_past_the_size_limit_is_refused_before_it_is_read(tmp_path, monkeypatch):
    monkeypatch.setattr(source_files, "MAX_MEMBER_BYTES", 1000)
    path = tmp_path / "export.zip"
    with zipfile.ZipFile(path, "w", compression=zipfile.ZIP_STORED) as archive:
        archive.writestr("conversations.json", json.dumps([{"id": "x", "mapping": {}, "t": "y" * 2000}]))
    source = open_source(path)
    opened = []
    real_open = source._open
    source._open = lambda name: opened.append(name) or real_open(name)
    with pytest.raises(HistoryFormatError, match="太大") as caught:
        detect(source)
    assert opened == [] and "too large" in caught.value.en


def test_a_zip_with_a_password_is_refused_with_a_clear_line(tmp_path):
    """A raw RuntimeError naming a ZipInfo was shown; the zip tool's own password zip when it is
    there, else the same flag set by hand (zipfile reads both as needing a password)."""
    import shutil
    import subprocess

    (tmp_path / "conversations.json").write_text(json.dumps([{"id": "c", "mapping": {}}]), encoding="utf-8")
    path = tmp_path / "export.zip"
    if shutil.which("zip"):
        subprocess.run(["zip", "-q", "-P", "pw", path.name, "conversations.json"], cwd=tmp_path, check=True)
    else:
        with zipfile.ZipFile(path, "w", compression=zipfile.ZIP_STORED) as archive:
            archive.write(tmp_path / "conversations.json", "conversations.json")
        data = bytearray(path.read_bytes())
        for signature, flags in ((b"PK\x03\x04", 6), (b"PK\x01\x02", 8)):
            at = data.index(signature) + flags
            data[at] |= 0x1
        path.write_bytes(bytes(data))
    assert zipfile.ZipFile(path).infolist()[0].flag_bits & 0x1
    for fmt in (None, "chatgpt"):
        with pytest.raises(HistoryFormatError) as caught:
            read_history(path, fmt)
        assert "设了密码" in caught.value.zh and "conversations.json" in caught.value.zh
        assert "without a password" in caught.value.en and "ZipInfo" not in caught.value.en


def test_a_big_export_is_read_without_ever_holding_it_whole(tmp_path):
    """20+ MB of conversations the import leaves out (tool output): reading them must not cost the file's size."""
    path = tmp_path / "conversations.json"
    with open(path, "w", encoding="utf-8") as fh:
        fh.write("[")
        for n in range(1000):
            node = {"id": "t", "parent": None, "children": [], "message": {
                "id": f"t{n}", "author": {"role": "tool"}, "create_time": 1714550400 + n,
                "content": {"content_type": "text", "parts": ["工具输出" * 1900]}}}
            fh.write(("," if n else "") + json.dumps({"id": f"c{n}", "title": f"t{n}", "create_time": 1714550400 + n,
                                                      "current_node": "t", "mapping": {"t": node}}, ensure_ascii=False))
        fh.write("]")
    size = path.stat().st_size
    assert size > 20 * 1024 ** 2
    tracemalloc.start()
    try:
        history = read_history(path)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert history.skipped["tool"] == 1000 and not history.conversations
    assert peak < size / 5, f"peak {peak / 1024 ** 2:.1f} MB reading a {size / 1024 ** 2:.1f} MB file"


def test_a_big_json_lines_file_is_read_without_holding_it_whole(tmp_path):
    """20+ MB of JSON Lines, a conversation's lines spread over the file: its messages wait on disk
    until the file is read (they were all held: a 357 MB file peaked at 787 MB), it says how far it
    got, and each conversation comes out whole and in order."""
    path = tmp_path / "chats.jsonl"
    with open(path, "w", encoding="utf-8") as fh:
        for n in range(2400):  # 40 conversations, their lines interleaved, each with its own early time
            chat, turn = n % 40, n // 40
            fh.write(json.dumps({"conversation": f"c{chat}", "role": "user" if turn % 2 == 0 else "assistant",
                                 "content": f"第{turn}句" + "我住在杭州西湖区。" * 500, "id": f"m{n}",
                                 "time": f"2024-03-{1 + chat % 28:02d}T{10 + turn // 6:02d}:{turn % 6 * 10:02d}:00+08:00"},
                                ensure_ascii=False) + "\n")
    size = path.stat().st_size
    assert size > 20 * 1024 ** 2
    told: list[int] = []
    tracemalloc.start()
    try:
        history = read_history(path, progress=lambda name, done, total: told.append(done))
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < size / 5, f"peak {peak / 1024 ** 2:.1f} MB reading a {size / 1024 ** 2:.1f} MB file"
    assert len(told) >= 4 and told[-1] == size
    assert len(history.conversations) == 40 and history.message_count == 2400
    first = history.conversations[0]
    assert first.id == "c0" and [m.text.split("句")[0] for m in first.messages] == [f"第{t}" for t in range(60)]
    assert [c.id for c in history.conversations][:3] == ["c0", "c28", "c1"]  # by their first time, ties as first seen


def test_a_long_read_says_how_far_it_got_in_each_file(tmp_path):
    """A 2 GB export reads for half a minute or more: the reader says, file by file, how many of its
    bytes it has taken (the dialog's bar), from a file or from inside a zip; a look at a file's start
    to tell its format is not counted."""
    path = tmp_path / "conversations.json"
    path.write_text(json.dumps([_chatgpt(f"c{n}", f"对话{n}", 1714550400 + n, "你好" * 20_000) for n in range(40)],
                               ensure_ascii=False), encoding="utf-8")
    size = path.stat().st_size
    told: list[tuple[str, int, int]] = []
    history = read_history(path, progress=lambda name, done, total: told.append((name, done, total)))
    assert len(history.conversations) == 40 and len(told) >= 4
    assert {name for name, _, _ in told} == {"conversations.json"} and {total for _, _, total in told} == {size}
    assert [done for _, done, _ in told] == sorted(done for _, done, _ in told) and told[-1][1] == size
    packed = tmp_path / "export.zip"
    with zipfile.ZipFile(packed, "w") as archive:  # stored: this text packs like a zip bomb
        archive.write(path, "conversations.json")
        archive.writestr("chat.html", "<html></html>")
    told.clear()
    read_history(packed, progress=lambda name, done, total: told.append((name, done, total)))
    assert {name for name, _, _ in told} == {"conversations.json"} and told[-1][1:] == (size, size)


# ── bad values: the conversation is left out, named, and the rest read ─────────


def _chatgpt(cid: str, title: str, start: object, said: str = "你好", stamp: object = 1714550400.5) -> dict:
    return {"id": cid, "title": title, "create_time": start, "current_node": "u", "mapping": {
        "u": {"id": "u", "parent": None, "children": [], "message": {
            "id": f"{cid}-u", "author": {"role": "user"}, "create_time": stamp,
            "content": {"content_type": "text", "parts": [said]}}}}}


def test_bad_values_leave_out_their_conversation_and_say_which_and_why(tmp_path):
    deep = _chatgpt("c6", "深", 1714550400)
    deep["mapping"]["u"]["message"]["metadata"] = {"x": json.loads("[" * 500 + "]" * 500)}  # parsable, just deep
    conversations = [
        _chatgpt("c1", "好的一个", 1714550400, "我搬去杭州了"),
        _chatgpt("c2", "NaN", float("nan")),
        _chatgpt("c3", "太大", 1e20),
        _chatgpt("c4", "公元9999年", 253402214400),
        _chatgpt("c5", "负的", -1e20),
        _chatgpt("c7", "消息时间是无穷", 1714550400, stamp=float("inf")),
        _chatgpt("c8", "类型不对", 1714550400) | {"mapping": {"u": {"message": {
            "author": {"role": "user"}, "metadata": [1], "content": {"content_type": "text", "parts": ["x"]}}}}},
        _chatgpt("c9", "好的另一个", 1714550400, "我养了柯基"),
    ]
    text = json.dumps(conversations, ensure_ascii=False)  # NaN and Infinity written as Python writes them
    text = text[:-1] + ", " + DEEP + ", " + json.dumps(deep, ensure_ascii=False) + "]"
    path = tmp_path / "conversations.json"
    path.write_text(text, encoding="utf-8")
    history = read_history(path)
    assert [c.title for c in history.conversations] == ["好的一个", "好的另一个", "深"]
    bad = {b.index: b for b in history.bad}
    assert sorted(bad) == [2, 3, 4, 5, 6, 7, 9]
    assert bad[2].title == "NaN" and "nan" in bad[2].zh and "超出范围" in bad[2].zh
    assert bad[3].say("zh") == "conversations.json 的第 3 个对话「太大」：时间 1e+20 超出范围"
    assert "不合理" in bad[4].zh and "253402214400" in bad[4].zh  # year 9999: a date, but no chat's
    assert "超出范围" in bad[5].zh and "inf" in bad[6].zh
    assert bad[7].title == "类型不对" and "内容不符合预期" in bad[7].zh and "Error" not in bad[7].zh + bad[7].en
    assert bad[9].zh == "嵌套层数太多，不像是正常的导出内容" and bad[9].title == ""
    assert bad[3].say("en") == "conversation 3 of conversations.json “太大”: the time 1e+20 is out of range"


def _latin_words(text: str, *allowed: str) -> list[str]:
    import re

    return [w for w in re.findall(r"[A-Za-z]{2,}", text) if w not in {"JSON", "zip", "UTF", *allowed}]


def test_why_a_history_cannot_be_read_is_chinese_with_where_and_no_parser_english(tmp_path):
    """The reader's Chinese never carries the parser's or the unpacker's English in brackets ("不是 JSON
    （Expecting property name enclosed in double quotes）", "读不出来（Error -3 while decompressing data …）"):
    it says what is wrong and where (the line and column), in Chinese; the English, in English."""
    lines = tmp_path / "chats.jsonl"
    lines.write_text('{"conversation": "c", "role": "user", "content": "hi", "time": "2024-01-01T00:00:00Z"}\n'
                     '{"conversation": "c", role: "user"}\n', encoding="utf-8")
    with pytest.raises(HistoryFormatError) as raised:
        read_history(lines)
    assert "第 2 行" in raised.value.zh and "第 23 列" in raised.value.zh, raised.value.zh
    assert not _latin_words(raised.value.zh.replace("chats.jsonl", "")), raised.value.zh
    assert "line 2" in raised.value.en and "column 23" in raised.value.en and "1 line of" in raised.value.en

    escaped = tmp_path / "conversations.json"
    text = json.dumps([_chatgpt("c1", "好的", 1714550400), _chatgpt("c2", "坏转义", 1714550400)], ensure_ascii=False)
    escaped.write_text(text.replace("坏转义", "坏\\q"), encoding="utf-8")
    history = read_history(escaped)
    assert [c.title for c in history.conversations] == ["好的"] and len(history.bad) == 1
    said = history.bad[0].say("zh")
    assert "不是有效的 JSON" in said and "第 1 行" in said, said
    assert not _latin_words(said.replace("conversations.json", "")), said
    assert "line 1" in history.bad[0].say("en")

    packed = tmp_path / "export.zip"
    with zipfile.ZipFile(packed, "w", zipfile.ZIP_DEFLATED) as zf:
        zf.writestr("conversations.json", json.dumps([_chatgpt(f"c{i}", "题", 1714550400) for i in range(50)]))
    data = bytearray(packed.read_bytes())
    for at in range(200, 260):  # the packed bytes damaged (a download cut and patched, a bad disk)
        data[at] ^= 0x55
    packed.write_bytes(bytes(data))
    with pytest.raises(HistoryFormatError) as raised:
        read_history(packed)
    assert "读不出来" in raised.value.zh and not _latin_words(raised.value.zh.replace("conversations.json", "")), \
        raised.value.zh
    assert "decompressing" not in raised.value.en and "cannot be read" in raised.value.en


def test_bad_values_in_deepseek_and_cherry_leave_out_their_conversation(tmp_path):
    data = json.loads(fixture("deepseek_conversations.json").read_text(encoding="utf-8"))
    broken = json.loads(json.dumps(data[0]))
    broken["id"], broken["title"] = "d2", "未来"
    broken["mapping"]["1"]["message"]["inserted_at"] = "9999-12-31T23:59:59+08:00"
    path = tmp_path / "conversations.json"
    path.write_text(json.dumps([broken, data[0]]), encoding="utf-8")
    history = read_history(path, "deepseek")
    assert [c.title for c in history.conversations] == ["备考计划"]
    (bad,) = history.bad
    assert (bad.index, bad.title) == (1, "未来") and "9999-12-31" in bad.zh

    with zipfile.ZipFile(fixture("cherry-studio.202504050903.zip")) as archive:
        backup = json.loads(archive.read("data.json"))
    topic = backup["indexedDB"]["topics"][0]
    odd = json.loads(json.dumps(topic))
    odd["id"] = "odd-topic"
    odd["messages"][0]["createdAt"] = "9999-12-31T23:59:59-12:00"  # past year 9999 once made local
    backup["indexedDB"]["topics"].append(odd)
    path = tmp_path / "data.json"
    path.write_text(json.dumps(backup), encoding="utf-8")
    history = read_history(path)
    assert history.source == "cherry" and len(history.conversations) == len(backup["indexedDB"]["topics"]) - 1
    (bad,) = history.bad
    assert bad.index == len(backup["indexedDB"]["topics"]) and "超出范围" in bad.zh


@pytest.mark.parametrize("time_value, words", [
    ("9999-12-31T23:59:59+00:00", "超出范围"),  # Python's OverflowError before
    ("9999-12-31T10:00:00", "不合理"),
    ("1969-07-20T20:17:00Z", "不合理"),
])
def test_a_jsonl_time_no_chat_can_have_is_a_clear_line_error(tmp_path, time_value, words):
    path = tmp_path / "chats.jsonl"
    path.write_text(json.dumps({"conversation": "c", "role": "user", "content": "hi", "time": time_value}) + "\n",
                    encoding="utf-8")
    with pytest.raises(HistoryFormatError) as caught:
        read_history(path)
    assert "第 1 行" in caught.value.zh and words in caught.value.zh


def test_a_time_before_1990_or_in_the_future_is_bad_and_today_is_fine():
    from sonetto_desktop.history_import.model import BadValue, from_epoch, parse_iso

    assert from_epoch(datetime.now().timestamp()).date() == datetime.now().date()
    assert parse_iso("2024-05-01T08:00:00Z") == datetime(2024, 5, 1, 16, 0)
    for value in (True, "1714550400", 0.0, float("nan"), 10 ** 400, 4e9):
        with pytest.raises(BadValue):
            from_epoch(value)
