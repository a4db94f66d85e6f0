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

from PySide6.QtCore import QMimeData, QPoint, QSettings, Qt, QTimer, Signal
from PySide6.QtGui import QKeySequence, QShortcut
from PySide6.QtWidgets import QFrame, QHBoxLayout, QLabel, QScrollArea, QVBoxLayout, QWidget

from ..widgets.deferred import alive, later
from ..i18n import short_number, ui_language
from .memory_model import MemoryCardModel, decode_ids
from ..memory_service import MemoryService
from .theme_palette import ThemeColors
from .theme_section import ThemeSection
from ..notices.toasts import ToastOverlay
from .actions import WallActions
from .navigation import OUTLINE_WIDTH, WallNavigation
from .outline import WallOutline
from .scroll import AutoScroller, StickyHeader
from sonetto_desktop.presentation.authors import card_filter, filter_label
from sonetto_desktop.presentation.cards import THEME
from sonetto_desktop.presentation.i18n import counted
from sonetto_desktop.presentation.server_words import empty_offline_text
from .loader import SECTIONS_PER_STEP, WallLoader
from .search import WallSearch
from .sections import ViewSettings, WallSections
from .selection import WallBulk
from .state import WallState
from .toolbar import SEARCH_MIN_WIDTH, WallToolbar

__all__ = ["MemoryWall", "SEARCH_MIN_WIDTH"]


class MemoryWall(QWidget):
    """The parts it owns: ``theme_sections`` (:class:`WallSections`), ``navigation``
    (:class:`WallNavigation`), ``loader``, ``search``, ``actions``, ``bulk``; the widgets: ``toolbar``,
    ``outline``, ``scroll`` (its ``container`` holds the sections), ``sticky``."""

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
        if toasts is None:  # its own (tests): a 撤销 undone another way goes, as in the app's
            toasts = ToastOverlay(self)
            service.memory_changed.connect(toasts.withdraw_undone)
        self.toasts = toasts
        self.state = WallState(ui_state)
        self.theme_colors = ThemeColors(self.state.color_slots(), self.state.custom_colors())
        self.actions = WallActions(self, service, self.model, self.toasts, self.reveal)
        self.actions.chat_requested.connect(self.chat_requested)
        self.bulk = WallBulk(self)
        self.actions.bulk = self.bulk
        self._filter = "all"
        self._sort_mode = "recent"
        self._density = self.state.density()
        self._pending_reveal: str | None = None
        self._load_failed = False
        self._add_tip: str | None = None  # the 新建 button's own tooltip, while a refusal takes its place
        self._build_widgets()
        self._build_parts()
        self._connect_toolbar()
        self._connect_sections()
        self._connect_model(service)
        self.toolbar.set_density(self._density == "compact")
        self._on_model_reset()
        self.navigation.fit_outline()

    def _build_widgets(self) -> None:
        """The toolbar over the outline and the scrolled column of sections (empty label first)."""
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
        # not a Tab stop: it drew no focus ring, and the cards inside take the keys (arrows, PageUp/Down)
        self.scroll.setFocusPolicy(Qt.FocusPolicy.NoFocus)
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

    def _build_parts(self) -> None:
        """What fills, searches and navigates the wall, and its two timers."""
        self.theme_sections = WallSections(self.model, self.container, self._column, self.state, self.theme_colors,
                                           settings=self._view_settings, loading=self.loading, parent=self)
        self.search = WallSearch(self)
        self.loader = WallLoader(self)  # after a reload, the sections are filled in slices
        self.loader.progress.connect(self._update_summary)
        self.loader.finished.connect(self.update_visibility)
        self.navigation = WallNavigation(self, self.theme_sections, scroll=self.scroll, outline=self.outline,
                                         sticky=self.sticky, toolbar=self.toolbar, state=self.state,
                                         theme_colors=self.theme_colors, loader=self.loader,
                                         update_visibility=self.update_visibility)
        self._visibility_timer = QTimer(self)
        self._visibility_timer.setSingleShot(True)
        self._visibility_timer.setInterval(0)
        self._visibility_timer.timeout.connect(self.update_visibility)
        self._clock = QTimer(self)  # relative times ("3分钟前") move on
        self._clock.setInterval(60_000)
        self._clock.timeout.connect(self.theme_sections.repaint_cards)
        self._clock.start()

    def _connect_toolbar(self) -> None:
        self.toolbar.sort_changed.connect(self.set_sort_mode)
        self.toolbar.density_toggled.connect(lambda compact: self.set_density("compact" if compact else "comfortable"))
        self.toolbar.filter_changed.connect(self.set_filter)
        self.toolbar.forget_today_requested.connect(lambda: self.actions.refuse_changes() or self.bulk.ask_forget_today())
        self.add_button.clicked.connect(lambda: self.actions.add_card())
        self.trash_button.clicked.connect(lambda: self.actions.show_trash())
        self.outline.ids_dropped.connect(self._on_ids_dropped)
        self.sticky.ids_dropped.connect(self._on_ids_dropped)
        for source in (self.sticky, self.theme_sections):  # a drag near the edges scrolls the wall
            source.drag_moved.connect(self.autoscroll.drag_at)
            source.drag_hovered.connect(self.autoscroll.drag_hovered)
        find = QShortcut(QKeySequence.StandardKey.Find, self, activated=self.focus_search,
                         context=Qt.ShortcutContext.WindowShortcut)
        find.setWhatsThis(self.tr("搜索记忆墙"))  # listed in the window's shortcut list (F1)

    def _connect_sections(self) -> None:
        sections = self.theme_sections
        sections.synced.connect(self.update_visibility)
        sections.rows_changed.connect(self._visibility_timer.start)  # coalesced: one pass per burst
        sections.ids_dropped.connect(self._on_ids_dropped)
        sections.menu_requested.connect(self._show_theme_menu)
        sections.card_activated.connect(self.card_activated)
        sections.card_double_clicked.connect(self.actions.edit_card)
        sections.edit_requested.connect(self.actions.edit_card)
        sections.delete_requested.connect(self.actions.delete_cards)
        sections.context_requested.connect(self._show_menu)

    def _connect_model(self, service: MemoryService) -> None:
        self.model.change_arriving.connect(self._on_change_arriving)
        self.model.themes_changed.connect(self.theme_sections.sync)
        self.model.modelReset.connect(self._on_model_reset)
        self.model.rowsInserted.connect(self._update_summary)
        self.model.rowsRemoved.connect(self._update_summary)
        self.model.cards_applied.connect(self._on_cards_applied)
        self.model.load_failed.connect(self._on_load_failed)
        self.model.card_updated.connect(lambda *_: self._visibility_timer.start())  # counts of hidden cards
        service.operation_failed.connect(self._on_operation_failed)
        service.changes_refused_changed.connect(self._on_changes_refused)
        self._on_changes_refused(service.changes_refused())

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
        for section in self.theme_sections.all().values():
            section.proxy.mark_stale()  # emptied now, filled again by the loader, top first
        self.theme_sections.sync(limit=SECTIONS_PER_STEP)
        self.loader.start()

    # ── the sections (``theme_sections``) ─────────────────────────────

    def sections(self) -> dict[str, ThemeSection]:
        return self.theme_sections.all()

    def section(self, theme: str) -> ThemeSection | None:
        return self.theme_sections.get(theme)

    def sections_in_order(self) -> list[ThemeSection]:
        """Every section (shown or not), in display order."""
        return self.theme_sections.in_order()

    def visible_sections(self) -> list[ThemeSection]:
        """Sections shown right now, in display order."""
        return self.theme_sections.visible()

    def add_sections(self, count: int | None = None) -> int:
        """Make up to ``count`` (None: all) of the sections still missing; returns how many."""
        return self.theme_sections.add(count)

    def _view_settings(self) -> ViewSettings:
        return self.search.query, card_filter(self._filter), self._sort_mode, self._density

    # ── finding your way (``navigation``) ─────────────────────────────

    def jump_to(self, theme: str) -> bool:
        """Scroll so ``theme``'s header is at the top (expanding nothing); False if not shown."""
        return self.navigation.jump_to(theme)

    def current_theme(self) -> str:
        """The theme at the top of the viewport."""
        return self.navigation.current_theme()

    def scroll_anchor(self) -> tuple[str, int]:
        return self.navigation.scroll_anchor()

    def scroll_to_anchor(self, theme: str, offset: int) -> None:
        self.navigation.scroll_to_anchor(theme, offset)

    def set_collapsed(self, theme: str, collapsed: bool) -> None:
        self.navigation.set_collapsed(theme, collapsed)

    def set_outline_shown(self, shown: bool) -> None:
        self.navigation.set_outline_shown(shown)

    # ── how the cards look ────────────────────────────────────────────

    def density(self) -> str:
        return self._density

    def set_density(self, density: str) -> None:
        """"comfortable" or "compact" (smaller cards, two lines); remembered."""
        self.state.set_density(density)  # raises on a wrong name
        self._density = density
        self.toolbar.set_density(density == "compact")
        self.theme_sections.set_density(density)

    def set_theme_color(self, theme: str, color: str | None) -> None:
        """The person's colour for ``theme`` (``#rrggbb``), or None for its own again; remembered."""
        self.theme_colors.set_custom(theme, color)
        self.state.set_custom_colors(self.theme_colors.custom)
        self.theme_sections.repaint_cards()
        self.navigation.update_outline()

    def _on_change_arriving(self, change: Any) -> None:
        """An undo (of a rename, from the toast, 编辑 ▸ 撤销 or the history) moves cards back to a theme
        the rename emptied: that theme takes back its colours and its fold before its cards show (``moved_back``)."""
        if not change.extra.get("undo_of"):
            return
        present = self.model.theme_counts()
        took_back = False
        for memory_id in change.ids:
            card, state = self.model.card(memory_id), change.state(memory_id)
            theme = state.get("theme") if state is not None else None
            if card is not None and theme and theme != card[THEME]:
                if self.theme_colors.moved_back(card[THEME], theme, present):
                    self.theme_sections.fold_back(theme, card[THEME])
                    took_back = True
        if took_back:
            self.state.set_color_slots(self.theme_colors.slots)
            self.state.set_custom_colors(self.theme_colors.custom)

    # ── what is shown ─────────────────────────────────────────────────

    def update_visibility(self, *_: object) -> None:
        """Which sections are shown, their counts, the empty wall's text, the summary, the outline."""
        self._visibility_timer.stop()
        shown = 0
        for section in self.theme_sections.all().values():
            visible = section.shown_count() > 0
            section.setVisible(visible)
            section.refresh_count()
            shown += section.shown_count()
        total = self.model.rowCount()
        if (self.loader.loading or self.model.first_read_pending) and shown == 0:
            self.empty_label.setText(self._busy_text())  # never a false "no memories yet" at start
        elif total == 0 and self.service.changes_refused():  # not "write one": the store is the server's
            self.empty_label.setText(empty_offline_text(self.service.store_status))
        elif self._load_failed and total == 0:
            self.empty_label.setText(self.tr("记忆库暂时无法读取，卡片墙是空的；没有任何内容被改动。"))
        elif total == 0:
            self.empty_label.setText(self.tr("还没有记忆。和 Sonetto 聊聊，或点「新建」写下一条。"))
        elif shown == 0 and not self.search.text:
            self.empty_label.setText(self.tr("没有「{0}」的记忆。").format(filter_label(self._filter)))
        elif shown == 0 and self.search.pinyin_pending():  # not a false "no match" while pinyin is read
            self.empty_label.setText(self.tr("正在准备拼音搜索…（第一次用拼音搜很多记忆时要几秒）"))
        elif shown == 0:
            self.empty_label.setText(self.tr("没有和「{0}」匹配的记忆。").format(self.search.text))
        self.empty_label.setVisible(shown == 0)
        self.theme_sections.ensure_tab_stop()
        self._update_summary()
        self.navigation.update_outline()
        later(self, self.navigation.update_sticky)  # after the layout settles

    def _update_summary(self, *_: object) -> None:
        total = self.model.rowCount()
        # room for the progress, asked for at all times: a search's progress moves neither the search box.
        # (Not for a search's result, "100,000 / 100,000 条": in a 900 px window at 100,000 memories
        # that room squeezed the plain count to "100,…".)
        self.count_label.reserve([self.tr("筛选中 {0}%").format(99), self.tr("排序中 {0}%").format(99),
                                  self.tr("载入中 {0}%").format(99)])
        if self.model.first_read_pending:  # not "0 条" (the middle of the wall says it is loading); no
            self.count_label.setText("")  # longer text either: it would widen the window's minimum
        elif self.loader.loading:
            done, total = self.loader.progress_counts()
            self.count_label.setText(self._busy_short(done, total))  # the full counts: the middle of the wall
            if self.empty_label.isVisible() and self._nothing_shown():  # the busy text of update_visibility
                self.empty_label.setText(self._busy_text(counted(done), counted(total)))
        elif self.search.query or self._filter != "all":  # (which filter: the toolbar's filter bar)
            shown = sum(section.shown_count() for section in self.theme_sections.all().values())
            self.count_label.set_texts(self.tr("{0} / {1} 条").format(counted(shown), counted(total)),
                                       self.tr("{0} / {1} 条").format(short_number(shown), short_number(total)),
                                       f"{short_number(shown)} / {short_number(total)}")
        else:  # (a narrow window: "10万 条" / "100k memories", then "10万" / "36", not "100,…" / "36 m…")
            self.count_label.set_texts(self.tr("1 条") if total == 1 else self.tr("{0} 条").format(counted(total)),
                                       self.tr("1 条") if total == 1 else self.tr("{0} 条").format(short_number(total)),
                                       short_number(total))

    def _nothing_shown(self) -> bool:
        return not any(section.shown_count() for section in self.theme_sections.all().values())

    def _busy_short(self, done: int, total: int) -> str:
        """The toolbar's count while the wall is busy: short, so the search box keeps its width (a
        longer text there took ~100 px from it while a search ran)."""
        percent = min(99, done * 100 // total) if total > 0 else 0
        kind = self.loader.kind
        if kind == "sort":
            text = self.tr("排序中 {0}%")
        elif kind in ("search", "filter"):
            text = self.tr("筛选中 {0}%")
        else:
            text = self.tr("载入中 {0}%")
        return text.format(percent)

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
        section = self.theme_sections.get(theme)
        return section.proxy.ids() if section is not None and not section.isHidden() else []

    def handle_drop(self, mime: QMimeData, theme: str, target_id: str = "") -> Any:
        """What a drop of ``mime`` on ``theme`` (or in card ``target_id``'s merge zone) does."""
        return self.actions.handle_drop(decode_ids(mime), theme, target_id)

    def _on_ids_dropped(self, ids: list[str], theme: str, target_id: str) -> Any:
        self.autoscroll.stop()
        return self.actions.handle_drop(ids, theme, target_id)

    def reveal(self, memory_id: str) -> bool:
        """Scroll to the card, make it the only selected card and make it glow. A card not loaded yet is revealed when it
        arrives; a card hidden by the search clears the search, by a filter ends it; a collapsed theme opens. Returns
        whether it was shown now."""
        card = self.model.card(memory_id)
        if card is None:
            self._pending_reveal = memory_id
            return False
        self._pending_reveal = None
        section = self.theme_sections.get(card[THEME])
        if section is None and self.loader.loading:
            self.add_sections()  # its theme's section was not made yet
            section = self.theme_sections.get(card[THEME])
        if section is None:
            return False
        if self.loader.finish_section(section):  # not shown yet while loading: show its theme now
            self.update_visibility()
        index = section.proxy.index_of(memory_id)
        if not index.isValid():
            self.set_search("")  # (in slices on a big wall: its section is shown whole now)
            self.loader.finish_section(section)
            index = section.proxy.index_of(memory_id)
        if not index.isValid() and self._filter != "all":  # hidden by a filter (a card the person just
            self.set_filter("all")  # added under 「Sonetto 写的」): shown, as a search-hidden one is
            self.loader.finish_section(section)
            index = section.proxy.index_of(memory_id)
        if not index.isValid():
            return False
        self.set_collapsed(card[THEME], False)
        view = section.view
        self.theme_sections.select_only(memory_id)  # the only selection, as a click makes it: a Delete
        # then deletes this card, not cards selected earlier in themes out of sight
        view.setFocus(Qt.FocusReason.OtherFocusReason)
        self.model.flash(memory_id)
        # during a pass: not the selection from before it, and back to this card as the wall grows
        self.loader.take_over(lambda: self._scroll_to(section, memory_id))
        self._scroll_to(section, memory_id)
        later(section.view, lambda: self._scroll_to(section, memory_id))  # after pending layouts
        self.card_revealed.emit(memory_id)
        return True

    def _scroll_to(self, section: ThemeSection, memory_id: str) -> None:
        if not alive(section) or self.model.card(memory_id) is None or self.theme_sections.get(section.theme) is not section:
            return
        index = section.proxy.index_of(memory_id)
        if index.isValid():
            self.container.layout().activate()  # the sections' places, after what the last pass changed
            section.view.scrollTo(index)

    def card_rect(self, memory_id: str):
        """The card's rectangle in wall coordinates (for tests and tooltips), or None."""
        card = self.model.card(memory_id)
        section = self.theme_sections.get(card[THEME]) if card else None
        if section is None:
            return None
        index = section.proxy.index_of(memory_id)
        if not index.isValid():
            return None
        rect = section.view.visualRect(index)
        return rect.translated(section.view.viewport().mapTo(self, QPoint(0, 0)))

    def _on_load_failed(self) -> None:
        self._load_failed = True
        self.update_visibility()

    def _on_cards_applied(self, ids: list[str]) -> None:
        self.search.cards_changed(ids)
        if self._pending_reveal in ids:
            self.reveal(self._pending_reveal)

    def selected_ids(self) -> list[str]:
        """The selected cards of every section (Ctrl/Shift-click and rubber band select)."""
        return self.theme_sections.selected_ids()

    def select_ids(self, ids: list[str]) -> None:
        """Add the cards ``ids`` that are shown to the selection (others are skipped)."""
        self.theme_sections.select_ids(ids)

    def _show_menu(self, memory_id: str, global_pos) -> None:
        selected = self.selected_ids()
        menu = self.actions.context_menu(memory_id, selected, unseen=len(self.theme_sections.unseen(selected)))
        menu.popup(global_pos)

    def _show_theme_menu(self, theme: str, global_pos) -> None:
        section = self.theme_sections.get(theme)
        if section is not None:
            self.actions.theme_menu(theme, section.is_collapsed(), self).popup(global_pos)

    def _on_changes_refused(self, reason: str) -> None:
        """The memory server went away (or refuses this computer: ``reason``) or came back ("")."""
        if self._add_tip is None:
            self._add_tip = self.add_button.toolTip()
        self.add_button.setEnabled(not reason)
        self.add_button.setToolTip(reason or self._add_tip)
        self._visibility_timer.start()

    def _on_operation_failed(self, message: str) -> None:
        self.toasts.show_toast(message, key="operation-failed", kind="error")
