"""What the memory writer does for imported history (issue 31): a record of each written turn kept
before the turn leaves its journal (``on_written``: retried, never lost, when it fails), no use
counted for imported turns, the past-conversation prompt, and secrets hidden before a model sees
them (``redact_secrets``)."""

from __future__ import annotations

from datetime import datetime

from history_helpers import writer_prompt
from llm_server import tool_calls
from memory_stores import open_store
from sonetto_desktop.memory.operations import MemoryOperations
from sonetto_desktop.memory.review import ReviewInbox
from sonetto_desktop.memory.writer.pipeline import MemoryWriter
from sonetto_desktop.memory.writer.secret_filter import find_secret, redact_secrets
from waiting import until

TURN = [{"role": "user", "content": "（21:07）下周三我要考日语 N3"}, {"role": "assistant", "content": "（21:07）加油"}]
PAST = {"actor": "import:jsonl", "as_of": datetime(2023, 3, 14, 21, 7), "origin": "JSON Lines「京都旅行」· 2023-03-14"}


async def _write_one(ops: MemoryOperations, llm, journal, turn, turn_id: str | None = None, **options) -> None:
    """One turn through a writer of its own, to the end."""
    writer = MemoryWriter(ops, llm, journal)
    writer.start()
    await writer.send_history(turn, None, turn_id, **options)
    await until(lambda: writer.pending == 0 and not writer.busy, what="the turn")
    await writer.stop(5)


async def test_a_turn_stays_journaled_until_its_record_is_kept(llm_server, make_llm, tmp_path):
    store = open_store("yaml", tmp_path)
    llm_server.responder = lambda body: "好的" if any(m["role"] == "tool" for m in body["messages"]) else tool_calls(
        [("create_memory", {"content": "用户在2023年3月22日考日语 N3", "section": "时效待办"})])
    kept: list[str] = []

    def record(entry) -> None:
        if not kept:
            kept.append("failed once")
            raise OSError(28, "No space left on device")  # the ledger's disk is full: the turn must stay
        kept.append(entry.turn_id)

    writer = MemoryWriter(MemoryOperations(store), make_llm(), tmp_path / "journal", backoff=(0.05,),
                          on_written=record)
    writer.start()
    await writer.send_history(TURN, None, "imp-0badc0de-000000", **PAST)
    await until(lambda: len(kept) == 2, what="the record kept on the second try")
    await until(lambda: writer.pending == 0, what="the turn to leave the journal")
    await writer.stop(5)
    assert kept == ["failed once", "imp-0badc0de-000000"]
    assert [i.description for i in store.all_items().values()] == ["用户在2023年3月22日考日语 N3"]  # written once
    first_calls = [b for b in llm_server.requests if not any(m["role"] == "tool" for m in b["messages"])]
    assert len(first_calls) == 1  # the retry was answered from the journal, the model not asked again
    assert not list((tmp_path / "journal" / "pending").glob("*.json"))
    store.close()


async def test_imported_turns_count_no_uses_and_read_as_the_past(llm_server, make_llm, tmp_path):
    store = open_store("yaml", tmp_path)
    inbox = ReviewInbox(tmp_path / "review_inbox.json")  # review mode off
    ops = MemoryOperations(store, review=inbox)
    known = ops.add("用户在学日语", "身份").ids[0]
    llm_server.responder = lambda body: "好的" if any(m["role"] == "tool" for m in body["messages"]) else tool_calls(
        [("hit_memory", {"id": known}), ("update_memory", {"id": known, "content": "用户在学日语，准备考 N3",
                                                           "reason": "考试"})])
    await _write_one(ops, make_llm(), tmp_path / "journal", TURN, "imp-0badc0de-000000", **PAST)
    item = ops.get(known)
    assert item.description == "用户在学日语" and item.hit == 0  # the person's memory: the change waits for them
    (held,) = inbox.pending()
    assert (held.kind, held.memory_ids, held.description, held.actor) == (
        "update", (known,), "用户在学日语，准备考 N3", "import:jsonl")
    prompt = writer_prompt(llm_server.requests[0])
    assert "## 过去的一段对话（JSON Lines「京都旅行」· 2023-03-14）" in prompt
    assert "写进记忆的日期一律写出年份" in prompt and "> 助手（jsonl）：（21:07）加油" in prompt and "Sonetto：" not in prompt
    assert "2023年3月14日 星期二 21:07" in prompt
    store.close()


async def test_a_chat_turn_still_counts_uses_and_speaks_of_sonetto(llm_server, make_llm, tmp_path):
    store = open_store("yaml", tmp_path)
    ops = MemoryOperations(store)
    known = ops.add("用户在学日语", "身份").ids[0]
    llm_server.responder = lambda body: "好的" if any(m["role"] == "tool" for m in body["messages"]) else tool_calls(
        [("hit_memory", {"id": known})])
    await _write_one(ops, make_llm(), tmp_path / "journal",
                     [{"role": "user", "content": "日语好难"}, {"role": "assistant", "content": "慢慢来"}])
    assert ops.get(known).hit == 1
    prompt = writer_prompt(llm_server.requests[0])
    assert "Sonetto：慢慢来" in prompt and "过去的一段对话" not in prompt
    store.close()


def test_redact_secrets_hides_what_the_filter_would_refuse():
    cases = {
        "我的密码是 sunset2026，别告诉别人": "我的密码是 ［已隐去的密码］，别告诉别人",  # the words around it stay
        "用这个 key: sk-abcdefghijklmnopqrstuvwx 调接口": "用这个 key: ［已隐去的密钥］ 调接口",
        "My wifi password is hunter2-Secret!": "My wifi password is ［已隐去的密码］!",
        "卡号 6222 0212 3456 7890 123 的卡丢了": "卡号 ［已隐去的银行卡号］ 的卡丢了",
        "身份证 110101199003071234 要续期": "身份证 ［已隐去的身份证号］ 要续期",
        "-----BEGIN RSA PRIVATE KEY-----\nMIIabc\nxyz\n-----END RSA PRIVATE KEY-----\n谢谢": "［已隐去的私钥］\n谢谢",
    }
    for text, expected in cases.items():
        hidden, count = redact_secrets(text)
        assert (hidden, count) == (expected, 1) and find_secret(text) and not find_secret(hidden)
    for ordinary in ("用户觉得记密码很麻烦", "学号 20231234567890123", "订单 6222021234567890123 到了"):
        assert redact_secrets(ordinary) == (ordinary, 0)
