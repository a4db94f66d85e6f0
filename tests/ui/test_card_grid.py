"""Cards are sized to their text: a short memory gets a small card, several fit on a row, long ones
wrap to a few lines, full rows are stretched edge to edge; the compact density makes every card
smaller."""

from __future__ import annotations

from datetime import datetime, timedelta

import pytest
from PySide6.QtGui import QFont

from sonetto_desktop.ui.wall.card_delegate import DENSITIES


def _rects(view):
    view.doItemsLayout()
    proxy = view.proxy
    return {proxy.index(r, 0).data(): view.visualRect(proxy.index(r, 0)) for r in range(proxy.rowCount())}


def _grown(metrics, seed: str, piece: str, needs: float) -> str:
    """``seed`` with ``piece`` added until its text is at least ``needs`` px wide in ``metrics``' font
    (whatever font the machine has: without a CJK font every han character is a narrow box)."""
    text = seed
    while metrics.text_width(text) + metrics.chrome + 2 < needs:
        text += piece
    return text


async def test_cards_are_sized_to_their_text(wall, populated_store, wait):
    await wall.reload()
    wall.resize(900, 700)
    view = wall.section("品味").view
    await wait(lambda: view.viewport().width() > 600 and not wall.loading())
    metrics = view.itemDelegate().metrics(view)
    short_card = wall.model.card(populated_store.ids["讨厌香菜"])
    short_natural = metrics.natural_size(short_card).width()
    # a longer memory whose text is clearly wider than the short card, measured in this machine's font
    long_text = _grown(metrics, "最喜欢的乐队是草东没有派对", "！", short_natural + 40)
    populated_store.update(populated_store.ids["最喜欢的乐队是草东没有派对"], "更长", new_description=long_text)
    await wall.reload()
    view = wall.section("品味").view
    await wait(lambda: not wall.loading() and long_text in _rects(view))
    rects = _rects(view)
    short, long = rects["讨厌香菜"], rects[long_text]
    long_natural = metrics.natural_size(wall.model.card(populated_store.ids["最喜欢的乐队是草东没有派对"]))
    # each at least its own width (a row that is nearly full is stretched to the edge)
    assert short.width() >= short_natural and long.width() >= long_natural.width()
    assert short.width() < long.width()  # not one width for every card
    assert short.width() >= DENSITIES["comfortable"].min_width
    assert all(r.top() == rects["讨厌香菜"].top() for r in rects.values())  # three short cards share a row
    assert view.height() < 2 * max(r.height() for r in rects.values())  # no empty rows under them


async def test_a_long_memory_wraps_within_the_maximum_width(wall, populated_store, wait):
    await wall.reload()
    await wait(lambda: not wall.loading())
    view = wall.section("品味").view
    metrics = view.itemDelegate().metrics(view)
    maximum = DENSITIES["comfortable"].max_width
    long_text = _grown(metrics, "用户说过很多关于咖啡的事情，", "用户说过很多关于咖啡的事情，", 2.5 * maximum)
    populated_store.add(long_text, "品味")
    await wall.reload()
    view = wall.section("品味").view
    await wait(lambda: not wall.loading() and long_text in _rects(view))
    rects = _rects(view)
    by_text = {item.description: mid for mid, item in populated_store.all_items().items()}

    def natural(text):
        return view.itemDelegate().card_size(wall.model.card(by_text[text]), view.font(), view)

    assert natural(long_text).width() <= maximum  # it wraps instead of growing
    assert natural(long_text).height() > natural("讨厌香菜").height()  # more lines, taller card
    # placed (perhaps stretched with its row): as tall as its text needs at the width it was given
    nat, texts, badges, spaced = metrics.measure([wall.model.card(by_text[long_text])])
    placed = rects[long_text]
    assert placed.height() >= metrics.height(texts[0], badges[0], spaced[0], placed.width())
    assert placed.height() > rects["讨厌香菜"].height() or placed.top() == rects["讨厌香菜"].top()


async def test_compact_density_makes_cards_smaller_and_is_remembered(service, populated_store, qtbot, tmp_path, wait):
    from PySide6.QtCore import QSettings

    from sonetto_desktop.ui.wall.memory_wall import MemoryWall

    settings = QSettings(str(tmp_path / "ui-state.ini"), QSettings.Format.IniFormat)
    wall = MemoryWall(service, ui_state=settings)
    qtbot.addWidget(wall)
    wall.resize(900, 700)
    wall.show()
    await wall.reload()
    before = sum(r.width() * r.height() for r in _rects(wall.section("品味").view).values())
    wall.density_action.trigger()
    assert wall.density() == "compact"
    after = sum(r.width() * r.height() for r in _rects(wall.section("品味").view).values())
    assert after < 0.8 * before
    again = MemoryWall(service, ui_state=QSettings(str(tmp_path / "ui-state.ini"), QSettings.Format.IniFormat))
    qtbot.addWidget(again)
    assert again.density() == "compact" and again.density_action.isChecked()


async def test_a_narrow_wall_keeps_the_search_box_usable(wall, populated_store, wait):
    from sonetto_desktop.ui.wall.memory_wall import SEARCH_MIN_WIDTH

    await wall.reload()
    wall.resize(wall.minimumSizeHint().width(), 500)  # as narrow as the window lets it get
    await wait(lambda: wall.width() == wall.minimumSizeHint().width())
    wall.toolbar.layout().activate()
    assert wall.search_edit.width() >= SEARCH_MIN_WIDTH
    assert wall.add_button.width() >= wall.add_button.sizeHint().width()  # "新建" is not elided


async def test_a_wide_wall_keeps_the_search_box_a_search_box(wall, populated_store, wait):
    """At 2560 px the search box does not run across the whole wall: it stops at a sensible width,
    the sort beside it, and 新建 and the trash stay at the right end."""
    from sonetto_desktop.ui.wall.toolbar import SEARCH_MAX_WIDTH

    await wall.reload()
    wall.resize(1500, 800)  # the wall's share of a 2560 px window
    await wait(lambda: wall.width() == 1500)
    wall.toolbar.layout().activate()
    assert wall.search_edit.width() <= SEARCH_MAX_WIDTH
    sort = wall.toolbar.sort_combo.geometry()
    assert sort.left() - wall.search_edit.geometry().right() < 12  # the sort stays beside the box
    trash = wall.toolbar.trash_button.geometry()
    assert wall.toolbar.width() - trash.right() < 12  # the trash stays at the right end


async def test_full_rows_fill_the_width_and_share_a_height(wall, populated_store, wait):
    for n in range(30):
        populated_store.add("短" if n % 3 else f"一条稍微长一些的记忆，编号 {n}，用来换行", "工作")
    await wall.reload()
    wall.resize(700, 600)
    view = wall.section("工作").view
    await wait(lambda: 300 < view.viewport().width() < 700)
    view.doItemsLayout()
    rects = [view.visualRect(view.proxy.index(r, 0)) for r in range(view.proxy.rowCount())]
    rows: dict[int, list] = {}
    for rect in rects:
        rows.setdefault(rect.top(), []).append(rect)
    assert len(rows) > 3
    full = [row for top, row in sorted(rows.items())][:-1]  # every row but the last
    for row in full:
        right = max(r.right() for r in row)
        assert view.viewport().width() - 3 <= right < view.viewport().width()  # edge to edge
        assert len({r.height() for r in row}) == 1


async def test_compact_cards_have_no_footer_line_and_show_the_count_beside_the_text(wall, populated_store):
    from sonetto_desktop.ui.wall.card_delegate import count_text

    await wall.reload()
    view = wall.section("品味").view
    card = wall.model.card(populated_store.ids["讨厌香菜"])
    comfortable = view.itemDelegate().card_size(card, view.font(), view)
    wall.set_density("compact")
    compact = view.itemDelegate().card_size(card, view.font(), view)
    assert compact.height() <= comfortable.height() * 0.6
    assert count_text(0) == "0 次"
    view.grab()  # paints


AGO = [timedelta(seconds=20), timedelta(minutes=59), timedelta(hours=5), timedelta(days=1, hours=8),
       timedelta(days=29), timedelta(days=340), timedelta(days=3650)]
FOOTER_SPACE = 12  # px at least between a card's count and its "who · when"


@pytest.mark.parametrize("language", ["chinese", "english"])
@pytest.mark.parametrize("density", ["comfortable"])
def test_a_short_cards_footer_keeps_its_two_halves_apart(request, language, density, qapp):
    """A card as narrow as it may be (a one-word memory) still has room between "用到 N 次" and
    "Sonetto · 3个月前" in either language: the footer is measured with the language's longest time."""
    request.getfixturevalue(language)
    from sonetto_desktop.memory.changes import AGENT, PERSON_ACTORS
    from sonetto_desktop.ui.i18n import ui_language
    from sonetto_desktop.ui.wall.card_delegate import AUTHOR_SEP, CardMetrics
    from sonetto_desktop.ui.wall.memory_model import uses_text
    from sonetto_desktop.presentation.authors import author_label
    from sonetto_desktop.presentation.cards import make_card
    from sonetto_desktop.presentation.relative_time import relative_time

    metrics = CardMetrics(density, QFont())
    now = datetime.now()
    for actor in (AGENT, sorted(PERSON_ACTORS)[0], "mcp:claude-desktop"):
        for ago in AGO:
            for hits in (0, 7, 42, 318):
                card = make_card("m1", "好", "生活", hits, (now - ago).isoformat(timespec="seconds"), actor=actor)
                width = metrics.natural_size(card).width()
                when = relative_time(now - ago, now, lang=ui_language())
                halves = metrics.small_width(uses_text(hits)) + metrics.small_width(author_label(actor) + AUTHOR_SEP + when)
                room = width - metrics.chrome
                assert room - halves >= FOOTER_SPACE, (
                    f"{ui_language()}: 'used {hits}' and {author_label(actor) + AUTHOR_SEP + when!r} "
                    f"{room - halves:.0f} px apart on a {width} px card")


def test_a_card_with_spaces_is_as_tall_as_its_text_wraps(qapp):
    """An English or mixed memory (its text wrapping at spaces) kept a blank last line: its height was the
    text's width plus a tenth over the line's room, where painting wraps whole words (and then sometimes
    one line short: the last words elided). Measured against the painted wrap (real Qt text layout and
    font), never a line short, and a line over only where a word ends within a pixel of the edge."""
    import random

    from PySide6.QtWidgets import QApplication

    from sonetto_desktop.ui.wall.card_delegate import CardMetrics, wrap_lines

    font = QApplication.font()
    words = ("the user likes hiking with friends on weekends and plays guitar every evening after work loves "
             "Taylor Swift 喜欢 周末 去 西湖 散步 learning Japanese photography").split()
    rng = random.Random(5)
    short, over, cases = [], [], 0
    for density in ("comfortable", "compact"):
        metrics = CardMetrics(density, font)
        for _ in range(200):
            text = " ".join(rng.choice(words) for _ in range(rng.randint(2, 30)))
            _, texts, badges, spaced = metrics.measure([("m", text, "爱好", 0, "", None, False, "agent", False, "")])
            for width in (150, 200, 260, 320):
                cases += 1
                lines = round((metrics.height(texts[0], badges[0], spaced[0], width) - metrics.base) / metrics.line_spacing)
                painted = len(wrap_lines(text, font, width - metrics.chrome - badges[0], metrics.max_lines))
                if lines < painted:
                    short.append((density, width, text))
                elif lines > painted:
                    over.append((density, width, text))
    assert short == [], short[:5]
    assert len(over) <= cases // 100, (len(over), cases, over[:5])



def _card_picture(card, density: str, qtbot, size=None):
    """``card`` as the wall's delegate paints it, on a view of ``density``, at ``size`` (its natural size)."""
    from PySide6.QtCore import QRect
    from PySide6.QtGui import QImage, QPainter, QStandardItem, QStandardItemModel
    from PySide6.QtWidgets import QListView, QStyleOptionViewItem

    from sonetto_desktop.ui.wall.card_delegate import CardDelegate
    from sonetto_desktop.ui.wall.memory_model import CardRole

    view = QListView()
    view.density = density
    qtbot.addWidget(view)
    delegate = CardDelegate(view)
    model = QStandardItemModel()
    item = QStandardItem()
    item.setData(card, CardRole.Card)
    item.setData("3分钟前", CardRole.RelativeTime)
    model.appendRow(item)
    option = QStyleOptionViewItem()
    option.font = view.font()
    option.widget = view
    size = size or delegate.card_size(card, view.font(), view)
    option.rect = QRect(0, 0, size.width(), size.height())
    image = QImage(size, QImage.Format.Format_ARGB32)
    image.fill(0)
    painter = QPainter(image)
    delegate.paint(painter, option, model.index(0, 0))
    painter.end()
    return image


@pytest.mark.parametrize("density", ["comfortable", "compact"])
def test_a_cards_text_is_not_turned_around_by_a_direction_control_in_it(qtbot, density):
    """A memory "网址\u202e见下" (a right-to-left override pasted with it) showed on its card as "网址下见", and
    the override took whatever the card drew after it along. The card shows the control as the editor does,
    a mark (⬚) that does nothing to the text around it; the memory keeps what was written."""
    from sonetto_desktop.presentation.cards import make_card

    written = make_card("m1", "网址\u202e见下 and what follows", "资料", 3, "2026-01-02T03:04:05")
    marked = make_card("m1", "网址⬚见下 and what follows", "资料", 3, "2026-01-02T03:04:05")
    reversed_ = make_card("m1", "网址wollof tahw dna 下见", "资料", 3, "2026-01-02T03:04:05")
    expected = _card_picture(marked, density, qtbot)
    shown = _card_picture(written, density, qtbot, expected.size())
    assert shown == expected  # as the editor shows it: a mark, then the text as written, on a card of its size
    assert shown != _card_picture(reversed_, density, qtbot, expected.size())
    assert _card_picture(written, density, qtbot).size() == expected.size()  # (measured as painted)
    assert written[1] == "网址\u202e见下 and what follows"  # (the card's text itself is what was written)
