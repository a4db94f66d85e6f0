"""A theme's card view lays its cards out itself (issue 29): each card is measured once while the
wall fills (QListView's own layout, which asked every card's size again whenever rows were added,
is not run), the cards are painted where the flow puts them (also deep in a big theme), and the
keys move through the cards in reading order and bring the current one into view."""

from __future__ import annotations

from PySide6.QtCore import QPoint, Qt
from PySide6.QtGui import QColor
from PySide6.QtTest import QTest

from sonetto_desktop.ui.wall import card_delegate
from sonetto_desktop.ui.wall.card_delegate import DENSITIES
import test_wall_loading as loading
from test_wall_loading import CARDS, _wall, loaded, picture, shown_ids

big_store, big_service = loading.big_store, loading.big_service  # the wall of 3,000 cards (fixtures)


class Counted:
    """How often a method of a class is called (the method itself still runs), and with how many cards."""

    def __init__(self, monkeypatch, owner, name: str, cards_arg: bool = False) -> None:
        self.calls = 0
        self.cards = 0
        method = getattr(owner, name)

        def counted(this, *args, **kwargs):
            self.calls += 1
            if cards_arg:
                self.cards += len(args[0])
            return method(this, *args, **kwargs)

        monkeypatch.setattr(owner, name, counted)


async def test_each_card_is_measured_once_while_the_wall_fills_in_slices(big_service, qtbot, wait, monkeypatch):
    measured = Counted(monkeypatch, card_delegate.CardMetrics, "measure", cards_arg=True)
    size_hints = Counted(monkeypatch, card_delegate.CardDelegate, "sizeHint")
    wall = _wall(big_service, qtbot, slice_cards=150)
    await wall.reload()
    await loaded(wall, wait)
    assert wall.loader.steps > 10 and len(shown_ids(wall)) == CARDS
    assert measured.cards == CARDS  # each card once, however many slices its theme grew in
    # Qt asks a card's size only for its own bookkeeping (a few times per view), not per card
    assert size_hints.calls < 10 * len(wall.sections())


def _card_bg(view) -> QColor:
    return view.card_colors()["cardBackground"]


def _inside(rect, density: str = "comfortable") -> QPoint:
    """A point of the card's surface where nothing is drawn on it (right of its text's top line)."""
    margin = DENSITIES[density].margin
    return QPoint(rect.right() - margin - 6, rect.top() + margin + 2)


async def test_cards_are_painted_where_the_flow_puts_them(wall, populated_store, wait):
    await wall.reload()
    view = wall.section("品味").view
    view.setProperty("cardBackground", QColor("#204060"))  # (as the QSS sets it: unlike the view's own)
    image = view.viewport().grab().toImage()
    for row in range(view.proxy.rowCount()):
        rect = view.visualRect(view.proxy.index(row, 0))
        assert rect.isValid() and view.indexAt(rect.center()).row() == row
        assert image.pixelColor(_inside(rect)) == _card_bg(view), row
        gap = QPoint(rect.left() + 1, rect.center().y())  # the margin around the painted card
        assert image.pixelColor(gap) != _card_bg(view)


async def test_cards_deep_in_a_big_theme_are_painted_when_scrolled_to(big_service, qtbot, wait):
    wall = _wall(big_service, qtbot)
    await wall.reload()
    await loaded(wall, wait)
    top = wall.sections_in_order()[0]
    view, proxy = top.view, top.proxy
    view.setProperty("cardBackground", QColor("#204060"))
    target = proxy.index(proxy.rowCount() - 5, 0)  # near the end of the biggest theme
    rect = view.visualRect(target)
    assert rect.top() > 3 * wall.scroll.viewport().height()  # far below the first screen
    await wait(lambda: top.height() > view.height() == view.viewport().height() > rect.bottom(),
               message="the section as tall as its cards")
    view.scrollTo(target)  # the wall scrolls, not the view
    await wait(lambda: wall.scroll.verticalScrollBar().value() > 0)
    at = view.viewport().mapTo(wall.scroll.viewport(), _inside(rect))
    assert wall.scroll.viewport().rect().contains(at)
    image = wall.scroll.viewport().grab().toImage()
    assert image.pixelColor(at) == _card_bg(view)


async def test_the_keys_move_in_reading_order_and_bring_the_card_into_view(big_service, qtbot, wait):
    wall = _wall(big_service, qtbot)
    await wall.reload()
    await loaded(wall, wait)
    view, proxy = wall.sections_in_order()[0].view, wall.sections_in_order()[0].proxy
    flow = view.flow()
    view.setFocus()
    view.setCurrentIndex(proxy.index(0, 0))
    first_row_end = flow.counts[0] - 1
    for _ in range(first_row_end):
        QTest.keyClick(view, Qt.Key.Key_Right)
    assert view.currentIndex().row() == first_row_end
    QTest.keyClick(view, Qt.Key.Key_Right)  # on to the next row
    assert view.currentIndex().row() == first_row_end + 1 == flow.starts[1]
    QTest.keyClick(view, Qt.Key.Key_Left)
    assert view.currentIndex().row() == first_row_end
    QTest.keyClick(view, Qt.Key.Key_Down)  # the card below, nearest to the current one
    below = view.visualRect(view.currentIndex())
    was = view.visualRect(proxy.index(first_row_end, 0))
    assert flow.row_of(view.currentIndex().row()) == 1
    assert below.left() <= was.center().x() <= below.right() or view.currentIndex().row() == flow.starts[2] - 1
    QTest.keyClick(view, Qt.Key.Key_Right, Qt.KeyboardModifier.ShiftModifier)  # a range in reading order
    assert len(view.selected_ids()) == 2
    bar = wall.scroll.verticalScrollBar()
    assert bar.value() == 0
    QTest.keyClick(view, Qt.Key.Key_End)
    assert view.currentIndex().row() == proxy.rowCount() - 1
    await wait(lambda: bar.value() > 0, message="the wall scrolled to the last card")
    rect = view.visualRect(view.currentIndex())
    top = view.viewport().mapTo(wall.container, rect.topLeft()).y()
    assert bar.value() <= top and top + rect.height() <= bar.value() + wall.scroll.viewport().height()


async def test_a_theme_loaded_while_collapsed_is_laid_out_when_opened(big_service, qtbot, wait):
    wall = _wall(big_service, qtbot, slice_cards=150)
    await wall.reload()
    await loaded(wall, wait)
    last = wall.sections_in_order()[-1].theme
    wall.set_collapsed(last, True)
    await wall.reload()  # loaded while its cards are hidden
    await loaded(wall, wait)
    section = wall.section(last)
    assert section.is_collapsed() and len(section.proxy.ids()) > 0
    wall.set_collapsed(last, False)
    await wait(lambda: section.view.isVisible() and section.view.height() > 100)
    fresh = _wall(big_service, qtbot, slice_cards=10 ** 9)
    await fresh.reload()
    await loaded(fresh, wait)
    assert picture(wall) == picture(fresh)
