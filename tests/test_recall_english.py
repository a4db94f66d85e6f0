"""Offline recall of memories written in English: irregular word forms meet (teeth / tooth, went / go),
and English time words find memories by date. Real SQLite stores in tmp_path, fixed "now"."""

from __future__ import annotations

from datetime import datetime, timedelta

import numpy as np
import pytest

from helpers import ids
from sonetto_desktop.memory import MemoryItem, SqliteMemoryManager
from sonetto_desktop.memory.retrieval import tokenize as tok
from sonetto_desktop.memory.retrieval.mechanical import MechanicalRetriever

NOW = datetime(2026, 12, 2, 12, 0)  # a Wednesday


@pytest.mark.parametrize(
    "forms",
    [
        ("tooth", "teeth"),
        ("child", "children"),
        ("mouse", "mice"),
        ("foot", "feet"),
        ("man", "men"),
        ("woman", "women"),
        ("wife", "wives"),
        ("knife", "knives"),
        ("go", "goes", "going", "went", "gone"),
        ("buy", "buys", "buying", "bought"),
        ("take", "takes", "taking", "took", "taken"),
        ("eat", "eats", "eating", "ate", "eaten"),
        ("write", "writes", "writing", "wrote", "written"),
        ("run", "runs", "running", "ran"),
        ("swim", "swims", "swimming", "swam"),
        ("think", "thinks", "thought"),
        ("teach", "teaches", "taught"),
        ("see", "sees", "seeing", "saw", "seen"),
    ],
)
def test_irregular_forms_share_one_stem(forms):
    assert len({tok.stem(f) for f in forms}) == 1, {f: tok.stem(f) for f in forms}


def test_regular_forms_and_words_with_two_meanings_are_as_they_were():
    assert tok.stem("tournaments") == tok.stem("tournament")
    assert tok.stem("painted") == tok.stem("painting") == "paint"
    for word, other in [("left", "leave"), ("rose", "rise"), ("ground", "grind"), ("lives", "life"),
                        ("leaves", "leaf"), ("lay", "lie")]:  # either meaning is as common
        assert tok.stem(word) != tok.stem(other)


def test_a_memory_and_a_question_go_through_the_same_forms():
    text = "The children went to the dentist and Mia lost two teeth; Leo bought mice for the lab."
    single = set(tok.document_keys(text).tolist())
    batch = tok.batch_keys([text] * tok.MANY_TEXTS)[0]  # the bulk build's path
    assert set(batch.tolist()) == single
    for question_word in ("child", "go", "tooth", "buy", "mouse"):
        (term,) = tok.term_forms(question_word)
        assert tok.hash_term(term) in single, question_word


BANK = {
    "teeth": ("Mia had two teeth pulled at the dentist.", 30),
    "kids": ("Leo's children love the science museum.", 40),
    "paris": ("Anna went to Paris with her sister.", 50),
    "bike": ("Tom bought a red bike for commuting.", 60),
    "hike_old": ("Sam went hiking in the hills.", 20),  # in November
    "hike_new": ("Sam went hiking by the lake.", 1),
    "cat": ("Sam's cat likes sleeping on the sofa.", 90),
    "tea": ("Anna prefers green tea to coffee.", 70),
    "dentist_todo": ("Dentist appointment on December 4th at 9am.", 3),
}


@pytest.fixture
def retriever(tmp_path):
    mm = SqliteMemoryManager(tmp_path / "m.sqlite3")
    items = {mid: MemoryItem(text, "events", latest_update_time=(NOW - timedelta(days=days)).isoformat())
             for mid, (text, days) in BANK.items()}
    mm.import_items(items)
    r = MechanicalRetriever(mm, now=lambda: NOW)
    yield r
    r.close()
    mm.close()


@pytest.mark.parametrize(
    ("question", "memory"),
    [
        ("How is Mia's tooth?", "teeth"),
        ("What does Leo's child like?", "kids"),
        ("Where does Anna go with her sister?", "paris"),
        ("Did Tom buy anything?", "bike"),
    ],
)
def test_irregular_forms_are_recalled(retriever, question, memory):
    assert ids(retriever.retrieve(question, 3))[0] == memory


def test_english_time_words_find_memories_by_date(retriever):
    assert ids(retriever.retrieve("Where did Sam go hiking last month?", 3))[0] == "hike_old"
    assert ids(retriever.retrieve("Where did Sam go hiking yesterday?", 3))[0] == "hike_new"
    assert ids(retriever.retrieve("Sam 上个月 去哪里 hiking", 3))[0] == "hike_old"
    assert ids(retriever.retrieve("anything on this Friday?", 3))[0] == "dentist_todo"  # the date it names


def test_keys_of_an_english_text_are_plain_numbers():
    keys = tok.document_keys("Teeth and children")
    assert keys.dtype == np.uint64 and len(keys) == 2


def test_the_english_of_a_chinese_word_is_read_as_memories_are():
    # chinese_en.tsv's keys go through the same stem (scripts/build_lexicon.py): 凤爪 -> chicken foot, 断腿 -> break leg
    from sonetto_desktop.memory.retrieval.lexicon import english_of

    got = english_of(["凤爪", "断腿"])
    memory = set(tok.document_terms("chicken feet; he broke his leg"))
    assert {"w:chicken", "w:foot", "w:break", "w:leg"} <= set(got) and set(got) <= memory
