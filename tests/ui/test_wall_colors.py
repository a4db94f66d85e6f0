"""Theme colours (issue 15, item 7): distinct for the themes on a wall, stable across runs and as
themes come and go, readable (3:1) on the card surface in light and dark, and the person's choice."""

from __future__ import annotations

import itertools

import pytest
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
    closest = min(sum((a - b) ** 2 for a, b in zip(_rgb(x), _rgb(y), strict=True)) ** 0.5
                  for x, y in itertools.combinations(THEME_PALETTE[mode], 2))
    assert closest > 28  # no two palette colours look alike (neighbouring hues are 30° apart)


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
