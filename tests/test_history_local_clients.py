"""Chats kept in the local-model clients people use beside Sonetto: Open WebUI, LobeChat (both of its
export generations), Chatbox and LM Studio, read from their files and imported for real.

The fixtures are ours (our words, our ids), in the shape each app's own source writes:

- Open WebUI: the list its server returns for 设置 → 对话 → 导出 (``ChatResponse`` rows around the page's
  ``chat``: ``history.messages`` tree with ``parentId``/``childrenIds``, ``currentId``), reasoning folded
  into the reply as ``<details type="reasoning">``, message times in seconds (the chat's in milliseconds);
- LobeChat: the older ``{exportType, state, version}`` export (its config migrations' fixtures) and the
  newer ``{data: {tables…}, mode, schemaHash}`` one (its data exporter's table list);
- Chatbox: the store as its 导出数据 writes it (``chat-sessions-list``, ``session:<id>`` with ``threads``
  and ``messageForksHash``, ``contentParts``; its session types);
- LM Studio (closed source): its conversations folder, one ``<ms>.conversation.json`` per chat, as the
  public readers of those files show them (``messages[].versions`` / ``currentlySelected``, assistant
  ``multiStep`` versions of ``contentBlock`` steps).
"""

from __future__ import annotations

import json
import zipfile
from datetime import datetime

import pytest

from helpers import texts_of
from history_helpers import fixture, remember_each_line, services_fixture, shanghai, two_apps_zip  # noqa: F401 - fixtures
from sonetto_desktop.cli_history import _parser
from sonetto_desktop.cli_words import Words
from sonetto_desktop.history_import.model import HistoryFormatError
from sonetto_desktop.history_import.plan import make_plan
from sonetto_desktop.history_import.service import HistoryImports
from sonetto_desktop.history_import.sources import read_history

pytestmark = pytest.mark.usefixtures("shanghai")

OPEN_WEBUI = "openwebui_chat_export.json"
LOBE_OLD = "lobechat_export_v7.json"
LOBE_NEW = "lobechat_pglite_export.json"
CHATBOX = "chatbox-exported-data-2025-3-3.json"
LM_STUDIO = "lmstudio-conversations"


def _data(name: str):
    return json.loads(fixture(name).read_text(encoding="utf-8"))


def _saved(path, data):
    path.write_text(json.dumps(data, ensure_ascii=False), encoding="utf-8")
    return path


# ── Open WebUI ────────────────────────────────────────────────────────


def test_open_webui_keeps_the_branch_on_screen_without_the_thinking():
    history = read_history(fixture(OPEN_WEBUI))
    assert history.source == "openwebui" and history.label == "Open WebUI" and history.best_effort
    assert "尽力而为" in history.notes[0][0] and "best effort" in history.notes[0][1]
    moving, hiking, cooking = history.conversations
    assert (moving.id, moving.title) == ("6f1c2e0a-3b7d-4c59-9e21-8a4f0d6b2c11", "搬家去成都的准备")
    assert texts_of(moving) == [
        ("user", "我下个月从杭州搬去成都，要提前准备些什么？"),
        ("assistant", "先办好租房合同和宽带迁移，再订搬家公司。"),  # the regenerated reply, its thinking left out
        ("user", "我还养了一只叫年糕的猫，路上怎么办？\n[图片]"),  # the edited question, with its photo
        ("assistant", "可以提前去宠物医院开健康证明，路上用航空箱。"),
    ]
    assert moving.messages[0].time == datetime(2024, 6, 1, 8, 0, 10)  # seconds since 1970, local here
    assert not moving.guessed_branch
    # "New Chat" is no title; no currentId: the last reply at each step, and the preview says so
    assert hiking.title == "周末想去青城山徒步，需要带什么？" and hiking.guessed_branch
    assert texts_of(hiking)[1] == ("assistant", "带登山杖、雨衣和足够的水。")
    assert hiking.messages[0].time == datetime(2024, 7, 1, 8, 0)  # no time of its own: the chat's
    assert "每步取最后一个" in history.notes[1][0]
    # a very old export: chat.messages only, times in milliseconds, <think> left out
    assert texts_of(cooking) == [("user", "我想学做麻婆豆腐"), ("assistant", "先把豆腐切块焯水。")]
    assert cooking.messages[1].time == datetime(2024, 1, 1, 8, 0, 30)
    # the first reply, the first question and its failed answer; the hiking chat's other reply
    assert history.skipped == {"other_branch": 4, "hidden": 2}


def test_open_webui_chat_with_a_bad_time_is_named_and_the_others_read(tmp_path):
    chats = _data(OPEN_WEBUI)
    chats[1]["chat"]["history"]["messages"]["h2"]["timestamp"] = float("nan")
    chats[1]["chat"]["history"]["currentId"] = "h2"
    chats[1]["title"] = "徒步"
    history = read_history(_saved(tmp_path / "chat-export-1717200000000.json", chats))
    assert [c.title for c in history.conversations] == ["搬家去成都的准备", "学做川菜"]
    (bad,) = history.bad
    assert (bad.index, bad.title) == (2, "徒步") and "nan" in bad.zh


# ── LobeChat ──────────────────────────────────────────────────────────


def test_lobechat_older_export_one_conversation_per_topic_and_per_assistants_default():
    history = read_history(fixture(LOBE_OLD))
    assert history.source == "lobechat" and history.label == "LobeChat" and history.best_effort
    inbox, kyoto, trip = history.conversations
    assert (inbox.id, inbox.title) == ("lobechat-inbox-default", "我最近在准备雅思考试，目标 7 分。")
    assert texts_of(inbox)[1] == ("assistant", "可以先做一套真题摸底。")  # <think> left out
    assert inbox.messages[0].time == datetime(2024, 2, 1, 8, 0)  # milliseconds since 1970
    assert (kyoto.id, kyoto.title) == ("tp-kyoto", "京都赏枫行程")
    assert texts_of(kyoto) == [  # in time order (the file lists the reply first), tool calls and the failed reply out
        ("user", "我想秋天去京都看红叶，什么时候去最好？\n[图片]"),
        ("assistant", "十一月中旬去最合适，东福寺和永观堂的红叶最好。"),
        ("user", "帮我查一下那时候的机票"),
    ]
    assert (trip.id, trip.title) == ("lobechat-sess-trip-default", "旅行规划师")  # named by its assistant
    assert history.skipped == {"hidden": 1, "tool": 2, "empty": 1}


def test_lobechat_newer_export_reads_topics_branches_and_assistants_from_the_tables():
    history = read_history(fixture(LOBE_NEW))
    assert history.source == "lobechat"
    gym, diet, cook = history.conversations
    assert (gym.id, gym.title) == ("tpc-gym", "健身计划")
    assert texts_of(gym) == [("user", "我每周一三五去健身房，想增肌。"), ("assistant", "可以按推、拉、腿三分化来练。")]
    assert gym.messages[0].time == datetime(2025, 1, 5, 10, 0, 10)  # ISO 8601 in UTC
    assert (diet.id, diet.title) == ("thd-diet", "饮食安排")  # a branch the person kept: its own conversation
    assert texts_of(diet)[0] == ("user", "我乳糖不耐受，蛋白粉怎么选？")
    assert (cook.id, cook.title) == ("lobechat-ssn-cook-default", "家常菜师傅")  # the agent's title
    assert not history.skipped and not history.bad


def test_lobechat_unknown_version_and_settings_only_exports_are_refused_clearly(tmp_path):
    data = _data(LOBE_OLD)
    data["version"] = 42
    with pytest.raises(HistoryFormatError) as caught:
        read_history(_saved(tmp_path / "lobe.json", data))
    assert "version 42" in caught.value.zh and "1–8" in caught.value.zh and "version 42" in caught.value.en
    settings = {"exportType": "settings", "state": {"settings": {"general": {"language": "zh-CN"}}}, "version": 7}
    with pytest.raises(HistoryFormatError, match="设置导出"):
        read_history(_saved(tmp_path / "settings.json", settings))


# ── Chatbox ───────────────────────────────────────────────────────────


def test_chatbox_reads_each_thread_and_the_reply_on_screen():
    history = read_history(fixture(CHATBOX))
    assert history.source == "chatbox" and history.label == "Chatbox" and history.best_effort
    adopting, food = history.conversations  # the picture chat is left out
    assert (adopting.id, adopting.title) == ("s-cat:th-1", "领养")  # an earlier thread of the chat
    assert texts_of(adopting) == [("user", "我刚领养了一只三个月大的英短，叫年糕。"), ("assistant", "恭喜！先带它去打疫苗。")]
    assert adopting.messages[0].time == datetime(2025, 3, 1, 8, 0)  # no time of its own: the thread's start
    assert (food.id, food.title) == ("s-cat", "猫粮")
    assert texts_of(food) == [
        ("user", "年糕最近不爱吃猫粮，怎么办？\n[图片]"),
        ("assistant", "可以换个口味，或者加一点冻干。"),  # the reasoning part left out
        ("user", "那冻干选哪种好？"),
        ("assistant", "选单一肉源的鸡肉冻干。"),  # the reply on screen, not the fork
    ]
    assert food.messages[0].time == datetime(2025, 3, 2, 10, 0)  # milliseconds since 1970
    assert history.skipped == {"system": 2, "other_branch": 1, "hidden": 1, "empty": 1, "non_text": 2}


def test_chatbox_older_export_keeps_its_chats_in_one_list(tmp_path):
    old = {"settings": {"language": "zh-Hans"}, "configVersion": 4, "chat-sessions": [
        {"id": "old-1", "name": "Untitled", "messages": [
            {"id": "s", "role": "system", "content": "You are a helpful assistant."},
            {"id": "u", "role": "user", "content": "我在学游泳，每周去两次", "timestamp": 1688169600000},
            {"id": "a", "role": "assistant", "content": "坚持下去！"}]}]}
    history = read_history(_saved(tmp_path / "chatbox-exported-data-2023-7-1.json", old))
    (swim,) = history.conversations
    assert swim.id == "old-1" and swim.title == "我在学游泳，每周去两次"  # "Untitled" is no title
    assert texts_of(swim) == [("user", "我在学游泳，每周去两次"), ("assistant", "坚持下去！")]
    assert swim.messages[1].time == datetime(2023, 7, 1, 8, 0)  # the time before it goes on


def test_a_chatbox_export_without_chats_says_to_tick_them(tmp_path):
    settings_only = {"settings": {"language": "zh-Hans"}, "configVersion": 12, "myCopilots": [],
                     "__exported_items": ["setting"], "__exported_at": "2025-03-03T08:00:00.000Z"}
    with pytest.raises(HistoryFormatError) as caught:
        read_history(_saved(tmp_path / "chatbox-exported-data-2025-3-3.json", settings_only))
    assert "聊天记录" in caught.value.zh and "Chat History" in caught.value.en


# ── LM Studio ─────────────────────────────────────────────────────────


def test_lm_studio_folder_reads_each_chat_file_with_the_versions_on_screen():
    history = read_history(fixture(LM_STUDIO))
    assert history.source == "lmstudio" and history.label == "LM Studio" and history.best_effort
    assert "不记录每条消息的时间" in history.notes[0][0] and "dated at its start" in history.notes[0][1]
    bread, japanese = history.conversations  # the subfolder's chat too, in the order they were made
    assert (bread.id, bread.title) == ("lmstudio-1735689600000", "周末学做面包")
    assert texts_of(bread) == [
        ("user", "我想周末在家学做面包，需要买什么工具？"),
        ("assistant", "需要一台烤箱、电子秤和一个大碗。"),  # the version on screen, its thinking block left out
        ("user", "我家没有烤箱，用空气炸锅可以吗？\n[图片]"),  # the edited question, with its picture
        ("assistant", "可以，做小餐包就行。"),  # <think> left out
    ]
    assert {m.time for m in bread.messages} == {datetime(2025, 1, 1, 8, 0)}  # the chat's createdAt (ms)
    assert japanese.id == "lmstudio-1736294400000" and japanese.title.startswith("帮我把这句日语翻译成中文")
    assert history.skipped == {"other_branch": 2, "hidden": 2, "tool": 1, "empty": 1}
    one = read_history(fixture(LM_STUDIO) / "1735689600000.conversation.json")
    assert one.source == "lmstudio" and [texts_of(c) for c in one.conversations] == [texts_of(bread)]
    assert [c.id for c in one.conversations] == [bread.id]  # the same chat, picked alone: imported once


def test_lm_studio_folder_with_other_files_and_a_damaged_chat(tmp_path):
    folder = tmp_path / "conversations"
    folder.mkdir()
    (folder / "1735689600000.conversation.json").write_bytes(
        (fixture(LM_STUDIO) / "1735689600000.conversation.json").read_bytes())
    bad = _data(f"{LM_STUDIO}/学习/1736294400000.conversation.json")
    bad["createdAt"] = "yesterday"
    _saved(folder / "1736294400000.conversation.json", bad)
    (folder / "notes.txt").write_text("不是对话", encoding="utf-8")
    history = read_history(folder)
    assert [c.title for c in history.conversations] == ["周末学做面包"]
    (left_out,) = history.bad
    assert left_out.file == "1736294400000.conversation.json" and "不是数字" in left_out.zh


# ── telling them apart, packed or not; damaged files ─────────────────


@pytest.mark.parametrize("name, fmt", [(OPEN_WEBUI, "openwebui"), (LOBE_OLD, "lobechat"), (LOBE_NEW, "lobechat"),
                                       (CHATBOX, "chatbox"), (f"{LM_STUDIO}/1735689600000.conversation.json",
                                                              "lmstudio")])
def test_each_is_told_by_its_content_alone_in_a_zip_and_in_a_folder(tmp_path, name, fmt):
    plain = tmp_path / "export.json"  # not its usual name: the content decides
    plain.write_bytes(fixture(name).read_bytes())
    packed = tmp_path / "backup.zip"
    with zipfile.ZipFile(packed, "w") as zf:
        zf.writestr(f"exports/{name.rsplit('/', 1)[-1]}", fixture(name).read_bytes())
        zf.writestr("exports/readme.txt", "备份")
    folder = tmp_path / "folder"
    folder.mkdir()
    (folder / name.rsplit("/", 1)[-1]).write_bytes(fixture(name).read_bytes())
    want = [texts_of(c) for c in read_history(fixture(name)).conversations]
    for path in (plain, packed, folder):
        history = read_history(path)
        assert history.source == fmt and [texts_of(c) for c in history.conversations] == want, path
        assert history.digest


def test_the_other_formats_files_are_not_taken_for_these():
    for name, fmt in [("chatgpt_conversations.json", "chatgpt"), ("claude_conversations.json", "claude"),
                      ("deepseek_conversations.json", "deepseek"), ("deepseek_web_chat.json", "deepseek"),
                      ("cherry-studio.202504050903.zip", "cherry")]:
        assert read_history(fixture(name)).source == fmt, name


@pytest.mark.parametrize("name", [OPEN_WEBUI, LOBE_OLD, LOBE_NEW, CHATBOX, f"{LM_STUDIO}/1735689600000.conversation.json"])
def test_a_file_cut_short_is_refused_and_says_where(tmp_path, name):
    text = fixture(name).read_text(encoding="utf-8")
    cut = _saved(tmp_path / "export.json", None)
    cut.write_text(text[: len(text) * 2 // 3], encoding="utf-8")
    with pytest.raises(HistoryFormatError) as caught:
        read_history(cut, {LOBE_OLD: "lobechat", LOBE_NEW: "lobechat", OPEN_WEBUI: "openwebui", CHATBOX: "chatbox",
                           f"{LM_STUDIO}/1735689600000.conversation.json": "lmstudio"}[name])
    assert "第" in caught.value.zh and "行" in caught.value.zh


def test_a_file_of_another_app_read_as_one_of_these_says_so(tmp_path):
    for fmt, words, other in [("openwebui", "不是 Open WebUI", "claude_conversations.json"),
                              ("lobechat", "不是 LobeChat", "deepseek_web_chat.json"),
                              ("chatbox", "不是 Chatbox", "chatgpt_conversations.json"),
                              ("lmstudio", "不是 LM Studio", "deepseek_web_chat.json")]:
        with pytest.raises(HistoryFormatError, match=words):
            read_history(fixture(other), fmt)


def test_the_command_line_and_the_error_texts_know_them(tmp_path):
    parser = _parser(Words("en"))
    for fmt in ("openwebui", "lobechat", "chatbox", "lmstudio"):
        assert parser.parse_args(["import", "x.json", "--format", fmt]).format == fmt
    odd = _saved(tmp_path / "odd.json", {"hello": 1})
    with pytest.raises(HistoryFormatError) as caught:
        read_history(odd)
    for words in ("Open WebUI 导出的对话", "LobeChat 导出的数据", "Chatbox 导出的数据", "LM Studio 的对话文件"):
        assert words in caught.value.zh
    assert "Open WebUI's chat export" in caught.value.en


# ── imported for real: plan, preview, the writer, the store ───────────


@pytest.fixture
async def imports(services):
    made = HistoryImports(services)
    yield made
    await made.close()


@pytest.mark.parametrize("name, fmt, origin", [
    (OPEN_WEBUI, "openwebui", "Open WebUI「搬家去成都的准备」· 2024-06-01"),
    (LOBE_NEW, "lobechat", "LobeChat「健身计划」· 2025-01-05"),
    (CHATBOX, "chatbox", "Chatbox「猫粮」· 2025-03-02"),
    (LM_STUDIO, "lmstudio", "LM Studio「周末学做面包」· 2025-01-01"),
])
async def test_imported_through_the_writer_and_once_only(services, imports, llm_server, name, fmt, origin):
    llm_server.responder = remember_each_line
    history = await imports.read(fixture(name))
    plan = await imports.plan(history)
    dry = make_plan(read_history(fixture(name)))
    assert plan.turns == dry.turns > 0 and plan.estimated_tokens == dry.estimated_tokens
    assert [row.title for row in plan.rows] == [c.title for c in history.conversations]
    await imports.start(plan, history, file_name=name)
    result = await imports.wait()
    assert result.turns_written == plan.turns and result.memories_created > 0
    items = services.memory.all_items().values()
    origins = {i.own_history()[-1]["origin"] for i in items}
    assert origin in origins
    assert {i.own_history()[-1]["actor"] for i in items} == {f"import:{fmt}"}
    again = await imports.plan(await imports.read(fixture(name)))
    assert again.turns == 0 and again.skipped_already_imported == plan.turns


async def test_a_damaged_file_changes_nothing(services, imports, llm_server, tmp_path):
    before = dict(services.memory.all_items())
    text = fixture(OPEN_WEBUI).read_text(encoding="utf-8")
    cut = tmp_path / "chat-export-1.json"
    cut.write_text(text[:-40], encoding="utf-8")
    with pytest.raises(HistoryFormatError):
        await imports.read(cut)
    assert services.memory.all_items() == before and not llm_server.requests


def test_open_webui_chats_one_a_line_as_newer_servers_stream_them(tmp_path):
    """``/chats/all`` of newer Open WebUI servers is NDJSON: the same chats, one a line, in a .json or a
    .jsonl file; a line cut off is named and the others read; our own JSON Lines stay ours."""
    lines = [json.dumps(chat, ensure_ascii=False) for chat in _data(OPEN_WEBUI)]
    want = [texts_of(c) for c in read_history(fixture(OPEN_WEBUI)).conversations]
    for name in ("chat-export-1717200000000.json", "chats.jsonl"):
        path = tmp_path / name
        path.write_text("\n".join(lines) + "\n", encoding="utf-8")
        history = read_history(path)
        assert history.source == "openwebui" and [texts_of(c) for c in history.conversations] == want, name
    cut = tmp_path / "cut.jsonl"
    cut.write_text("\n".join([lines[0], lines[1][:50], lines[2]]), encoding="utf-8")
    history = read_history(cut)
    assert [c.title for c in history.conversations] == ["搬家去成都的准备", "学做川菜"]
    (bad,) = history.bad
    assert bad.index == 2 and "不是完整的 JSON" in bad.zh
    assert read_history(fixture("history.jsonl")).source == "jsonl"
    broken = tmp_path / "mine.jsonl"
    broken.write_text('{"conversation": 1, "role": \n', encoding="utf-8")
    with pytest.raises(HistoryFormatError, match="第 1 行"):
        read_history(broken)


def test_chatbox_reads_a_moved_chat_from_its_own_key_not_the_old_list_left_beside_it(tmp_path):
    """Chatbox's store migration (7→8) copies each chat to ``session:<id>`` and leaves ``chat-sessions``
    in place: the chat is read once, as its own key has it (the old list came first in the file); a
    chat key left null and a chat without messages do not refuse the file."""
    data = _data(CHATBOX)
    stale = {"id": "s-cat", "name": "养猫", "messages": [
        {"id": "old-u", "role": "user", "content": "旧的副本里的话", "timestamp": 1740880800000}]}
    only_old = {"id": "s-old", "name": "旧对话", "messages": [
        {"id": "o-u", "role": "user", "content": "我以前住在厦门", "timestamp": 1680000000000},
        {"id": "o-a", "role": "assistant", "content": "厦门很美。", "timestamp": 1680000005000}]}
    moved = {"configVersion": 8, "chat-sessions": [stale, only_old], **data, "session:gone": None,
             "session:odd": {"id": "odd", "name": "坏的"}}
    history = read_history(_saved(tmp_path / "chatbox-exported-data-2025-3-3.json", moved))
    assert [c.id for c in history.conversations] == ["s-old", "s-cat:th-1", "s-cat"]
    assert "旧的副本里的话" not in str([texts_of(c) for c in history.conversations])
    (bad,) = history.bad
    assert "没有 messages" in bad.zh


def test_chatbox_odd_forks_are_no_reason_to_refuse_the_export(tmp_path):
    data = _data(CHATBOX)
    data["session:s-cat"]["messageForksHash"] = {"c-a3": {"lists": 5}, "c-a2": {"lists": [{"messages": 1.5}, True]},
                                                 "c-u3": None}
    history = read_history(_saved(tmp_path / "chatbox-exported-data-2025-3-3.json", data))
    assert [c.id for c in history.conversations] == ["s-cat:th-1", "s-cat"] and "other_branch" not in history.skipped


def test_lobechat_names_chats_whatever_the_order_of_its_tables(tmp_path):
    """LobeChat's own migration fixtures list ``messages`` before ``topics`` and ``sessions``."""
    data = _data(LOBE_OLD)
    state = data["state"]
    data["state"] = {"messages": state["messages"], "topics": state["topics"], "sessions": state["sessions"]}
    data["version"] = 6
    history = read_history(_saved(tmp_path / "lobe.json", data))
    assert [c.title for c in history.conversations] == [c.title for c in read_history(fixture(LOBE_OLD)).conversations]
    assert [c.title for c in history.conversations][1:] == ["京都赏枫行程", "旅行规划师"]


def test_open_webui_reply_kept_only_as_response_items_is_read_by_its_words(tmp_path):
    chats = _data(OPEN_WEBUI)
    reply = chats[0]["chat"]["history"]["messages"]["a3"]
    reply["content"] = ""
    reply["output"] = [{"type": "reasoning", "id": "rs_1", "summary": [{"type": "summary_text", "text": "想想"}]},
                       {"type": "function_call", "id": "fc_1", "name": "search", "arguments": "{}"},
                       {"type": "message", "id": "msg_1", "role": "assistant",
                        "content": [{"type": "output_text", "text": "用航空箱，提前开健康证明。"}]}]
    history = read_history(_saved(tmp_path / "chat-export-1.json", chats))
    assert texts_of(history.conversations[0])[-1] == ("assistant", "用航空箱，提前开健康证明。")
    assert history.skipped["hidden"] == 3 and history.skipped["tool"] == 1


def test_another_apps_object_picked_as_open_webui_says_so_not_hundreds_of_broken_lines(tmp_path):
    """An LM Studio chat file, a LobeChat export or a chat saved from DeepSeek's page picked with
    ``--format openwebui`` (or 格式 Open WebUI) was read as Open WebUI's chats one a line: "跳过 232
    个读不了的对话：…的第 1 个对话：这一行不是完整的 JSON" and 0 conversations. One chat of Open WebUI
    kept as an indented object (not a list) was the same; it is one chat."""
    for other in (f"{LM_STUDIO}/1735689600000.conversation.json", LOBE_OLD, LOBE_NEW, "deepseek_web_chat.json",
                  CHATBOX):
        with pytest.raises(HistoryFormatError) as caught:
            read_history(fixture(other), "openwebui")
        assert "不是 Open WebUI" in caught.value.zh and "not an Open WebUI" in caught.value.en, other
        assert "第 " not in caught.value.zh, other
    one = _data(OPEN_WEBUI)[0]
    indented = tmp_path / "chat-export-1717200000000.json"
    indented.write_text(json.dumps(one, ensure_ascii=False, indent=2), encoding="utf-8")
    history = read_history(indented)
    assert history.source == "openwebui" and not history.bad
    want = read_history(fixture(OPEN_WEBUI)).conversations[0]
    assert [texts_of(c) for c in history.conversations] == [texts_of(want)]


def test_another_apps_object_picked_as_chatbox_is_not_told_to_tick_chat_history(tmp_path):
    """A LobeChat export or an LM Studio chat file picked with ``--format chatbox`` said "里没有聊天记录：
    导出时请勾选“聊天记录”", advice for a Chatbox export that cannot help: it is not one."""
    for other in (LOBE_OLD, LOBE_NEW, f"{LM_STUDIO}/1735689600000.conversation.json", "deepseek_web_chat.json"):
        with pytest.raises(HistoryFormatError) as caught:
            read_history(fixture(other), "chatbox")
        assert "不是 Chatbox" in caught.value.zh and "not a Chatbox" in caught.value.en, other
        assert "聊天记录" not in caught.value.zh, other


@pytest.mark.parametrize("cut_name", ["1700000000000.conversation.json", "1736294400000.conversation.json"])
def test_one_chat_file_cut_short_in_lm_studios_folder_leaves_out_that_chat_not_the_folder(tmp_path, cut_name):
    """LM Studio's conversations folder with one chat file cut short (the app was saving it, or stopped
    mid-write) and a damaged settings file beside them: the whole folder was refused ("… 不是完整的 JSON
    （第 43 行第 7 列：文件在这里结束了），可能下载或解压不完整"), however many chats were whole. The cut chat
    is named and left out, a file that is not a chat passed over, the rest read."""
    folder = tmp_path / "conversations"
    folder.mkdir()
    (folder / "1735689600000.conversation.json").write_bytes(
        (fixture(LM_STUDIO) / "1735689600000.conversation.json").read_bytes())
    whole = (fixture(LM_STUDIO) / "学习" / "1736294400000.conversation.json").read_text(encoding="utf-8")
    (folder / cut_name).write_text(whole[: len(whole) // 2], encoding="utf-8")
    (folder / "zz-settings.json").write_text('{"theme": [1, 2', encoding="utf-8")
    packed = tmp_path / "conversations.zip"
    with zipfile.ZipFile(packed, "w") as zf:
        for path in sorted(folder.iterdir()):
            zf.write(path, f"conversations/{path.name}")
    for source in (folder, packed):
        for fmt in (None, "lmstudio"):
            history = read_history(source, fmt)
            assert history.source == "lmstudio" and [c.title for c in history.conversations] == ["周末学做面包"]
            (left_out,) = history.bad
            assert left_out.file.endswith(cut_name) and "不是完整的 JSON" in left_out.zh, (source, fmt)


def test_a_zip_of_two_apps_exports_says_which_was_read_and_how_to_read_the_other(tmp_path):
    """A zip with ChatGPT's conversations.json and LM Studio's chat files was read as ChatGPT's, and LM
    Studio's chats were left out without a word. The preview (and the command line) says whose files
    were read, which were not, and how to import those (the format to pick, --format); picked, they are."""
    packed = two_apps_zip(tmp_path)
    lm_titles = [c.title for c in read_history(fixture(LM_STUDIO)).conversations]
    chatgpt_titles = [c.title for c in read_history(fixture("chatgpt_conversations.json")).conversations]

    history = read_history(packed)
    assert history.source == "chatgpt" and [c.title for c in history.conversations] == chatgpt_titles
    assert history.left_unread == {"lmstudio": ["lmstudio/1735689600000.conversation.json",
                                                "lmstudio/学习/1736294400000.conversation.json"]}
    zh, en = next(note for note in history.notes if "LM Studio" in note[0])
    assert "只读取了 ChatGPT 的聊天记录" in zh and "LM Studio 的 2 个文件没有读取" in zh, zh
    assert "lmstudio/1735689600000.conversation.json" in zh and "“LM Studio（尽力而为）”" in zh, zh
    assert "--format lmstudio" in zh, zh
    assert "only ChatGPT's chats were read" in en and "2 files of LM Studio were not" in en, en
    assert "“LM Studio (best effort)”" in en and "--format lmstudio" in en, en

    other = read_history(packed, "lmstudio")  # the format picked: the other app's chats
    assert other.source == "lmstudio" and sorted(c.title for c in other.conversations) == sorted(lm_titles)
    assert other.left_unread == {"chatgpt": ["chatgpt/conversations.json"]}
    assert any("--format chatgpt" in zh and "chatgpt/conversations.json" in zh for zh, _en in other.notes), other.notes
    assert other.digest != history.digest  # (another import: the first one's ledger does not skip it)

    alone = read_history(fixture(LM_STUDIO))  # one app's files: nothing to say
    assert alone.left_unread == {} and not any("没有读取" in zh for zh, _en in alone.notes)
