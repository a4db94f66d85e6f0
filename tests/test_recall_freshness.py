"""Is a memory just written findable by the next query, and never recalled as it was? (trust)

Real stores just above the size where the offline index diffs itself against the store in the
background (``index_lifecycle.SYNC_BUILD_MAX``, 2,000 memories), real writes (the wall's bulk actions
and undo, another program, another Sonetto process, the background writer through the scripted
server) and the real recall: the next query must see every write made before it, deleted memories
gone, edited ones under their new words only.
"""

from __future__ import annotations

import json
import sqlite3
import threading
from datetime import datetime, timedelta

import pytest

from helpers import ids
from ltm_helpers import FAST, make_ltm, script_create, until
from memory_stores import open_store
from sonetto_desktop.aio import run_blocking
from sonetto_desktop.memory import MemoryItem
from sonetto_desktop.memory.operations import MemoryOperations
from sonetto_desktop.memory.retrieval import index_lifecycle
from sonetto_desktop.memory.retrieval import mechanical as mechanical_module
from sonetto_desktop.memory.retrieval.follow import FOLLOW_FROM
from sonetto_desktop.memory.retrieval.recall import MemoryRecall
from waiting import wait_for

NOW = datetime(2026, 12, 2, 12, 0)
#: Just above the size from which a diff of the whole store runs in the background.
BIG = index_lifecycle.SYNC_BUILD_MAX + 100


def big_bank(n: int = BIG) -> dict[str, MemoryItem]:
    stamp = (NOW - timedelta(days=30)).isoformat()
    places = ["图书馆", "菜市场", "健身房", "电影院", "公园", "地铁站", "书店", "面包店"]
    return {f"f{i:05d}": MemoryItem(f"小夏第{i}次路过{places[i % len(places)]}，买了{i % 97}个东西。", "瞬间",
                                    latest_update_time=stamp) for i in range(n)}


@pytest.fixture(params=["sqlite", "yaml"])
def kind(request):
    return request.param


@pytest.fixture
def big(kind, tmp_path):
    """A store of ``BIG`` memories with its offline recall built (a saved index beside it)."""
    mm = open_store(kind, tmp_path)
    mm.import_items(big_bank())
    recall = MemoryRecall(mm, clock=lambda: NOW)
    recall.warm_up()
    yield mm, recall
    recall.close()
    mm.close()


def mechanical(recall: MemoryRecall, query: str) -> list[dict]:
    return recall.retrieve(query, "mechanical")


def test_each_edit_on_the_wall_is_seen_by_the_next_query(big):
    """Edit, merge, delete, restore and revert of one card: the next query (offline index and the
    hybrid listing) finds the memory under its new words only, and never a deleted one."""
    mm, recall = big
    ops = MemoryOperations(mm)

    def texts(query: str) -> dict[str, str]:
        return {doc["id"]: doc["description"] for doc in mechanical(recall, query)}

    def listed(mid: str) -> str | None:
        entry = recall.listing.parts()[0].by_id.get(mid)
        return entry[2] if entry else None

    tea = ops.add("小夏最爱的饮料是冰美式咖啡。", "品味").ids[0]
    assert texts("冰美式咖啡")[tea] == listed(tea) == "小夏最爱的饮料是冰美式咖啡。"
    ops.update(tea, description="小夏最爱的饮料是桂花乌龙奶茶。")
    assert texts("桂花乌龙奶茶")[tea] == listed(tea) == "小夏最爱的饮料是桂花乌龙奶茶。"
    assert "冰美式" not in texts("冰美式咖啡").get(tea, "")  # (recalled for 饮料 maybe; never as it was)
    ops.revert(tea, 0)
    assert texts("冰美式咖啡")[tea] == listed(tea) == "小夏最爱的饮料是冰美式咖啡。"
    assert "桂花" not in texts("桂花乌龙奶茶").get(tea, "")
    swim = ops.add("小夏周三晚上去游泳馆游泳。", "习惯").ids[0]
    twin = ops.add("小夏每周三晚上游泳。", "习惯").ids[0]
    ops.merge(swim, twin, "小夏每周三晚上去游泳馆游蛙泳。", "习惯")
    found = texts("游泳馆蛙泳")
    assert found[swim] == listed(swim) == "小夏每周三晚上去游泳馆游蛙泳。" and twin not in found and listed(twin) is None
    ops.delete(swim)
    assert swim not in texts("游泳馆蛙泳") and listed(swim) is None
    ops.restore(swim)
    assert texts("游泳馆蛙泳")[swim] == listed(swim) == "小夏每周三晚上去游泳馆游蛙泳。"


def test_a_bulk_delete_of_thousands_is_not_recalled_by_the_next_message_nor_its_undo_missed(big):
    """The wall's "delete selected" of more memories than the index applies one by one: the next
    query started the index's diff of the whole store in the background and answered from before
    it, every deleted memory still recalled (with its text); after the undo the restored ones were
    missed the same way."""
    mm, recall = big
    ops = MemoryOperations(mm)
    camping = [mm.add(f"小夏第{i}次去露营地烧烤，带了{i}号帐篷。", "瞬间") for i in range(3)]
    assert set(camping) <= set(ids(mechanical(recall, "露营地烧烤帐篷")))
    every = list(mm.all_items())
    with mm.group():  # (one transaction: the same changes, published once it commits; quicker on YAML)
        result = ops.delete_many(every)
    assert mm.count() == 0 and len(result.changes) == BIG + 3
    assert mechanical(recall, "露营地烧烤帐篷") == []
    assert mechanical(recall, "小夏路过图书馆") == []
    with mm.group():
        ops.undo_turn(result.turn_id)
    assert set(camping) <= set(ids(mechanical(recall, "露营地烧烤帐篷")))


def test_a_bulk_delete_of_thousands_is_applied_without_reading_the_whole_store(big, monkeypatch):
    """Deleted memories cost the index nothing to take out: a bulk delete of more than it applies one
    by one read the whole store and re-diffed it (~2 s at 100,000 memories, which the next query
    waits for) as if an unknown program had written it."""
    mm, recall = big
    reads = []
    real = mm.columns_of_all
    monkeypatch.setattr(mm, "columns_of_all", lambda names: (reads.append(names), real(names))[1])
    ops = MemoryOperations(mm)
    with mm.group():
        result = ops.delete_many([mid for mid in mm.all_items() if mid < "f02050"])
    assert len(result.changes) == 2050 > mechanical_module.INLINE_CHANGES_MAX
    assert ids(mechanical(recall, "小夏路过图书馆")) and reads == []
    assert all(doc["id"] >= "f02050" for doc in recall.mechanical.candidates("小夏路过图书馆", 200))


def test_an_import_is_taken_into_the_index_and_listing_before_the_next_message(kind, tmp_path, monkeypatch):
    """3,000 memories imported while the app ran: the person's next message tokenized every one of
    them into the offline index and read them into the listing before its recall could start (seconds
    at a busy machine's load, with "思考中…" shown: docs/benchmarks.md, "The first recall after an
    import"). Now the import is taken in in the background as it arrives: no message is needed for the
    index to hold it, and the next message's recall reads nothing of it from the store."""
    mm = open_store(kind, tmp_path)
    mm.import_items(big_bank(20))
    recall = MemoryRecall(mm, clock=lambda: NOW)
    try:
        recall.warm_up(listing=True)
        assert recall.mechanical.stats()["memories"] == len(recall.listing) == 20
        imported = {f"i{i:04d}": MemoryItem(f"小夏导入的第{i}段聊天里说过喜欢{i % 7}号风筝。", "瞬间",
                                            latest_update_time=NOW.isoformat()) for i in range(2 * FOLLOW_FROM)}
        mm.import_items(imported)
        wait_for(lambda: recall.mechanical.stats()["memories"] == 20 + len(imported),
                 what="the index to take the import in with no query")
        wait_for(lambda: recall.catch_up.runs >= 1 and not recall.catch_up.running, what="the catch-up to end")
        on_this_thread: list[str] = []  # store reads made by the message's own recall
        for name in ("get", "columns_of_all"):
            real = getattr(mm, name)

            def spy(*args, _real=real, _name=name, **kwargs):
                if threading.current_thread() is threading.main_thread():
                    on_this_thread.append(_name)
                return _real(*args, **kwargs)

            monkeypatch.setattr(mm, name, spy)
        own, _ = recall.listing.parts()
        assert set(imported) <= set(own.by_id)
        assert set(ids(mechanical(recall, "风筝"))) & set(imported)
        assert on_this_thread == []
    finally:
        recall.close()
        mm.close()


def test_a_few_writes_start_no_catch_up_and_wait_for_the_next_query(kind, tmp_path):
    """A reply's few writes cost the next query ~0.1 ms each: no thread is started for them."""
    mm = open_store(kind, tmp_path)
    recall = MemoryRecall(mm, clock=lambda: NOW)
    try:
        recall.warm_up()
        for i in range(3):
            mm.add(f"小夏第{i}次提到风筝。", "瞬间")
        assert recall.catch_up.runs == 0 and not recall.catch_up.running
        assert len(ids(mechanical(recall, "风筝"))) == 3
    finally:
        recall.close()
        mm.close()


def test_an_undo_of_a_bulk_delete_in_a_large_bank_is_applied_one_by_one(tmp_path, monkeypatch):
    """Thousands of changes named one by one are applied so while they are fewer than a tenth of the
    bank: the diff of the whole store it took instead cost 3.6 s at 100,000 memories for the undo of a
    2,500-memory delete (0.6 s one by one), and the next query waits for it. (A bank of 400 and 20
    changes stand for 100,000 and 2,000.)"""
    monkeypatch.setattr(mechanical_module, "INLINE_CHANGES_MAX", 20)
    monkeypatch.setattr(index_lifecycle, "SYNC_BUILD_MAX", 100)
    mm = open_store("sqlite", tmp_path)
    mm.import_items(big_bank(400))
    recall = MemoryRecall(mm, clock=lambda: NOW)
    recall.warm_up()
    reads = []
    real = mm.columns_of_all
    monkeypatch.setattr(mm, "columns_of_all", lambda names: (reads.append(names), real(names))[1])
    ops = MemoryOperations(mm)
    camping = [mm.add(f"小夏第{i}次去露营地烧烤，带了{i}号帐篷。", "瞬间") for i in range(30)]
    result = ops.delete_many(camping)
    assert mechanical(recall, "露营地烧烤帐篷") == []
    ops.undo_turn(result.turn_id)
    assert len(recall.mechanical.candidates("露营地烧烤帐篷", 30)) == 30
    assert set(ids(recall.mechanical.candidates("露营地烧烤帐篷", 30))) == set(camping) and reads == []
    recall.close()
    mm.close()


def test_another_programs_write_to_a_big_store_is_seen_by_the_next_query(tmp_path):
    """A write the store learns of only as "something changed" (another program than Sonetto wrote
    the SQLite file): the index diffs itself against the store in the background, and the query
    right after answered from before it: the edited memory under its old text, the deleted one."""
    mm = open_store("sqlite", tmp_path)
    mm.import_items(big_bank())
    cat = mm.add("小夏的猫叫汤圆，是一只橘猫。", "身份")
    bike = mm.add("小夏的自行车是一辆蓝色的捷安特。", "身份")
    recall = MemoryRecall(mm, clock=lambda: NOW)
    recall.warm_up()
    assert ids(mechanical(recall, "汤圆橘猫"))[0] == cat
    mm.poll_external()  # (the watcher's baseline: this instance's own writes)
    with sqlite3.connect(mm.path) as conn:  # a program that keeps no change log
        conn.execute("UPDATE memories SET description = ? WHERE id = ?", ("小夏的猫叫年糕，是一只狸花猫。", cat))
        conn.execute("DELETE FROM memories WHERE id = ?", (bike,))
    conn.close()
    assert [c.kind for c in mm.poll_external()] == ["reload"]
    found = mechanical(recall, "年糕狸花猫")
    assert found and found[0]["id"] == cat and found[0]["description"] == "小夏的猫叫年糕，是一只狸花猫。"
    assert all("汤圆" not in doc["description"] for doc in mechanical(recall, "汤圆橘猫"))
    assert bike not in ids(mechanical(recall, "蓝色捷安特自行车"))
    recall.close()
    mm.close()


def _closed_with_cli_writes(kind, tmp_path, imported: int = 0):
    """A store of more than ``SYNC_VERIFY_MAX`` memories with its index saved, then changed by the
    command line while the app was closed (and ``imported`` older memories imported by it): (store, the
    edited memory, the deleted one, the added one)."""
    from sonetto_desktop.memory.retrieval.mechanical import MechanicalRetriever

    mm = open_store(kind, tmp_path)
    mm.import_items(big_bank(index_lifecycle.SYNC_VERIFY_MAX + 100))
    cat = mm.add("小夏的猫叫汤圆，是一只橘猫。", "身份")
    bike = mm.add("小夏的自行车是一辆蓝色的捷安特。", "身份")
    r = MechanicalRetriever(mm, now=lambda: NOW)
    r.warm_up()
    r.close()  # saved beside the store
    mm.close()
    other = open_store(kind, tmp_path)  # the command line, while the app is closed
    other.update(cat, "改名", new_description="小夏的猫叫年糕，是一只狸花猫。", actor="cli")
    other.delete(bike, "卖了", actor="cli")
    if imported:
        other.import_items({f"g{mid[1:]}": MemoryItem(item.description.replace("小夏", "小秋"), item.theme,
                                                      latest_update_time=item.latest_update_time)
                            for mid, item in big_bank(imported).items()})
    new = other.add("小夏报了一个陶艺班，每周六上课。", "学习", actor="cli")
    other.close()
    return open_store(kind, tmp_path), cat, bike, new


def test_what_another_process_wrote_while_the_app_was_closed_is_found_by_the_first_query(kind, tmp_path,
                                                                                       monkeypatch):
    """At the next start the saved index is verified against the store in the background; the first
    query answered from the index as it was saved: the command line's new memory missed, the edited one
    under its old text, the deleted one recalled. It waits for the verification now."""
    import threading

    from sonetto_desktop.memory.retrieval import tokenize as tok
    from sonetto_desktop.memory.retrieval.mechanical import MechanicalRetriever

    mm, cat, bike, new = _closed_with_cli_writes(kind, tmp_path)
    real, release = tok.batch_keys, threading.Event()
    monkeypatch.setattr(tok, "batch_keys", lambda texts: (release.wait(30), real(texts))[1])  # a slow machine
    r = MechanicalRetriever(mm, now=lambda: NOW)
    first: list = []
    asker = threading.Thread(target=lambda: first.append(ids(r.retrieve("陶艺班"))))
    asker.start()
    wait_for(lambda: r._life.started and r._life.planned.is_set(), what="the verification's first step")
    asker.join(2)  # (an answer that does not wait for the verification comes now)
    release.set()
    asker.join(30)
    assert first and first[0][:1] == [new]
    assert ids(r.retrieve("年糕狸花猫"))[0] == cat
    assert ids(r.retrieve("年糕狸花猫"))[0] == cat
    assert all("汤圆" not in doc["description"] for doc in r.retrieve("汤圆橘猫"))
    assert bike not in ids(r.retrieve("蓝色捷安特自行车"))
    r.close()
    mm.close()


def test_a_verification_longer_than_a_query_waits_never_shows_a_memory_as_it_was(kind, tmp_path, monkeypatch):
    """A verification that takes longer than a query waits (``CATCH_UP_WAIT``; here it is stuck): the
    query answers from what the index holds, without the memories it knows are gone or changed."""
    from sonetto_desktop.memory.retrieval import tokenize as tok
    from sonetto_desktop.memory.retrieval.mechanical import MechanicalRetriever

    mm, cat, bike, new = _closed_with_cli_writes(kind, tmp_path)
    monkeypatch.setattr(mechanical_module, "CATCH_UP_WAIT", 0.0)
    real, release = tok.batch_keys, __import__("threading").Event()
    monkeypatch.setattr(tok, "batch_keys", lambda texts: (release.wait(30), real(texts))[1])  # a slow machine
    r = MechanicalRetriever(mm, now=lambda: NOW)
    try:
        assert all("汤圆" not in doc["description"] for doc in r.retrieve("汤圆橘猫"))
        assert bike not in ids(r.retrieve("蓝色捷安特自行车"))
    finally:
        release.set()
    r.warm_up()
    assert ids(r.retrieve("年糕狸花猫"))[0] == cat and ids(r.retrieve("陶艺班"))[0] == new
    r.close()
    mm.close()


def stuck_diff(monkeypatch, after: int = 0) -> tuple[threading.Event, list[int]]:
    """The diff's own tokenizing (on its thread) stuck after ``after`` batches until the event is set;
    the list counts the batches it began."""
    from sonetto_desktop.memory.retrieval import tokenize as tok

    real, release, batches = tok.batch_keys, threading.Event(), []

    def batch_keys(texts):
        if threading.current_thread().name == "recall-index":
            batches.append(len(texts))
            if len(batches) > after:
                release.wait(60)
        return real(texts)

    monkeypatch.setattr(tok, "batch_keys", batch_keys)
    return release, batches


def test_a_query_during_a_diff_that_does_not_end_answers_at_once_with_every_write(kind, tmp_path, monkeypatch):
    """A diff of the whole store above 2,000 memories (here: a verification at start) held the reply up to
    ``CATCH_UP_WAIT`` (10 s), then answered without what it had not reached. Now the query waits only for
    its first step (what is gone or changed taken out) and takes in itself what the diff has still to
    install and bears on it (its words, and the newest): here the diff never ends (it installed its first
    batch, the newest, but has not made it searchable; its tokenizing of the next is stuck), and the answers
    have the command line's new memory, the edited one under its new text only, the deleted one gone,
    while the diff is still running."""
    from sonetto_desktop.memory.retrieval.mechanical import MechanicalRetriever

    mm, cat, bike, new = _closed_with_cli_writes(kind, tmp_path, imported=index_lifecycle.BATCH * 2)
    release, batches = stuck_diff(monkeypatch, after=1)
    old = (NOW - timedelta(days=60)).isoformat()  # older than the diff's first batch: found by their words
    mm.import_items({"ukulele": MemoryItem("小夏在学尤克里里，已经会弹三首歌了。", "学习", latest_update_time=old),
                     "maps": MemoryItem("Xiao Xia studied hiking maps all weekend.", "学习", latest_update_time=old),
                     "teeth": MemoryItem("Xiao Xia had two wisdom teeth pulled.", "健康", latest_update_time=old)})
    mm.close()
    mm = open_store(kind, tmp_path)  # (imported by another program too: the diff finds them)
    r = MechanicalRetriever(mm, now=lambda: NOW)
    try:
        assert ids(r.retrieve("陶艺班"))[:1] == [new]
        assert ids(r.retrieve("尤克里里"))[:1] == ["ukulele"]
        assert ids(r.retrieve("study the map"))[:1] == ["maps"]
        assert ids(r.retrieve("my tooth"))[:1] == ["teeth"]
        assert ids(r.retrieve("年糕狸花猫"))[:1] == [cat]
        assert all("汤圆" not in doc["description"] for doc in r.retrieve("汤圆橘猫"))
        assert bike not in ids(r.retrieve("蓝色捷安特自行车"))
        assert new in ids(r.retrieve("最近怎么样"))  # a broad question: the newest memories
        assert r._life.busy() and not release.is_set() and len(batches) == 2  # answered while the diff still runs
    finally:
        release.set()
    r.warm_up()
    assert ids(r.retrieve("陶艺班"))[:1] == [new] and ids(r.retrieve("年糕狸花猫"))[:1] == [cat]
    r.close()
    mm.close()


def test_a_query_taking_in_during_a_diff_never_installs_a_text_a_later_diff_replaced(tmp_path, monkeypatch):
    """A query during a catch-up diff tokenizes what it takes in outside the lock. If meanwhile that diff
    ended, the memory was edited and another diff (a reload) installed the new text, the query's copy is
    the memory as the first diff read it: it must not be installed over the new text (the second diff
    starts its own record of the changes made since it read the store, the first one's edit is not in it)."""
    from sonetto_desktop.memory.retrieval import tokenize as tok
    from sonetto_desktop.memory.retrieval.mechanical import MechanicalRetriever

    mm, _, _, new = _closed_with_cli_writes("sqlite", tmp_path)
    release, _ = stuck_diff(monkeypatch)  # the verification's own tokenizing, stuck
    diff_keys = tok.batch_keys
    entered, hold = threading.Event(), threading.Event()

    def batch_keys(texts):  # the asker's own tokenizing (what it takes in) waits until told
        if threading.current_thread().name == "asker" and not entered.is_set():
            entered.set()
            hold.wait(60)
        return diff_keys(texts)

    monkeypatch.setattr(tok, "batch_keys", batch_keys)
    r = MechanicalRetriever(mm, now=lambda: NOW)
    asker = threading.Thread(target=lambda: r.retrieve("陶艺班"), name="asker")
    try:
        asker.start()
        assert entered.wait(30)  # taking in the diff's memories, the copies read before the edit below
        worker = r._life.worker
        release.set()
        worker.join(60)
        assert not worker.is_alive()
        mm.update(new, "改了", new_description="小夏报了一个木工班，每周日上课。", actor="cli")
        r.invalidate()  # (a reload: another diff of the whole store, which installs the new text)
        r.catch_up()
        assert [doc["description"] for doc in r.retrieve("木工班") if doc["id"] == new] == ["小夏报了一个木工班，每周日上课。"]
        hold.set()
        asker.join(30)
        assert not asker.is_alive()
        assert [doc["description"] for doc in r.retrieve("木工班") if doc["id"] == new] == ["小夏报了一个木工班，每周日上课。"]
        assert all("陶艺" not in doc["description"] for doc in r.retrieve("陶艺班"))
    finally:
        release.set()
        hold.set()
        r.close()
        mm.close()


def test_a_use_counted_after_a_query_took_a_memory_in_is_kept_when_the_diff_reaches_it(tmp_path, monkeypatch):
    """A query during a catch-up diff takes in a memory the diff has still to install; the reply uses it
    (one more use, counted in the index at once). When the diff reaches it, the memory is installed already
    with the same text: the diff's copy, read before the use, must not put its count back."""
    from sonetto_desktop.memory.retrieval.mechanical import MechanicalRetriever

    mm, _, _, new = _closed_with_cli_writes("sqlite", tmp_path)
    release, _ = stuck_diff(monkeypatch)
    r = MechanicalRetriever(mm, now=lambda: NOW)
    try:
        assert [doc["hit"] for doc in r.retrieve("陶艺班") if doc["id"] == new] == [0]  # taken in, the diff stuck
        assert mm.hit(new, actor="agent") == 1
        assert [doc["hit"] for doc in r.retrieve("陶艺班") if doc["id"] == new] == [1]
        assert r._life.busy()
    finally:
        release.set()
    r.warm_up()
    assert not r._life.busy()
    assert [doc["hit"] for doc in r.retrieve("陶艺班") if doc["id"] == new] == [1]
    r.close()
    mm.close()


def test_a_reload_while_a_diff_runs_is_waited_for_by_the_next_query(tmp_path, monkeypatch):
    """A query during a catch-up diff answers without waiting for it, but a reload that came meanwhile
    (another program wrote the store, which says no more than that) is not in what the diff read: that
    query waits for both diffs (at most ``CATCH_UP_WAIT``), and finds what the other program wrote."""
    from sonetto_desktop.memory.retrieval.mechanical import MechanicalRetriever

    mm, cat, bike, new = _closed_with_cli_writes("sqlite", tmp_path)
    release, _ = stuck_diff(monkeypatch)
    r = MechanicalRetriever(mm, now=lambda: NOW)
    try:
        assert ids(r.retrieve("陶艺班"))[:1] == [new]  # answered while the diff runs
        other = open_store("sqlite", tmp_path)  # another program, which tells the app nothing
        rope = other.add("小夏在学跳绳，每天跳五百下。", "运动", actor="cli")
        other.close()
        r.invalidate()  # (what a reload change does)
        answer: list = []
        asker = threading.Thread(target=lambda: answer.append(ids(r.retrieve("跳绳"))))
        asker.start()
        asker.join(2)
        assert asker.is_alive() and r._life.busy()  # it waits for the diffs
        release.set()
        asker.join(30)
        assert answer and answer[0][:1] == [rope]
    finally:
        release.set()
        r.close()
        mm.close()


def _writer_request(server, words: str) -> str:
    """The first request the writer sent about the turn saying ``words`` (its listing is in it)."""
    for request in server.requests:
        text = json.dumps(request.get("messages"), ensure_ascii=False)
        if "create_memory" in json.dumps(request.get("tools") or [], ensure_ascii=False) and words in text:
            return text
    raise AssertionError(f"no writer request about {words!r}")


async def test_what_the_writer_just_wrote_is_in_its_next_listing_and_the_next_recall(kind, tmp_path, llm_server,
                                                                                      make_llm):
    """The background writer through the scripted server, over a store above every size threshold of
    the indexes: what one turn wrote (created, then updated) is in the writer's related memories for
    the next turn (so it updates rather than writes it twice), and in the reply's recall for the next
    message, in offline mode and in hybrid mode above the budget; never under its old text."""
    mm = open_store(kind, tmp_path)
    mm.import_items(big_bank())
    ltm = make_ltm(mm, make_llm(), backoff=FAST)
    ltm.recall.budget = 2_000  # far below the bank: hybrid recall shows a window and a shortlist
    await run_blocking(ltm.recall.warm_up)
    ltm.writer.start()
    try:
        script_create(llm_server, "用户养了一只叫布丁的柯基。", "身份")
        await ltm.send_history([{"role": "user", "content": "我养了一只柯基，叫布丁"},
                                {"role": "assistant", "content": "好可爱！"}])
        await until(lambda: ltm.writer.pending == 0 and not ltm.writer.busy)
        dog = next(mid for mid, item in mm.all_items().items() if "布丁" in item.description)
        assert dog in ids(await ltm.recall.aretrieve("布丁今天乖不乖", "mechanical"))
        later = (datetime.now() + timedelta(hours=1)).isoformat(timespec="seconds")  # newer than it: the listing's
        mm.import_items({f"n{i}": MemoryItem(text, "品味", latest_update_time=later)  # "most recent" rows are these
                         for i, text in enumerate(["用户喜欢喝桂花乌龙。", "用户最近在学游泳。", "用户周末常去爬山。"])})

        llm_server.add_tool_calls([("update_memory", {"id": dog, "content": "用户养了一只叫布丁的柯基，今年三岁。",
                                                      "reason": "用户说布丁三岁了"})])
        await ltm.send_history([{"role": "user", "content": "今天是布丁三岁生日"},
                                {"role": "assistant", "content": "生日快乐，布丁！"}])
        await until(lambda: ltm.writer.pending == 0 and not ltm.writer.busy)
        listing = _writer_request(llm_server, "今天是布丁三岁生日")
        assert dog in listing and "用户养了一只叫布丁的柯基。" in listing  # (JSON of the listing's quoted text)

        found = await ltm.recall.aretrieve("布丁几岁了", "mechanical")
        assert [doc["description"] for doc in found if doc["id"] == dog] == ["用户养了一只叫布丁的柯基，今年三岁。"]
        llm_server.add_text("[]", to="chat")  # the model picks nothing: what matters is what it was shown
        await ltm.recall.aretrieve("布丁几岁了", "hybrid")
        assert ltm.recall.last_listing.shown < ltm.recall.last_listing.memories  # above the budget
        shown = json.dumps(llm_server.last_request()["messages"], ensure_ascii=False)
        assert "今年三岁" in shown and "用户养了一只叫布丁的柯基。" not in shown

        llm_server.add_text("没有新的需要记。")
        await ltm.send_history([{"role": "user", "content": "布丁今天学会了握手"},
                                {"role": "assistant", "content": "布丁真聪明！"}])
        await until(lambda: ltm.writer.pending == 0 and not ltm.writer.busy)
        listing = _writer_request(llm_server, "布丁今天学会了握手")
        assert "今年三岁" in listing and "用户养了一只叫布丁的柯基。" not in listing
        assert [item.description for item in mm.all_items().values()].count("用户养了一只叫布丁的柯基，今年三岁。") == 1
    finally:
        await ltm.writer.stop(timeout=2)
        ltm.recall.close()
        mm.close()


def test_another_sonetto_processs_writes_are_seen_by_the_next_query_once_the_watcher_looked(kind, big):
    """The command line or the MCP server writes the same store: once the store's watcher has looked
    (every 0.5 s in the app: ``StoreWatcher``), the next query (offline index and the hybrid listing)
    has the new memory, the edited one under its new words only, and not the deleted one."""
    mm, recall = big
    other = open_store(kind, mm.path.parent)
    try:
        mid = other.add("小夏在学日语，每天背五十个单词。", "学习", actor="cli")
        assert mm.poll_external()
        assert ids(mechanical(recall, "日语单词"))[0] == mid and mid in recall.listing.parts()[0].by_id
        other.update(mid, "改学法语", new_description="小夏在学法语，每天背三十个单词。", actor="cli")
        assert mm.poll_external()
        assert [doc["description"] for doc in mechanical(recall, "法语单词") if doc["id"] == mid] == [
            "小夏在学法语，每天背三十个单词。"]
        assert all("日语" not in doc["description"] for doc in mechanical(recall, "日语五十个单词"))
        assert recall.listing.parts()[0].by_id[mid][2] == "小夏在学法语，每天背三十个单词。"
        other.delete(mid, "不学了", actor="cli")
        assert mm.poll_external()
        assert mid not in ids(mechanical(recall, "法语单词")) and mid not in recall.listing.parts()[0].by_id
    finally:
        other.close()


class _Planner:
    """Recall plans need a chat model set; nothing calls it here."""


def test_a_memory_the_vectors_have_not_caught_up_with_is_found_by_words_and_never_shown_as_it_was(
        kind, tmp_path, llm_server, monkeypatch):
    """The embeddings model's vectors follow the store in the background: between a write and its
    vector, the hybrid shortlist ranks with the vector of the old text, or none. A memory edited since
    its vector is shown with its new text only, a deleted one not at all, a new one (no vector yet) is
    found by its words."""
    from sonetto_desktop.memory.retrieval.embeddings import EmbeddingsConfig
    from sonetto_desktop.memory.retrieval.vector_sync import VectorSync

    mm = open_store(kind, tmp_path)
    stamp = (NOW - timedelta(days=300)).isoformat()
    mm.import_items({"cat": MemoryItem("小林养了一只叫汤圆的布偶猫。", "身份", latest_update_time=stamp),
                     "coffee": MemoryItem("小林早上只喝冰美式。", "品味", latest_update_time=stamp),
                     **big_bank(600)})
    sync = VectorSync(mm, EmbeddingsConfig(base_url=llm_server.base_url, model="scripted-embed", api_key="k",
                                           batch=128)).start()
    recall = MemoryRecall(mm, _Planner(), budget=1_500, dense=sync, clock=lambda: NOW)  # type: ignore[arg-type]

    def shown(question: str) -> dict[str, str]:
        plan = recall._plan(question, "hybrid")
        return {r["id"]: r["description"] for r in plan.records + plan.extra}

    try:
        assert sync.wait_idle(30)
        assert "cat" in shown("小老虎最近乖不乖") and recall.last_listing.dense  # found by its vector alone
        gate, real = __import__("threading").Event(), sync._apply_changes
        monkeypatch.setattr(sync, "_apply_changes", lambda table: (gate.wait(30), real(table))[1])  # a slow machine
        assert sync.has_vector("cat")
        mm.update("cat", "送人了", new_description="小林把汤圆送给了表姐，现在不养宠物了。")
        assert not sync.has_vector("cat")  # its vector is of the old text: no agreement is counted on it
        mm.delete("coffee", "不喝了")
        new = mm.add("小林最近迷上了手冲咖啡。", "品味")
        current = {mid: item.description for mid, item in mm.all_items().items()}
        for question in ("小老虎最近乖不乖", "小林早上喝什么饮料", "手冲咖啡"):
            seen = shown(question)
            assert recall.last_listing.dense
            assert all(current.get(mid) == text for mid, text in seen.items()), question
        assert new in shown("手冲咖啡") and ids(recall.retrieve("手冲咖啡", "mechanical"))[0] == new
        gate.set()
        assert sync.wait_idle(30) and sync.has_vector(new)
    finally:
        sync.stop()
        recall.close()
        mm.close()


def test_a_memory_added_from_the_command_line_is_recalled_by_the_very_next_message(kind, tmp_path):
    """``sonetto memory add …`` in a terminal, then at once a chat message: the store's watcher looks only
    every 0.5 s, and the recall answered from before the add (a query right after it never found the new
    memory). A query now asks the store whether another process committed anything (a ``stat``, one
    pragma) and takes it in first. No watcher runs here: only the query can have looked."""
    import subprocess
    import sys

    mm = open_store(kind, tmp_path)
    mm.add("小夏住在成都，喜欢吃火锅。", "身份")
    recall = MemoryRecall(mm, clock=lambda: NOW)
    recall.warm_up()
    assert ids(mechanical(recall, "成都火锅"))
    cli = subprocess.run([sys.executable, "-m", "sonetto_desktop", "memory", "--store", str(mm.path),
                          "add", "小夏在学日语，每天背五十个单词。", "--theme", "学习"],
                         capture_output=True, text=True, timeout=60)
    assert cli.returncode == 0, cli.stderr
    new = cli.stdout.strip()
    assert new in ids(mechanical(recall, "日语单词"))
    recall.close()
    mm.close()
