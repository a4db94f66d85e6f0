"""The writer's CRUD tools against real stores, invoked the way ToolNode invokes them."""

from __future__ import annotations

import itertools

import pytest

from memory_stores import backend_store_fixture, open_store
from sonetto_desktop.memory import MemoryChange
from sonetto_desktop.memory.writer.tools import TOOL_NAMES, ToolContext, find_secret, make_memory_tools

_ids = itertools.count()


mm = backend_store_fixture()


def call(tools, name, **args):
    by_name = {t.name: t for t in tools}
    return by_name[name].invoke({"type": "tool_call", "id": f"call_{next(_ids)}", "name": name, "args": args})


def test_tool_names_args_and_chinese_docstrings(mm):
    tools = make_memory_tools(mm)
    assert tuple(t.name for t in tools) == TOOL_NAMES
    args = {t.name: list(t.args) for t in tools}
    assert args == {
        "create_memory": ["content", "section"],
        "read_memories": [],
        "update_memory": ["id", "content", "reason"],
        "delete_memory": ["id", "reason"],
        "merge_memories": ["id1", "id2", "content", "section", "reason"],
        "hit_memory": ["id"],
    }
    create = tools[0]
    for section in ("身份", "音乐", "品味", "地点与路径", "瞬间", "时效待办"):
        assert section in create.description
    assert "规则 16" in create.description  # when a new section may be opened: the prompt's rule 16
    assert all("记忆" in t.description for t in tools)


def test_factory_binds_its_own_store(tmp_path):
    a, b = open_store("yaml", tmp_path / "a"), open_store("yaml", tmp_path / "b")
    call(make_memory_tools(a), "create_memory", content="用户喜欢猫", section="品味")
    assert a.count() == 1 and b.count() == 0


def test_create_update_delete_record_agent_history(mm):
    tools = make_memory_tools(mm)
    msg = call(tools, "create_memory", content="用户在上海工作", section="身份")
    assert msg.status == "success"
    (mid,) = msg.artifact["ids"]
    assert mid in msg.content
    assert mm.get(mid).description == "用户在上海工作"

    msg = call(tools, "update_memory", id=mid, content="用户在杭州工作", reason="用户说上个月换到了杭州")
    assert msg.status == "success" and msg.artifact["kind"] == "update"
    item = mm.get(mid)
    assert item.description == "用户在杭州工作"
    assert item.hit == 1  # update also counts a hit
    last = item.history[-1]
    assert (last["actor"], last["reason"]) == ("agent", "用户说上个月换到了杭州")
    assert last["old_description"] == "用户在上海工作"

    msg = call(tools, "delete_memory", id=mid, reason="用户要求忘掉")
    assert msg.status == "success" and msg.artifact == {"kind": "delete", "ids": (mid,)}
    trash = mm.list_trash()
    assert [(t["id"], t["actor"], t["reason"]) for t in trash] == [(mid, "agent", "用户要求忘掉")]


def test_merge_and_hit(mm):
    tools = make_memory_tools(mm)
    a = mm.add("用户喜欢洛天依", "音乐")
    b = mm.add("用户常听洛天依的歌", "品味")
    msg = call(tools, "merge_memories", id1=a, id2=b, content="用户喜欢洛天依，常听她的歌", section="音乐",
               reason="两条都在说洛天依")
    assert msg.status == "success" and msg.artifact["ids"] == (a, b)
    assert list(mm.all_items()) == [a]
    merged = mm.get(a)
    assert merged.history[-1]["actor"] == "agent" and merged.history[-1]["reason"] == "两条都在说洛天依"
    assert call(tools, "hit_memory", id=a).status == "success"
    assert call(tools, "hit_memory", id=a).artifact["kind"] == "hit"
    assert mm.get(a).hit == 2


def test_read_memories_one_line_per_memory(mm):
    tools = make_memory_tools(mm)
    assert "空" in call(tools, "read_memories").content
    a = mm.add("用户喜欢猫", "品味")
    b = mm.add("用户12月4日（周五）有离散数学考试", "时效待办")
    mm.hit(a)
    text = call(tools, "read_memories").content
    lines = [line for line in text.splitlines() if line.startswith((a, b))]
    assert len(lines) == 2
    line_a = next(line for line in lines if line.startswith(a))
    day = mm.get(a).latest_update_time[:10]
    assert text.splitlines()[text.splitlines().index(line_a) - 1] == "【品味】"
    assert line_a.split(" ")[0] == a and day.endswith(line_a.split(" ")[1])
    assert line_a.split(" ", 2)[2] == "\"用户喜欢猫\""


@pytest.mark.parametrize(
    "name,args,expect",
    [
        ("update_memory", {"id": "nope1234", "content": "用户喜欢狗", "reason": "改了"}, "read_memories"),
        ("delete_memory", {"id": "nope1234", "reason": "过期"}, "nope1234"),
        ("hit_memory", {"id": "nope1234"}, "找不到"),
        ("create_memory", {"content": "   ", "section": "品味"}, "content"),
        ("create_memory", {"content": "用户喜欢猫", "section": ""}, "section"),
        ("create_memory", {"content": "用户的银行卡密码是 834512", "section": "身份"}, "拒绝"),
        ("create_memory", {"content": "用户的身份证号是110101199003071234", "section": "身份"}, "身份证"),
        ("create_memory", {"content": "用户的 OpenAI key 是 sk-abcdefghijklmnopqrstuvwx", "section": "身份"}, "拒绝"),
        ("create_memory", {"content": "用户" + "很" * 600, "section": "品味"}, "太长"),
        ("create_memory", {"content": "用户喜欢猫"}, "section"),  # missing argument
    ],
)
def test_bad_calls_come_back_as_tool_errors(mm, name, args, expect):
    tools = make_memory_tools(mm)
    msg = call(tools, name, **args)
    assert msg.status == "error"
    assert expect in msg.content
    assert mm.count() == 0 and mm.list_trash() == []


def test_merge_with_itself_or_unknown_is_an_error(mm):
    tools = make_memory_tools(mm)
    a = mm.add("用户喜欢猫", "品味")
    assert call(tools, "merge_memories", id1=a, id2=a, content="x", section="品味", reason="r").status == "error"
    msg = call(tools, "merge_memories", id1=a, id2="zzzz0000", content="用户喜欢猫", section="品味", reason="r")
    assert msg.status == "error" and "zzzz0000" in msg.content
    assert [e["action"] for e in mm.get(a).history] == ["create"]


@pytest.mark.parametrize("text", [
    "用户的生日是1999年3月7日",
    "用户的手机尾号是 1234",
    "用户12月4日下午3点有考试",
    "用户有一个常用的工作邮箱账号",
    "用户觉得记密码是件很麻烦的事。",  # talks about passwords, gives none away
    "用户的密码总是记不住，打算用密码管理器",
    "用户忘了验证码是什么意思",
    "用户的学号是 2023011512345678",  # 16 digits, named a student number
    "用户的学号是2023011512345675",  # ... even when it happens to pass the Luhn check
    "用户的快递单号是 7731 2345 6789 0123",
    "用户的 QQ 号是 1234567890123456",
    "用户的订单号 6222021234567890 还没发货",
    "用户在一个 16 位编号 1000200030004000 的项目里",
])
def test_secret_detector_spares_ordinary_facts(text):
    assert find_secret(text) is None


@pytest.mark.parametrize("text,kind", [
    ("用户家 WiFi 密码是 abc12345", "密码"),
    ("用户的银行卡密码是 834512", "密码"),
    ("用户邮箱的密码：Sunset2026!", "密码"),
    ("卡号 6222 0212 3456 7890 123", "银行卡号"),  # named a card: refused whatever its check digit
    ("用户常用的那张是 4111 1111 1111 1111", "银行卡号"),  # unnamed, but a valid card number (Luhn)
    ("用户的信用卡 5500-0000-0000-0004", "银行卡号"),
    ("用户的身份证号是110101199003071234", "身份证号"),
    ("用户证件号码 33010219980512345X", "身份证号"),
    ("用户的 OpenAI key 是 sk-abcdefghijklmnopqrstuvwx", "密钥"),
])
def test_secret_detector_refuses_secrets(text, kind):
    assert find_secret(text) == kind


def test_luhn_decides_unnamed_16_digit_numbers():
    from sonetto_desktop.memory.writer.secret_filter import luhn_ok

    assert luhn_ok("4111111111111111") and luhn_ok("2023011512345675")
    assert not luhn_ok("2023011512345678")
    assert find_secret("用户记下了 2023011512345678") is None  # fails Luhn, no card word: not a card
    assert find_secret("用户记下了 4111111111111111") == "银行卡号"


def test_tool_writes_carry_the_turn_on_the_change_channel(mm):
    seen: list[MemoryChange] = []
    mm.subscribe(seen.append)
    tools = make_memory_tools(mm, ToolContext("s1", "t1", excerpt="我喜欢猫，家里养了两只"))
    mid = call(tools, "create_memory", content="用户喜欢猫", section="品味").artifact["ids"][0]
    call(tools, "hit_memory", id="missing")
    call(tools, "hit_memory", id=mid)
    assert [(c.kind, c.ids, c.actor, c.session_id, c.turn_id) for c in seen] == [
        ("add", (mid,), "agent", "s1", "t1"),
        ("hit", (mid,), "agent", "s1", "t1"),
    ]
    assert mm.get(mid).history[0]["excerpt"] == "我喜欢猫，家里养了两只"


def test_creating_an_exact_duplicate_counts_a_hit_instead(mm):
    tools = make_memory_tools(mm)
    first = call(tools, "create_memory", content="用户喜欢猫", section="品味").artifact["ids"][0]
    again = call(tools, "create_memory", content="用户 喜欢猫。", section="身份")
    assert again.status == "success" and again.artifact == {"kind": "hit", "ids": (first,)}
    assert first in again.content and "未重复创建" in again.content
    assert list(mm.all_items()) == [first] and mm.get(first).hit == 1
