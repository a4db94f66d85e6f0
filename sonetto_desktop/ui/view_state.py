"""What the person sees in the windows, kept across a rebuild of the views (a live language switch).

The views are thin over the services and the chat controller, so a language change rebuilds them
(``shell.SonettoApp.switch_language``). :func:`capture` records what is not held anywhere else —
window geometry and visibility, the chat's scroll position, the composer's unsent draft, the quick
chat, the wall's search, filter, sort, selection and scroll — and the ``restore_*`` functions put it
back on the new views. The open chat session itself lives in the controller.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from typing import Any

from PySide6.QtCore import QByteArray, QPoint

from .widgets.deferred import alive, later


@dataclass
class ViewState:
    geometry: QByteArray = field(default_factory=QByteArray)
    splitter: QByteArray = field(default_factory=QByteArray)
    window_visible: bool = True
    window_minimized: bool = False
    chat_position: int | None = None  # None: at the end of the chat
    draft: str = ""
    draft_cursor: int = -1  # where the text cursor was in the draft (-1: none kept)
    editing_turn: str = ""
    before_edit: str = ""  # while editing an earlier message: what was typed before
    quick_visible: bool = False
    quick_pos: QPoint = field(default_factory=QPoint)
    quick_draft: str = ""
    quick_cursor: int = -1
    #: the chats whose long draft the old composers were still reading, with what was typed meanwhile
    #: (``Drafts.hand_over``): the new ones read them
    draft_reads: dict[str, str] = field(default_factory=dict)
    quick_draft_reads: dict[str, str] = field(default_factory=dict)
    wall_search: str = ""
    wall_filter: str = "all"
    wall_sort: str = "recent"
    wall_theme: str = ""  # the theme at the top of the wall's viewport
    wall_offset: int = 0  # how far below that theme's header the wall was scrolled
    wall_selected: list[str] = field(default_factory=list)


def capture(window: Any, wall: Any, quick_chat: Any) -> ViewState:
    """Read at the swap, the old views retired right after: their drafts' reads end here (handed over)."""
    state = ViewState()
    if alive(window):
        state.geometry = window.saveGeometry()
        state.splitter = window.splitter.saveState()
        state.window_visible = window.isVisible()
        state.window_minimized = window.isMinimized()
        panel = window.chat_panel
        state.chat_position = panel.view.reading_position()
        state.draft = panel.composer.text()
        state.draft_cursor = panel.composer.input.textCursor().position()
        state.editing_turn = panel.composer.editing_turn
        state.before_edit = panel.composer.draft_text() if state.editing_turn else ""
        state.draft_reads = window.drafts.hand_over() if window.drafts is not None else {}
    if alive(quick_chat):
        state.quick_visible = quick_chat.isVisible()
        state.quick_pos = quick_chat.pos()
        state.quick_draft = quick_chat.composer.text()
        state.quick_cursor = quick_chat.composer.input.textCursor().position()
        state.quick_draft_reads = quick_chat.drafts.hand_over() if quick_chat.drafts is not None else {}
    if alive(wall) and hasattr(wall, "scroll_anchor"):  # (not the placeholder of a window being built)
        state.wall_search = wall.search_edit.text()  # (what is in the box: still in its debounce too)
        state.wall_filter = wall.filter_name()
        state.wall_sort = wall.sort_mode()
        state.wall_theme, state.wall_offset = wall.scroll_anchor()
        state.wall_selected = wall.selected_ids()
    return state


def restore_window(state: ViewState, window: Any, quick_chat: Any) -> None:
    """Geometry, splitter, drafts and visibility: right after the new views are built."""
    if not state.splitter.isEmpty():
        window.splitter.restoreState(state.splitter)
    composer = window.chat_panel.composer
    if state.editing_turn:
        composer.set_text(state.before_edit)
        composer.set_editing(state.editing_turn)
    if state.draft:
        composer.set_text(state.draft)
        _put_cursor(composer.input, state.draft_cursor)
    if state.quick_draft:
        quick_chat.composer.set_text(state.quick_draft)
        _put_cursor(quick_chat.composer.input, state.quick_cursor)
    for drafts, reads in ((window.drafts, state.draft_reads), (quick_chat.drafts, state.quick_draft_reads)):
        if drafts is not None and reads:
            drafts.take_over(reads)  # (the file's text goes before what was just put back)
    if state.window_visible:
        window.showMinimized() if state.window_minimized else window.show()
    if not state.geometry.isEmpty():
        window.restoreGeometry(state.geometry)  # once shown: the frame is known, the window stays put
    if state.quick_visible:
        quick_chat.move(state.quick_pos)
        quick_chat.show()


def _put_cursor(edit: Any, position: int) -> None:
    """The text cursor where it was, so typing on after the switch goes where it went before (a text
    set anew has its cursor at the start)."""
    if 0 <= position < edit.document().characterCount():  # (in the document's units, as position())
        cursor = edit.textCursor()
        cursor.setPosition(position)
        edit.setTextCursor(cursor)


def restore_chat_scroll(state: ViewState, view: Any) -> None:
    """Right after the transcript is shown again: where the person was reading (the end if at the end)."""
    if state.chat_position is not None:
        view.keep_position(state.chat_position)


async def restore_wall(state: ViewState, wall: Any, loaded: Any) -> None:
    """After the new wall has read the store: search, filter, sort, scroll and selection."""
    if loaded is not None and not loaded.done():
        await asyncio.wait([loaded])  # a failed read is the wall's to show
    loader = getattr(wall, "loader", None) if alive(wall) else None
    if loader is not None:
        await loader.wait()  # every card shown (the wall fills in slices): selection and scroll fit
    if not alive(wall):
        return
    if state.wall_sort != wall.sort_mode():
        wall.set_sort_mode(state.wall_sort)
    if state.wall_filter != wall.filter_name():
        wall.set_filter(state.wall_filter)
    if state.wall_search and not wall.search_edit.text():  # (one typed into the new box meanwhile wins)
        wall.set_search(state.wall_search)  # fills the box too (without starting its debounce)
    if loader is not None:
        await loader.wait()  # a search or sort over a big wall is applied in slices too
    if not alive(wall):
        return
    wall.select_ids(state.wall_selected)
    later(wall, lambda: wall.scroll_to_anchor(state.wall_theme, state.wall_offset))  # once laid out
