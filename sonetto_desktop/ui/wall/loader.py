"""WallLoader: the wall's cards shown in slices after the model is (re)loaded, so that no single
step on the Qt loop lays out thousands of cards (issue 14: ≤ ~50 ms per step at 10k–50k cards;
issue 29: the whole fill linear in the cards, each measured once, at 100,000 too).

The model holds every card at once (it is the data, cheap to fill); what is expensive is each
theme's sorted list and the layout of its cards. After a model reset every section's list is
*stale* (empty, see :class:`ThemeCardList`); the loader builds them in display order — the top of
the wall first — and lets each list show its cards ``slice_cards`` at a time, yielding to the loop
between steps (``deferred.later`` with the loader as context object: a step never runs after the
wall is gone). The first step runs at once, and a wall of at most ``ALL_AT_ONCE`` cards is
shown completely in it, without waiting for the loop.

Everything else keeps working during a load because the model is complete: a change arriving
from the store goes into the lists (shown if it lands in the shown part, kept otherwise); a new
reset starts a new generation and the old steps end.

A search, filter or sort over a big wall goes the same way (``refilter``): every section is made
stale with the new setting and filled again top first — a stale theme's cards are first tested
against the search a slice at a time (``ThemeCardList.scan``, which also sorts them as it goes; a
theme of more than ``scan_above`` cards is scanned so on any load), then shown in slices. The
selection is given back to each section once it is complete, and the scroll position is kept as the
wall grows back under it (the scroll bar stays while the wall is refilled: its going and coming
back would change every section's width and lay each out again). A new search during one starts
over.
"""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING, Callable

from PySide6.QtCore import QItemSelectionModel, QObject, Qt, Signal

from ..widgets.deferred import alive, later
from ..widgets.owner import Owner
from .memory_model import CardRole

if TYPE_CHECKING:
    from .memory_wall import MemoryWall
    from .theme_card_list import ThemeCardList
    from .theme_section import ThemeSection

SLICE_CARDS = 1000  # cards newly laid out per loop step (~5 µs each: measured once, flowed into rows;
# 2,000 made the first steps at 100,000 cards 40-50 ms of the Qt thread's CPU and the loop 90-110 ms
# late with their paint, 1,000 keeps them under ~30 and ~40: issue 37)
# What a step costs, in "cards newly laid out": testing a theme's cards against the filter (with
# no search) and sorting them cost about 1/8 of laying a new one out each. Showing more of a
# section costs only its new cards (the view lays out what was appended, issue 29). A step ends
# when its budget is spent; a theme's cards are tested a slice at a time, so a theme of 100,000
# cards is not sorted in the same step as it is tested.
REBUILD_WEIGHT = 8
SEARCH_WEIGHT = 2  # testing a card against a search costs about half a new card's layout
SCAN_WEIGHT = 4  # without a search: testing the filter and sorting it in (merged in order) a quarter
# A theme whose rebuild (every card tested and sorted at once) would cost more than half a step is
# tested (and sorted) a slice at a time even with no search (at 2,000 cards a slice, themes of 8,000
# rebuilt at once made one step ~75 ms of CPU): ``WallLoader.scan_above``, from the slice.
SCAN_SHARE = REBUILD_WEIGHT // 2
SECTIONS_PER_STEP = 4  # sections (widgets) made per step while loading
ALL_AT_ONCE = 2000  # a wall of at most this many cards is shown in one step (~10-20 ms)
SECTION_COST = 200  # making one costs about as much as laying 200 cards out


class WallLoader(QObject):
    """Builds the wall's sections a slice per loop step; ``progress(done, total)`` after each."""

    progress = Signal(int, int)
    finished = Signal()
    _wall = Owner()  # held weakly, so the owner and this part form no reference cycle (widgets/owner.py)

    def __init__(self, wall: "MemoryWall") -> None:
        super().__init__(wall)
        self._wall = wall
        self._generation = 0
        self._loading = False
        self._steps = 0
        self._kind = "load"
        self._selected: dict[str, tuple[list[str], str | None]] = {}  # theme -> (selected, current)
        self._scroll_to: int | None = None  # the scroll position to keep while the wall grows back
        self._follow: Callable[[], object] | None = None  # a reveal or jump to keep in view while it grows
        self._given: dict[str, set[str]] = {}  # theme -> the selection this pass gave back to it
        self.slice_cards = SLICE_CARDS
        self.scan_above: int | None = None  # None: SCAN_SHARE slices' worth of cards
        bar = wall.scroll.verticalScrollBar()
        bar.rangeChanged.connect(self._keep_scroll)
        bar.actionTriggered.connect(self._scrolled_by_hand)

    @property
    def loading(self) -> bool:
        return self._loading

    @property
    def kind(self) -> str:
        """What the current (or last) pass does: "load", "search", "filter" or "sort"."""
        return self._kind

    @property
    def steps(self) -> int:
        """Loop steps taken by the current (or last) load."""
        return self._steps

    def begin(self, kind: str = "load") -> None:
        """A new load: sections made from now on are left for it; a load already running is
        abandoned (its next step sees the new generation and ends)."""
        self._generation += 1
        self._loading = True
        self._steps = 0
        self._given = {}
        self._kind = kind
        scroll = self._wall.scroll
        if scroll.verticalScrollBar().isVisible():  # the wall empties and grows back: the bar stays,
            scroll.setVerticalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOn)  # so the width does
        if kind == "load":
            self._selected, self._scroll_to, self._follow = {}, None, None

    def refilter(self, kind: str, apply: Callable[["ThemeCardList"], None]) -> None:
        """Apply a new search, filter or sort (``apply`` to each section's list) in slices: every
        section is emptied and filled again, the top of the wall first."""
        for section in self._wall.sections().values():  # (merged with a pass still running)
            ids, current = self._selected.get(section.theme, ([], None))
            ids = list(dict.fromkeys(ids + section.view.selected_ids()))
            current = section.view.currentIndex().data(CardRole.Id) or current
            if ids or current:
                self._selected[section.theme] = (ids, current)
        if self._scroll_to is None:
            self._scroll_to = self._wall.scroll.verticalScrollBar().value() or None
        self._follow = None  # a new search or sort: back where the wall was, not to an old reveal
        self.begin(kind)
        wall = self._wall
        wall.container.setUpdatesEnabled(False)
        for section in wall.sections().values():
            section.proxy.mark_stale()
            apply(section.proxy)
        wall.update_visibility()
        wall.container.setUpdatesEnabled(True)
        self._step(self._generation)

    def start(self) -> None:
        """Load every stale section, the first slice now and the rest on later loop turns."""
        if not self._loading:
            self.begin()
        self._step(self._generation)

    def _pending(self) -> list["ThemeSection"]:
        return [s for s in self._wall.sections_in_order() if not s.proxy.complete()]

    def progress_counts(self) -> tuple[int, int]:
        """(cards shown or known not to match, cards in the wall)."""
        total = self._wall.model.rowCount()
        counts = self._wall.model.theme_counts()
        waiting = 0
        for section in self._wall.sections().values():
            proxy = section.proxy
            theme_total = counts.get(section.theme, 0)
            if proxy.stale:
                waiting += theme_total - proxy.scanned_count()
            else:
                waiting += min(theme_total, proxy.matched_count() - proxy.rowCount())
        return max(0, total - waiting), total

    def _step(self, generation: int) -> None:
        if generation != self._generation or not self._loading:
            return  # a newer load took over (or this one finished)
        self._steps += 1
        small = self._wall.model.rowCount() <= ALL_AT_ONCE  # shown whole in this step
        budget = 10 ** 9 if small else self.slice_cards
        pending = self._pending()
        if (small or not pending) and self._wall.add_sections(None if small else SECTIONS_PER_STEP):
            budget -= SECTION_COST * SECTIONS_PER_STEP  # the next few themes' sections
            pending = self._pending()
        full = budget
        while pending and budget > 0:
            proxy = pending[0].proxy
            size = self._wall.model.theme_counts().get(proxy.theme, 0) if proxy.stale else 0
            scan_above = self.slice_cards * SCAN_SHARE if self.scan_above is None else self.scan_above
            if proxy.stale and not proxy.scanned() and (proxy.query or size > scan_above):
                weight = SEARCH_WEIGHT if proxy.query else SCAN_WEIGHT  # tested a slice at a time
                budget -= max(1, proxy.scan(budget * weight) // weight)
                if not proxy.scanned():
                    continue
            if proxy.stale:  # sorted (what matched), and the first of it shown
                cost = (proxy.scan_matched() if proxy.scanned() else 2 * size) // REBUILD_WEIGHT
                if cost > budget and budget < full:
                    break  # at the start of the next step, not on top of this one's work
                # (a theme tested in slices was sorted as it was: its first slice is smaller)
                limit = max(1, budget - cost) if proxy.scanned() else budget
                budget -= max(1, proxy.load(limit) + cost)
            else:
                budget -= max(1, proxy.show_more(budget))
            if proxy.complete():
                self._restore_selection(pending.pop(0))
        if not pending and not self._wall.theme_sections.missing():
            self._finish()
            return
        if self._follow is not None:  # the sections above it grew: scroll back to it
            self._follow()
        self.progress.emit(*self.progress_counts())
        later(self, lambda: self._step(generation))

    async def wait(self) -> None:
        """Until the wall shows every card (at once when no load runs; also when the wall goes)."""
        while alive(self) and self._loading:
            await asyncio.sleep(0.02)

    def finish_section(self, section: "ThemeSection") -> bool:
        """Show all of ``section`` now (a card in it is being revealed); whether it had to."""
        proxy = section.proxy
        if proxy.stale:
            proxy.load(None)
        elif not proxy.complete():
            proxy.show_more(proxy.matched_count())
        else:
            return False
        return True

    def _chosen_during_pass(self) -> bool:
        """Whether the person selected a card since the pass began: every section was emptied when it
        began, so a selection other than the one this pass gave back is theirs."""
        return any(set(s.view.selected_ids()) != self._given.get(theme, set())
                   for theme, s in self._wall.sections().items())

    def _restore_selection(self, section: "ThemeSection") -> None:
        if self._selected and self._chosen_during_pass():
            self._selected = {}  # their new choice stands; the old one is not merged into it
        ids, current = self._selected.pop(section.theme, ([], None))
        model = section.view.selectionModel()
        flag = QItemSelectionModel.SelectionFlag
        for memory_id in ids:
            index = section.proxy.index_of(memory_id)
            if index.isValid():
                model.select(index, flag.Select)
        index = section.proxy.index_of(current) if current else None
        if index is not None and index.isValid():
            model.setCurrentIndex(index, flag.NoUpdate)
        if ids:
            self._given[section.theme] = set(section.view.selected_ids())

    def _keep_scroll(self, _low: int, high: int) -> None:
        """While a search or sort fills the wall again: back where the person was, once the wall
        is tall enough."""
        if self._follow is not None:  # the wall grew above what the person chose: back to it
            self._follow()
            return
        if self._scroll_to is None:
            return
        bar = self._wall.scroll.verticalScrollBar()
        bar.setValue(min(self._scroll_to, high))
        if bar.value() == self._scroll_to:
            self._scroll_to = None

    def _scrolled_by_hand(self, *_: object) -> None:
        self._scroll_to = self._follow = None

    def take_over(self, follow: Callable[[], object] | None = None) -> None:
        """The person chose something during a pass (a revealed card, a theme from the outline): the
        selection saved before the pass is not restored over it, and ``follow`` (scrolling back to
        what they chose) runs after each step and whenever the wall's height changes, as the sections
        above it fill, until they scroll by hand."""
        self._selected = {}
        self._scroll_to = None
        # kept until the person scrolls or a new pass starts: the sections keep settling (their
        # widths, with the scroll bar, and so their heights) for a while after the last step
        self._follow = follow if self._loading else None

    def _finish(self) -> None:
        self._loading = False
        self._wall.scroll.setVerticalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAsNeeded)
        for section in self._wall.sections().values():
            if section.theme in self._selected:
                self._restore_selection(section)
        self._selected = {}
        generation = self._generation
        later(self, lambda: self._forget_scroll(generation))  # after the last layouts
        total = self._wall.model.rowCount()
        self.progress.emit(total, total)
        self.finished.emit()

    def _forget_scroll(self, generation: int) -> None:
        if generation == self._generation and not self._loading:
            self._scroll_to = None
            if self._follow is not None:
                self._follow()  # once more, after the last layouts
