"""One ``str`` object per text across the parts that each keep a full read of the store (issue 37).

At 100,000 memories the wall's cards, the recall listing, the offline index and the writer's index
each held their own copy of every id, description, theme and update time (SQLite makes a new
``str`` per cell and read): ~60 MB of duplicates at idle. ``memory/shared_text.py`` hands every
reader the same object; these tests hold the parts to it on a real SQLite store."""

from __future__ import annotations

import gc
import sys

import pytest

from sonetto_desktop.memory import MemoryItem, SqliteMemoryManager
from sonetto_desktop.memory import shared_text
from sonetto_desktop.memory.retrieval.listing import RecallListing
from sonetto_desktop.memory.retrieval.mechanical import MechanicalRetriever
from sonetto_desktop.memory.writer.index import WriterIndex
from sonetto_desktop.presentation.cards import read_cards

from memory_stores import BACKENDS, open_store, use_backend

pytestmark = pytest.mark.skipif(not shared_text.SHARING, reason="interned strings are immortal on this Python "
                                "(3.12.0-3.12.5): share() keeps copies there on purpose")

STAMP = "2026-03-04T05:06:07"


def _store(tmp_path, n: int = 40) -> SqliteMemoryManager:
    store = SqliteMemoryManager(tmp_path / "memory.db")
    store.import_items({f"m{i:04d}": MemoryItem(f"用户第 {i} 次说起周末去爬山的安排", f"主题{i % 3}",
                                                 latest_update_time=STAMP, hit=i % 4) for i in range(n)})
    return store


def _held(record) -> list:
    """What a per-memory record holds (a dataclass, slotted or not, or a plain tuple), one level of
    nested tuples included: the tests look for objects in it, not at its representation."""
    if isinstance(record, tuple):
        values = list(record)
    elif hasattr(record, "__dict__"):
        values = list(vars(record).values())
    else:
        values = [getattr(record, name) for name in type(record).__slots__]
    return values + [v for value in values if isinstance(value, tuple) for v in value]


def _the(record, text: str) -> str:
    """The object equal to ``text`` that ``record`` holds."""
    found = [value for value in _held(record) if type(value) is str and value == text]
    assert found, f"{text!r} not in {record!r}"
    return found[0]


def test_every_reader_of_the_store_holds_the_same_text_objects(tmp_path):
    store = _store(tmp_path)
    listing, index = RecallListing(store), WriterIndex(store)
    try:
        cards = read_cards(store)  # the wall's read
        listing.warm_up()  # the recall listing's read
        index.warm_up()  # the writer index's read
        entries = listing.snapshot().by_id
        listing_ids = {mid: mid for mid in entries}
        writer_ids = {mid: mid for mid in index._entries}
        assert len(cards) == len(entries) == len(writer_ids) == 40
        for i in range(40):
            mid, text, theme = f"m{i:04d}", f"用户第 {i} 次说起周末去爬山的安排", f"主题{i % 3}"
            card = next(c for c in cards if mid in _held(c))
            card_id, card_text = _the(card, mid), _the(card, text)
            assert _the(entries[mid], text) is card_text, "the listing keeps a copy of the wall's text"
            assert listing_ids[mid] is card_id and writer_ids[mid] is card_id
            assert _the(entries[mid], theme) is _the(card, theme) is _the(index._entries[mid], theme)
            assert _the(entries[mid], STAMP) is _the(card, STAMP) is _the(index._entries[mid], STAMP)
    finally:
        listing.close()
        index.close()
        store.close()


def test_the_listings_order_key_is_the_stamps_own_object(tmp_path):
    store = _store(tmp_path)
    listing = RecallListing(store)
    try:
        entries = listing.snapshot().by_id
        assert len(entries) == 40
        for entry in entries.values():
            stamps = [value for value in _held(entry) if value == STAMP]
            assert len(stamps) == 2 and stamps[0] is stamps[1]  # the update time and the order key's
    finally:
        listing.close()
        store.close()


def test_the_offline_index_loaded_from_its_file_shares_the_store_reads_texts(tmp_path):
    store = _store(tmp_path)
    MechanicalRetriever(store).warm_up()  # built and saved beside the store
    first = MechanicalRetriever(store)
    first.close()  # (saved on close too)
    cards = read_cards(store)
    loaded = MechanicalRetriever(store)
    try:
        loaded.warm_up()  # from the file: the texts come from its JSON header
        docs = loaded._docs
        assert len(docs) == 40
        for i in range(40):
            mid, text = f"m{i:04d}", f"用户第 {i} 次说起周末去爬山的安排"
            card = next(c for c in cards if mid in _held(c))
            slot = docs.slot_of[mid]
            assert docs.texts[slot] is _the(card, text)
            assert docs.ids[slot] is _the(card, mid) and docs.stamps[slot] is _the(card, STAMP)
    finally:
        loaded.close()
        store.close()


def test_a_shared_text_is_freed_when_no_part_holds_it():
    """Sharing keeps nothing alive: an edited memory's old text goes with the last part holding it."""
    text = "".join(["用户第一次说起", "周末的安排"])  # made at run time: not a constant of this module
    assert shared_text.share(text) is text
    assert shared_text.share("".join(["用户第一次说起", "周末的安排"])) is text  # an equal read: the held one
    del text
    gc.collect()
    fresh = "".join(["用户第一次说起", "周末的安排"])
    assert shared_text.share(fresh) is fresh, "the old text was kept alive by the sharing table"


def test_what_is_not_exactly_text_is_returned_as_it_is():
    class Marked(str):
        pass

    marked = Marked("主题")
    assert shared_text.share(marked) is marked
    assert shared_text.share(None) is None and shared_text.share(7) == 7
    assert shared_text.share_all(["a", None, marked]) == ["a", None, marked]


@pytest.mark.parametrize("kind", BACKENDS)
def test_a_point_read_leaves_the_intern_table_alone(request, tmp_path, kind):
    """A point read (``get``: the writer's listing of a batch, a tool's check) shares nothing: its texts
    are dropped at once, and interning each churned the interpreter's intern table, which is rebuilt
    now and then at the size of what it holds (1,000-turn imports: 1.9 -> 3.8 MB, kept)."""
    store = open_store(use_backend(request, kind), tmp_path)
    try:
        unique = str(id(object()))  # texts made at run time, held by nothing else in this process
        mid = store.add(f"用户第一次说起周末去爬山的安排 {unique}", f"爱好 {unique}", actor="user")
        item = store.get(mid)
        for text in (item.description, item.theme, item.latest_update_time):
            equal = "".join(list(text))  # an equal text, another object
            assert equal is not text
            # the table gives back the read's own object only if the read entered it (an equal time
            # another test of this process holds may be in the table already: that is not the read's)
            assert sys.intern(equal) is not text, f"{text!r} was entered into the intern table by the read"
    finally:
        store.close()
