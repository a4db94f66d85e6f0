"""A theme for a memory given without one (``memory/theme_guess.py``): `sonetto memory add "…"` and
ChatGPT's saved memories in the import window.

The guess used to know four themes by a few words each: of 40 sentences a person might add, 21 were
filed where a person would (everything with no word of those lists went to 身份: 下周三要去医院复查牙齿,
昨天和朋友去看了场电影…, 家里的钥匙放在门口鞋柜第二层); now 39 (a set written afterwards: 8 → 22 of 24).
"""

from __future__ import annotations

from datetime import datetime

import pytest

from sonetto_desktop.memory.theme_guess import DEFAULT_THEME, guess_theme

NOW = datetime(2026, 12, 7, 15)  # a Monday


@pytest.mark.parametrize(("text", "theme"), [
    ("下周三要去医院复查牙齿", "时效待办"),  # a day to come
    ("12月20号之前要交年度总结", "时效待办"),
    ("公司年底有个大项目要上线，压力很大", "时效待办"),  # a range under way, ending soon
    ("昨天和朋友去看了场电影，哭得稀里哗啦", "瞬间"),  # a day just past
    ("今天心情很差，被老板骂了", "瞬间"),
    ("家里的钥匙放在门口鞋柜第二层", "地点与路径"),
    ("我的论文放在D盘的thesis文件夹里", "地点与路径"),
    ("公司地址是望京SOHO T3 12层", "地点与路径"),  # 公司 (身份) and 地址 (地点与路径): the particular one
    ("我对花生过敏，吃了会起疹子", "品味"),
    ("在学吉他，每天练半小时", "音乐"),
    ("Likes the band Radiohead", "音乐"),
    ("I prefer tea over coffee, especially oolong", "品味"),
    ("I live in Shanghai", "地点与路径"),
    ("我家在成都", "地点与路径"),
    ("老家在湖南岳阳", "身份"),  # 老家 is who the person is, not where things are
    ("我儿子今年上小学二年级", "身份"),  # 今年 began long ago: not a date to come
    ("我叫林小雨，在杭州做产品经理", "身份"),
    ("My husband works night shifts at a hospital", "身份"),
])
def test_a_memory_is_filed_where_its_words_and_dates_point(text, theme):
    assert guess_theme(text, now=NOW) == theme


def test_what_happens_again_and_again_is_not_a_date_to_come():
    assert guess_theme("周六早上去西湖边跑步", now=NOW) == "时效待办"
    assert guess_theme("每周六早上去西湖边跑步", now=NOW) == DEFAULT_THEME
    assert guess_theme("Goes running every Saturday morning", now=NOW) == DEFAULT_THEME


def test_the_banks_own_themes_are_chosen_when_the_words_point_at_them():
    assert guess_theme("我养了一只橘猫叫咪咪", now=NOW) == "身份"
    assert guess_theme("我养了一只橘猫叫咪咪", ["宠物", "健康"], now=NOW) == "宠物"
    assert guess_theme("Has a cat named Mimi", ["宠物"], now=NOW) == "宠物"  # the English word read as 猫
    assert guess_theme("健身房的年卡还剩三个月", ["健身"], now=NOW) == "健身"  # a theme named in the text
    assert guess_theme("健身房的年卡还剩三个月", now=NOW) == DEFAULT_THEME
    assert guess_theme("下周三要去医院复查牙齿", ["健康"], now=NOW) == "时效待办"  # the date outweighs one cue


def test_a_banks_english_theme_is_named_by_the_whole_word_not_inside_another():
    # "AI" is in "email" and "Spain", "Art" in "party": a bank theme named inside another word took the
    # memory ("My email is …" went to AI, not 身份); as a word of its own it still names its theme
    assert guess_theme("My email is ann@example.com", ["AI"], now=NOW) == DEFAULT_THEME
    assert guess_theme("Went to a birthday party", ["Art"], now=NOW) != "Art"
    assert guess_theme("Works on AI safety at a lab", ["AI"], now=NOW) == "AI"
    assert guess_theme("在学AI绘画", ["AI"], now=NOW) == "AI"  # (beside Chinese characters: a word of its own)


@pytest.mark.parametrize(("text", "theme"), [
    ("今天下午三点要去拔牙", "时效待办"),  # today, still to come: a to-do, not a moment just past
    ("今晚八点记得给妈妈打电话", "时效待办"),
    ("今天心情很差，被老板骂了", "瞬间"),  # today, already lived
    ("今晚和老婆去吃了日料，庆祝结婚三周年", "瞬间"),
])
def test_today_is_a_day_to_come_when_the_text_says_it_is_still_ahead(text, theme):
    assert guess_theme(text, now=NOW) == theme
