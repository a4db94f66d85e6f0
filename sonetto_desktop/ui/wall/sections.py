"""WallSections: a MemoryWall's theme sections (a ``MemoryWall`` part): one per theme of the card model,
ordered by size, made a few per loader step while the wall loads and at once for a theme that
appears with a live change; each section's signals wired to the wall."""

from __future__ import annotations

import re

from .memory_model import CardRole
from .theme_section import ThemeSection
from .filters import card_filter

_DIGITS = re.compile(r"(\d+)")


def natural_key(theme: str) -> tuple:
    """Themes of equal size in reading order: 主题2 before 主题10 (runs of digits compare as numbers)."""
    return tuple((0, int(part), "") if part.isdigit() else (1, 0, part) for part in _DIGITS.split(theme) if part)


class WallSections:
    """Needs the wall's ``model``, ``_sections``, ``_column``, ``container``, ``state``, ``theme_colors``,
    ``loader``, ``search``, ``actions``, ``autoscroll``, its view settings and card handlers."""

    def sections(self) -> dict[str, ThemeSection]:
        return dict(self._sections)

    def section(self, theme: str) -> ThemeSection | None:
        return self._sections.get(theme)

    def sections_in_order(self) -> list[ThemeSection]:
        """Every section (shown or not), in display order."""
        return sorted(self._sections.values(), key=lambda s: self._column.indexOf(s))

    def visible_sections(self) -> list[ThemeSection]:
        """Sections shown right now, in display order."""
        shown = [s for s in self._sections.values() if not s.isHidden()]
        return sorted(shown, key=lambda s: self._column.indexOf(s))

    def _sync_sections(self, *_: object, limit: int | None = None) -> None:
        """Sections for the model's themes, in order. While the wall loads, sections are made only
        when asked (``limit``: the loader makes them a few per step, the top ones first)."""
        counts = self.model.theme_counts()
        for theme in [t for t in self._sections if t not in counts]:
            section = self._sections.pop(theme)
            self._column.removeWidget(section)
            section.hide()
            section.deleteLater()
        if self.theme_colors.assign(counts):
            self.state.set_color_slots(self.theme_colors.slots)
        collapsed = self.state.collapsed()
        missing = self._missing_themes(counts)
        if limit is None and self.loader.loading:
            limit = 0
        for theme in missing[:limit]:
            self._sections[theme] = self._new_section(theme, theme in collapsed)
        order = sorted(self._sections, key=lambda t: (-counts.get(t, 0), natural_key(t)))
        for position, theme in enumerate(order):
            section = self._sections[theme]
            if self._column.indexOf(section) != position:
                self._column.removeWidget(section)
                self._column.insertWidget(position, section)
        self._update_visibility()

    def _missing_themes(self, counts: dict[str, int] | None = None) -> list[str]:
        """Themes of the model without a section yet (made while the wall loads), in display order."""
        counts = self.model.theme_counts() if counts is None else counts
        return sorted((t for t in counts if t not in self._sections), key=lambda t: (-counts[t], natural_key(t)))

    def add_sections(self, count: int | None = None) -> int:
        """Make up to ``count`` (None: all) of the sections still missing; returns how many."""
        before = len(self._sections)
        self._sync_sections(limit=len(self.model.theme_counts()) if count is None else count)
        return len(self._sections) - before

    def _new_section(self, theme: str, collapsed: bool) -> ThemeSection:
        section = ThemeSection(self.model, theme, self.container, theme_colors=self.theme_colors,
                               density=self._density, collapsed=collapsed, deferred=True)
        section.proxy.set_search(self.search.query)
        section.proxy.set_filter(card_filter(self._filter))
        section.proxy.set_sort_mode(self._sort_mode)
        section.ids_dropped.connect(self._on_ids_dropped)
        section.collapse_toggled.connect(self._on_collapse_toggled)
        section.menu_requested.connect(lambda name, pos: self.actions.theme_menu(
            name, self._sections[name].is_collapsed(), self).popup(pos))
        section.drag_moved.connect(self.autoscroll.drag_at)
        section.view.drag_hovered.connect(self.autoscroll.drag_hovered)
        section.header.drag_hovered.connect(self.autoscroll.drag_hovered)
        view = section.view
        view.doubleClicked.connect(self._on_card_double_clicked)
        view.activated.connect(lambda index: self.card_activated.emit(index.data(CardRole.Id)))
        view.delete_requested.connect(lambda ids: self.actions.delete_cards(self.selected_ids() or ids))
        view.context_requested.connect(lambda memory_id, pos, v=view: self._show_menu(v, memory_id, pos))
        view.pressed.connect(lambda _index, v=view: self._on_card_pressed(v))
        view.wall_selection = self.selected_ids  # a drag carries the selection of every section
        for signal in (section.proxy.rowsInserted, section.proxy.rowsRemoved, section.proxy.modelReset):
            signal.connect(lambda *_: self._visibility_timer.start())  # coalesced: one pass per burst
        if not self.loader.loading:  # a theme that appears with a live change: shown at once
            section.proxy.load(None)
        return section
