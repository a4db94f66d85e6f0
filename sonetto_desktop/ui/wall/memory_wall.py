"""MemoryWall: the card wall — an outline of themes, one collapsible section per theme, search,
sort, density, add, drag and drop.

The wall renders :class:`MemoryCardModel` (which adapts the store's change feed) and never holds
memory data itself. What the person does to cards is :class:`WallActions`; every change goes
through :class:`MemoryService`. What the wall remembers between runs (collapsed themes, density,
outline, theme colours) is :class:`WallState`.

Object names for the QSS: ``MemoryWall``, ``WallToolbar``, ``WallSearch``, ``WallSort``,
``WallView`` (outline / density menu), ``WallAdd``, ``WallTrash``, ``WallCount``, ``WallOutline``,
``WallScroll``, ``WallSections``, ``WallStickyHeader``, ``WallEmpty``, and those of
:mod:`theme_section` / :mod:`card_view`.
"""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import QItemSelectionModel, QMimeData, QPoint, QSettings, Qt, QTimer, Signal
from PySide6.QtGui import QGuiApplication, QKeySequence, QShortcut
from PySide6.QtWidgets import QFrame, QHBoxLayout, QLabel, QScrollArea, QVBoxLayout, QWidget

from ..widgets.deferred import alive, later
from ..i18n import ui_language
from .memory_model import CardRole, MemoryCardModel, decode_ids
from ..memory_service import MemoryService
from .theme_palette import ThemeColors
from .theme_section import ThemeSection
from ..notices.toasts import ToastOverlay
from .actions import WallActions
from .navigation import OUTLINE_WIDTH, WallNavigation
from .outline import WallOutline
from .scroll import AutoScroller, StickyHeader
from .filters import card_filter, filter_label
from .loader import SECTIONS_PER_STEP, WallLoader
from .search import WallSearch
from .sections import WallSections
from .selection import WallBulk
from .state import WallState
from .toolbar import SEARCH_MIN_WIDTH, WallToolbar

__all__ = ["MemoryWall", "SEARCH_MIN_WIDTH"]


class MemoryWall(WallSections, WallNavigation, QWidget):
    card_activated = Signal(str)  # a card activated (double-click, or Enter; platform style decides)
    card_revealed = Signal(str)
    chat_requested = Signal(str, str, str)  # session id, turn id, excerpt: open the chat turn behind a change

    def __init__(
        self,
        service: MemoryService,
        model: MemoryCardModel | None = None,
        *,
        toasts: ToastOverlay | None = None,
        ui_state: QSettings | None = None,
        parent: QWidget | None = None,
    ) -> None:
        super().__init__(parent)
        self.setObjectName("MemoryWall")
        self.service = service
        self.model = model if model is not None else MemoryCardModel(service, self, lang=ui_language())
        self.toasts = toasts if toasts is not None else ToastOverlay(self)
        self.state = WallState(ui_state)
        self.theme_colors = ThemeColors(self.state.color_slots(), self.state.custom_colors())
        self.actions = WallActions(self, service, self.model, self.toasts, self.reveal)
        self.actions.chat_requested.connect(self.chat_requested)
        self.bulk = WallBulk(self)
        self.actions.bulk = self.bulk
        self._filter = "all"
        self._sections: dict[str, ThemeSection] = {}
        self._sort_mode = "recent"
        self._density = self.state.density()
        self._pending_reveal: str | None = None
        self._load_failed = False

        self.toolbar = WallToolbar(self)
        self.search_edit = self.toolbar.search_edit
        self.sort_combo = self.toolbar.sort_combo
        self.count_label = self.toolbar.count_label
        self.add_button = self.toolbar.add_button
        self.trash_button = self.toolbar.trash_button
        self.density_action = self.toolbar.density_action
        self.outline_action = self.toolbar.outline_action

        self.outline = WallOutline(self)
        self.outline.setFixedWidth(OUTLINE_WIDTH)
        self.scroll = QScrollArea(self)
        self.scroll.setObjectName("WallScroll")
        self.scroll.setWidgetResizable(True)
        self.scroll.setFrameShape(QFrame.Shape.NoFrame)
        self.scroll.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.container = QWidget(self.scroll)
        self.container.setObjectName("WallSections")
        self._column = QVBoxLayout(self.container)
        self._column.setContentsMargins(8, 4, 8, 8)
        self._column.setSpacing(4)
        self.empty_label = QLabel(self.container)
        self.empty_label.setObjectName("WallEmpty")
        self.empty_label.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.empty_label.setWordWrap(True)
        self._column.addWidget(self.empty_label)
        self._column.addStretch(1)
        self.scroll.setWidget(self.container)
        self.sticky = StickyHeader(self.scroll.viewport())
        self.autoscroll = AutoScroller(self.scroll)

        body = QHBoxLayout()
        body.setContentsMargins(0, 0, 0, 0)
        body.setSpacing(0)
        body.addWidget(self.outline)
        body.addWidget(self.scroll, 1)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(0)
        layout.addWidget(self.toolbar)
        layout.addLayout(body, 1)

        self.search = WallSearch(self)
        self.loader = WallLoader(self)  # after a reload, the sections are filled in slices
        self.loader.progress.connect(self._update_summary)
        self.loader.finished.connect(self._update_visibility)
        self._visibility_timer = QTimer(self)
        self._visibility_timer.setSingleShot(True)
        self._visibility_timer.setInterval(0)
        self._visibility_timer.timeout.connect(self._update_visibility)
        self._clock = QTimer(self)  # relative times ("3分钟前") move on
        self._clock.setInterval(60_000)
        self._clock.timeout.connect(self._repaint_cards)
        self._clock.start()

        self.toolbar.sort_changed.connect(self.set_sort_mode)
        self.toolbar.density_toggled.connect(lambda compact: self.set_density("compact" if compact else "comfortable"))
        self.toolbar.outline_toggled.connect(self.set_outline_shown)
        self.toolbar.filter_changed.connect(self.set_filter)
        self.toolbar.forget_today_requested.connect(lambda: self.bulk.ask_forget_today())
        self.add_button.clicked.connect(lambda: self.actions.add_card())
        self.trash_button.clicked.connect(lambda: self.actions.show_trash())
        self.outline.theme_activated.connect(self.jump_to)
        self.toolbar.jump_menu.aboutToShow.connect(self._fill_jump_menu)
        self.outline.ids_dropped.connect(self._on_ids_dropped)
        self.sticky.toggled.connect(self._toggle_from_sticky)
        self.sticky.ids_dropped.connect(self._on_ids_dropped)
        self.sticky.drag_moved.connect(self.autoscroll.drag_at)
        self.sticky.drag_hovered.connect(self.autoscroll.drag_hovered)
        self.scroll.verticalScrollBar().valueChanged.connect(self._update_sticky)
        self.scroll.viewport().installEventFilter(self)
        QShortcut(QKeySequence.StandardKey.Find, self, activated=self.focus_search,
                  context=Qt.ShortcutContext.WindowShortcut)

        self.model.themes_changed.connect(self._sync_sections)
        self.model.modelReset.connect(self._on_model_reset)
        self.model.rowsInserted.connect(self._update_summary)
        self.model.rowsRemoved.connect(self._update_summary)
        self.model.cards_applied.connect(self._on_cards_applied)
        self.model.load_failed.connect(self._on_load_failed)
        self.model.card_updated.connect(lambda *_: self._visibility_timer.start())  # counts of hidden cards
        service.operation_failed.connect(self._on_operation_failed)
        self.toolbar.set_density(self._density == "compact")
        self.toolbar.set_outline(self.state.outline_shown())
        self._outline_wanted = self.state.outline_shown()
        self._on_model_reset()
        self._fit_outline()

    # ── loading ───────────────────────────────────────────────────────

    def reload(self) -> Any:
        """Read the store (in a worker) and show it; returns the awaitable task. The cards appear
        in slices (``loader``): the task is done when the model has them all, ``loader.finished``
        when the wall shows them all."""
        return self.model.reload()

    def loading(self) -> bool:
        """Whether cards are still being laid out after a reload."""
        return self.loader.loading

    def _on_model_reset(self) -> None:
        self.loader.begin()
        for section in self._sections.values():
            section.proxy.mark_stale()  # emptied now, filled again by the loader, top first
        self._sync_sections(limit=SECTIONS_PER_STEP)
        self.loader.start()

    # ── what is shown ─────────────────────────────────────────────────

    def _update_visibility(self, *_: object) -> None:
        self._visibility_timer.stop()
        shown = 0
        for section in self._sections.values():
            visible = section.shown_count() > 0
            section.setVisible(visible)
            section.refresh_count()
            shown += section.shown_count()
        total = self.model.rowCount()
        if (self.loader.loading or self.model.first_read_pending) and shown == 0:
            self.empty_label.setText(self._busy_text())  # never a false "no memories yet" at start
        elif self._load_failed and total == 0:
            self.empty_label.setText(self.tr("记忆库暂时无法读取，卡片墙是空的；没有任何内容被改动。"))
        elif total == 0:
            self.empty_label.setText(self.tr("还没有记忆。和 Sonetto 聊聊，或点「新建」写下一条。"))
        elif shown == 0 and not self.search.text:
            self.empty_label.setText(self.tr("没有「{0}」的记忆。").format(filter_label(self._filter)))
        elif shown == 0:
            self.empty_label.setText(self.tr("没有和「{0}」匹配的记忆。").format(self.search.text))
        self.empty_label.setVisible(shown == 0)
        self._update_summary()
        self._update_outline()
        later(self, self._update_sticky)  # after the layout settles

    def _update_summary(self, *_: object) -> None:
        total = self.model.rowCount()
        if self.model.first_read_pending:
            self.count_label.setText(self._busy_text())
        elif self.loader.loading:
            done, total = self.loader.progress_counts()
            self.count_label.setText(self._busy_text(f"{done:,}", f"{total:,}"))
        elif self.search.query or self._filter != "all":
            shown = sum(section.shown_count() for section in self._sections.values())
            text = self.tr("{0} / {1} 条").format(shown, total)
            if self._filter != "all":  # which filter is on, where the count is
                text = self.tr("{0} · {1}").format(filter_label(self._filter), text)
            self.count_label.setText(text)
        else:
            self.count_label.setText(self.tr("1 条") if total == 1 else self.tr("{0} 条").format(total))

    def _busy_text(self, done: str = "", total: str = "") -> str:
        """What the wall is busy with (a load, a search or filter, a sort), with the progress."""
        kind = self.loader.kind
        if kind == "sort":
            text = self.tr("正在排序… {0} / {1}") if done else self.tr("正在排序…")
        elif kind in ("search", "filter"):
            text = self.tr("正在筛选… {0} / {1}") if done else self.tr("正在筛选…")
        else:
            text = self.tr("正在载入记忆… {0} / {1}") if done else self.tr("正在载入记忆…")
        return text.format(done, total)

    def _repaint_cards(self) -> None:
        for section in self._sections.values():
            section.view.viewport().update()

    # ── search and sort ───────────────────────────────────────────────

    def search_text(self) -> str:
        return self.search.text

    def set_search(self, text: str) -> None:
        """Filter now (the search box calls this after its debounce)."""
        self.search.apply(text)

    def focus_search(self) -> None:
        self.search_edit.setFocus(Qt.FocusReason.ShortcutFocusReason)
        self.search_edit.selectAll()

    def sort_mode(self) -> str:
        return self._sort_mode

    def set_sort_mode(self, mode: str) -> None:
        if mode not in ("recent", "hits"):
            raise ValueError(f"sort mode must be 'recent' or 'hits', not {mode!r}")
        changed = mode != self._sort_mode
        self._sort_mode = mode
        self.toolbar.set_sort(mode)
        if changed:  # every section sorted again, in slices
            self.loader.refilter("sort", lambda proxy: proxy.set_sort_mode(mode))

    def filter_name(self) -> str:
        return self._filter

    def set_filter(self, name: str) -> None:
        """Show only the cards of filter ``name`` (全部 / 已锁定 / Sonetto 写的 / 我写的 / 其他应用写的)."""
        predicate = card_filter(name)  # ValueError for an unknown name
        changed = name != self._filter
        self._filter = name
        self.toolbar.set_filter(name)
        if changed:  # every section filtered again, in slices
            self.loader.refilter("filter", lambda proxy: proxy.set_filter(predicate))

    # ── cards ─────────────────────────────────────────────────────────

    def visible_ids(self, theme: str) -> list[str]:
        section = self._sections.get(theme)
        return section.proxy.ids() if section is not None and not section.isHidden() else []

    def handle_drop(self, mime: QMimeData, theme: str, target_id: str = "") -> Any:
        """What a drop of ``mime`` on ``theme`` (or in card ``target_id``'s merge zone) does."""
        return self.actions.handle_drop(decode_ids(mime), theme, target_id)

    def _on_ids_dropped(self, ids: list[str], theme: str, target_id: str) -> Any:
        self.autoscroll.stop()
        return self.actions.handle_drop(ids, theme, target_id)

    def reveal(self, memory_id: str) -> bool:
        """Scroll to the card, select it and make it glow. A card not loaded yet is revealed when it
        arrives; a card hidden by the search clears the search; a collapsed theme opens. Returns
        whether it was shown now."""
        card = self.model.card(memory_id)
        if card is None:
            self._pending_reveal = memory_id
            return False
        self._pending_reveal = None
        section = self._sections.get(card.theme)
        if section is None and self.loader.loading:
            self.add_sections()  # its theme's section was not made yet
            section = self._sections.get(card.theme)
        if section is None:
            return False
        if self.loader.finish_section(section):  # not shown yet while loading: show its theme now
            self._update_visibility()
        index = section.proxy.index_of(memory_id)
        if not index.isValid():
            self.set_search("")  # (in slices on a big wall: its section is shown whole now)
            self.loader.finish_section(section)
            index = section.proxy.index_of(memory_id)
        if not index.isValid():
            return False
        self.set_collapsed(card.theme, False)
        view = section.view
        view.setCurrentIndex(index)
        view.setFocus(Qt.FocusReason.OtherFocusReason)
        self.model.flash(memory_id)
        # during a pass: not the selection from before it, and back to this card as the wall grows
        self.loader.take_over(lambda: self._scroll_to(section, memory_id))
        self._scroll_to(section, memory_id)
        later(section.view, lambda: self._scroll_to(section, memory_id))  # after pending layouts
        self.card_revealed.emit(memory_id)
        return True

    def _scroll_to(self, section: ThemeSection, memory_id: str) -> None:
        if not alive(section) or self.model.card(memory_id) is None or self._sections.get(section.theme) is not section:
            return
        index = section.proxy.index_of(memory_id)
        if index.isValid():
            self.container.layout().activate()  # the sections' places, after what the last pass changed
            section.view.scrollTo(index)

    def card_rect(self, memory_id: str):
        """The card's rectangle in wall coordinates (for tests and tooltips), or None."""
        card = self.model.card(memory_id)
        section = self._sections.get(card.theme) if card else None
        if section is None:
            return None
        index = section.proxy.index_of(memory_id)
        if not index.isValid():
            return None
        rect = section.view.visualRect(index)
        return rect.translated(section.view.viewport().mapTo(self, QPoint(0, 0)))

    def _on_load_failed(self) -> None:
        self._load_failed = True
        self._update_visibility()

    def _on_cards_applied(self, ids: list[str]) -> None:
        self.search.cards_changed(ids)
        if self._pending_reveal in ids:
            self.reveal(self._pending_reveal)

    def _on_card_double_clicked(self, index) -> None:
        memory_id = index.data(CardRole.Id)
        if memory_id:  # (card_activated comes from the view's ``activated``: double-click or Enter)
            self.actions.edit_card(memory_id)

    def selected_ids(self) -> list[str]:
        """The selected cards of every section (Ctrl/Shift-click and rubber band select)."""
        return [mid for section in self.visible_sections() for mid in section.view.selected_ids()]

    def select_ids(self, ids: list[str]) -> None:
        """Add the cards ``ids`` that are shown to the selection (others are skipped)."""
        for memory_id in ids:
            card = self.model.card(memory_id)
            section = self._sections.get(card.theme) if card is not None else None
            index = section.proxy.index_of(memory_id) if section is not None else None
            if index is not None and index.isValid():
                section.view.selectionModel().select(index, QItemSelectionModel.SelectionFlag.Select)

    def _on_card_pressed(self, view) -> None:
        """A plain left click selects in one section only: the others' selections are cleared (a
        right click keeps them: its menu acts on the whole selection)."""
        if QGuiApplication.keyboardModifiers() & (Qt.KeyboardModifier.ControlModifier | Qt.KeyboardModifier.ShiftModifier):
            return
        if not QGuiApplication.mouseButtons() & Qt.MouseButton.LeftButton:
            return
        for section in self._sections.values():
            if section.view is not view and section.view.selectionModel().hasSelection():
                section.view.clearSelection()

    def _show_menu(self, view, memory_id: str, global_pos) -> None:
        menu = self.actions.context_menu(memory_id, self.selected_ids())
        menu.popup(global_pos)

    def _on_operation_failed(self, message: str) -> None:
        self.toasts.show_toast(message, key="operation-failed", kind="error")
