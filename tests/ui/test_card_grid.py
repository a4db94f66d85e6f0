"""Cards fill the width of the wall: each row's cards stretch so the right edge lines up."""

from __future__ import annotations

from sonetto_desktop.ui.card_delegate import CARD_SIZE


async def test_cards_of_a_row_fill_the_width(wall, populated_store, wait):
    await wall.reload()
    for width in (900, 640, 1111):
        wall.resize(width, 700)
        await wait(lambda: wall.section("品味").view.viewport().width() > 0)
        view = wall.section("品味").view
        view.doItemsLayout()
        proxy = view.proxy
        rects = [view.visualRect(proxy.index(r, 0)) for r in range(proxy.rowCount())]
        columns = view.columns()
        assert columns >= 2
        first_row = [r for r in rects if r.top() == rects[0].top()]
        assert len(first_row) == min(columns, len(rects))
        cell = (view.viewport().width() - 1) // columns
        assert all(r.width() == cell for r in rects)  # wider than the minimum when there is room
        assert cell >= CARD_SIZE.width()
        assert all(r.height() == CARD_SIZE.height() for r in rects)


async def test_a_narrow_wall_keeps_the_search_box_usable(wall, populated_store, wait):
    from sonetto_desktop.ui.memory_wall import SEARCH_MIN_WIDTH

    await wall.reload()
    wall.resize(wall.minimumSizeHint().width(), 500)  # as narrow as the window lets it get
    await wait(lambda: wall.width() == wall.minimumSizeHint().width())
    wall.toolbar.layout().activate()
    assert wall.search_edit.width() >= SEARCH_MIN_WIDTH
    assert wall.add_button.width() >= wall.add_button.sizeHint().width()  # "新建" is not elided
