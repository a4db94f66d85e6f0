"""Claude.ai's export and chats saved from DeepSeek's web page (issue 38, item 1).

The fixtures are ours (our words, our ids), shaped after real published samples:

- Claude: the export's ``conversations.json`` as real exports published verbatim by their owners show it
  (conversation ``uuid/name/summary/created_at/updated_at/account``; messages ``uuid/text/content/sender/
  created_at/attachments/files/parent_message_uuid`` with the root parent ``00000000-0000-4000-8000-
  000000000000``; content blocks ``text``, ``thinking`` with ``summaries``/``cut_off``, ``tool_use``,
  ``tool_result``), cross-checked with the format notes of Sinity/polylogue (docs/providers/claude-ai.md)
  and the branch handling (``current_leaf_message_uuid``) of socketteer/Claude-Conversation-Exporter.
- DeepSeek web: the two samples of ceyaima/deepseek-exporter (samples/…sample_2025-05-21….json, the older
  API with ``content``/``thinking_content``, and samples/…test_chat_raw_2025-11-22….json, the newer with
  ``fragments``), the raw page answer that userscript (and greasyfork script 523474 it derives from) saves.
"""

from __future__ import annotations

import json
import zipfile
from datetime import datetime

import pytest

from helpers import texts_of
from history_helpers import fixture, shanghai  # noqa: F401 - a fixture
from sonetto_desktop.history_import import source_files
from sonetto_desktop.history_import.model import HistoryFormatError
from sonetto_desktop.history_import.sources import read_history

pytestmark = pytest.mark.usefixtures("shanghai")


def _claude():
    return json.loads(fixture("claude_conversations.json").read_text(encoding="utf-8"))


def test_claude_export_keeps_what_was_said_on_the_latest_branch():
    history = read_history(fixture("claude_conversations.json"))
    assert history.source == "claude" and history.best_effort and history.label == "Claude"
    assert "尽力而为" in history.notes[0][0] and "best effort" in history.notes[0][1]
    tomatoes, suzhou = history.conversations  # the empty conversation is left out
    assert tomatoes.id == "5d0c6a52-1f4e-4a57-9c1e-3b7f0d2c9a01" and tomatoes.title == "阳台种番茄"
    assert texts_of(tomatoes) == [
        ("user", "我家阳台朝北，想种樱桃番茄，能行吗？"),
        ("assistant", "朝北的阳台光照偏少，可以选耐阴的品种，再补一盏植物灯。"),  # thinking and tools left out
        ("user", "那我先买两盆试试，顺便问下要多大的盆？"),
        ("assistant", "选口径二十五厘米以上、深一点的盆，根才长得开。"),  # the regenerated reply, not the first
    ]
    assert tomatoes.messages[0].time == datetime(2025, 3, 8, 20, 1, 2)  # UTC in the file, local here
    assert tomatoes.guessed_branch and "最后一条消息" in history.notes[1][0]
    assert texts_of(suzhou) == [("user", "周末要去苏州看园林，帮我排个一日路线"), ("assistant", "上午拙政园，中午平江路，下午留园。")]
    assert suzhou.title == "周末要去苏州看园林，帮我排个一日路线"  # an untitled chat is named by its start
    assert history.skipped == {"hidden": 1, "tool": 2, "other_branch": 1}


def test_claude_export_zip_is_recognised_beside_its_other_files(tmp_path):
    path = tmp_path / "data-2025-03-09-01-02-03-batch-0000.zip"
    with zipfile.ZipFile(path, "w") as zf:
        zf.writestr("users.json", json.dumps([{"uuid": "a", "full_name": "x"}]))
        zf.writestr("projects.json", json.dumps([]))
        zf.writestr("conversations.json", fixture("claude_conversations.json").read_bytes())
    history = read_history(path)
    assert history.source == "claude" and len(history.conversations) == 2 and history.digest


def test_a_second_claude_export_in_the_zip_is_named_as_not_read(tmp_path):
    """Claude's reader reads one export: another conversations.json in the zip is said, not ignored."""
    path = tmp_path / "two.zip"
    with zipfile.ZipFile(path, "w") as zf:
        zf.writestr("data-2025-03/conversations.json", fixture("claude_conversations.json").read_bytes())
        zf.writestr("data-2025-06/conversations.json", fixture("claude_conversations.json").read_bytes())
    history = read_history(path)
    assert history.source == "claude" and len(history.conversations) == 2
    (zh, en), = [note for note in history.notes if "不止一份导出" in note[0]]
    assert "只读取了 data-2025-03/conversations.json，没有读取 data-2025-06/conversations.json" in zh
    assert "not data-2025-06/conversations.json" in en


def test_claude_single_conversation_follows_the_leaf_the_page_names(tmp_path):
    conversation = _claude()[0]
    conversation["current_leaf_message_uuid"] = "019d0000-0000-7000-8000-000000000004"  # the first reply was kept
    saved = tmp_path / "claude_conversation.json"
    saved.write_text(json.dumps(conversation, ensure_ascii=False), encoding="utf-8")
    history = read_history(saved)
    (conv,) = history.conversations
    assert history.source == "claude" and not conv.guessed_branch
    assert texts_of(conv)[-1] == ("assistant", "二十厘米左右的盆就够了。")


def test_claude_conversation_with_an_impossible_time_is_left_out_and_named(tmp_path):
    data = _claude()
    data[1]["chat_messages"][1]["created_at"] = "9999-12-31T23:59:59Z"
    data[0]["chat_messages"][0]["content"] = "not a list"  # odd, but the text field still says it
    path = tmp_path / "conversations.json"
    path.write_text(json.dumps(data, ensure_ascii=False), encoding="utf-8")
    history = read_history(path)
    assert [c.title for c in history.conversations] == ["阳台种番茄"]
    (bad,) = history.bad
    assert bad.index == 2 and "9999" in bad.zh


def test_claude_export_is_read_a_piece_at_a_time(monkeypatch):
    whole = read_history(fixture("claude_conversations.json"))
    monkeypatch.setattr(source_files, "CHUNK", 37)  # every value crosses chunk edges
    pieces = read_history(fixture("claude_conversations.json"))
    assert [(c.id, texts_of(c)) for c in pieces.conversations] == [(c.id, texts_of(c)) for c in whole.conversations]


def test_not_claude_when_the_messages_are_not_a_list(tmp_path):
    path = tmp_path / "conversations.json"
    path.write_text(json.dumps([{"uuid": "x", "name": "y", "chat_messages": []}, {"uuid": "z", "name": "w"}]),
                    encoding="utf-8")
    with pytest.raises(HistoryFormatError, match="第 2 个对话没有 chat_messages"):
        read_history(path)


# ── DeepSeek, saved from the web page ────────────────────────────────


def test_deepseek_page_save_newer_api_follows_the_branch_on_screen():
    history = read_history(fixture("deepseek_web_chat.json"))
    assert history.source == "deepseek" and history.best_effort
    (conv,) = history.conversations
    assert conv.id == "e7196cf3-0000-4096-99c1-00000000d002" and conv.title == "学吉他"
    assert texts_of(conv) == [
        ("user", "我三十岁了，想从零开始学吉他，每天只有半小时。"),
        ("assistant", "每天半小时足够：十分钟爬格子，二十分钟练和弦转换。"),  # the reply the chat went on from
        ("user", "好，那我买一把入门的民谣吉他。"),
        ("assistant", "入门选面单的民谣吉他就好。"),
    ]
    assert not conv.guessed_branch and conv.messages[0].time == datetime(2025, 11, 22, 23, 41, 54)
    assert history.skipped == {"other_branch": 1}


def test_deepseek_page_save_older_api_reads_content_and_leaves_thinking_out(tmp_path):
    history = read_history(fixture("deepseek_web_chat_old_api.json"))
    (conv,) = history.conversations
    assert conv.title == "搬家清单"
    assert texts_of(conv) == [("user", "下个月从成都搬去杭州，一个人住，帮我列个清单"),  # the edited question
                            ("assistant", "一个人搬：先断舍离，大件走物流，随身带证件和电脑。")]
    data = json.loads(fixture("deepseek_web_chat_old_api.json").read_text(encoding="utf-8"))
    del data["data"]["biz_data"]["chat_session"]["current_message_id"]
    messages = data["data"]["biz_data"]["chat_messages"]
    messages.append(messages.pop(1))  # the first answer last in the list: its branch is taken
    path = tmp_path / "DeepSeek - 搬家清单.json"
    path.write_text(json.dumps(data, ensure_ascii=False), encoding="utf-8")
    history = read_history(path)
    (conv,) = history.conversations
    assert conv.guessed_branch and texts_of(conv)[-1] == ("assistant", "提前两周订搬家公司，办好水电燃气的过户。")
    assert history.skipped["hidden"] == 1 and "最后一条消息" in history.notes[-1][0]


def test_deepseek_page_saves_in_a_zip_and_the_bare_biz_data(tmp_path):
    bare = json.loads(fixture("deepseek_web_chat.json").read_text(encoding="utf-8"))["data"]["biz_data"]
    path = tmp_path / "deepseek-chats.zip"
    with zipfile.ZipFile(path, "w") as zf:
        zf.writestr("DeepSeek - 学吉他.json", json.dumps(bare, ensure_ascii=False))
        zf.writestr("DeepSeek - 搬家清单.json", fixture("deepseek_web_chat_old_api.json").read_bytes())
    history = read_history(path)
    assert history.source == "deepseek"
    assert sorted(c.title for c in history.conversations) == ["学吉他", "搬家清单"]


def test_deepseek_page_answer_without_a_chat_is_refused_saying_what_the_page_said(tmp_path):
    path = tmp_path / "chat.json"
    path.write_text(json.dumps({"code": 40003, "msg": "Authorization Failed (invalid token)", "data": None}),
                    encoding="utf-8")
    with pytest.raises(HistoryFormatError) as caught:
        read_history(path, "deepseek")
    assert "Authorization Failed" in caught.value.zh and "no chat_messages" in caught.value.en
    with pytest.raises(HistoryFormatError, match="不是能识别的聊天记录"):
        read_history(path)  # detected: nothing says it is a chat


def test_deepseek_page_save_with_an_impossible_time_is_left_out_and_named(tmp_path):
    data = json.loads(fixture("deepseek_web_chat.json").read_text(encoding="utf-8"))
    data["data"]["biz_data"]["chat_messages"][4]["inserted_at"] = float("nan")
    path = tmp_path / "chat.json"
    path.write_text(json.dumps(data, ensure_ascii=False), encoding="utf-8")
    history = read_history(path)
    assert history.conversations == [] and len(history.bad) == 1 and history.bad[0].title == "学吉他"


def test_what_was_not_left_out_is_not_counted(tmp_path):
    """A linear chat leaves nothing on another branch: no "other_branch: 0" in the preview's counts."""
    path = tmp_path / "conversations.json"
    path.write_text(json.dumps([_claude()[1]], ensure_ascii=False), encoding="utf-8")
    assert dict(read_history(path).skipped) == {}
    data = json.loads(fixture("deepseek_web_chat.json").read_text(encoding="utf-8"))
    data["data"]["biz_data"]["chat_messages"].pop(1)  # the regenerated reply: one line of messages now
    saved = tmp_path / "chat.json"
    saved.write_text(json.dumps(data, ensure_ascii=False), encoding="utf-8")
    assert dict(read_history(saved).skipped) == {}
