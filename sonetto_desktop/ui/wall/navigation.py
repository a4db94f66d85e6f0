"""WallNavigation: finding your way on a big wall — the outline of themes (click to jump), the sticky
header of the theme being read, collapsed themes, the density of the cards and the themes' colours,
each remembered in the wall's :class:`WallState`. A part of :class:`MemoryWall` (its attributes:
``outline``, ``sticky``, ``scroll``, ``container``, ``toolbar``, ``state``, ``theme_colors``)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtCore import QEvent, QObject, Qt

from ..widgets.deferred import alive, later

if TYPE_CHECKING:
    from .theme_section import ThemeSection

OUTLINE_WIDTH = 150
OUTLINE_MIN_WALL = 560  # narrower than this, the outline gives its room to the cards


class WallNavigation:
    _sections: "dict[str, ThemeSection]"

    def _mode(self) -> str:
        view = next(iter(self._sections.values())).view if self._sections else None
        return "dark" if view is not None and view.cardBackground.lightness() < 128 else "light"

    def _update_outline(self) -> None:
        mode = self._mode()
        rows = [(s.theme, s.count_label.text(), self.theme_colors.color(s.theme, mode)) for s in self.visible_sections()]
        self.outline.set_themes(rows)

    def _fill_jump_menu(self) -> None:
        """The outline as a menu (it is there at every width, the outline only on a wide wall)."""
        menu = self.toolbar.jump_menu
        menu.clear()
        for section in self.visible_sections():
            action = menu.addAction(f"{section.theme}  {section.count_label.text()}")
            action.setData(section.theme)
            action.triggered.connect(lambda _=False, t=section.theme: self.jump_to(t))

    def jump_to(self, theme: str) -> bool:
        """Scroll so ``theme``'s header is at the top (expanding nothing); False if not shown."""
        section = self._sections.get(theme)
        if section is not None and section.isHidden() and self.loading() and self.loader.finish_section(section):
            self._update_visibility()  # emptied by a search or sort still filling the wall: shown now
        if section is None or section.isHidden():
            return False
        self.container.layout().activate()
        # during a pass: kept at the top while the sections above it fill again
        self.loader.take_over(lambda: self._keep_at_top(section))
        self.scroll.verticalScrollBar().setValue(section.y())
        self.outline.mark_current(theme)
        self._update_sticky()
        return True

    def _keep_at_top(self, section: "ThemeSection") -> None:
        if alive(section) and not section.isHidden():
            self.container.layout().activate()
            self.scroll.verticalScrollBar().setValue(section.y())

    def current_theme(self) -> str:
        """The theme at the top of the viewport."""
        top = self.scroll.verticalScrollBar().value()
        current = ""
        for section in self.visible_sections():
            if section.y() <= top + 1:
                current = section.theme
        return current

    def scroll_anchor(self) -> tuple[str, int]:
        """Where the wall is scrolled, as (the theme at the top, how far below its header): still
        meaningful on a wall rebuilt with other card heights (another language, density)."""
        theme = self.current_theme()
        section = self._sections.get(theme) if theme else None
        top = self.scroll.verticalScrollBar().value()
        return theme, top - section.y() if section is not None else top

    def scroll_to_anchor(self, theme: str, offset: int) -> None:
        """Back to a :meth:`scroll_anchor` (the top of the wall plus ``offset`` if the theme is gone)."""
        self.container.layout().activate()
        section = self._sections.get(theme) if theme else None
        base = section.y() if section is not None and not section.isHidden() else 0
        self.scroll.verticalScrollBar().setValue(base + offset)

    def _update_sticky(self, *_: object) -> None:
        top = self.scroll.verticalScrollBar().value()
        section = self._sections.get(self.current_theme())
        if section is None or section.y() + section.header.height() > top + 2:
            self.sticky.hide()
            return
        self.sticky.arrow.setArrowType(Qt.ArrowType.RightArrow if section.is_collapsed() else Qt.ArrowType.DownArrow)
        self.sticky.show_theme(section.theme, section.count_label.text(), self.scroll.viewport().width(),
                               section.swatch.color().name())
        self.outline.mark_current(section.theme)

    def _toggle_from_sticky(self, theme: str) -> None:
        section = self._sections.get(theme)
        if section is not None:
            section.toggle()
            self.jump_to(theme)

    def _on_collapse_toggled(self, theme: str, collapsed: bool) -> None:
        self.state.set_collapsed(theme, collapsed)
        later(self, self._update_sticky)

    def set_collapsed(self, theme: str, collapsed: bool) -> None:
        section = self._sections.get(theme)
        if section is not None and section.is_collapsed() != collapsed:
            section.set_collapsed(collapsed)

    def density(self) -> str:
        return self._density

    def set_density(self, density: str) -> None:
        """"comfortable" or "compact" (smaller cards, two lines); remembered."""
        self.state.set_density(density)  # raises on a wrong name
        self._density = density
        self.toolbar.set_density(density == "compact")
        for section in self._sections.values():
            section.view.set_density(density)

    def set_outline_shown(self, shown: bool) -> None:
        self._outline_wanted = bool(shown)
        self.state.set_outline_shown(shown)
        self.toolbar.set_outline(shown)
        self._fit_outline()

    def _fit_outline(self) -> None:
        self.outline.setVisible(self._outline_wanted and self.width() >= OUTLINE_MIN_WALL)

    def resizeEvent(self, event) -> None:
        super().resizeEvent(event)
        self._fit_outline()

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if watched is self.scroll.viewport() and event.type() == QEvent.Type.Resize:
            later(self, self._update_sticky)
        return super().eventFilter(watched, event)

    def changeEvent(self, event: QEvent) -> None:
        super().changeEvent(event)  # type: ignore[misc]
        if event.type() == QEvent.Type.StyleChange:  # light <-> dark: the outline's and sticky header's dots
            later(self, self._follow_style)

    def _follow_style(self) -> None:
        self._update_outline()
        self._update_sticky()

    def set_theme_color(self, theme: str, color: str | None) -> None:
        """The person's colour for ``theme`` (``#rrggbb``), or None for its own again; remembered."""
        self.theme_colors.set_custom(theme, color)
        self.state.set_custom_colors(self.theme_colors.custom)
        for section in self._sections.values():
            section.swatch.update()
            section.view.viewport().update()
        self._update_outline()
