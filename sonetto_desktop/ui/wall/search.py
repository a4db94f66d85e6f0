"""WallSearch: the wall's search box behaviour — filter after a pause in typing, Esc clears, and
pinyin made ready in a worker (see :mod:`search_text`) so that typing ``kf`` over 10,000 cards never
stalls the window: the search applies at once to what is ready and again when the rest is."""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING, Iterable

from PySide6.QtCore import QEvent, QObject, Qt, QTimer
from PySide6.QtGui import QKeyEvent


from sonetto_desktop.presentation.cards import DESCRIPTION, THEME, Card
from ..memory_service import call
from ..widgets.deferred import alive
from ..widgets.owner import Owner
from ..widgets.tasks import task_scope
from .search_text import SearchQuery, cache_generation, collapse, missing_pinyin, warm_pinyin

if TYPE_CHECKING:
    from .memory_wall import MemoryWall

SEARCH_DEBOUNCE_MS = 200


def missing_of(cards: Iterable[Card]) -> list[str]:
    """The texts and themes of ``cards`` (as the cards show them) whose pinyin has not been made yet."""
    cards = list(cards)
    return missing_pinyin([collapse(c[DESCRIPTION]) for c in cards] + [collapse(c[THEME]) for c in cards])


def warm_cards(cards: Iterable[Card]) -> int:
    """Make the pinyin ``missing_of(cards)`` (blocking: a worker). Returns how many texts were new."""
    return warm_pinyin(missing_of(cards))


class WallSearch(QObject):
    _wall = Owner()  # held weakly, so the owner and this part form no reference cycle (widgets/owner.py)

    def __init__(self, wall: "MemoryWall") -> None:
        super().__init__(wall)
        self._wall = wall
        self.text = ""
        self.query = SearchQuery("")
        self._tasks = task_scope(self, "wall-search")
        self._warming: asyncio.Task[None] | None = None
        self._preparing = False  # the pinyin of the cards is being made (a search may match more then)
        self._warm_done: int | None = None  # every card's pinyin made, at this cache_generation()
        self._resets = 0
        wall.model.modelReset.connect(self._on_model_reset)
        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.setInterval(SEARCH_DEBOUNCE_MS)
        self._timer.timeout.connect(lambda: self.apply(wall.search_edit.text()))
        self._setting = False  # the text is being set here, not typed
        wall.search_edit.textChanged.connect(lambda _: self._setting or self._timer.start())  # debounce
        wall.search_edit.installEventFilter(self)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if (event.type() == QEvent.Type.KeyPress and isinstance(event, QKeyEvent)
                and event.key() == Qt.Key.Key_Escape and self._wall.search_edit.text()):
            self.apply("")  # Esc clears the search (a second Esc goes on to the window)
            return True
        return super().eventFilter(watched, event)

    def apply(self, text: str, *, force: bool = False) -> None:
        """Filter every section by ``text``: at once on a small wall, in slices on a big one
        (``WallLoader.refilter``)."""
        wall = self._wall
        self._timer.stop()
        edit = wall.search_edit
        if edit.text() != text:
            # (not blockSignals: the box's own clear button follows textChanged, and stayed shown in
            # an empty box after Esc)
            self._setting = True
            try:
                edit.setText(text)
            finally:
                self._setting = False
        self.text = text.strip()
        query = SearchQuery(self.text)
        changed = force or (query.words, query.text) != (self.query.words, self.query.text)
        self.query = query
        if self.query.wants_pinyin:  # first: the wall's empty text knows the pinyin is coming
            self._warm()
        if changed:  # every section filtered again, in slices, the top of the wall first
            wall.loader.refilter("search", lambda proxy: proxy.set_search(query, force=force))
        else:
            wall.update_visibility()

    # ── pinyin, in a worker ───────────────────────────────────────────

    def _warm(self) -> None:
        """Make the cards' pinyin ready in a worker: which of them still need it is worked out there
        too (at 100,000 memories, collapsing and looking up 200,000 texts here held the window)."""
        if self._warming is not None and not self._warming.done():
            return  # the running one looks again before it ends
        if self._warm_done == cache_generation():
            return  # every card's pinyin is made (a card added since is looked at in cards_changed)
        self._preparing = True
        self._warming = self._tasks.spawn(self._warm_all(), name="warm-pinyin")

    async def _warm_all(self) -> None:
        made = 0
        try:
            while True:  # again until none is new: the cards added meanwhile too
                generation, reset = cache_generation(), self._resets
                warmed = await call(warm_cards, self._wall.model.cards())
                if not warmed.ok or not alive(self):  # (a failure is logged: search works without pinyin)
                    return
                if not warmed.value:
                    if reset == self._resets:  # (a reload meanwhile: its cards are looked at next time)
                        self._warm_done = generation
                    break
                made += warmed.value
        finally:
            self._preparing = False
        if self.query.wants_pinyin:
            if made:  # the search may match more now
                self.apply(self._wall.search_edit.text(), force=True)
            else:
                self._wall.update_visibility()  # no longer "the pinyin is being made"

    def cards_changed(self, ids: list[str]) -> None:
        """New or edited cards: make their pinyin ready if the search needs it."""
        model = self._wall.model
        if missing_of(c for c in map(model.card, ids) if c is not None):
            self._warm_done = None
            if self.query.wants_pinyin:
                self._warm()

    def _on_model_reset(self) -> None:
        """Every card read again: which of them need pinyin is looked at again (in the worker)."""
        self._warm_done = None
        self._resets += 1

    def pinyin_pending(self) -> bool:
        """Whether the search may match more once the cards' pinyin is ready (it is being read)."""
        return self.query.wants_pinyin and self._preparing

    @property
    def warming(self) -> "asyncio.Task[None] | None":
        return self._warming
