"""General-knowledge questions sharing one word with a memory recall nothing (issue 13)."""

from __future__ import annotations

from datetime import datetime, timedelta

import pytest

from helpers import ids
from sonetto_desktop.memory.retrieval.general_questions import is_general
from recall_banks import bank_retriever

NOW = datetime(2026, 12, 2, 12, 0)

# Our own small bank (not a benchmark set).
BANK = {
    "washer": ("阿宁家的洗衣机是海尔的，用了五年。", "生活"),
    "coffee": ("阿宁早上喝美式咖啡，下午喝拿铁。", "品味"),
    "cat": ("阿宁养了一只橘猫，叫年糕。", "身份"),
    "visa": ("阿宁的护照明年三月到期。", "生活"),
    "violin": ("阿宁小时候学过小提琴。", "爱好"),
}


@pytest.fixture
def retriever(tmp_path):
    with bank_retriever(tmp_path / "g.sqlite3", BANK, NOW) as r:
        yield r


@pytest.mark.parametrize(
    "prompt, shared",
    [
        ("滚筒洗衣机和波轮洗衣机有什么区别", "washer"),
        ("橘猫的学名是什么", "cat"),
        ("护照的有效期一般是几年", "visa"),
        ("小提琴的发明者是谁", "violin"),
        ("橘猫怎么训练才会用猫砂", "cat"),  # a how-to question
    ],
)
def test_a_general_question_sharing_one_word_recalls_nothing(retriever, prompt, shared):
    assert shared in [d["id"] for d, _ in retriever.scored(prompt)]  # the word is shared: BM25 alone would recall it
    assert retriever.retrieve(prompt, 5) == []


@pytest.mark.parametrize(
    "prompt, expected",
    [
        ("我家洗衣机是什么牌子", "washer"),  # about the user
        ("你记得我的护照什么时候到期吗", "visa"),
        ("美式咖啡和拿铁有什么区别", "coffee"),  # general, but the memory covers most of it
        ("海尔洗衣机怎么用", "washer"),
    ],
)
def test_personal_or_covered_questions_still_recall(retriever, prompt, expected):
    assert expected in ids(retriever.retrieve(prompt, 5))


def test_the_hybrid_shortlist_still_offers_the_memory(retriever):
    assert "cat" in ids(retriever.candidates("橘猫的学名是什么", 5))


@pytest.mark.parametrize(
    "text, has_dates, general",
    [
        ("橘猫的学名是什么", False, True),
        ("我家橘猫的学名是什么", False, False),
        ("你知道两种猫有什么区别吗", False, False),
        ("上次说的那家店和这家有什么不同", False, False),
        ("What is the difference between a cat and a dog", False, False),
        ("下周一般几点开会", True, False),
        ("橘猫叫什么名字", False, False),  # no knowledge cue
        ("吉他怎么调音", False, True),
        ("长城一共有多长", False, True),
        ("护照丢了怎么办", False, False),  # advice, not how-to
        ("网站首页的插画画得怎么样了", False, False),  # status
    ],
)
def test_is_general(text, has_dates, general):
    assert is_general(text, has_dates) is general


@pytest.mark.parametrize(
    "prompt, expected",
    [
        ("阿宁一共养了几只猫", "cat"),  # names the memory's subject: about the user's friend, not the world
        ("她一般几点起床", "wake"),  # someone in the user's life
        ("妈妈通常几点睡觉", "sleep"),
    ],
)
def test_a_question_about_the_users_people_is_never_taken_for_a_general_one(tmp_path, prompt, expected):
    """"一共", "一般", "通常" also ask about the user's own people: the review found these recalling nothing."""
    bank = {"cat": ("阿宁养了两只猫，一只橘猫一只狸花。", "身份"), "wake": ("小周每天早上七点起床。", "生活"),
            "sleep": ("用户的妈妈晚上十点就睡觉。", "家人"), "washer": ("阿宁家的洗衣机是海尔的。", "生活")}
    with bank_retriever(tmp_path / "p.sqlite3", bank, NOW, age=timedelta(days=3)) as retriever:
        assert expected in ids(retriever.retrieve(prompt, 5))
