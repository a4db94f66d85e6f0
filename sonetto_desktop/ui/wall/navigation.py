"""WallNavigation: finding your way on a big wall (a part :class:`MemoryWall` owns) — the outline of
themes (click to jump) and the same as a menu, the sticky header of the theme being read, collapsed
themes (remembered in the wall's :class:`WallState`), and where the wall is scrolled as a theme and
an offset below its header. It follows the wall's width (the outline gives its room to the cards on
a narrow wall), the scroll position and the light / dark style."""

from __future__ import annotations

from typing import TYPE_CHECKING, Callable

from PySide6.QtCore import QEvent, QObject, Qt
from PySide6.QtWidgets import QScrollArea, QWidget

from sonetto_desktop.presentation.undo_words import set_apart

from ..widgets.deferred import alive, later
from ..widgets.owner import Owner
from .outline import WallOutline
from .scroll import StickyHeader
from .sections import WallSections
from .state import WallState
from .theme_palette import ThemeColors
from .toolbar import WallToolbar

if TYPE_CHECKING:
    from .loader import WallLoader
    from .theme_section import ThemeSection

OUTLINE_WIDTH = 150
OUTLINE_MIN_WALL = 560  # narrower than this, the outline gives its room to the cards


class WallNavigation(QObject):
    """``wall``: the widget whose width and style it follows; ``update_visibility()``: the wall's pass
    over what is shown (after a theme emptied by a search still filling the wall is shown at once)."""

    _wall = Owner()  # held weakly, so the owner and this part form no reference cycle (widgets/owner.py)
    _update_visibility = Owner()  # the wall's method, the same

    def __init__(self, wall: QWidget, sections: WallSections, *, scroll: QScrollArea, outline: WallOutline,
                 sticky: StickyHeader, toolbar: WallToolbar, state: WallState, theme_colors: ThemeColors,
                 loader: "WallLoader", update_visibility: Callable[[], None]) -> None:
        super().__init__(wall)
        self._wall = wall
        self._sections = sections
        self._scroll = scroll
        self._outline = outline
        self._sticky = sticky
        self._toolbar = toolbar
        self._state = state
        self._colors = theme_colors
        self._loader = loader
        self._update_visibility = update_visibility
        self._outline_wanted = state.outline_shown()
        toolbar.set_outline(self._outline_wanted)

        outline.theme_activated.connect(self.jump_to)
        toolbar.jump_menu.aboutToShow.connect(self._fill_jump_menu)
        toolbar.outline_toggled.connect(self.set_outline_shown)
        sticky.toggled.connect(self._toggle_from_sticky)
        sections.collapse_toggled.connect(self._on_collapse_toggled)
        scroll.verticalScrollBar().valueChanged.connect(self.update_sticky)
        self._viewport = scroll.viewport()
        self._viewport.installEventFilter(self)
        wall.installEventFilter(self)  # its width (the outline) and style (the dots' colours)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        kind = event.type()  # (only these two kinds: the wall's other events come while it is destroyed too)
        if kind == QEvent.Type.Resize:
            if watched is self._wall:
                self.fit_outline()
            elif watched is self._viewport:
                later(self, self.update_sticky)
        elif kind == QEvent.Type.StyleChange and watched is self._wall:  # light <-> dark: the dots
            later(self, self._follow_style)
        return False

    # ── the outline and the jump menu ─────────────────────────────────

    def update_outline(self) -> None:
        mode = self._sections.mode()
        self._outline.set_themes([(s.theme, s.count_label.text(), self._colors.color(s.theme, mode))
                                  for s in self._sections.visible()])

    def _fill_jump_menu(self) -> None:
        """The outline as a menu (it is there at every width, the outline only on a wide wall)."""
        menu = self._toolbar.jump_menu
        menu.clear()
        for section in self._sections.visible():
            action = menu.addAction(f"{set_apart(section.theme)}  {section.count_label.text()}")  # (as the outline)
            action.setData(section.theme)
            action.triggered.connect(lambda _=False, t=section.theme: self.jump_to(t))

    def set_outline_shown(self, shown: bool) -> None:
        self._outline_wanted = bool(shown)
        self._state.set_outline_shown(shown)
        self._toolbar.set_outline(shown)
        self.fit_outline()

    def fit_outline(self) -> None:
        self._outline.setVisible(self._outline_wanted and self._wall.width() >= OUTLINE_MIN_WALL)

    def _follow_style(self) -> None:
        self.update_outline()
        self.update_sticky()

    # ── jumping and where the wall is ─────────────────────────────────

    def jump_to(self, theme: str) -> bool:
        """Scroll so ``theme``'s header is at the top (expanding nothing); False if not shown."""
        section = self._sections.get(theme)
        if section is not None and section.isHidden() and self._loader.loading and self._loader.finish_section(section):
            self._update_visibility()  # emptied by a search or sort still filling the wall: shown now
        if section is None or section.isHidden():
            return False
        self._scroll.widget().layout().activate()
        # during a pass: kept at the top while the sections above it fill again
        self._loader.take_over(lambda: self._keep_at_top(section))
        self._scroll.verticalScrollBar().setValue(section.y())
        self._outline.mark_current(theme)
        self.update_sticky()
        return True

    def _keep_at_top(self, section: "ThemeSection") -> None:
        if alive(section) and not section.isHidden():
            self._scroll.widget().layout().activate()
            self._scroll.verticalScrollBar().setValue(section.y())

    def current_theme(self) -> str:
        """The theme at the top of the viewport."""
        top = self._scroll.verticalScrollBar().value()
        current = ""
        for section in self._sections.visible():
            if section.y() <= top + 1:
                current = section.theme
        return current

    def scroll_anchor(self) -> tuple[str, int]:
        """Where the wall is scrolled, as (the theme at the top, how far below its header): still
        meaningful on a wall rebuilt with other card heights (another language, density)."""
        theme = self.current_theme()
        section = self._sections.get(theme) if theme else None
        top = self._scroll.verticalScrollBar().value()
        return theme, top - section.y() if section is not None else top

    def scroll_to_anchor(self, theme: str, offset: int) -> None:
        """Back to a :meth:`scroll_anchor` (the top of the wall plus ``offset`` if the theme is gone)."""
        self._scroll.widget().layout().activate()
        section = self._sections.get(theme) if theme else None
        base = section.y() if section is not None and not section.isHidden() else 0
        self._scroll.verticalScrollBar().setValue(base + offset)

    # ── the sticky header and collapsed themes ────────────────────────

    def update_sticky(self, *_: object) -> None:
        top = self._scroll.verticalScrollBar().value()
        section = self._sections.get(self.current_theme())
        if section is None or section.y() + section.header.height() > top + 2:
            self._sticky.hide()
            return
        self._sticky.arrow.setArrowType(Qt.ArrowType.RightArrow if section.is_collapsed() else Qt.ArrowType.DownArrow)
        self._sticky.show_theme(section.theme, section.count_label.text(), self._scroll.viewport().width(),
                                section.swatch.color().name())
        self._outline.mark_current(section.theme)

    def _toggle_from_sticky(self, theme: str) -> None:
        section = self._sections.get(theme)
        if section is not None:
            section.toggle()
            self.jump_to(theme)

    def _on_collapse_toggled(self, theme: str, collapsed: bool) -> None:
        self._state.set_collapsed(theme, collapsed)
        later(self, self.update_sticky)

    def set_collapsed(self, theme: str, collapsed: bool) -> None:
        section = self._sections.get(theme)
        if section is not None and section.is_collapsed() != collapsed:
            section.set_collapsed(collapsed)
