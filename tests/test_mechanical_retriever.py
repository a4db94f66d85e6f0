"""MechanicalRetriever over real stores (SQLite and YAML files in tmp_path), fixed "now"."""

from __future__ import annotations

import threading
from datetime import datetime, timedelta

import numpy as np
import pytest

from helpers import ids
from memory_stores import break_yaml_store
from sonetto_desktop.memory import MemoryItem, SqliteMemoryManager, StoreCorrupt, YamlMemoryManager
from sonetto_desktop.memory.retrieval import tokenize as tok
from sonetto_desktop.memory.retrieval.lexicon import Lexicon, default_lexicon
from sonetto_desktop.memory.retrieval.mechanical import MechanicalRetriever, analyze
from sonetto_desktop.memory.retrieval.postings import Postings, hash_term, key_counts, smoothed_idf

NOW = datetime(2026, 12, 2, 12, 0)  # a Wednesday


def ago(days: float) -> str:
    return (NOW - timedelta(days=days)).isoformat()


# A small bank of our own (not the dev set): id -> (description, theme, days ago, hit).
BANK = {
    "job": ("小周在杭州一家银行做柜员，已经工作两年。", "身份", 300, 8),
    "home": ("小周的家乡在山东烟台，每年春节都回去。", "身份", 250, 3),
    "dog": ("小周养了一只叫“豆豆”的柴犬。", "身份", 120, 5),
    "band": ("小周很喜欢听陈奕迅的歌，尤其是《十年》。", "音乐", 90, 6),
    "violin": ("小周小时候学过小提琴。", "音乐", 200, 1),
    "seafood": ("小周对海鲜过敏，吃虾会起疹子。", "品味", 150, 2),
    "noodle": ("小周最爱吃楼下那家兰州拉面。", "品味", 60, 4),
    "anime": ("小周喜欢看宫崎骏的动画电影。", "品味", 80, 2),
    "photos": ("小周的旅行照片都存在 D:\\Photos\\2026 文件夹里。", "地点与路径", 40, 3),
    "dentist": ("小周约了{d+3}上午去看牙医。", "时效待办", 5, 2),
    "exam": ("小周报名了{d+9}的会计证考试。", "时效待办", 20, 1),
    "tired": ("{d-1}小周说排队的客户太多，累得不想说话。", "瞬间", 1, 0),
    "rain": ("{d-2}小周说下雨没带伞，淋湿了。", "瞬间", 2, 0),
    "concert": ("2026年7月18日，小周去看了一场五月天的演唱会。", "瞬间", 137, 1),
    "plan": ("小周在准备明年换工作，想去互联网公司做数据分析。", "项目", 10, 7),
}


def _text(template: str) -> str:
    for marker, days in (("{d+3}", 3), ("{d+9}", 9), ("{d-1}", -1), ("{d-2}", -2)):
        day = (NOW + timedelta(days=days)).date()
        template = template.replace(marker, f"{day.month}月{day.day}日")
    return template


def fill(mm) -> None:
    items = {
        mid: MemoryItem(_text(desc), theme, latest_update_time=ago(days), hit=hit)
        for mid, (desc, theme, days, hit) in BANK.items()
    }
    added, _ = mm.import_items(items)
    assert sorted(added) == sorted(BANK)


@pytest.fixture(params=["sqlite", "yaml"])
def mm(request, tmp_path):
    store = SqliteMemoryManager(tmp_path / "m.sqlite3") if request.param == "sqlite" else YamlMemoryManager(
        tmp_path / "memory.yaml"
    )
    yield store
    store.close()


@pytest.fixture
def retriever(mm):
    fill(mm)
    r = MechanicalRetriever(mm, now=lambda: NOW)
    yield r
    r.close()


# ── the phenomena ────────────────────────────────────────────────────────


def test_literal_match_comes_first(retriever):
    assert ids(retriever.retrieve("拉面好吃吗"))[0] == "noodle"
    assert ids(retriever.retrieve("照片放在哪个文件夹"))[0] == "photos"


def test_result_shape(retriever):
    (first, *_) = retriever.retrieve("会计证考试")
    assert set(first) == {"id", "description", "theme", "date", "latest_update_time", "hit"}
    assert first["id"] == "exam" and first["theme"] == "时效待办" and "会计证" in first["description"]


def test_synonyms_and_related_concepts(retriever):
    assert "dog" in ids(retriever.retrieve("我家狗狗最近不爱吃饭", 5))  # 狗狗 ~ 狗 -> 柴犬
    assert "home" in ids(retriever.retrieve("过年要不要回老家", 5))  # 老家 ~ 家乡, 过年 ~ 春节
    assert "plan" in ids(retriever.retrieve("想跳槽了", 5))  # 跳槽 ~ 换工作
    assert "seafood" in ids(retriever.retrieve("晚饭吃什么好", 5))  # 吃 -> 过敏
    assert "anime" in ids(retriever.retrieve("周末想看部动画片", 5))  # 动画片 ~ 动画


def test_theme_cue_lifts_the_theme(retriever):
    got = ids(retriever.retrieve("推荐几首好听的歌", 5))
    assert "band" in got
    named = ids(retriever.retrieve("来点音乐", 5))  # the theme named outright
    assert {"band", "violin"} <= set(named)


def test_time_expressions_match_written_dates(retriever):
    assert ids(retriever.retrieve("三天后有什么安排", 3))[0] == "dentist"
    assert ids(retriever.retrieve("九天以后要干嘛", 3))[0] == "exam"
    assert "concert" in ids(retriever.retrieve("我7月份干了什么", 3))
    assert "tired" in ids(retriever.retrieve("昨天我说了什么", 3))


def test_broad_question_ranks_by_recency_and_hits(retriever):
    got = ids(retriever.retrieve("最近过得怎么样"))
    assert len(got) == 5
    assert got[:2] == ["tired", "rain"]
    assert "plan" in got  # ten days old but used a lot
    assert ids(retriever.retrieve("有什么新鲜事")) == got


def test_broad_question_with_a_topic_word_moves_its_memories_up(retriever):
    assert analyze("最近工作忙吗", NOW, default_lexicon()).broad
    got = ids(retriever.retrieve("最近工作忙吗"))
    plain = ids(retriever.retrieve("最近过得怎么样"))
    assert len(got) == 5 and got[0] == "plan"  # recent and about work
    assert got.index("job") < plain.index("job")  # 300 days old, but about work: moved up


@pytest.mark.parametrize(
    "prompt",
    ["帮我把 256 除以 8 算一下", "用英语怎么说谢谢", "how do I install python on windows", "给我讲个笑话",
     "地球到月亮有多远"],
)
def test_unrelated_requests_recall_nothing(retriever, prompt):
    assert retriever.retrieve(prompt) == []


def test_k_limits_and_floor(retriever):
    assert len(retriever.retrieve("小周", 2)) <= 2
    assert retriever.retrieve("拉面", 0) == []
    strict = MechanicalRetriever(retriever._mm, now=lambda: NOW, min_score=100.0)
    try:
        assert strict.retrieve("拉面") == []
    finally:
        strict.close()


def test_scored_is_sorted_and_unfloored(retriever):
    pairs = retriever.scored("帮我把 256 除以 8 算一下") + retriever.scored("拉面")
    scores = [s for _, s in retriever.scored("拉面")]
    assert scores == sorted(scores, reverse=True) and scores[0] > 0
    assert all(isinstance(doc, dict) and isinstance(s, float) for doc, s in pairs)


def test_candidates_returns_k_without_floor(retriever):
    got = retriever.candidates("帮我把 256 除以 8 算一下", k=6)  # matches nothing: filled with recent + used
    assert len(got) == 6 and len(set(ids(got))) == 6
    assert ids(got)[0] == "tired"
    literal = retriever.candidates("拉面", k=4)
    assert ids(literal)[0] == "noodle" and len(literal) == 4
    assert len(retriever.candidates("拉面", k=100)) == len(BANK)


# ── keeping up with the store ────────────────────────────────────────────


def test_index_follows_add_update_delete(mm):
    fill(mm)
    r = MechanicalRetriever(mm, now=lambda: NOW)
    try:
        assert r.retrieve("攀岩") == []
        new_id = mm.add("小周最近迷上了攀岩，每周去两次岩馆。", "品味")
        assert ids(r.retrieve("攀岩"))[0] == new_id
        mm.update(new_id, "用户更正", new_description="小周最近迷上了滑板，每周去两次公园练。")
        assert r.retrieve("攀岩") == []
        assert ids(r.retrieve("滑板"))[0] == new_id
        mm.delete(new_id, "用户要求")
        assert r.retrieve("滑板") == []
        mm.restore(new_id)
        assert ids(r.retrieve("滑板"))[0] == new_id
        mm.merge("noodle", "seafood", "小周爱吃兰州拉面，但对海鲜过敏。", "品味", "合并饮食")
        assert "seafood" not in ids(r.candidates("海鲜过敏", 50))
        assert ids(r.retrieve("海鲜过敏"))[0] == "noodle"
    finally:
        r.close()


def test_hits_update_the_broad_ranking(mm):
    fill(mm)
    r = MechanicalRetriever(mm, now=lambda: NOW)
    try:
        before = ids(r.retrieve("最近怎么样"))
        assert "violin" not in before
        for _ in range(300):
            mm.hit("violin")
        assert "violin" in ids(r.retrieve("最近怎么样"))
    finally:
        r.close()


def test_close_unsubscribes(mm):
    fill(mm)
    r = MechanicalRetriever(mm, now=lambda: NOW)
    r.retrieve("拉面")
    r.close()
    r.close()  # twice is fine
    mm.add("小周开始学游泳了。", "品味")
    assert r.retrieve("游泳") == []  # no longer following the feed
    r.invalidate()
    assert len(r.retrieve("游泳")) == 1


def test_empty_store(mm):
    r = MechanicalRetriever(mm, now=lambda: NOW)
    try:
        assert r.retrieve("拉面") == []
        assert r.retrieve("最近过得怎么样") == []
        assert r.candidates("拉面", 10) == []
        assert r.scored("拉面") == []
    finally:
        r.close()


def test_empty_and_huge_prompts(retriever):
    assert retriever.retrieve("") == []
    assert retriever.retrieve("   \n") == []
    assert len(retriever.candidates("", 3)) == 3
    huge = "今天天气不错。" * 50_000 + "我想吃拉面"
    assert ids(retriever.retrieve(huge))[0] == "noodle"  # the newest text of a long prompt counts
    assert retriever.retrieve("😀" * 1000 + "！！？？") == []


def test_concurrent_queries_and_writes(mm):
    fill(mm)
    r = MechanicalRetriever(mm, now=lambda: NOW)
    errors: list[BaseException] = []

    def query() -> None:
        try:
            for _ in range(30):
                assert ids(r.retrieve("兰州拉面"))[0] == "noodle"
        except BaseException as exc:  # noqa: BLE001 - reported below
            errors.append(exc)

    threads = [threading.Thread(target=query) for _ in range(4)]
    for t in threads:
        t.start()
    for i in range(10):
        mm.add(f"小周第{i}次去健身房。", "项目")
    for t in threads:
        t.join()
    r.close()
    assert errors == []


def test_defaults_use_the_clock_and_top_k(mm):
    fill(mm)
    r = MechanicalRetriever(mm, top_k=1)
    try:
        assert len(r.retrieve("小周 拉面 海鲜 柴犬 银行")) == 1
    finally:
        r.close()


# ── pieces ──────────────────────────────────────────────────────────────


def test_tokenize_drops_stop_words_and_lowercases():
    tok.warm_up()
    words = tok.words("帮我看看 Python 的代码吗？")
    assert "python" in words and "代码" in words
    assert not {"帮我", "的", "吗", "？"} & set(words)
    assert tok.bigrams("布偶猫的名字") == ["布偶", "偶猫", "名字"]
    assert tok.term_forms("猫") == [tok.CHAR + "猫"]
    assert tok.term_forms("汤圆") == [tok.WORD + "汤圆", tok.BIGRAM + "汤圆"]


def test_bm25_idf_stays_positive_when_a_term_is_in_half_the_documents():
    index = Postings()
    cat, fish, dog, bird = (hash_term(w) for w in ("猫", "鱼", "狗", "鸟"))
    for keys in ([cat, fish], [cat, dog], [bird], [fish]):
        index.add(*key_counts(keys))
    cat_df, dog_df = index.doc_freqs([cat, dog])
    assert 0 < smoothed_idf(4, cat_df) < smoothed_idf(4, dog_df) <= 1.0
    assert set(np.flatnonzero(index.score({cat: 1.0}))) == {0, 1}
    index.remove(1)
    assert index.doc_freqs([cat, dog]) == [1, 0]
    assert not np.any(index.score({dog: 1.0}))


def test_query_analysis_expansions_weigh_less_than_literal_words():
    q = analyze("过年回老家", NOW, default_lexicon())
    assert q.terms[tok.WORD + "老家"] == 1.0
    assert 0 < q.terms[tok.WORD + "家乡"] < 1.0
    assert not q.broad and analyze("最近在忙什么", NOW, default_lexicon()).broad
    assert analyze("帮我把这段话翻译成英文", NOW, default_lexicon()).task


def test_lexicon_files_are_general_and_load(tmp_path):
    lex = default_lexicon()
    assert len(lex.expansions) > 300
    assert "家乡" in lex.expansions["老家"] and "毕业设计" in lex.expansions["毕设"]
    assert "音乐" in lex.themes_for("推荐几首歌", ["推荐", "歌"])
    bad = tmp_path / "syn.yaml"
    bad.write_text("equivalent:\n  - 不是列表\n", encoding="utf-8")
    with pytest.raises(ValueError, match="must be lists"):
        Lexicon.load(synonyms=bad)
    custom = tmp_path / "cues.yaml"
    custom.write_text("weight: 0.5\nthemes:\n  宠物: [猫]\n", encoding="utf-8")
    loaded = Lexicon.load(theme_cues=custom)
    assert loaded.theme_weight == 0.5 and loaded.themes_for("猫", ["猫"]) == {"宠物": 1}


def test_a_dated_question_is_not_broad_and_theme_cues_alone_can_carry_it(retriever):
    assert not analyze("大后天有啥事", NOW, default_lexicon()).broad
    assert analyze("这阵子怎么样", NOW, default_lexicon()).broad
    assert {"band", "violin"} & set(ids(retriever.retrieve("推荐点好听的", 5)))


def test_glued_query_words_fall_back_to_characters(retriever):
    # jieba cuts 猫叫 / 首歌 as single words; no memory has them, so their characters are tried.
    assert "dog" not in ids(retriever.retrieve("我的猫叫什么来着"))
    assert "band" in ids(retriever.retrieve("放首歌听听", 5))


def test_warm_up_builds_the_index_before_the_first_query(tmp_path):
    mm = SqliteMemoryManager(tmp_path / "w.sqlite3")
    fill(mm)
    r = MechanicalRetriever(mm, now=lambda: NOW)
    r.warm_up()
    mm.close()  # the store is gone: only a prebuilt index can still answer
    assert ids(r.retrieve("兰州拉面"))[0] == "noodle"
    r.close()


def test_an_unreadable_store_raises_and_is_retried(tmp_path):
    path = tmp_path / "memory.yaml"
    mm = YamlMemoryManager(path)
    fill(mm)
    r = MechanicalRetriever(mm, now=lambda: NOW)
    mm.compact()  # memory.yaml holds every memory now (it follows writes in the background)
    good = path.read_bytes()
    break_yaml_store(path, "{not: [valid")  # another program broke the file
    assert ids(r.retrieve("兰州拉面"))[0] == "noodle"  # the open store keeps its last good state
    alone = tmp_path / "alone" / "memory.yaml"  # the broken file with no backup or log beside it
    alone.parent.mkdir()
    alone.write_bytes(path.read_bytes())
    opened = YamlMemoryManager(alone)  # a store opened on it has nothing to serve
    fresh = MechanicalRetriever(opened, now=lambda: NOW)
    with pytest.raises(StoreCorrupt):
        fresh.retrieve("兰州拉面")
    alone.write_bytes(good)
    assert ids(fresh.retrieve("兰州拉面"))[0] == "noodle"  # nothing lost: the next query rebuilds
    for part in (fresh, r, opened, mm):
        part.close()


def test_a_memory_with_a_date_no_calendar_has_leaves_recall_working(mm):
    mm.add("小周养了一只柴犬叫豆豆。", "身份")
    mm.add("旧表格上的日期写着0000年1月。", "身份")
    r = MechanicalRetriever(mm, now=lambda: NOW, index_path=False)
    assert [d["description"] for d in r.retrieve("柴犬")] == ["小周养了一只柴犬叫豆豆。"]
    r.close()


def test_an_edited_memory_of_a_small_bank_keeps_its_words_rare(mm):
    """A changed memory's old version still counted in its words' document frequencies until the
    index was compacted (after 512 dead versions): in a bank of two, the edited memory's own name
    read as common and fell under the floor."""
    dog = mm.add("小周养了一只柴犬叫豆豆。", "身份")
    mm.add("小周对海鲜过敏。", "品味")
    r = MechanicalRetriever(mm, now=lambda: NOW, index_path=False)
    assert ids(r.retrieve("豆豆")) == [dog]
    mm.update(dog, "补充", new_description="小周养了一只柴犬叫豆豆，三岁了。")
    assert ids(r.retrieve("豆豆")) == [dog]
    other = mm.add("小周的柴犬豆豆爱吃鸡胸肉。", "品味")
    kept = mm.merge(dog, other, "小周养了一只柴犬叫豆豆，三岁了，爱吃鸡胸肉。", "身份", "合并")
    assert [d["description"] for d in r.retrieve("豆豆")] == ["小周养了一只柴犬叫豆豆，三岁了，爱吃鸡胸肉。"], kept
    r.close()


@pytest.mark.parametrize("bank, question", [
    (["我今天去了书店买书。", "书店里人很多。", "周末又逛了一次书店。"], "书店"),
    (["我的猫叫咪咪，很黏人。", "猫最近不爱吃饭。", "给猫买了新的猫砂。"], "猫呢?"),
])
def test_a_word_every_memory_holds_still_finds_them(mm, bank, question):
    """A word in every memory of a bank (a person who talks about one thing) scored a fraction of
    a rare word and fell under the floor: the question that names it recalled none (or only the
    memory an expansion lifted). The floor is scaled by how common the question's own words are."""
    mm.import_items({f"m{i}": MemoryItem(text, "瞬间", latest_update_time=ago(i + 1)) for i, text in enumerate(bank)})
    r = MechanicalRetriever(mm, now=lambda: NOW, index_path=False)
    assert sorted(ids(r.retrieve(question))) == ["m0", "m1", "m2"]
    assert ids(r.retrieve("帮我把 128 除以 16 算一下")) == []
    r.close()


def test_a_question_with_a_word_the_bank_lacks_is_not_answered_by_its_common_words(mm):
    """Only a question whose every word is common keeps its best matches under the floor: a word
    no memory holds counts as rare, so "小周的猫叫什么" in a bank without a cat recalls nothing,
    though every memory names 小周."""
    mm.import_items({mid: MemoryItem(_text(desc), theme, latest_update_time=ago(days), hit=hit)
                     for mid, (desc, theme, days, hit) in BANK.items() if mid != "dog"})
    r = MechanicalRetriever(mm, now=lambda: NOW, index_path=False)
    assert ids(r.retrieve("小周的猫叫什么")) == []
    assert ids(r.retrieve("兰州拉面"))[0] == "noodle"
    r.close()


def test_a_query_typed_in_full_width_finds_what_ascii_finds(mm):
    mm.import_items({"sw": MemoryItem("小周每天晚上玩Switch。", "品味", latest_update_time=NOW.isoformat()),
                     "dog": MemoryItem("小周养了一只柴犬叫豆豆。", "身份", latest_update_time=NOW.isoformat())})
    r = MechanicalRetriever(mm, now=lambda: NOW, index_path=False)
    assert ids(r.retrieve("switch")) == ["sw"]
    assert ids(r.retrieve("ｓｗｉｔｃｈ")) == ["sw"]  # a Chinese keyboard's full-width mode
    r.close()
