"""WallSections: the wall's theme sections (a part :class:`MemoryWall` owns): one per theme of the
card model, in the wall's column, the biggest theme first; made a few per loader step while the
wall loads and at once for a theme that appears with a live change.

What the person does in a section (drops, double-clicks, the delete key, menus, drags) comes out as
this part's signals, which the wall connects once. The selection across sections is kept here too:
a plain click selects in one section only, a drag carries the selection of every section."""

from __future__ import annotations

import re
from typing import Callable

import shiboken6
from PySide6.QtCore import QItemSelectionModel, QObject, Qt, Signal
from PySide6.QtGui import QGuiApplication
from PySide6.QtWidgets import QVBoxLayout, QWidget

from sonetto_desktop.presentation.cards import THEME
from .card_view import ThemeCardView
from .memory_model import CardRole, MemoryCardModel
from .search_text import SearchQuery
from .state import WallState
from .theme_palette import ThemeColors
from .theme_section import ThemeSection
from ..widgets.owner import Owner

#: What a new section is shown with: (the search, the filter's predicate, the sort, the density).
ViewSettings = tuple[SearchQuery, Callable | None, str, str]

_DIGITS = re.compile(r"(\d+)")


def natural_key(theme: str) -> tuple:
    """Themes of equal size in reading order: 主题2 before 主题10 (runs of digits compare as numbers)."""
    return tuple((0, int(part), "") if part.isdigit() else (1, 0, part) for part in _DIGITS.split(theme) if part)


class WallSections(QObject):
    """``settings()``: what a new section is shown with (the wall's current ones); ``loading()``: whether
    the wall is filling in slices (sections are then made only when the loader asks)."""

    synced = Signal()  # sections made, removed or put in order
    rows_changed = Signal()  # a section's rows changed (counts and visibility follow)
    ids_dropped = Signal(list, str, str)  # ids, theme, card to merge into ("" = a move)
    collapse_toggled = Signal(str, bool)  # theme, collapsed now
    menu_requested = Signal(str, object)  # theme, global QPoint: the theme's menu
    card_activated = Signal(str)  # a card activated (double-click, or Enter; platform style decides)
    card_double_clicked = Signal(str)
    edit_requested = Signal(str)  # Enter on a card
    delete_requested = Signal(list)  # ids: the selection of every section, or the cards the keys were pressed on
    context_requested = Signal(str, object)  # card id, global QPoint: the card's menu
    drag_moved = Signal(object)  # global QPoint of a drag over a section (the wall scrolls)
    drag_hovered = Signal(bool)
    _settings = Owner()  # the wall's methods, held weakly, so the owner and this part form no reference cycle (widgets/owner.py)
    _loading = Owner()

    def __init__(self, model: MemoryCardModel, container: QWidget, column: QVBoxLayout, state: WallState,
                 theme_colors: ThemeColors, *, settings: Callable[[], ViewSettings], loading: Callable[[], bool],
                 parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._model = model
        self._container = container
        self._column = column
        self._state = state
        self._colors = theme_colors
        self._folds_left: dict[str, str] = {}  # a folded name a rename emptied -> the name its cards went to (this run)
        self._settings = settings
        self._loading = loading
        self._sections: dict[str, ThemeSection] = {}
        self._tab_stop: ThemeCardView | None = None  # the one view Tab lands on (the others: click focus)
        self._selected_before: set[str] = set()  # selected cards a live change is about to touch
        self._focused: tuple[ThemeCardView, int] | None = None  # the focused view losing cards, its current row
        model.cards_changing.connect(self._note_selected)
        model.cards_applied.connect(self._keep_selected)

    # ── the sections ──────────────────────────────────────────────────

    def all(self) -> dict[str, ThemeSection]:
        return dict(self._sections)

    def get(self, theme: str) -> ThemeSection | None:
        return self._sections.get(theme)

    def in_order(self) -> list[ThemeSection]:
        """Every section (shown or not), in display order."""
        return sorted(self._sections.values(), key=self._column.indexOf)

    def visible(self) -> list[ThemeSection]:
        """Sections shown right now, in display order."""
        return sorted((s for s in self._sections.values() if not s.isHidden()), key=self._column.indexOf)

    def sync(self, *_: object, limit: int | None = None) -> None:
        """Sections for the model's themes, in order. While the wall loads, sections are made only
        when asked (``limit``: the loader makes them a few per step, the top ones first)."""
        counts = self._model.theme_counts()
        for theme in [t for t in self._sections if t not in counts]:
            section = self._sections.pop(theme)
            self._column.removeWidget(section)
            section.hide()
            section.deleteLater()
        if self._colors.assign(counts):
            self._state.set_color_slots(self._colors.slots)
            self._state.set_custom_colors(self._colors.custom)
        self._settle_folds()
        collapsed = self._state.collapsed()
        missing = self.missing(counts)
        if limit is None and self._loading():
            limit = 0
        for theme in missing[:limit]:
            self._sections[theme] = self._new_section(theme, theme in collapsed)
        order = sorted(self._sections, key=lambda t: (-counts.get(t, 0), natural_key(t)))
        for position, theme in enumerate(order):
            section = self._sections[theme]
            if self._column.indexOf(section) != position:
                self._column.removeWidget(section)
                self._column.insertWidget(position, section)
        self.synced.emit()

    def _settle_folds(self) -> None:
        """A rename whose cards have all moved (``ThemeColors.settled``): the old name gives up its fold
        (kept aside for an undo, ``fold_back``), so a theme made later under it starts unfolded."""
        for old, new in self._colors.settled:
            if old in self._state.collapsed():
                self._state.set_collapsed(old, False)
                self._folds_left[old] = new
            else:
                self._folds_left.pop(old, None)

    def fold_back(self, theme: str, source: str) -> None:
        """An undo moves the cards of ``source`` back to ``theme``, which a rename to ``source`` emptied
        (``ThemeColors.moved_back``): ``theme`` is folded again if it was then."""
        if self._folds_left.get(theme) == source:
            del self._folds_left[theme]
            self._state.set_collapsed(theme, True)

    def missing(self, counts: dict[str, int] | None = None) -> list[str]:
        """Themes of the model without a section yet (made while the wall loads), in display order."""
        counts = self._model.theme_counts() if counts is None else counts
        return sorted((t for t in counts if t not in self._sections), key=lambda t: (-counts[t], natural_key(t)))

    def add(self, count: int | None = None) -> int:
        """Make up to ``count`` (None: all) of the sections still missing; returns how many."""
        before = len(self._sections)
        self.sync(limit=len(self._model.theme_counts()) if count is None else count)
        return len(self._sections) - before

    def _new_section(self, theme: str, collapsed: bool) -> ThemeSection:
        query, predicate, sort_mode, density = self._settings()
        section = ThemeSection(self._model, theme, self._container, theme_colors=self._colors,
                               density=density, collapsed=collapsed, deferred=True)
        section.proxy.set_search(query)
        section.proxy.set_filter(predicate)
        section.proxy.set_sort_mode(sort_mode)
        section.ids_dropped.connect(self.ids_dropped)
        section.collapse_toggled.connect(self.collapse_toggled)
        section.menu_requested.connect(self.menu_requested)
        section.drag_moved.connect(self.drag_moved)
        section.view.drag_hovered.connect(self.drag_hovered)
        section.header.drag_hovered.connect(self.drag_hovered)
        view = section.view
        view.doubleClicked.connect(self._on_double_clicked)
        view.activated.connect(self._on_activated)
        view.delete_requested.connect(self._on_delete_requested)
        view.context_requested.connect(self._on_context_requested)
        view.edit_requested.connect(self.edit_requested)
        view.edge_reached.connect(lambda step, x, v=view: self._on_edge(v, step, x))
        view.focused.connect(lambda v=view: self._set_tab_stop(v))
        section.collapse_toggled.connect(self.ensure_tab_stop)
        view.setFocusPolicy(Qt.FocusPolicy.ClickFocus)
        if self._tab_stop is None:  # (the wall's visibility update moves it to an open theme: not per section)
            self._set_tab_stop(view)
        view.pressed.connect(self._on_pressed)
        view.wall_selection = self.selected_ids  # a drag carries the selection of every section
        for signal in (section.proxy.rowsInserted, section.proxy.rowsRemoved, section.proxy.modelReset):
            signal.connect(self.rows_changed)
        section.proxy.rowsAboutToBeRemoved.connect(lambda _p, first, _l, v=view: self._before_removal(v, first))
        section.proxy.rowsRemoved.connect(lambda *_a, v=view: self._after_removal(v))
        if not self._loading():  # a theme that appears with a live change: shown at once
            section.proxy.load(None)
        return section

    # ── what the person does in a section ─────────────────────────────

    def _on_double_clicked(self, index) -> None:
        memory_id = index.data(CardRole.Id)
        if memory_id:  # (card_activated comes from the view's ``activated``: double-click or Enter)
            self.card_double_clicked.emit(memory_id)

    def _on_activated(self, index) -> None:
        self.card_activated.emit(index.data(CardRole.Id))

    def _on_delete_requested(self, ids: list[str]) -> None:
        self.delete_requested.emit(self.selected_ids() or ids)

    # ── the keyboard: the wall is one Tab stop, arrows go on from theme to theme ──

    @staticmethod
    def _is_open(section: ThemeSection) -> bool:
        return not section.isHidden() and not section.is_collapsed() and section.proxy.rowCount() > 0

    def _open_views(self) -> list[ThemeCardView]:
        return [s.view for s in self.visible() if self._is_open(s)]

    def _set_tab_stop(self, view: ThemeCardView | None) -> None:
        if view is self._tab_stop:
            return
        old, self._tab_stop = self._tab_stop, view
        if old is not None and shiboken6.isValid(old):
            old.setFocusPolicy(Qt.FocusPolicy.ClickFocus)
        if view is not None:
            view.setFocusPolicy(Qt.FocusPolicy.StrongFocus)

    def ensure_tab_stop(self, *_: object) -> None:
        """Keep the Tab stop on a view that is shown (the first open theme when the last one was
        collapsed, hidden by a search or removed)."""
        stop = self._tab_stop
        if stop is not None and shiboken6.isValid(stop) and self._is_open(stop.parentWidget()):
            return  # (the usual case: no sorting of the sections)
        views = self._open_views()
        self._set_tab_stop(views[0] if views else None)

    def _on_edge(self, view: ThemeCardView, step: int, x: int) -> None:
        """An arrow key at ``view``'s edge: on to the previous or next open theme (down: the card
        nearest below, right: its first card; up and left likewise backwards)."""
        views = self._open_views()
        if view not in views:
            return
        at = views.index(view) + (1 if step > 0 else -1)
        if not 0 <= at < len(views):
            return
        target = views[at]
        count = target.proxy.rowCount()
        if step == 2:
            row = 0
        elif step == -2:
            row = count - 1
        else:
            flow = target.flow()
            row = target.nearest(x, 0 if step > 0 else flow.height() - 1)
        for section in self._sections.values():
            if section.view is not target and section.view.selectionModel().hasSelection():
                section.view.clearSelection()
        index = target.proxy.index(max(0, row), 0)
        target.setFocus(Qt.FocusReason.OtherFocusReason)
        target.selectionModel().setCurrentIndex(index, QItemSelectionModel.SelectionFlag.ClearAndSelect)
        target.scrollTo(index)

    def _before_removal(self, view: ThemeCardView, first: int) -> None:
        focused = view.window().focusWidget() is view and not self._loading()  # (not a search's refill)
        current = view.currentIndex()
        self._focused = (view, current.row() if current.isValid() else first) if focused else None

    def _after_removal(self, view: ThemeCardView) -> None:
        """Cards went from the view the keys are in (the Delete key, or a change meanwhile): as in a
        file manager, the card that took their place is selected, so the keys go on from it; when
        the theme emptied, the focus goes on to a card of the next theme (it fell to the search box)."""
        focused, self._focused = self._focused, None
        if focused is None or focused[0] is not view or not shiboken6.isValid(view):
            return
        if any(self._model.card(memory_id) is not None for memory_id in self._selected_before):
            return  # selected cards filed elsewhere, not gone: they stay the selection (``_keep_selected``)
        count = view.proxy.rowCount()
        if count:
            if not view.selectionModel().hasSelection():
                current = view.currentIndex()
                index = current if current.isValid() else view.proxy.index(min(focused[1], count - 1), 0)
                view.selectionModel().setCurrentIndex(index, QItemSelectionModel.SelectionFlag.ClearAndSelect)
            return
        order = [s for s in self.in_order() if not s.isHidden()]
        at = next((i for i, s in enumerate(order) if s.view is view), len(order))
        after = [s.view for s in order[at + 1:] if self._is_open(s)]
        before = [s.view for s in order[:at] if self._is_open(s)]
        target = after[0] if after else before[-1] if before else None
        if target is None:
            return
        for section in self._sections.values():
            if section.view is not target and section.view.selectionModel().hasSelection():
                section.view.clearSelection()
        index = target.proxy.index(0, 0)
        target.setFocus(Qt.FocusReason.OtherFocusReason)
        target.selectionModel().setCurrentIndex(index, QItemSelectionModel.SelectionFlag.ClearAndSelect)
        target.scrollTo(index)

    def _on_context_requested(self, memory_id: str, global_pos) -> None:
        """A right click on a card outside the selection selects only that card (as file managers
        do): the menu acts on what the person sees, not on cards selected earlier elsewhere."""
        if memory_id not in self.selected_ids():
            self.select_only(memory_id)
        self.context_requested.emit(memory_id, global_pos)

    def select_only(self, memory_id: str) -> bool:
        """Make the card ``memory_id`` the whole selection and the current card of its section, as a
        plain click does: every other section's selection is cleared. Returns whether it is shown."""
        for section in self._sections.values():
            if section.view.selectionModel().hasSelection():
                section.view.clearSelection()
        card = self._model.card(memory_id)
        section = self._sections.get(card[THEME]) if card is not None else None
        index = section.proxy.index_of(memory_id) if section is not None else None
        if index is None or not index.isValid():
            return False
        section.view.selectionModel().setCurrentIndex(index, QItemSelectionModel.SelectionFlag.ClearAndSelect)
        return True

    def unseen(self, ids: list[str]) -> list[str]:
        """Those of ``ids`` whose card is not in sight: in a collapsed or hidden section, or
        scrolled out of view."""
        out = []
        for memory_id in ids:
            card = self._model.card(memory_id)
            section = self._sections.get(card[THEME]) if card is not None else None
            index = section.proxy.index_of(memory_id) if section is not None else None
            if index is None or not index.isValid():
                out.append(memory_id)
                continue
            view = section.view
            if not view.isVisible() or not view.viewport().visibleRegion().intersects(view.visualRect(index)):
                out.append(memory_id)
        return out

    def _on_pressed(self, index) -> None:
        """A plain left click selects in one section only: the others' selections are cleared (a
        right click: ``_on_context_requested``)."""
        if QGuiApplication.keyboardModifiers() & (Qt.KeyboardModifier.ControlModifier | Qt.KeyboardModifier.ShiftModifier):
            return
        if not QGuiApplication.mouseButtons() & Qt.MouseButton.LeftButton:
            return
        pressed = self._sections.get(getattr(index.model(), "theme", None))
        for section in self._sections.values():
            if section is not pressed and section.view.selectionModel().hasSelection():
                section.view.clearSelection()

    # ── the selection and the look of every section ───────────────────

    def selected_ids(self) -> list[str]:
        """The selected cards of every section (Ctrl/Shift-click and rubber band select)."""
        return [mid for section in self.visible() for mid in section.view.selected_ids()]

    def select_ids(self, ids: list[str]) -> None:
        """Add the cards ``ids`` that are shown to the selection (others are skipped)."""
        for memory_id in ids:
            card = self._model.card(memory_id)
            section = self._sections.get(card[THEME]) if card is not None else None
            index = section.proxy.index_of(memory_id) if section is not None else None
            if index is not None and index.isValid():
                section.view.selectionModel().select(index, QItemSelectionModel.SelectionFlag.Select)

    def _note_selected(self, ids: list[str]) -> None:
        selected = self.selected_ids() if any(s.view.selectionModel().hasSelection() for s in self._sections.values()) \
            else []
        self._selected_before = set(selected).intersection(ids)

    def _keep_selected(self, ids: list[str]) -> None:
        """A selected card a change filed under another theme is selected in its new section too: the
        selection is what the person picked, wherever the card went (it dropped out, and a Delete or a
        move then left it behind)."""
        before, self._selected_before = self._selected_before, set()
        lost = [memory_id for memory_id in ids if memory_id in before]
        if lost:
            now = set(self.selected_ids())
            self.select_ids([memory_id for memory_id in lost if memory_id not in now])

    def set_density(self, density: str) -> None:
        for section in self._sections.values():
            section.view.set_density(density)

    def repaint_cards(self) -> None:
        """Paint every section's cards again (relative times moved on, a theme's colour changed)."""
        for section in self._sections.values():
            section.swatch.update()
            section.view.viewport().update()

    def mode(self) -> str:
        """"dark" or "light": what the cards are painted in now (the QSS's card background)."""
        view: ThemeCardView | None = next(iter(self._sections.values())).view if self._sections else None
        return "dark" if view is not None and view.cardBackground.lightness() < 128 else "light"
