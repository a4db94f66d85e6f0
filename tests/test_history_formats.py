"""Reading each history format into conversations (no model, no store): ChatGPT's export (one file,
split files, the kept branch), DeepSeek, Cherry Studio backups, our JSON Lines and chat export,
ChatGPT's saved memories, and the clear errors of files that are none of these."""

from __future__ import annotations

import copy
import json
import zipfile
from datetime import date, datetime

import pytest

from helpers import texts_of
from history_helpers import fixture, shanghai  # noqa: F401 - a fixture
from sonetto_desktop.agent.chat_export import transcript_markdown
from sonetto_desktop.history_import.model import HistoryFormatError
from sonetto_desktop.history_import.saved_memories import from_text, parse
from sonetto_desktop.history_import.sources import read_history

pytestmark = pytest.mark.usefixtures("shanghai")


def test_chatgpt_export_follows_the_kept_branch_and_leaves_out_what_was_not_said():
    history = read_history(fixture("chatgpt_conversations.json"))
    assert history.source == "chatgpt" and history.label == "ChatGPT" and not history.best_effort
    move, chart = history.conversations
    assert move.title == "搬家去杭州" and move.id == "c0ffee00-0000-4000-8000-000000000001"
    assert texts_of(move) == [
        ("user", "我下个月搬去杭州，在西溪附近租了房子。"),
        ("assistant", "恭喜！西溪湿地附近很安静。"),
        ("user", "[图片]\n我养了一只叫年糕的柯基，这是它的照片。"),  # the image part, the empty part dropped
        ("assistant", "年糕好可爱！"),
    ]
    assert "（被编辑掉的分支）" not in str(texts_of(move))  # the abandoned edit is not imported
    assert move.messages[0].time == datetime(2024, 5, 1, 16, 0, 0)  # 1714550400.5 in UTC+8
    assert move.messages[2].time == datetime(2024, 5, 1, 16, 3, 20)
    assert not move.guessed_branch
    assert texts_of(chart) == [("user", "I run every morning; plot my weekly distances: 21, 25, 30 km."),
                             ("assistant", "Here is your chart: the distance grows every week.")]  # code + tool out
    assert history.skipped == {"system": 1, "tool": 2, "other_branch": 2}
    assert len(history.digest) == 64


def test_chatgpt_split_export_is_read_in_file_order(tmp_path):
    conversations = json.loads(fixture("chatgpt_conversations.json").read_text(encoding="utf-8"))
    archive = tmp_path / "export.zip"
    with zipfile.ZipFile(archive, "w") as zf:
        # written out of order: the numbers decide, not the order in the zip
        zf.writestr("conversations-001.json", json.dumps([conversations[1]]))
        zf.writestr("conversations-000.json", json.dumps([conversations[0]]))
        zf.writestr("conversations.json.index", "not json at all")
        zf.writestr("export_manifest.json", "{}")
        zf.writestr("user_settings.json", "{}")
    history = read_history(archive)
    assert history.source == "chatgpt"
    assert [c.title for c in history.conversations] == ["搬家去杭州", "Plot a chart"]


def test_two_chatgpt_exports_in_one_zip_are_both_read_and_said(tmp_path):
    """Two exports' folders in one zip, or a whole conversations.json beside -000/-001 parts: every
    file is read (the shallowest alone was, the rest ignored without a word), the preview says so,
    and a conversation in both is planned once."""
    from sonetto_desktop.history_import.plan import make_plan

    move, chart = json.loads(fixture("chatgpt_conversations.json").read_text(encoding="utf-8"))
    layouts = {"folders.zip": {"export-2024-06/conversations.json": [move, chart],
                               "export-2024-01/conversations.json": [move]},
               "beside.zip": {"conversations-000.json": [move], "conversations.json": [move],
                              "conversations-001.json": [chart]}}
    for name, members in layouts.items():
        path = tmp_path / name
        with zipfile.ZipFile(path, "w") as zf:
            for member, listed in members.items():
                zf.writestr(member, json.dumps(listed))
        history = read_history(path)
        assert sorted(c.title for c in history.conversations) == sorted(
            c["title"] for listed in members.values() for c in listed)
        (note,) = [zh for zh, _ in history.notes if "不止一份导出" in zh]
        assert all(member in note for member in members)
        plan = make_plan(history)
        assert plan.turns == 3 and len(plan.rows) == 2 and plan.skipped_duplicates == 2  # as the one export alone
    order = read_history(tmp_path / "beside.zip")
    assert [c.title for c in order.conversations] == ["搬家去杭州", "搬家去杭州", "Plot a chart"]  # whole, 000, 001


def test_a_note_of_many_exports_names_five_and_counts_the_rest_in_both_readers(tmp_path):
    """ChatGPT's reader (all read) and Claude's (one read) name five files and count the others alike."""
    move = json.loads(fixture("chatgpt_conversations.json").read_text(encoding="utf-8"))[0]
    for reader, listed, said in (("gpt", json.dumps([move]), "all read: "), ("claude", None, "not ")):
        path = tmp_path / f"{reader}.zip"
        with zipfile.ZipFile(path, "w") as zf:
            for i in range(8):
                zf.writestr(f"e{i}/conversations.json", listed or fixture("claude_conversations.json").read_bytes())
        (zh, en), = [note for note in read_history(path).notes if "不止一份导出" in note[0]]
        first = 0 if reader == "gpt" else 1  # (Claude's reader names the files it did not read)
        names = [f"e{i}/conversations.json" for i in range(first, first + 5)]
        total = 8 - first
        assert f"{'、'.join(names)} 等 {total} 个（" in zh
        assert f"{said}{', '.join(names)} and {total - 5} more (" in en


def test_chatgpt_without_current_node_guesses_the_latest_branch_and_says_so(tmp_path):
    conversations = json.loads(fixture("chatgpt_conversations.json").read_text(encoding="utf-8"))
    move = copy.deepcopy(conversations[0])
    del move["current_node"]
    move.pop("id")  # only conversation_id, as some dumps have
    path = tmp_path / "conversations.json"
    path.write_text(json.dumps([move]), encoding="utf-8")
    history = read_history(path)
    (conv,) = history.conversations
    assert conv.id == "c0ffee00-0000-4000-8000-000000000001" and conv.guessed_branch
    assert conv.messages[2].text.endswith("这是它的照片。")  # m-u2b is newer than m-u2a
    assert history.notes and "推断" in history.notes[0][0]


def test_chatgpt_conversation_whose_parents_make_a_loop_is_read_not_dropped(tmp_path):
    """No current_node, and no root: the parents make a loop (a damaged or hand-edited export). The
    conversation was dropped whole, its messages counted only as another branch's."""
    def message(mid, role, text, stamp):
        return {"id": mid, "author": {"role": role}, "create_time": stamp,
                "content": {"content_type": "text", "parts": [text]}}

    chat = {"id": "c1", "title": "Loop", "create_time": 1714550400, "mapping": {
        "root": {"id": "root", "parent": "c1-a", "children": ["c1-u"], "message": None},
        "c1-u": {"id": "c1-u", "parent": "root", "children": ["c1-a"],
                 "message": message("c1-u", "user", "I live in Paris", 1714550400)},
        "c1-a": {"id": "c1-a", "parent": "c1-u", "children": [],
                 "message": message("c1-a", "assistant", "Nice city", 1714550405)}}}
    path = tmp_path / "conversations.json"
    path.write_text(json.dumps([chat]), encoding="utf-8")
    history = read_history(path)
    (conv,) = history.conversations
    assert [m.text for m in conv.messages] == ["I live in Paris", "Nice city"]


def test_chatgpt_memory_snapshot_and_spoken_words(tmp_path):
    conversations = json.loads(fixture("chatgpt_conversations.json").read_text(encoding="utf-8"))
    chart = conversations[1]
    chart["mapping"]["n-u1"]["message"]["content"] = {"content_type": "multimodal_text", "parts": [
        {"content_type": "audio_transcription", "text": "我每天早上跑步。", "direction": "in"},
        {"content_type": "audio_asset_pointer", "asset_pointer": "sediment://x"}]}
    chart["mapping"]["n-a2"]["message"]["content"] = {
        "content_type": "model_editable_context",
        "model_set_context": "1. [2024-09-29]. User runs every morning.\n\n2. [2024-09-30]. User lives in Hangzhou."}
    path = tmp_path / "conversations.json"
    path.write_text(json.dumps([chart]), encoding="utf-8")
    history = read_history(path)
    assert texts_of(history.conversations[0]) == [("user", "我每天早上跑步。")]
    assert [(m.text, m.day) for m in history.saved_memories] == [
        ("User runs every morning.", date(2024, 9, 29)), ("User lives in Hangzhou.", date(2024, 9, 30))]


def test_a_memory_snapshot_past_the_saved_memory_limits_keeps_its_first_entries_and_the_chats(tmp_path):
    """1,101 entries, or more than 100,000 characters: the export's conversations are read, the
    snapshot's first 1,000 entries kept and the rest left out with a note (the whole export was refused)."""
    conversations = json.loads(fixture("chatgpt_conversations.json").read_text(encoding="utf-8"))
    chart = conversations[1]
    for count, filler in ((1101, ""), (300, "x" * 400)):
        chart["mapping"]["n-a2"]["message"]["content"] = {
            "content_type": "model_editable_context",
            "model_set_context": "\n".join(f"{i}. [2024-05-01]. User fact {i} {filler}" for i in range(1, count + 1))}
        path = tmp_path / "conversations.json"
        path.write_text(json.dumps([conversations[0], chart]), encoding="utf-8")
        history = read_history(path)
        assert [c.title for c in history.conversations] == ["搬家去杭州", "Plot a chart"]
        kept = history.saved_memories
        assert [m.text.split()[2] for m in kept] == [str(i) for i in range(1, len(kept) + 1)]  # the first ones
        assert len(kept) == 1000 if count > 1000 else 200 < len(kept) < count  # 100,000 characters: ~232
        assert kept[-1].day == date(2024, 5, 1)
        (note,) = [zh for zh, _ in history.notes if "记忆快照" in zh]
        assert f"只读取了前 {len(kept)} 条" in note


def test_deepseek_export_best_effort():
    history = read_history(fixture("deepseek_conversations.json"))
    assert history.source == "deepseek" and history.best_effort
    assert "尽力而为" in history.notes[0][0]
    (conv,) = history.conversations
    assert conv.title == "备考计划"
    assert texts_of(conv) == [("user", "我在准备六月的教师资格证面试，每天晚上练两小时试讲。"),
                            ("assistant", "可以按周拆分目标：第一周熟悉结构化问题……")]  # THINK left out
    assert conv.messages[0].time == datetime(2025, 2, 10, 20, 15, 3)
    assert history.skipped == {"non_text": 1}


def test_deepseek_regenerated_reply_keeps_the_last_one(tmp_path):
    data = json.loads(fixture("deepseek_conversations.json").read_text(encoding="utf-8"))
    mapping = data[0]["mapping"]
    mapping["1"]["children"] = ["2", "3"]
    mapping["3"] = {"id": "3", "parent": "1", "children": [], "message": {
        "inserted_at": "2025-02-10T20:16:00+08:00", "fragments": [{"type": "RESPONSE", "content": "重新生成的回答"}]}}
    path = tmp_path / "conversations.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    conv = read_history(path).conversations[0]
    assert texts_of(conv)[-1] == ("assistant", "重新生成的回答") and conv.guessed_branch


def test_cherry_studio_backup_zip_names_topics_from_the_saved_state():
    history = read_history(fixture("cherry-studio.202504050903.zip"))
    assert history.source == "cherry"
    (conv,) = history.conversations
    assert conv.title == "周末做饭" and conv.id == "topic-1"
    assert texts_of(conv) == [("user", "我对花生过敏，周末想做一道不放花生的宫保鸡丁。"), ("assistant", "可以用腰果替代……")]
    assert conv.messages[0].time == datetime(2025, 4, 5, 17, 0, 0)  # 09:00Z


def _cherry_data():
    with zipfile.ZipFile(fixture("cherry-studio.202504050903.zip")) as zf:
        return json.loads(zf.read("data.json"))


def test_cherry_version_3_messages_keep_their_text_on_the_message(tmp_path):
    data = _cherry_data()
    data["version"] = 3
    data["localStorage"] = {}
    data["indexedDB"] = {"topics": [{"id": "t-old", "messages": [
        {"id": "u", "role": "user", "createdAt": "2024-01-02T03:04:05.000Z", "content": "我在学吉他"},
        {"id": "c", "role": "user", "type": "clear", "createdAt": "2024-01-02T03:05:00.000Z", "content": ""},
        {"id": "a", "role": "assistant", "createdAt": "2024-01-02T03:04:09.000Z", "content": "加油",
         "reasoning_content": "..."}]}]}
    path = tmp_path / "data.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    (conv,) = read_history(path).conversations
    assert conv.title == "我在学吉他"  # no saved name: its first message
    assert texts_of(conv) == [("user", "我在学吉他"), ("assistant", "加油")]


def test_cherry_topic_names_that_cannot_be_read_leave_the_topics_read(tmp_path):
    """The saved state's assistants null, a list, or holding odd values: the topics are read, named
    by their first message (names are a nicety; they refused the whole backup)."""
    odd_states = [None, [], [{"topics": [{"id": "topic-1", "name": "x"}]}], 5,
                  {"defaultAssistant": [], "assistants": {"topics": 1}}, {"assistants": [{"topics": {"id": 1}}, 7]}]
    for assistants in odd_states:
        data = _cherry_data()
        persist = json.loads(data["localStorage"]["persist:cherry-studio"])
        persist["assistants"] = json.dumps(assistants)
        data["localStorage"]["persist:cherry-studio"] = json.dumps(persist)
        path = tmp_path / "data.json"
        path.write_text(json.dumps(data), encoding="utf-8")
        (conv,) = read_history(path).conversations
        assert conv.id == "topic-1" and conv.title == "我对花生过敏，周末想做一道不放花生的宫保鸡丁。"[:30], assistants


def test_cherry_folder_backup_and_unknown_versions_are_refused_clearly(tmp_path):
    direct = tmp_path / "cherry-studio.202601010000.zip"
    with zipfile.ZipFile(direct, "w") as zf:
        zf.writestr("IndexedDB/file__0.indexeddb.leveldb/000003.log", b"\x00\x01")
        zf.writestr("Local Storage/leveldb/CURRENT", "MANIFEST-000001\n")
    with pytest.raises(HistoryFormatError, match="目录式备份"):
        read_history(direct)
    data = _cherry_data()
    data["version"] = 1
    path = tmp_path / "data.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    with pytest.raises(HistoryFormatError, match="version 1"):
        read_history(path)


def test_our_json_lines():
    history = read_history(fixture("history.jsonl"))
    assert history.source == "jsonl"
    trip, work = history.conversations
    assert trip.id == "trip-2023" and trip.title == "京都旅行"
    assert [m.text for m in trip.messages][-1] == "下周三我要考日语 N3。"
    assert trip.messages[-1].time == datetime(2023, 3, 14, 21, 7)
    assert work.title.startswith("I just started") and work.messages[0].time == datetime(2023, 9, 1, 16, 30)


def test_json_lines_in_any_order_with_skipped_roles_blank_lines_and_a_bom(tmp_path):
    path = tmp_path / "mixed.jsonl"
    rows = [
        {"conversation": 7, "role": "assistant", "content": "答", "time": "2024-01-01T10:00:05"},
        {"conversation": 7, "role": "system", "content": "you are helpful", "time": "2024-01-01T09:59:00"},
        {"conversation": 7, "role": "user", "content": "问", "time": "2024-01-01T10:00:00", "id": "m1"},
        {"conversation": 7, "role": "user", "content": "  ", "time": "2024-01-01T10:01:00"},
    ]
    path.write_text("\ufeff" + "\n\n".join(json.dumps(r, ensure_ascii=False) for r in rows) + "\n", encoding="utf-8")
    history = read_history(path)
    (conv,) = history.conversations
    assert conv.id == "7" and texts_of(conv) == [("user", "问"), ("assistant", "答")]
    assert conv.messages[0].id == "m1"
    assert history.skipped == {"system": 1, "empty": 1}


@pytest.mark.parametrize("encoding", ["utf-16", "utf-16-be"])
def test_files_saved_as_utf16_are_read_as_the_same_text(tmp_path, encoding):
    """Windows PowerShell 5 writes `>` and Out-File as UTF-16 with a byte order mark (and CRLF): the same
    JSON Lines, a ChatGPT export and saved memories read as their UTF-8 files do (before: "not UTF-8
    text", or not recognised at all); the file's digest stays the bytes picked."""
    original = fixture("history.jsonl").read_text(encoding="utf-8")
    wide = tmp_path / "history.jsonl"
    wide.write_bytes(("\ufeff" + original.replace("\n", "\r\n")).encode(encoding))
    want, got = read_history(fixture("history.jsonl")), read_history(wide)
    assert got.source == "jsonl" and [texts_of(c) for c in got.conversations] == [
        texts_of(c) for c in want.conversations]
    assert [c.title for c in got.conversations] == [c.title for c in want.conversations]
    export = tmp_path / "conversations.json"
    export.write_bytes(("\ufeff" + fixture("chatgpt_conversations.json").read_text(encoding="utf-8")).encode(encoding))
    chatgpt = read_history(fixture("chatgpt_conversations.json"))
    assert [texts_of(c) for c in read_history(export).conversations] == [texts_of(c) for c in chatgpt.conversations]
    saved = tmp_path / "memories.txt"
    text = fixture("chatgpt_saved_memories.txt").read_text(encoding="utf-8")
    saved.write_bytes(("\ufeff" + text.replace("\n", "\r\n")).encode(encoding))
    assert [(m.text, m.day) for m in read_history(saved, "chatgpt-memories").saved_memories] == [
        (m.text, m.day) for m in read_history(fixture("chatgpt_saved_memories.txt"), "chatgpt-memories").saved_memories]


def test_a_file_that_is_half_utf16_is_refused_saying_so(tmp_path):
    path = tmp_path / "broken.jsonl"
    path.write_bytes("\ufeff{\"conversation\": \"c\"}".encode("utf-16-le") + b"\x00\xd8")  # half a surrogate pair
    with pytest.raises(HistoryFormatError, match="UTF-16"):
        read_history(path)


def test_json_lines_errors_name_every_bad_line_and_nothing_is_read(tmp_path):
    path = tmp_path / "bad.jsonl"
    good = {"conversation": "c", "role": "user", "content": "hi", "time": "2024-01-01T10:00:00Z"}
    lines = [json.dumps(good), "{not json", json.dumps({**good, "time": "yesterday"}),
             json.dumps({**good, "role": "bot"}), json.dumps([1, 2]), json.dumps({**good, "conversation": ""})]
    path.write_text("\n".join(lines), encoding="utf-8")
    with pytest.raises(HistoryFormatError) as caught:
        read_history(path)
    message = caught.value.zh
    assert "5 行读不了" in message and "第 2 行" in message and "第 3 行：time 不是 ISO-8601" in message
    assert "第 4 行：role" in message and "第 5 行" in message and "第 6 行" in message and "第 1 行" not in message
    assert "line 3: time is not an ISO-8601 time" in caught.value.en


def test_sonetto_export_round_trip_keeps_rules_and_speaker_lines_inside_a_message(tmp_path):
    tricky = "清单：\n---\n**Sonetto** · 2026-05-01 10:00\n**你**\n第三行"
    entries = [
        {"role": "user", "content": tricky, "created_at": "2026-05-02T09:00:00"},
        {"role": "assistant", "content": "记下了", "created_at": "2026-05-02T09:00:07",
         "memories": [{"description": "小林喜欢猫"}]},
        {"role": "user", "content": "讲个故事", "created_at": "2026-05-02T09:01:00"},
        {"role": "assistant", "content": "从前", "created_at": "2026-05-02T09:01:05", "error": {"code": "cancelled"}},
        {"role": "assistant", "content": "", "created_at": "2026-05-02T09:02:00", "error": {"code": "http", "zh": "坏了"}},
    ]
    path = tmp_path / "chat.md"
    path.write_text(transcript_markdown("周末 计划", entries, session_id="s-42"), encoding="utf-8")
    history = read_history(path)
    assert history.source == "sonetto" and not history.notes
    (conv,) = history.conversations
    assert conv.id == "sonetto-s-42" and conv.title == "周末 计划"
    assert texts_of(conv) == [("user", tricky), ("assistant", "记下了"), ("user", "讲个故事"), ("assistant", "从前")]
    assert conv.messages[0].time == datetime(2026, 5, 2, 9, 0)
    assert "小林喜欢猫" not in str(texts_of(conv))  # recalled memories are not news
    assert history.skipped == {"empty": 1}


def test_old_sonetto_export_without_markers_is_read_by_guessing(tmp_path):
    path = tmp_path / "old.md"
    path.write_text("# 周末计划\n\n_导出于 2026-05-02 10:00_\n\n**你** · 2026-05-02 09:00\n\n去爬山吗？\n\n---\n\n"
                    "**Sonetto** · 2026-05-02 09:00\n\n好呀\n\n_想起的记忆：小林喜欢爬山_\n\n---\n\n"
                    "**你** · 2026-05-02 09:05\n\n讲个故事\n\n---\n\n**Sonetto** · 2026-05-02 09:05\n\n"
                    "从前\n\n_（已停止）_\n", encoding="utf-8")
    history = read_history(path)
    (conv,) = history.conversations
    assert texts_of(conv) == [("user", "去爬山吗？"), ("assistant", "好呀"), ("user", "讲个故事"), ("assistant", "从前")]
    assert history.notes and "旧版" in history.notes[0][0]


def test_an_old_sonetto_export_with_an_impossible_date_names_the_file_and_line(tmp_path):
    """2024-02-30 gave a bare "day is out of range for month". The file is one conversation, so as for
    any value no chat can have (a time in 2099) it is refused, saying which file and line."""
    path = tmp_path / "old.md"
    for stamp, said in (("2024-02-30 09:05", "不是有效的日期时间"), ("2099-01-01 09:05", "不合理")):
        path.write_text("# 周末计划\n\n**你** · 2024-02-01 09:00\n\n去爬山吗？\n\n---\n\n"
                        f"**Sonetto** · {stamp}\n\n好呀\n", encoding="utf-8")
        with pytest.raises(HistoryFormatError) as caught:
            read_history(path)
        assert caught.value.zh.startswith("old.md 读不了：第 9 行：") and stamp in caught.value.zh and said in caught.value.zh
        assert caught.value.en.startswith("old.md cannot be read: line 9: ")
    marked = tmp_path / "new.md"
    marked.write_text("# t\n\n<!-- sonetto:chat key=\"ab\" -->\n\n<!-- sonetto:ab role=\"user\" time=\"2099-01-01T09:00:00\" -->\n"
                      "你好\n<!-- sonetto:ab end -->\n", encoding="utf-8")
    with pytest.raises(HistoryFormatError, match="new.md 读不了：第 5 行："):
        read_history(marked)


def test_saved_memories_text():
    history = read_history(fixture("chatgpt_saved_memories.txt"), "chatgpt-memories")
    assert history.source == "chatgpt-memories" and not history.conversations
    assert [(m.text, m.day) for m in history.saved_memories] == [
        ("Is a nurse working in Chengdu.", None), ("Prefers concise answers with bullet points.", None),
        ("Has a corgi named 年糕.", None),
        ("User is learning Japanese and plans to visit Kyoto in spring.", date(2024, 9, 29))]


def test_a_txt_is_taken_for_saved_memories_only_in_chatgpts_own_dated_form(tmp_path):
    history = read_history(fixture("chatgpt_memory_snapshot.txt"))  # as ChatGPT's data export writes the list
    assert history.source == "chatgpt-memories"
    assert [(m.text, m.day) for m in history.saved_memories][1] == ("用户养了一只叫年糕的柯基。", date(2024, 10, 3))
    for name, text in (("notes.txt", "今天天气不错\n去超市买牛奶\n"), ("partly.txt", "1. [2024-09-29]. 有日期\n没日期的一行\n"),
                       ("pasted.txt", fixture("chatgpt_saved_memories.txt").read_text(encoding="utf-8")),
                       ("empty.txt", ""), ("latin1.txt", "caf\xe9")):
        path = tmp_path / name
        path.write_bytes(text.encode("latin-1" if name == "latin1.txt" else "utf-8"))
        with pytest.raises(HistoryFormatError) as caught:
            read_history(path)
        assert f"不认识 {name} 的内容" in caught.value.zh and "--format chatgpt-memories" in caught.value.en
    # told that it is saved memories, a plain list is read as one
    assert len(read_history(tmp_path / "notes.txt", "chatgpt-memories").saved_memories) == 2


def test_a_text_far_longer_than_saved_memories_can_be_is_refused():
    with pytest.raises(HistoryFormatError, match="内容太长"):
        from_text("用户喜欢猫\n" * 20_000)
    with pytest.raises(HistoryFormatError, match="超过 1000 条"):
        from_text("".join(f"第 {n} 条\n" for n in range(1001)))
    assert len(from_text("".join(f"第 {n} 条\n" for n in range(1000))).saved_memories) == 1000


def test_saved_memories_pasted_with_headers_bullets_and_repeats():
    pasted = "已保存的记忆\n\n• 喜欢猫\n- 喜欢猫\n2) 住在杭州\n3、[2024-02-30]. 日期不对的一条\nMemory full\n"
    assert [(m.text, m.day) for m in parse(pasted)] == [("喜欢猫", None), ("住在杭州", None), ("日期不对的一条", None)]
    with pytest.raises(HistoryFormatError):
        from_text("Saved memories\n\n")


@pytest.mark.parametrize("content, expected", [
    ("{\"truncated\": [", "不是完整的 JSON"),
    ("{\"a\": 1}", "不是能识别的聊天记录"),
    ("[{\"id\": 1, \"mapping\": {}}, {\"title\": \"no mapping\"}]", "第 2 个对话没有 mapping"),
])
def test_malformed_json_files_give_one_clear_line(tmp_path, content, expected):
    path = tmp_path / "conversations.json"
    path.write_text(content, encoding="utf-8")
    with pytest.raises(HistoryFormatError) as caught:
        read_history(path)
    assert expected in caught.value.zh and "\n" not in caught.value.zh


def test_a_zip_without_a_history_and_unknown_files(tmp_path):
    empty = tmp_path / "photos.zip"
    with zipfile.ZipFile(empty, "w") as zf:
        zf.writestr("a.jpg", b"\xff\xd8")
    with pytest.raises(HistoryFormatError, match="没有聊天记录"):
        read_history(empty)
    odd = tmp_path / "notes.docx"
    odd.write_bytes(b"PK-not-really")
    with pytest.raises(HistoryFormatError, match="不认识"):
        read_history(odd)
    with pytest.raises(FileNotFoundError):
        read_history(tmp_path / "missing.json")


def test_half_an_emoji_in_an_export_is_read_as_a_replacement_character_and_the_import_plans(tmp_path):
    """A lone UTF-16 surrogate ("\\ud83d": half an emoji, as exports cut mid-emoji hold) is valid JSON
    but no UTF-8: the plan's keys, the journal and the model's request could not encode it, and one
    such character anywhere made the whole export fail to plan."""
    from sonetto_desktop.history_import.plan import make_plan
    from sonetto_desktop.history_import.runner import batch_text

    chatgpt = tmp_path / "conversations.json"
    chatgpt.write_text(fixture("chatgpt_conversations.json").read_text(encoding="utf-8").replace(
        "在西溪附近租了房子。", "在西溪附近租了房子\\ud83d。", 1).replace('"搬家去杭州"', '"搬家\\udc00去杭州"', 1),
        encoding="utf-8")
    lines = tmp_path / "chats.jsonl"
    lines.write_text(json.dumps({"conversation": "c\ud83d", "role": "user", "content": "好开心\ud83d",
                                 "time": "2024-01-01T10:00:00+08:00"}) + "\n", encoding="utf-8")
    for path, said in ((chatgpt, "在西溪附近租了房子\ufffd。"), (lines, "好开心\ufffd")):
        history = read_history(path)
        plan = make_plan(history)
        sent = json.dumps([m for b in plan.batches for m in batch_text(b)], ensure_ascii=False).encode("utf-8")
        assert said in sent.decode("utf-8")
        for conversation in history.conversations:
            json.dumps([conversation.id, conversation.title, *[m.text for m in conversation.messages]],
                       ensure_ascii=False).encode("utf-8")
    assert from_text('1. [2024-09-29]. 喜欢猫\ud83d').saved_memories[0].text == "喜欢猫\ufffd"


def test_a_zip_cut_short_says_it_is_incomplete_not_that_a_zip_is_wanted(tmp_path):
    """An export's download stopped part-way (no central directory at its end) was refused as "unknown
    file type of export.zip: pick a .zip, .json, …"."""
    whole = tmp_path / "whole.zip"
    with zipfile.ZipFile(whole, "w", zipfile.ZIP_DEFLATED) as zf:
        zf.write(fixture("chatgpt_conversations.json"), "conversations.json")
    cut = tmp_path / "export.zip"
    cut.write_bytes(whole.read_bytes()[: whole.stat().st_size // 2])
    with pytest.raises(HistoryFormatError) as caught:
        read_history(cut)
    assert "不完整" in caught.value.zh and "export.zip" in caught.value.zh and "请选" not in caught.value.zh
    assert "incomplete" in caught.value.en


def test_an_export_without_chats_reads_as_nothing_to_import_whether_zipped_or_not(tmp_path):
    """The conversations.json of an account with no chats (``[]``) was "not a chat history this app
    knows" when picked alone, while the same export zipped read as an empty ChatGPT export."""
    single = tmp_path / "conversations.json"
    single.write_text("[]", encoding="utf-8")
    zipped = tmp_path / "export.zip"
    with zipfile.ZipFile(zipped, "w") as zf:
        zf.write(single, "conversations.json")
    for path in (single, zipped):
        history = read_history(path)
        assert history.source == "chatgpt" and len(history.conversations) == 0
