"""The wall's count in a narrow window says a big number short (issue 38 item 9): "1.1万 条" /
"10.5k memories", not "10,5…" cut by the toolbar. Real widgets, a real store."""

from __future__ import annotations

from PySide6.QtWidgets import QWidget

from sonetto_desktop.memory import MemoryItem
from sonetto_desktop.ui.i18n import short_number
from sonetto_desktop.ui.widgets.elided_label import ElidedLabel


def test_short_numbers(qapp):
    assert [short_number(n) for n in (9_999, 10_000, 12_345, 100_000, 123_456_789)] == \
        ["9999", "1万", "1.2万", "10万", "1.2亿"]


def test_the_label_shows_the_short_form_when_the_whole_does_not_fit(qtbot):
    host = QWidget()
    qtbot.addWidget(host)
    label = ElidedLabel(host)
    host.show()
    label.set_texts("100,000 / 100,000 条", "10万 / 10万 条")
    label.resize(label.fontMetrics().horizontalAdvance("10万 / 10万 条") + 8, 20)
    assert label.elided() == "10万 / 10万 条" and label.toolTip() == "100,000 / 100,000 条"
    label.resize(label.fontMetrics().horizontalAdvance("100,000 / 100,000 条") + 8, 20)
    assert label.elided() == "100,000 / 100,000 条" and label.toolTip() == ""
    label.setText("3 条")  # a plain text forgets the short form
    assert label.elided() == "3 条"


async def test_a_narrow_wall_says_a_big_count_short(wall, populated_store, wait):
    populated_store.import_items({f"n{i:05d}": MemoryItem(f"第 {i} 条笔记", "笔记") for i in range(10_500)})
    await wall.reload()
    label = wall.count_label
    total = populated_store.count()
    await wait(lambda: not wall.loading(), timeout=60)
    await wait(lambda: label.text() == f"{total:,} 条", timeout=10)
    label.resize(label.fontMetrics().horizontalAdvance("1.1万 条") + 6, label.height())  # squeezed
    assert label.fontMetrics().horizontalAdvance(f"{total:,} 条") > label.contentsRect().width()
    assert label.elided() == "1.1万 条" and label.toolTip() == f"{total:,} 条"


async def test_a_count_with_no_room_for_its_word_keeps_the_number_whole(wall, populated_store, wait, english):
    """In English at 900 x 600 the toolbar had room for "36 m…": the count's word gives way before its
    number ("36", the whole in the tooltip); a filter's "1 of 36" becomes "1 / 36"."""
    await wall.reload()
    await wait(lambda: not wall.loading(), timeout=30)
    label = wall.count_label
    total = populated_store.count()
    await wait(lambda: label.text() == f"{total} memories", timeout=10)
    label.resize(label.fontMetrics().horizontalAdvance(f"{total} m…") + 6, label.height())
    assert label.elided() == f"{total}" and label.toolTip() == f"{total} memories"
    wall.set_search("猫")
    await wait(lambda: label.text() == f"1 of {total}", timeout=10, message=lambda: label.text())
    label.resize(label.fontMetrics().horizontalAdvance(f"1 / {total}") + 6, label.height())
    assert label.elided() == f"1 / {total}" and label.toolTip() == f"1 of {total}"


def test_a_form_that_fits_to_the_pixel_is_shown_whole(qtbot):
    """At 900 x 600 with 3,003 memories the count read "3003…": "3003 条" fitted its 50 px by its rounded
    advance, so no shorter form was tried, and Qt's eliding (which measures a fraction wider) cut it. At
    every width the label shows one of its forms whole, or is narrower than the shortest."""
    host = QWidget()
    qtbot.addWidget(host)
    label = ElidedLabel(host)
    host.show()
    forms = ("3,003 条", "3003 条", "3003")
    label.set_texts(*forms)
    metrics = label.fontMetrics()
    for width in range(metrics.horizontalAdvance("3003") + 2, metrics.horizontalAdvance("3,003 条") + 3):
        label.resize(width, 20)
        assert label.elided() in forms, (width, label.elided())
