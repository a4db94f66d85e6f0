"""Theme colours (issue 15, item 7; issue 30 item 4): distinct for the themes on a wall — the first
12 pairwise far apart in OKLab in both modes, whatever order they arrive and leave in — stable
across runs and as themes come and go, readable (3:1) on the card surface in light and dark, and
the person's choice."""

from __future__ import annotations

import itertools
import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from PySide6.QtCore import QSettings
from PySide6.QtGui import QColor
from PySide6.QtWidgets import QColorDialog

from sonetto_desktop.ui.wall.theme_colors import THEME_PALETTE, WALL_TOKENS
from sonetto_desktop.ui.wall.theme_palette import ThemeColors, contrast, readable

# the 湾流 seed's default themes, then themes people commonly add (品味/瞬间/项目 and 音乐/爱好/工作
# collided before)
COMMON = ["品味", "瞬间", "项目", "音乐", "爱好", "工作", "身份", "地点与路径", "时效待办",
          "健康", "学习", "人际", "宠物", "家人"]


def _rgb(color):
    return tuple(int(color[i : i + 2], 16) for i in (1, 3, 5))


def oklab(color: str) -> tuple[float, float, float]:
    """sRGB -> OKLab (Björn Ottosson's matrices)."""
    def linear(v: int) -> float:
        c = v / 255
        return c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4

    r, g, b = (linear(v) for v in _rgb(color))
    lms = (0.4122214708 * r + 0.5363325363 * g + 0.0514459929 * b,
           0.2119034982 * r + 0.6806995451 * g + 0.1073969566 * b,
           0.0883024619 * r + 0.2817188376 * g + 0.6299787005 * b)
    l_, m_, s_ = (math.copysign(abs(x) ** (1 / 3), x) for x in lms)
    return (0.2104542553 * l_ + 0.7936177850 * m_ - 0.0040720468 * s_,
            1.9779984951 * l_ - 2.4285922050 * m_ + 0.4505937099 * s_,
            0.0259040371 * l_ + 0.7827717662 * m_ - 0.8086757660 * s_)


def delta_e(a: str, b: str) -> float:
    return math.dist(oklab(a), oklab(b))


MIN_DELTA_E = 0.10  # below this, two 10 px dots of the wall read as one colour
# the seed's themes and what people add; 身份/地点与路径 shared a colour, 健康/瞬间 and 品味/人际 looked alike
TWELVE = ["身份", "地点与路径", "健康", "瞬间", "品味", "人际", "工作", "项目", "音乐", "爱好", "时效待办", "学习"]
EXTRA = ["宠物", "家人", "旅行", "主题10", "主题2"]


def _far_apart(colors: ThemeColors, themes: list[str], mode: str) -> list[str]:
    chosen = {t: colors.color(t, mode) for t in themes}
    return [f"{a} {chosen[a]} ~ {b} {chosen[b]}: ΔE {delta_e(chosen[a], chosen[b]):.3f}"
            for a, b in itertools.combinations(themes, 2) if delta_e(chosen[a], chosen[b]) < MIN_DELTA_E]


@pytest.mark.parametrize("mode", ["light", "dark"])
def test_the_main_palette_is_pairwise_far_apart_and_readable(mode):
    main = THEME_PALETTE[mode][:12]
    closest = min(delta_e(a, b) for a, b in itertools.combinations(main, 2))
    assert closest >= MIN_DELTA_E, closest
    background = WALL_TOKENS[mode]["card_bg"]
    assert all(contrast(c, background) >= 3.0 for c in THEME_PALETTE[mode])


@settings(max_examples=150, deadline=None)
@given(order=st.permutations(TWELVE + EXTRA), data=st.data())
def test_the_first_twelve_themes_are_pairwise_distinct_however_they_come_and_go(order, data):
    """Themes arrive one by one or several at once (a wall's load, a filter), some leave and come
    back; whenever at most 12 themes are on the wall, any two of them are far apart in both modes."""
    colors = ThemeColors()
    on_wall: list[str] = []
    for theme in order[:12]:
        on_wall.append(theme)
        if data.draw(st.booleans(), label="assign now"):
            colors.assign(on_wall)
        if on_wall and data.draw(st.integers(0, 5), label="one leaves") == 0:
            gone = on_wall.pop(data.draw(st.integers(0, len(on_wall) - 1), label="which"))
            colors.assign(on_wall)
            on_wall.append(gone)  # and comes back
        if data.draw(st.booleans(), label="a subset is shown (filter)"):
            colors.assign(data.draw(st.lists(st.sampled_from(on_wall), unique=True), label="subset"))
    colors.assign(on_wall)
    for mode in ("light", "dark"):
        assert _far_apart(colors, on_wall, mode) == []
    again = ThemeColors(dict(colors.slots))  # the next run, from the saved slots: the same colours
    again.assign(on_wall)
    assert {t: again.color(t) for t in on_wall} == {t: colors.color(t) for t in on_wall}


def test_a_returning_theme_does_not_share_a_colour():
    colors = ThemeColors()
    colors.assign(["身份"])
    colors.assign(["地点与路径"])  # 身份 is not on the wall right now (a filter, a deletion)
    colors.assign(["身份", "地点与路径"])
    assert colors.slot("身份") != colors.slot("地点与路径")
    for mode in ("light", "dark"):
        assert _far_apart(colors, ["身份", "地点与路径"], mode) == []


def test_saved_slots_shared_by_two_themes_are_pulled_apart():
    colors = ThemeColors({"身份": 3, "地点与路径": 3, "品味": 14})  # what an older version could save
    colors.assign(["身份", "地点与路径", "品味"])
    assert len({colors.slot(t) for t in ("身份", "地点与路径", "品味")}) == 3
    assert colors.slot("品味") < 12  # a spare colour only while the 12 main ones are all in use


def test_a_rename_its_undo_and_its_redo_each_leave_one_name_holding_the_colour():
    """工作 -> 职场, undone, redone (编辑 ▸ 重做 is an undo of the undo): the colour goes with the cards
    each time, and the name they left never keeps it (a theme made later under it has its own)."""
    colors = ThemeColors(custom={"工作": "#336699"})
    colors.assign(["工作", "品味"])
    slot = colors.slot("工作")
    colors.rename("工作", "职场")
    colors.assign(["工作", "职场", "品味"])  # the cards move one at a time: both share meanwhile
    assert colors.slot("职场") == colors.slot("工作") == slot
    assert colors.assign(["职场", "品味"])  # moved: 工作 gives its colours up
    assert "工作" not in colors.slots and "工作" not in colors.custom
    assert colors.moved_back("职场", "工作", ["职场", "品味"])  # the undo
    colors.assign(["工作", "职场", "品味"])
    colors.assign(["工作", "品味"])
    assert (colors.slot("工作"), colors.color("工作")) == (slot, "#336699")
    assert "职场" not in colors.slots and "职场" not in colors.custom
    assert colors.moved_back("工作", "职场", ["工作", "品味"])  # the redo
    colors.assign(["职场", "品味"])
    assert (colors.slot("职场"), colors.color("职场")) == (slot, "#336699")
    colors.assign(["职场", "品味", "工作"])  # a new 工作, not an undo: a colour of its own
    assert colors.slot("工作") not in (slot, colors.slot("品味")) and "工作" not in colors.custom
    assert not colors.moved_back("职场", "工作", ["职场", "品味", "工作"])  # an undo now joins that theme


@pytest.mark.parametrize("mode", ["light", "dark"])
def test_common_themes_get_distinct_readable_colours(mode):
    colors = ThemeColors()
    colors.assign(COMMON)
    chosen = [colors.color(t, mode) for t in COMMON]
    assert len(set(chosen)) == len(COMMON)
    for first, second in [("品味", "瞬间"), ("品味", "项目"), ("瞬间", "项目"), ("音乐", "爱好"),
                          ("音乐", "工作"), ("爱好", "工作")]:
        assert colors.color(first, mode) != colors.color(second, mode)
    background = WALL_TOKENS[mode]["card_bg"]
    assert all(contrast(c, background) >= 3.0 for c in THEME_PALETTE[mode])
    closest = min(delta_e(x, y) for x, y in itertools.combinations(THEME_PALETTE[mode], 2))
    assert closest > 0.08  # not even the spare colours (themes 13-16) look like another


def test_colours_are_stable_when_themes_come_and_go():
    first = ThemeColors()
    first.assign(["品味", "工作"])
    before = {t: first.color(t) for t in ["品味", "工作"]}
    first.assign(["品味", "工作", *COMMON])  # more themes arrive later
    assert {t: first.color(t) for t in before} == before
    again = ThemeColors(first.slots)  # the next run, from the saved slots
    again.assign(["工作"])
    assert {t: again.color(t) for t in before} == before
    one, two = ThemeColors(), ThemeColors()
    one.assign(COMMON)
    two.assign(list(reversed(COMMON)))
    assert one.slots == two.slots  # the same themes get the same colours on every computer


def test_a_picked_colour_is_made_readable_in_each_mode():
    colors = ThemeColors()
    colors.set_custom("品味", "#ffff00")  # pale yellow: unreadable on white
    light = colors.color("品味", "light")
    assert light != "#ffff00" and contrast(light, WALL_TOKENS["light"]["card_bg"]) >= 3.0
    assert colors.color("品味", "dark") == "#ffff00"  # fine on the dark surface
    assert readable("#123456", "#ffffff") == "#123456"
    with pytest.raises(ValueError):
        colors.set_custom("品味", "yellow")


async def test_the_wall_gives_each_theme_its_own_colour(wall, populated_store):
    for theme in COMMON:
        populated_store.add(f"一条关于{theme}的记忆", theme)
    await wall.reload()
    swatches = {t: s.swatch.color().name() for t, s in wall.sections().items()}
    assert len(set(swatches.values())) == len(swatches)


async def test_changing_a_theme_colour_from_its_header_menu_is_remembered(service, populated_store, qtbot, tmp_path):
    from sonetto_desktop.ui.wall.memory_wall import MemoryWall

    settings = QSettings(str(tmp_path / "ui-state.ini"), QSettings.Format.IniFormat)
    wall = MemoryWall(service, ui_state=settings)
    qtbot.addWidget(wall)
    wall.show()
    await wall.reload()
    section = wall.section("工作")
    menu = wall.actions.theme_menu("工作", section.is_collapsed(), wall)
    [color_action] = [a for a in menu.actions() if a.objectName() == "color"]
    color_action.trigger()
    dialog = wall.actions.active_dialog
    assert isinstance(dialog, QColorDialog)
    dialog.colorSelected.emit(QColor("#2a9d8f"))
    dialog.reject()
    menu.close()
    assert section.swatch.color().name() == "#2a9d8f"
    assert wall.outline.item_for("工作") is not None
    again = MemoryWall(service, ui_state=QSettings(str(tmp_path / "ui-state.ini"), QSettings.Format.IniFormat))
    qtbot.addWidget(again)
    await again.reload()
    assert again.section("工作").swatch.color().name() == "#2a9d8f"
    menu = again.actions.theme_menu("工作", False, again)
    [reset] = [a for a in menu.actions() if a.objectName() == "reset-color"]
    assert reset.isEnabled()
    reset.trigger()
    menu.close()
    assert again.section("工作").swatch.color().name() != "#2a9d8f"
