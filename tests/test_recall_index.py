"""The offline recall index: saved beside the store, verified, rebuilt, kept in step cheaply."""

from __future__ import annotations

import io
import threading
import time
import zipfile
from datetime import datetime, timedelta

import numpy as np
import pytest
from numpy.lib import format as npy_format

from helpers import ids
from waiting import wait_for
from sonetto_desktop.memory import MemoryItem, SqliteMemoryManager, YamlMemoryManager
from sonetto_desktop.memory.events import MemoryChange
from sonetto_desktop.memory.retrieval import index_file, index_lifecycle, postings
from sonetto_desktop.memory.retrieval import tokenize as tok
from sonetto_desktop.memory.retrieval.mechanical import MechanicalRetriever
from sonetto_desktop.memory.retrieval.postings import Postings, term_counts

NOW = datetime(2026, 12, 2, 12, 0)

BANK = {
    "noodle": ("小夏最爱吃学校后门那家兰州拉面。", "品味"),
    "cat": ("小夏养了一只叫“芝麻”的黑猫。", "身份"),
    "exam": ("小夏12月9日要考英语六级。", "时效待办"),
    "guitar": ("小夏周末在琴行学吉他。", "音乐"),
    "tea": ("小夏只喝无糖的乌龙茶。", "品味"),
}


def fill(mm, bank=BANK) -> None:
    stamp = (NOW - timedelta(days=3)).isoformat()
    mm.import_items({mid: MemoryItem(desc, theme, latest_update_time=stamp) for mid, (desc, theme) in bank.items()})


class Tokenizations:
    """Counts the documents the retriever tokenizes (the real tokenizer still runs)."""

    def __init__(self, monkeypatch) -> None:
        self.texts: list[str] = []
        real = tok.batch_keys

        def counting(texts: list[str]) -> list:
            self.texts.extend(texts)
            return real(texts)

        monkeypatch.setattr(tok, "batch_keys", counting)


class TokenStore(SqliteMemoryManager):
    """A store that reports a version token, as stores will (content hash stand-in: a counter)."""

    def __init__(self, path) -> None:
        super().__init__(path)
        self.token = "v1"
        self.reads = 0

    def version_token(self) -> str | None:
        return self.token

    def all_items(self):
        self.reads += 1
        return super().all_items()

    def columns_of_all(self, names):  # (what the index reads of every memory: ``card_fields``)
        self.reads += 1
        return super().columns_of_all(names)


@pytest.fixture(params=["sqlite", "yaml"])
def store_path(request, tmp_path):
    return tmp_path / ("m.sqlite3" if request.param == "sqlite" else "memory.yaml")


def open_store(path):
    return SqliteMemoryManager(path) if path.suffix == ".sqlite3" else YamlMemoryManager(path)


def test_index_is_saved_beside_the_store_and_loaded_without_retokenizing(store_path, monkeypatch):
    mm = open_store(store_path)
    fill(mm)
    r = MechanicalRetriever(mm, now=lambda: NOW)
    assert ids(r.retrieve("兰州拉面"))[0] == "noodle"
    saved = store_path.with_name(store_path.stem + ".recall-index.npz")
    assert saved.exists()
    mm.add("小夏开始学游泳了。", "品味")
    r.close()  # saves what changed since
    mm.close()

    counter = Tokenizations(monkeypatch)
    mm = open_store(store_path)
    r = MechanicalRetriever(mm, now=lambda: NOW)
    assert ids(r.retrieve("兰州拉面"))[0] == "noodle"
    assert len(r.retrieve("游泳")) == 1
    assert counter.texts == []  # nothing was re-tokenized: the saved index answered
    r.close()
    mm.close()


def test_changes_made_while_closed_are_found_by_content(store_path, monkeypatch):
    mm = open_store(store_path)
    fill(mm)
    MechanicalRetriever(mm, now=lambda: NOW).warm_up()  # built and saved
    mm.update("tea", "改口", new_description="小夏最近改喝美式咖啡了。")
    mm.delete("cat", "不养了")
    new_id = mm.add("小夏报了一个陶艺班。", "品味")
    counter = Tokenizations(monkeypatch)
    r = MechanicalRetriever(mm, now=lambda: NOW)  # no version token: verified by content
    assert ids(r.retrieve("美式咖啡"))[0] == "tea"
    assert r.retrieve("黑猫芝麻") == []
    assert ids(r.retrieve("陶艺"))[0] == new_id
    assert sorted(counter.texts) == sorted(["小夏最近改喝美式咖啡了。", "小夏报了一个陶艺班。"])
    r.close()
    mm.close()


def test_a_matching_version_token_skips_verification(tmp_path, monkeypatch):
    mm = TokenStore(tmp_path / "t.sqlite3")
    fill(mm)
    MechanicalRetriever(mm, now=lambda: NOW).close()
    first = MechanicalRetriever(mm, now=lambda: NOW)
    first.warm_up()
    first.close()
    mm.reads = 0
    r = MechanicalRetriever(mm, now=lambda: NOW)
    assert ids(r.retrieve("吉他"))[0] == "guitar"
    assert mm.reads == 0  # the token matched: the store was not even read
    r.close()
    # another process changes the store: the token moves on, the saved index is verified
    other = SqliteMemoryManager(tmp_path / "t.sqlite3")
    other.add("小夏买了一把尤克里里。", "音乐")
    other.close()
    mm.token = "v2"
    r = MechanicalRetriever(mm, now=lambda: NOW)
    assert r.retrieve("尤克里里")[0]["description"] == "小夏买了一把尤克里里。" and mm.reads == 1
    r.close()
    mm.close()


def _with_declared_shape(data: bytes, member: str, shape: tuple[int, ...]) -> bytes:
    """The index file ``data`` with one array's header claiming ``shape`` (its bytes unchanged)."""
    source, out = zipfile.ZipFile(io.BytesIO(data)), io.BytesIO()
    with zipfile.ZipFile(out, "w") as target:
        for info in source.infolist():
            raw = source.read(info)
            if info.filename == member:
                array = np.load(io.BytesIO(raw), allow_pickle=False)
                head = io.BytesIO()
                fields = npy_format.header_data_from_array_1_0(array)
                npy_format.write_array_header_1_0(head, {**fields, "shape": shape})
                raw = head.getvalue() + array.tobytes()
            target.writestr(info.filename, raw)
    return out.getvalue()


@pytest.mark.parametrize("damage", ["truncate", "garbage", "other_format", "other_tokenizer", "huge_shape",
                                    "huge_header_shape"])
def test_a_damaged_or_foreign_index_is_rebuilt(tmp_path, damage, monkeypatch):
    mm = SqliteMemoryManager(tmp_path / "d.sqlite3")
    fill(mm)
    MechanicalRetriever(mm, now=lambda: NOW).warm_up()
    path = tmp_path / "d.recall-index.npz"
    data = path.read_bytes()
    if damage == "truncate":
        path.write_bytes(data[: len(data) // 2])
    elif damage == "garbage":
        path.write_bytes(b"not an index at all")
    elif damage == "huge_shape":  # 4 TiB of postings claimed: refused before anything is allocated
        path.write_bytes(_with_declared_shape(data, "p_slots.npy", (2**40,)))
    elif damage == "huge_header_shape":
        path.write_bytes(_with_declared_shape(data, "header.npy", (2**20, 2**20)))
    elif damage == "other_format":
        monkeypatch.setattr(index_file, "FORMAT", index_file.FORMAT + 1)
    else:
        monkeypatch.setattr(tok, "TOKENIZER_VERSION", "something-else/9")
    r = MechanicalRetriever(mm, now=lambda: NOW)
    assert ids(r.retrieve("兰州拉面"))[0] == "noodle"
    r.close()
    index_file.load(path, tokenizer=tok.TOKENIZER_VERSION)  # rewritten whole
    mm.close()


def test_inconsistent_arrays_are_refused():
    p = Postings()
    p.add(*term_counts(["w:猫", "w:狗"]))
    p.compact()
    good = p.arrays()
    for key, bad in [("starts", np.array([0, 5, 1])), ("slots", np.array([0, 7], dtype=np.uint32)),
                     ("keys", good["keys"][::-1].copy())]:
        with pytest.raises(ValueError):
            Postings.from_arrays({**good, key: bad})


def test_reload_is_a_diff_not_a_rebuild(tmp_path, monkeypatch):
    path = tmp_path / "memory.yaml"
    mm = YamlMemoryManager(path)
    fill(mm)
    r = MechanicalRetriever(mm, now=lambda: NOW)
    r.warm_up()
    other = YamlMemoryManager(path)  # another process writes the same file
    other.update("noodle", "换口味", new_description="小夏最爱吃学校后门那家重庆小面。")
    other.delete("cat", "不养了")
    other.close()
    counter = Tokenizations(monkeypatch)
    mm._publish(MemoryChange("reload", ()))  # what the store's watcher publishes for foreign writes
    assert ids(r.retrieve("重庆小面"))[0] == "noodle"
    assert r.retrieve("黑猫芝麻") == []
    assert counter.texts == ["小夏最爱吃学校后门那家重庆小面。"]
    r.close()
    mm.close()


def test_many_changes_between_queries_do_not_reload_the_store(tmp_path, monkeypatch):
    mm = TokenStore(tmp_path / "many.sqlite3")
    fill(mm)
    r = MechanicalRetriever(mm, now=lambda: NOW, index_path=False)
    r.warm_up()
    mm.reads = 0
    added = [mm.add(f"小夏第{i}次去图书馆自习。", "学习") for i in range(100)]
    for _ in range(100):
        mm.hit("noodle")
    assert set(added) <= {doc["id"] for doc, _ in r.scored("图书馆自习")}
    assert mm.reads == 0  # 100 adds and 100 hits: read one by one, never the whole store
    r.close()
    mm.close()


def test_a_big_bank_builds_in_the_background_and_loses_no_write(tmp_path, monkeypatch):
    monkeypatch.setattr(index_lifecycle, "SYNC_BUILD_MAX", 10)
    monkeypatch.setattr(index_lifecycle, "BATCH", 16)
    mm = SqliteMemoryManager(tmp_path / "big.sqlite3")
    bank = {f"m{i}": (f"小夏的第{i}条记忆：去过第{i}家咖啡馆。", "品味") for i in range(300)}
    fill(mm, {**BANK, **bank})
    r = MechanicalRetriever(mm, now=lambda: NOW)
    r.retrieve("咖啡馆")  # answers at once, from what is indexed so far
    new_id = mm.add("小夏开始学冲浪了。", "品味")  # written while the build runs
    mm.update("noodle", "换口味", new_description="小夏最爱吃学校后门那家重庆小面。")
    r.warm_up()  # waits for the build
    assert len(r.candidates("咖啡馆", 400)) == len(bank) + len(BANK) + 1
    assert ids(r.retrieve("冲浪"))[0] == new_id
    assert ids(r.retrieve("重庆小面"))[0] == "noodle" and r.retrieve("兰州拉面") == []
    r.close()
    mm.close()


def test_compaction_keeps_answers_and_concurrent_queries_stay_correct(tmp_path, monkeypatch):
    monkeypatch.setattr(postings, "COMPACT_AFTER", 3)
    mm = SqliteMemoryManager(tmp_path / "c.sqlite3")
    fill(mm)
    r = MechanicalRetriever(mm, now=lambda: NOW, index_path=False)
    r.warm_up()
    errors: list[BaseException] = []
    stop = threading.Event()

    def query() -> None:
        try:
            while not stop.is_set():
                assert ids(r.retrieve("兰州拉面"))[0] == "noodle"
                assert "exam" in ids(r.retrieve("下周三有什么安排"))
        except BaseException as exc:  # noqa: BLE001 - reported below
            errors.append(exc)

    threads = [threading.Thread(target=query) for _ in range(3)]
    for t in threads:
        t.start()
    for i in range(40):
        mid = mm.add(f"小夏第{i}次去健身房练腿。", "健康")
        if i % 2:
            mm.update(mid, "改写", new_description=f"小夏第{i}次去健身房练背。")
        if i % 3 == 0:
            mm.delete(mid, "删掉")
    stop.set()
    for t in threads:
        t.join()
    assert errors == []
    assert r.stats()["delta_docs"] <= 4  # compacted along the way
    assert len(r.scored("健身房")) == sum(1 for i in range(40) if i % 3)
    r.close()
    mm.close()


def test_hits_are_applied_without_rereading(tmp_path):
    mm = TokenStore(tmp_path / "h.sqlite3")
    fill(mm)
    r = MechanicalRetriever(mm, now=lambda: NOW, index_path=False)
    r.warm_up()
    mm.reads = 0
    for _ in range(200):
        mm.hit("guitar")
    assert ids(r.retrieve("最近怎么样"))[0] == "guitar"
    assert mm.reads == 0
    r.close()
    mm.close()


def test_unknown_change_kinds_and_empty_reload_are_safe(tmp_path):
    mm = SqliteMemoryManager(tmp_path / "u.sqlite3")
    fill(mm)
    r = MechanicalRetriever(mm, now=lambda: NOW, index_path=False)
    r.warm_up()
    r._on_change(MemoryChange("reload", ()))
    r._on_change(MemoryChange("purge", ("noodle",)))
    assert ids(r.retrieve("兰州拉面"))[0] == "noodle"
    r.close()
    mm.close()


def test_closing_during_a_background_build_leaves_an_index_the_next_start_verifies(tmp_path, monkeypatch):
    monkeypatch.setattr(index_lifecycle, "SYNC_BUILD_MAX", 10)
    monkeypatch.setattr(index_lifecycle, "BATCH", 8)
    mm = TokenStore(tmp_path / "stop.sqlite3")
    bank = {f"m{i}": (f"小夏的第{i}条记忆：去过第{i}家书店。", "品味") for i in range(200)}
    fill(mm, {**BANK, **bank})
    real = tok.batch_keys

    def slow(texts: list[str]) -> list:
        time.sleep(0.005 * len(texts))  # a slow machine: the build is still running when the app closes
        return real(texts)

    monkeypatch.setattr(tok, "batch_keys", slow)
    r = MechanicalRetriever(mm, now=lambda: NOW)
    r.retrieve("书店")
    time.sleep(0.3)  # a few batches are in
    r.close()  # stops the build half-way
    monkeypatch.setattr(tok, "batch_keys", real)
    mm.reads = 0
    r = MechanicalRetriever(mm, now=lambda: NOW)
    r.warm_up()
    assert len(r.scored("书店")) == len(bank)  # nothing missing: a half-built index was not trusted
    r.close()
    mm.close()


def test_a_recall_during_a_first_build_of_thousands_does_not_wait_for_it(tmp_path, monkeypatch):
    """Above SYNC_BUILD_MAX (2,000) the first build runs in the background: a chat turn's recall answers
    from what is indexed so far instead of waiting behind the lock for the whole build."""
    mm = SqliteMemoryManager(tmp_path / "big.sqlite3")
    n = 2_100  # a few thousand memories: an import, a year of chats
    fill(mm, {f"m{i}": (f"小夏第{i}次去书店买了一本旧书。", "品味") for i in range(n)})
    real = tok.batch_keys
    release = threading.Event()
    started = threading.Event()

    def held(texts: list[str]) -> list:
        started.set()
        release.wait(30)  # a slow machine: the build is stuck tokenizing
        return real(texts)

    monkeypatch.setattr(tok, "batch_keys", held)
    r = MechanicalRetriever(mm, now=lambda: NOW, index_path=False)
    builder = threading.Thread(target=r.warm_up)
    builder.start()
    assert started.wait(10)
    answers: list = []
    asker = threading.Thread(target=lambda: answers.append(r.retrieve("书店")))
    asker.start()
    asker.join(10)
    stuck = asker.is_alive()
    release.set()
    builder.join(30)
    asker.join(30)
    assert not stuck, "the recall waited for the whole build"
    assert answers == [[]]  # nothing was indexed yet
    assert len(r.scored("书店")) == n  # and all of it once the build is done
    r.close()
    mm.close()


@pytest.mark.parametrize("background", [False, True])
def test_a_first_build_reports_its_progress_and_its_end(tmp_path, monkeypatch, background):
    from sonetto_desktop.memory.retrieval import mechanical
    from sonetto_desktop.memory.retrieval.progress import IndexProgress

    monkeypatch.setattr(mechanical, "REPORT_FROM", 100)
    monkeypatch.setattr(index_lifecycle, "BATCH", 64)
    if background:
        monkeypatch.setattr(index_lifecycle, "SYNC_BUILD_MAX", 50)
    mm = SqliteMemoryManager(tmp_path / "p.sqlite3")
    fill(mm, {f"m{i}": (f"小夏第{i}次去书店买了一本旧书。", "品味") for i in range(300)})
    heard: list[IndexProgress] = []
    r = MechanicalRetriever(mm, now=lambda: NOW)
    r.warm_up(progress=heard.append)
    assert heard[0] == IndexProgress(0, 300) and heard[-1] == IndexProgress(300, 300, finished=True)
    done = [p.done for p in heard]
    assert done == sorted(done) and len(heard) >= 5 and all(p.total == 300 for p in heard)
    assert len(r.scored("书店")) == 300
    r.close()
    heard.clear()  # the next start loads the saved index: nothing to report
    r = MechanicalRetriever(mm, now=lambda: NOW)
    r.warm_up(progress=heard.append)
    assert heard == []
    r.close()
    mm.close()


def test_a_reload_during_a_background_diff_keeps_the_changes_named_meanwhile(tmp_path, monkeypatch):
    """A big bank diffs itself against the store in the background after a reload; changes named
    while it runs are left to the queue. A second reload then threw that queue away: a deleted memory
    stayed in the index (recalled from the trash), an edited one kept its old text."""
    mm = SqliteMemoryManager(tmp_path / "m.sqlite3")
    dog = mm.add("小周养了一只柴犬叫豆豆。", "身份")
    cat = mm.add("小周的猫叫年糕。", "身份")
    mm.add("小周对海鲜过敏。", "品味")
    r = MechanicalRetriever(mm, now=lambda: NOW, index_path=False)
    assert ids(r.retrieve("柴犬")) == [dog]
    monkeypatch.setattr(index_lifecycle, "SYNC_BUILD_MAX", 2)  # stands for a bank of more than 2,000
    gate, real = threading.Event(), index_lifecycle.card_fields
    monkeypatch.setattr(index_lifecycle, "card_fields", lambda store: (gate.wait(10), real(store))[1])
    r.invalidate()
    first = threading.Thread(target=r.retrieve, args=("x",))  # the reload's diff starts, held before it
    first.start()  # reads the store; the query waits for it
    wait_for(r._life.busy, what="the diff")
    mm.delete(dog, "不要了")
    mm.update(cat, "改名", new_description="小周的猫叫汤圆。")
    r.invalidate()
    second = threading.Thread(target=r.retrieve, args=("x",))  # a second reload while the first diff runs
    second.start()
    wait_for(lambda: not r._pending, what="the second query's refresh")
    gate.set()
    first.join(10)
    second.join(10)
    r._life.join_worker()
    assert r.retrieve("柴犬") == [] and ids(r.retrieve("汤圆")) == [cat] and r.retrieve("年糕") == []
    r.invalidate()
    assert r.retrieve("柴犬") == [] and ids(r.retrieve("汤圆")) == [cat]  # and once more after the diff
    r.close()
    mm.close()
