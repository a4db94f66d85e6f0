"""The wall's search (issue 15, items 8 and 9): spaces and punctuation do not matter, pinyin (full
or initials) finds Chinese, matches are highlighted, Esc clears, Ctrl+F focuses; "用到 N 次"."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
from PySide6.QtCore import Qt
from PySide6.QtGui import QKeySequence
from PySide6.QtWidgets import QToolButton, QWidget

from sonetto_desktop.ui.wall.memory_model import CardRole
from sonetto_desktop.ui.wall.search_text import SearchQuery, collapse, pinyin_key, warm_pinyin


def shown(wall):
    return sorted(d for s in wall.visible_sections() for d in
                  (s.proxy.index(r, 0).data(CardRole.Description) for r in range(s.proxy.rowCount())))


async def test_spaces_and_punctuation_do_not_matter(wall, populated_store):
    await wall.reload()
    for query in ("手冲 咖啡", "咖啡,不加糖", "咖啡 。不加 糖", "RUST重写", "rust, 重写"):
        wall.set_search(query)
        assert shown(wall) != [] and len(shown(wall)) == 1, query
    wall.set_search("手冲 咖啡")
    assert shown(wall) == ["喜欢手冲咖啡，不加糖"]


async def test_pinyin_and_initials_find_chinese_computed_off_the_qt_thread(wall, populated_store, wait):
    from sonetto_desktop.ui.wall import search_text

    await wall.reload()
    search_text._cache.clear()  # as after a start: no pinyin made yet
    wall.set_search("kafei")
    # pinyin is made in a worker: the search returned before any was computed on the Qt thread
    assert pinyin_key(collapse("喜欢手冲咖啡，不加糖")) is None and shown(wall) == []
    assert wall.search.warming is not None and not wall.search.warming.done()
    # meanwhile the wall never says nothing matches: it says the pinyin is being made (seen at 100,000
    # memories: 20 s of "没有和「jita」匹配的记忆。" before 14,988 cards appeared)
    await wait(lambda: wall.empty_label.isVisible() or shown(wall), message="the search's first pass")
    if not shown(wall):
        assert "拼音" in wall.empty_label.text() and "没有" not in wall.empty_label.text(), wall.empty_label.text()
    await wait(lambda: shown(wall) == ["喜欢手冲咖啡，不加糖"], message="full pinyin")
    wall.set_search("xc")  # 香菜
    assert shown(wall) == ["讨厌香菜"]
    wall.set_search("nian gao")  # 年糕, with a space
    assert shown(wall) == ["有一只叫年糕的橘猫"]
    wall.set_search("pw")  # the theme 品味 by its initials: the whole theme
    assert len(shown(wall)) == 3
    wall.set_search("zzqx")  # pinyin of nothing here, every card's pinyin made: it says so
    await wait(lambda: wall.empty_label.isVisible(), message="the empty wall")
    assert wall.empty_label.text() == "没有和「zzqx」匹配的记忆。"


async def test_a_pinyin_search_reads_the_cards_texts_off_the_qt_thread(wall, populated_store, wait, monkeypatch):
    """Which cards still need pinyin is worked out in the worker, not on the Qt thread: at 100,000
    memories collapsing 200,000 texts and looking each up held the window 130-570 ms per keystroke
    of a pinyin search (issue 37, ``bench/ui_interactions.py``)."""
    import threading

    from sonetto_desktop.ui.wall import search, search_text

    await wall.reload()
    search_text._cache.clear()  # as after a start: no pinyin made yet
    threads: list[str] = []
    collapse_ = search.collapse

    def watched(text: str) -> str:
        threads.append(threading.current_thread().name)
        return collapse_(text)

    monkeypatch.setattr(search, "collapse", watched)
    for typed in ("k", "ka", "kaf", "kafei"):  # each keystroke, the last one after a warm is running
        wall.set_search(typed)
    await wait(lambda: shown(wall) == ["喜欢手冲咖啡，不加糖"], message="full pinyin")
    assert threads, "the cards' texts were read for their pinyin"
    assert threading.main_thread().name not in threads
    threads.clear()
    wall.set_search("xc")  # everything warm: nothing read on the Qt thread either
    await wait(lambda: shown(wall) == ["讨厌香菜"] and not wall.search.pinyin_pending())
    assert threading.main_thread().name not in threads


def test_the_pinyin_search_reads_a_small_table_of_its_own_not_pypinyin():
    """pypinyin loaded its dictionaries at the first pinyin search, in the worker but holding the GIL
    ~270 ms (the window stalled 0.23-0.8 s) and adding ~78 MB (issue 37): the wall's pinyin now comes
    from the project's own table. A fresh process, as after a start."""
    code = (
        "import json, sys\n"
        "from sonetto_desktop.ui.wall import search\n"
        "from sonetto_desktop.ui.wall.search_text import SearchQuery, warm_pinyin\n"
        "warm_pinyin(['去重庆吃火锅', '品味'])\n"
        "spans = SearchQuery('chongqing').spans('去重庆吃火锅', '品味')\n"
        "print(json.dumps({'spans': spans, 'pypinyin': sorted(m for m in sys.modules if m.startswith('pypinyin'))}))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert json.loads(out.stdout) == {"spans": [[1, 2]], "pypinyin": []}


@pytest.mark.parametrize(("text", "typed", "span"), [
    ("去重庆吃火锅", "chongqing", (1, 2)),
    ("这件事很重要", "zhongyao", (4, 2)),
    ("这件事很重要", "zy", (4, 2)),
    ("曾经去过一次", "cengjing", (0, 2)),
    ("曾老师推荐的书", "zenglaoshi", (0, 3)),  # 曾 as a family name: pypinyin read it ceng here
    ("曾老师推荐的书", "zls", (0, 3)),
    ("其实很简单", "jiandan", (3, 2)),
    ("单老师的课很好", "shanlaoshi", (0, 3)),  # (pypinyin: dan)
    ("朝朝暮暮", "zhaozhao", (0, 2)),
    ("住在朝阳，离公司近", "chaoyang", (2, 2)),
    ("Rust重写完了", "rustchongxie", (0, 6)),  # letters and 重 in one word (pypinyin: zhongxie)
])
def test_a_polyphonic_character_matches_by_each_of_its_readings(text, typed, span):
    warm_pinyin([text])
    assert SearchQuery(typed).spans(text) == [span]


def test_readings_are_chosen_one_per_character():
    """Any reading of each character, but one reading each, in the order of the text."""
    warm_pinyin(["去重庆吃火锅"])
    for typed in ("chongzhong", "zhongchong", "hongz", "qingqi", "cz"):
        assert SearchQuery(typed).spans("去重庆吃火锅") is None, typed
    assert SearchQuery("huoguo").spans("去重庆吃火锅") == [(4, 2)]
    assert SearchQuery("ongqingch").spans("去重庆吃火锅") == [(1, 3)]  # a stretch, as before
    # where a match is (made for the cards painted) is found on the lines the search matched on
    from sonetto_desktop.ui.wall.search_text import _lines_where

    for text in ("去重庆吃火锅", "Straße 重重 ß，着了", "x", "。", "乤重"):
        warm_pinyin([text])
        key = pinyin_key(text)
        assert [line for line, _ in _lines_where(text)] == [key.full, key.initials], text


def test_rare_characters_are_found_by_their_pinyin_or_by_themselves():
    """The table holds every character CC-CEDICT reads (names' 堃, an extension-A 䶮), not only the
    common ones; one it lacks is still found by itself, and the characters around it by pinyin."""
    texts = ["王堃的生日", "刘䶮的故事", "在乤村的老家"]
    warm_pinyin(texts)
    assert SearchQuery("wangkun").spans(texts[0]) == [(0, 2)]
    assert SearchQuery("liuyan").spans(texts[1]) == [(0, 2)]
    assert SearchQuery("乤").spans(texts[2]) == [(1, 1)]
    assert SearchQuery("laojia").spans(texts[2]) == [(4, 2)]


async def test_matches_are_highlighted_in_the_card(wall, populated_store, wait):
    await wall.reload()
    wall.set_search("咖啡")
    section = wall.section("品味")
    index = section.proxy.index(0, 0)
    assert index.data(CardRole.Highlights) == [(4, 2)]
    wall.set_search("kf")
    await wait(lambda: section.proxy.rowCount() == 1 and section.proxy.index(0, 0).data(CardRole.Highlights) == [(4, 2)])
    section.view.grab()  # the highlight paints
    wall.set_search("")
    assert section.proxy.index(0, 0).data(CardRole.Highlights) == []


async def test_escape_clears_and_ctrl_f_focuses_the_search(wall, populated_store, qtbot):
    await wall.reload()
    other = QWidget(wall)
    other.setFocusPolicy(Qt.FocusPolicy.StrongFocus)
    other.show()
    other.setFocus()
    wall.activateWindow()
    assert QKeySequence(QKeySequence.StandardKey.Find).toString() == "Ctrl+F"
    qtbot.keyClick(other, Qt.Key.Key_F, Qt.KeyboardModifier.ControlModifier)
    assert wall.search_edit.hasFocus()
    wall.search_edit.setText("香菜")  # (QTest types ASCII only)
    wall.set_search(wall.search_edit.text())
    assert shown(wall) == ["讨厌香菜"]
    qtbot.keyClick(wall.search_edit, Qt.Key.Key_Escape)
    assert wall.search_edit.text() == "" and wall.search_text() == ""
    assert len(shown(wall)) == 6
    # the box's clear button goes with the text (it stayed in the empty box, seen in a real window)
    clear = wall.search_edit.findChildren(QToolButton)[0]
    qtbot.waitUntil(lambda: not clear.isVisible(), timeout=2000)


def test_query_rules():
    query = SearchQuery("手冲 咖啡")
    assert query.spans("喜欢手冲咖啡，不加糖") == [(2, 2), (4, 2)]
    assert SearchQuery("冲咖").spans("喜欢手冲 咖啡") == [(3, 3)]  # across the space
    assert SearchQuery("").spans("anything") == []
    assert SearchQuery("。，").words == ()  # punctuation alone searches for nothing
    assert SearchQuery("xyz").spans("喜欢手冲咖啡") is None


async def test_an_emoji_alone_finds_the_cards_that_have_it(wall, populated_store, wait):
    """Symbols are left out of a search's words (「咖啡😋」 finds 咖啡), so a search for 😋 alone had no
    words and showed every card, as if nothing were searched."""
    populated_store.add("周末吃了火锅😋，还想再去", "品味", reason="test")
    populated_store.add("看到彩虹了❤️", "瞬间", reason="test")
    await wall.reload()
    everything = shown(wall)
    wall.set_search("😋")
    await wait(lambda: shown(wall) == ["周末吃了火锅😋，还想再去"], message="the card with 😋 alone")
    assert wall.section("品味").proxy.index(0, 0).data(CardRole.Highlights) == [(6, 1)]
    wall.set_search("❤")  # with or without the emoji's variation selector
    await wait(lambda: shown(wall) == ["看到彩虹了❤️"], message="❤ finds ❤️")
    wall.set_search("🐼")
    await wait(lambda: shown(wall) == [], message="no card has 🐼")
    wall.set_search("")
    await wait(lambda: shown(wall) == everything)


def test_a_query_of_symbols_alone_looks_for_them_as_written():
    assert SearchQuery("😋") and SearchQuery("😋").spans("火锅😋好吃") == [(2, 1)]
    assert SearchQuery("❤️").spans("彩虹❤真好") == [(2, 1)] and SearchQuery("❤").spans("彩虹❤️") == [(2, 1)]
    assert SearchQuery("😋").spans("火锅好吃") is None and SearchQuery("😋").matches("火锅", "😋 吃的")
    assert not SearchQuery("。，")  # punctuation alone still searches for nothing
    assert SearchQuery("咖啡😋").words == ("咖啡",)  # beside words a symbol is not needed to match


async def test_the_footer_says_how_often_a_memory_was_used(wall, populated_store):
    from sonetto_desktop.ui.wall.memory_model import uses_text

    coffee = populated_store.ids["喜欢手冲咖啡，不加糖"]
    for _ in range(9):
        populated_store.hit(coffee)
    await wall.reload()
    assert uses_text(9) == "用到 9 次"
    index = wall.section("品味").proxy.index_of(coffee)
    tip = index.data(Qt.ItemDataRole.ToolTipRole)
    assert "用到 9 次" in tip and "对话" in tip and "命中" not in tip
    assert wall.sort_combo.itemText(1) == "用到最多"


@pytest.mark.parametrize("separator", ["，", "、", "；", "。", "\u3000", "「"])
def test_chinese_punctuation_separates_words(separator):
    card = "用户喜欢手冲咖啡，常喝拿铁"
    assert SearchQuery(f"咖啡{separator}拿铁").spans(card, "品味")
    assert SearchQuery(f"拿铁{separator}咖啡").spans(card, "品味")  # in any order, like 「咖啡 拿铁」
    assert SearchQuery(f"咖啡{separator}乌龙").spans(card, "品味") is None


async def test_a_query_with_chinese_punctuation_filters_the_wall(wall, populated_store):
    await wall.reload()
    wall.set_search("不加糖，手冲")  # two words, in another order than the card's
    assert shown(wall) == ["喜欢手冲咖啡，不加糖"]


@pytest.mark.parametrize("language", ["zh_CN", "en"])
async def test_the_search_boxs_placeholder_is_whole_in_a_900_px_window(qapp, tmp_path, wait, language):
    """At 900 x 600 the wall's search box showed "搜索记忆" up to its very edge, its last stroke cut: the box
    sat at a minimum too narrow for its placeholder, the icon and the clear button's room. The placeholder
    ends before where the clear button appears, and is drawn as in a box with room to spare (compared
    pixel by pixel, the real style sheet and font)."""
    from shell_fixtures import app_settings, running_app

    async with running_app(qapp, app_settings(tmp_path / "data", language=language)) as app:
        app.window.resize(900, 600)
        app.window.show()
        await wait(lambda: app.window.width() == 900, message="the window at 900 px")
        edit = app.window.wall.search_edit
        layout = edit.parentWidget().layout()
        layout.activate()
        assert edit.placeholderText() == ("搜索记忆" if language == "zh_CN" else "Search")
        clear = next(b for b in edit.findChildren(QToolButton)
                     if b.defaultAction() is not None and b.defaultAction().objectName() == "_q_qlineeditclearaction")
        ends = edit.cursorRect().center().x() + edit.fontMetrics().horizontalAdvance(edit.placeholderText())
        assert ends <= clear.geometry().left(), (edit.width(), ends, clear.geometry())
        width, height = edit.width(), edit.height()
        seen = edit.grab().toImage()
        edit.resize(width + 300, height)  # the same box with room to spare
        roomy = edit.grab().toImage()
        layout.invalidate()
        layout.activate()
        inner = range(edit.cursorRect().left(), width - 8)  # from where the text starts to the box's right edge
        differ = [x for x in inner if any(seen.pixel(x, y) != roomy.pixel(x, y) for y in range(3, height - 3))]
        assert differ == [], f"{width} px: the placeholder is cut from x={differ[0] if differ else None}"
