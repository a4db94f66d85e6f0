"""Recall that generalises: category knowledge, themes as evidence, feedback, query reading."""

from __future__ import annotations

from datetime import datetime, timedelta

import pytest

from helpers import ids
from sonetto_desktop.memory import MemoryItem, SqliteMemoryManager
from sonetto_desktop.memory.retrieval import segment
from sonetto_desktop.memory.retrieval.lexicon import Lexicon, default_lexicon
from sonetto_desktop.memory.retrieval.mechanical import MechanicalRetriever

NOW = datetime(2026, 12, 2, 12, 0)

# Our own small bank: each memory names a specific thing, never its category.
BANK = {
    "durian": ("阿宁最爱吃榴莲，一次能吃半个。", "品味"),
    "badminton": ("阿宁每周四晚上去体育馆打羽毛球。", "爱好"),
    "singer": ("阿宁单曲循环陈奕迅的《好久不见》。", "爱好"),
    "washer": ("阿宁家的洗衣机是海尔的，用了五年。", "生活"),
    "phone": ("阿宁用的手机是小米14。", "生活"),
    "review": ("小米14的拍照挺好，就是发热有点严重。", "生活"),
    "sister": ("阿宁的姐姐叫周琳，在成都当律师。", "身份"),
    "cold": ("阿宁这两天感冒了，一直流鼻涕。", "健康"),
    "fruit_dislike": ("阿宁不太爱吃水果，嫌麻烦。", "品味"),
    "violin": ("阿宁小时候学过小提琴。", "爱好"),
}


def _retriever_over(path, bank):
    """A retriever over a real SQLite store holding ``bank`` (id -> (text, theme)), ten days old."""
    mm = SqliteMemoryManager(path)
    stamp = (NOW - timedelta(days=10)).isoformat()
    mm.import_items({mid: MemoryItem(d, t, latest_update_time=stamp) for mid, (d, t) in bank.items()})
    r = MechanicalRetriever(mm, now=lambda: NOW)
    yield r
    r.close()
    mm.close()


@pytest.fixture
def retriever(tmp_path):
    yield from _retriever_over(tmp_path / "k.sqlite3", BANK)


@pytest.mark.parametrize(
    "prompt, expected",
    [
        ("我喜欢吃什么水果", "durian"),  # category -> member
        ("周末想做点运动", "badminton"),
        ("我平时爱听哪个歌手", "singer"),
        ("家里的电器该换了", "washer"),
        ("我会什么乐器", "violin"),
    ],
)
def test_a_category_question_finds_the_specific_thing(retriever, prompt, expected):
    assert expected in ids(retriever.retrieve(prompt, 5))


def test_a_specific_thing_finds_a_memory_about_its_category(retriever):
    assert "fruit_dislike" in ids(retriever.retrieve("买了几个芒果", 5))


def test_a_relation_word_finds_the_person(retriever):
    assert ids(retriever.retrieve("我姐最近忙吗", 3))[0] == "sister"


def test_feedback_brings_memories_about_the_same_thing(retriever):
    got = ids(retriever.retrieve("我手机用着怎么样", 5))
    assert got[0] == "phone" and "review" in got  # the review never says 手机


def test_category_knowledge_does_not_answer_unrelated_requests(retriever):
    assert "fruit_dislike" not in ids(retriever.retrieve("苹果手机怎么截长图"))  # 苹果 here is no fruit
    for prompt in ("地球到月球有多远", "宇宙有多大", "帮我把这句话翻译成英文"):
        assert retriever.retrieve(prompt) == []


def test_a_bank_theme_named_like_a_category_is_lifted(tmp_path):
    mm = SqliteMemoryManager(tmp_path / "t.sqlite3")
    stamp = (NOW - timedelta(days=10)).isoformat()
    mm.import_items({
        "gym": MemoryItem("每周三去健身房练腿。", "运动", latest_update_time=stamp),
        "food": MemoryItem("每周三晚上吃火锅。", "美食", latest_update_time=stamp),
    })
    r = MechanicalRetriever(mm, now=lambda: NOW)
    scored = dict((d["id"], s) for d, s in r.scored("每周三去打羽毛球"))
    assert scored["gym"] > scored["food"]  # 羽毛球 is a 运动, and the bank has a theme 运动
    r.close()
    mm.close()


def test_categories_file_is_loaded_and_validated(tmp_path):
    lex = default_lexicon()
    assert lex.expansions["水果"]["榴莲"] > 0 and lex.expansions["榴莲"]["水果"] > 0
    assert lex.expansions["吃的"]["榴莲"] < lex.expansions["水果"]["榴莲"]  # one level further down
    assert "音乐" in lex.category_names(["周杰伦"]) and "运动" in lex.category_names(["羽毛球"])
    bad = tmp_path / "cat.yaml"
    bad.write_text("categories:\n  水果:\n    parents: [不存在]\n", encoding="utf-8")
    with pytest.raises(ValueError, match="unknown parents"):
        Lexicon.load(categories=bad)
    bad.write_text("categories:\n  水果: [苹果]\n", encoding="utf-8")
    with pytest.raises(ValueError, match="mapping"):
        Lexicon.load(categories=bad)


def test_query_words_are_found_without_a_dictionary():
    vocab = {"布偶猫", "汤圆", "什么", "吃点"}

    def known(cands):
        return [c in vocab for c in cands]

    words, unknown = segment.query_words("我的布偶猫汤圆今晚吃点什么", known, lambda ch: ch == "吃")
    assert words[:2] == ["布偶猫", "汤圆"] and "吃" in words and "什么" not in words
    assert unknown == ["今晚"]
    words, unknown = segment.query_words("Python 的 list 怎么排序", known)
    assert "python" in words and "list" in words and "排序" in unknown
    words, unknown = segment.query_words("有多高", known, cut=lambda s: ["有", "多", "高"])
    assert words == ["高"] and unknown == []


# Written Cantonese and internet slang: a memory is written in plain Mandarin by the writer.
PLAIN = {
    "brother": ("阿宁的弟弟阿杰在武汉读大学，学的是土木工程。", "身份"),
    "cilantro": ("阿宁不吃香菜，闻到味道就想吐。", "品味"),
    "commute": ("阿宁每天坐地铁上班，单程四十分钟。", "生活"),
    "low": ("阿宁和前男友分手后，情绪一直很低落。", "心情"),
    "slack": ("阿宁上班时常偷懒刷微博，被领导说过一次。", "工作"),
    "sister": ("阿宁的姐姐叫周琳，在成都当律师。", "身份"),
    "hotpot": ("阿宁最爱吃重庆火锅，每月至少去一次。", "品味"),
    "japanese": ("阿宁在学日语，准备明年考N2。", "学习"),
    "cat": ("阿宁养了一只橘猫，叫可乐。", "生活"),
    "badminton": ("阿宁每周四晚上去体育馆打羽毛球。", "爱好"),
    "flight": ("阿宁订了12月20日去厦门的飞机，早上八点起飞。", "时效待办"),
    "home": ("阿宁住在杭州西湖区，离公司骑车十分钟。", "身份"),
    "allergy": ("阿宁对芒果过敏，吃了嘴巴会肿。", "健康"),
    "cousin": ("阿宁的表哥在深圳做硬件工程师。", "身份"),
}


@pytest.fixture
def plain_bank(tmp_path):
    yield from _retriever_over(tmp_path / "p.sqlite3", PLAIN)


@pytest.mark.parametrize("prompt, expected", [
    ("我细佬而家读紧乜嘢专业", "brother"),  # 细佬 = 弟弟
    ("我可唔可以食芫荽", "cilantro"),  # 芫荽 = 香菜
    ("今晚去唔去打边炉", "hotpot"),  # 打边炉 = 火锅
    ("唉又emo了，睡唔着", "low"),  # emo = 低落
    ("今天又摸鱼了一下午", "slack"),  # 摸鱼 = 偷懒
])
def test_cantonese_and_slang_words_find_the_plain_memory_first(plain_bank, prompt, expected):
    assert ids(plain_bank.retrieve(prompt, 5))[:1] == [expected]


def test_variants_are_one_way_and_carry_the_plain_words_links(tmp_path):
    lexicon = default_lexicon()
    assert lexicon.expansions["细佬"]["弟弟"] >= 0.8
    assert "细佬" not in lexicon.expansions.get("弟弟", {})  # a Mandarin question does not turn Cantonese
    assert lexicon.expansions["细佬"].get("哥哥", 0.0) > 0.0  # 弟弟's own links (family words) carry over
    bad = tmp_path / "bad.yaml"
    bad.write_text("variants:\n  细佬: 弟弟\n", encoding="utf-8")
    with pytest.raises(ValueError, match="variant"):
        Lexicon.load(synonyms=bad)


@pytest.mark.parametrize("prompt, expected", [
    ("🐱 最近掉毛好厉害", "cat"),
    ("这周还去🏸吗", "badminton"),
    ("✈️ 几点的来着", "flight"),
])
def test_an_emoji_finds_the_memory_of_what_it_shows(plain_bank, prompt, expected):
    assert ids(plain_bank.retrieve(prompt, 5))[:1] == [expected]


def test_emoji_names_keep_what_an_emoji_shows_and_drop_its_marks():
    from sonetto_desktop.memory.retrieval.emoji_names import MAX_EMOJI, emoji_names

    # a skin tone, the joiner, a gender sign and a variation selector shape 🏃; 🐱's "face" says nothing
    assert emoji_names("🏃🏻‍♀️ 和 🐱🐱 还有 ✈️") == ["runner", "cat", "airplane"]
    assert emoji_names("😂😭🙏 哈哈") == []  # expressions, not topics
    assert emoji_names("🇨🇳 © 中文 abc") == []  # a flag's letters, a symbol outside the emoji ranges
    assert len(emoji_names("".join(chr(0x1F400 + i) for i in range(60)))) == MAX_EMOJI


@pytest.mark.parametrize("prompt, expected", [
    ("我住在航州哪个区来着", "home"),  # 航 for 杭: the same syllable
    ("我对啥东西过民来着", "allergy"),  # 民 for 敏
    ("谁在深证工作来着", "cousin"),  # 证 (zheng) for 圳 (zhen): a keyboard's fuzzy -eng/-en
])
def test_a_typo_from_a_pinyin_keyboard_finds_the_word_it_meant(plain_bank, prompt, expected):
    assert ids(plain_bank.retrieve(prompt, 5))[:1] == [expected]


def test_sound_alike_words_are_the_banks_words_one_character_away_in_sound():
    from sonetto_desktop.memory.retrieval.typos import sound_alike_words, sounds_like

    assert "杭" in sounds_like("航") and "敏" in sounds_like("民") and "圳" in sounds_like("证")
    assert "航" not in sounds_like("航") and "猫" not in sounds_like("民")
    bank = {"杭州", "过敏", "国民", "深圳"}
    asked: list[list[str]] = []

    def known(words):
        asked.append(words)
        return [w in bank for w in words]

    assert sound_alike_words(["航州"], known) == ["杭州"]
    assert set(sound_alike_words(["过民"], known)) == {"过敏", "国民"}  # either character may be the slip
    assert set(sound_alike_words(["航州", "深证读"], known)) == {"杭州", "深圳"}
    assert len(asked) == 3  # one question to the bank for all the pieces of a message
    assert sound_alike_words(["天"], known) == [] and sound_alike_words(["很" * 40], known) == []
    assert len(asked) == 3  # nothing to ask
