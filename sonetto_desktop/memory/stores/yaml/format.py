"""The seed's ``memory.yaml`` text: parsing it into items (keeping every entry), its layout as
per-entry chunks of text, and writing it back from them.

Format (unchanged from SonettoHere, so an existing ``memory.yaml`` loads as is, and what we write
loads with a plain ``yaml.safe_load``)::

    <id>:
      description: ...
      theme: ...
      history: [...]
      latest_update_time: '2026-12-02T10:15:00'
      hit: 0

The app's own fields (``record.ADDED``: ``pinned``) are not keys of an entry: the seed's loader
(``MemoryItem(**data[id])``) takes every key as an argument and would fail on them. They live in a
sidecar, ``memory.flags.yaml`` (``{id: {pinned: true}}``, written with memory.yaml, applied when it is
read: :func:`flags_of`, :func:`apply_flags`); an entry that carries one (a file written before, or a
``pinned: true`` typed by hand) still counts, and is rewritten without it (``Parsed.rewrite``). Keys a
person adds (``note:``) stay in their entry.

A file is split into a *preamble* (comments, ``---``) and one *chunk* per entry: the text from its
key at the start of a line to the next entry's key. A rewrite dumps only the entries that changed
since the file was read or written and writes every other chunk back byte for byte, so a file in
another valid layout (other key order, times with a space, ``history: null``, comments) keeps every
untouched entry's text. A file that does not split (a flow-style
mapping, a document marker between entries) is rewritten in the block layout at its first rewrite.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from operator import attrgetter, itemgetter
from typing import Any, Mapping, NamedTuple

import yaml

from ...item import MemoryItem
from ...record import ADDED, BY_NAME
from ..validation import Finding, item_from_raw, validate_item
from .safe import BOM, load_pairs, load_yaml

_Dumper = getattr(yaml, "CSafeDumper", yaml.SafeDumper)
_ENTRY_START = re.compile(rb"\n(?=[^\s#])")  # (4x faster than a MULTILINE "^": matters at 30 MB)
# The key of a chunk's first line: 'single quoted', "double quoted" or plain, then a colon.
_KEY = re.compile(rb"""\A(?:'((?:[^'\n]|'')*)'|"((?:[^"\\\n]|\\.)*)"|([^\s'"?{}\[\]&*!|>%@`#,:][^\n:]*?))[ \t]*:(?:[ \t\r\n]|\Z)""")
_MARKERS = (b"---", b"...", b"%")
_RESOLVER = yaml.resolver.Resolver()  # (the resolver of every safe loader, the C one included)
_STR_TAG = "tag:yaml.org,2002:str"
_TEXT = itemgetter(1)  # a Chunk's text


def dump(data: Any) -> bytes:
    return yaml.dump(data, Dumper=_Dumper, default_flow_style=False, allow_unicode=True,
                     sort_keys=False).encode("utf-8")


#: The app's own keys: kept in the flags sidecar, never in an entry (the seed's loader fails on them).
APP_KEYS = frozenset(f.name for f in ADDED)
FLAGS_HEADER = ("# Sonetto's own marks on the memories of memory.yaml (pinned…), kept here so that memory.yaml\n"
                "# stays in the seed's five-key format. Written by the app: pin and unpin in the app (置顶), or\n"
                "# add `pinned: true` to an entry of memory.yaml (it is moved here).\n").encode("utf-8")


def entry_of(item: MemoryItem) -> dict[str, Any]:
    """An entry as memory.yaml holds it: the seed's keys and the person's own, not the app's."""
    data = item.to_dict(copy=False)
    for key in APP_KEYS:
        data.pop(key, None)
    return data


def dump_mapping(data: Mapping[str, Any]) -> bytes:
    """``dump(data)`` one key at a time (the same text, without anchors between keys): the C emitter
    holds the GIL through a dump, and one dump of a large trash (5,000 deleted memories: ~0.9 s) held
    every other thread, the app's window included, up to ~0.1 s at a stretch."""
    return b"".join(dump({key: value}) for key, value in data.items()) if data else b"{}\n"


def dump_entry(memory_id: str, item: MemoryItem) -> bytes:
    """One entry's chunk in our layout."""
    return dump({memory_id: entry_of(item)})


def flags_of(items: Mapping[str, MemoryItem]) -> dict[str, dict[str, Any]]:
    """The app's own fields that are set (not at their default), by memory id."""
    flags: dict[str, dict[str, Any]] = {}
    for f in ADDED:  # (one pass per field over the values: ~15 ms for 100,000 memories, under the store's lock)
        default = f.default()
        for memory_id, value in zip(items, map(attrgetter(f.name), items.values()), strict=False):
            if value != default:
                flags.setdefault(memory_id, {})[f.name] = value
    return flags


def dump_flags(flags: Mapping[str, Mapping[str, Any]]) -> bytes:
    return FLAGS_HEADER + (dump(dict(flags)) if flags else b"{}\n")


def parse_flags(raw: bytes | None) -> dict[str, dict[str, Any]]:
    """The sidecar's flags (``{}`` for a missing or unreadable one: memory.yaml is what matters)."""
    if not raw:
        return {}
    try:
        data = yaml.load(raw, Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))
    except yaml.YAMLError:
        return {}
    if not isinstance(data, dict):
        return {}
    return {str(mid): {k: v for k, v in own.items() if k in APP_KEYS}
            for mid, own in data.items() if isinstance(own, dict)}


def apply_flags(items: Mapping[str, MemoryItem], flags: Mapping[str, Mapping[str, Any]]) -> None:
    """Set the app's fields of freshly parsed ``items`` from the sidecar, where the entry did not
    set them itself."""
    for memory_id, own in flags.items():
        item = items.get(memory_id)
        if item is None:
            continue
        for name, value in own.items():
            f = BY_NAME[name]
            if getattr(item, name) == f.default():
                setattr(item, name, f.read(value))


class Chunk(NamedTuple):
    """An entry's text in the file, and the item it was read as or written from."""

    item: MemoryItem | None
    text: bytes


@dataclass
class Layout:
    """A file's text as we last read or wrote it: what comes before the first entry, and each
    entry's chunk by id (``split``: False when the file did not split into entries)."""

    preamble: bytes = b""
    chunks: dict[str, Chunk] = field(default_factory=dict)
    split: bool = True


def _key_of(chunk: bytes) -> str | None:
    match = _KEY.match(chunk)
    if match is None:
        return None
    single, double, plain = match.groups()
    if single is not None:
        return single.decode("utf-8").replace("''", "'")
    if double is not None:
        try:
            return json.loads(b'"' + double + b'"')
        except ValueError:
            return None
    return _plain_key(plain.decode("utf-8").strip())


def _plain_key(text: str) -> str | None:
    """The id a plain key names: the text of its value as YAML reads it, as ``parse_items`` does
    (``001`` is the int 1: id ``"1"``, as a plain ``yaml.safe_load`` gives SonettoHere; ``yes`` is
    ``"True"``); ``None`` when it does not read."""
    if _RESOLVER.resolve(yaml.ScalarNode, text, (True, False)) == _STR_TAG:
        return text  # (nearly every key: one regex or none)
    try:
        return str(load_yaml(text))
    except (yaml.YAMLError, ValueError):
        return None


def split_chunks(raw: bytes, ids: list[str] | None = None) -> tuple[bytes, list[tuple[str | None, bytes]]] | None:
    """``(preamble, [(key, chunk)])`` of a block-style file in file order, each key the id YAML reads
    it as (``None`` when it cannot be read alone, e.g. a tagged key), or ``None`` when the file does
    not split (a document marker or directive after the first entry, flow style). Every chunk ends
    with a newline. A byte order mark (an editor's "UTF-8 with BOM") belongs to the preamble.
    ``ids``: the keys expected, in order (checked cheaply)."""
    bom = len(BOM) if raw.startswith(BOM) else 0
    head = raw[bom:bom + 1]
    starts = ([bom] if head and head not in b" \t\r\n#" else []) + [m.end() for m in _ENTRY_START.finditer(raw)]
    first = 0
    while first < len(starts) and raw.startswith(_MARKERS, starts[first]):
        first += 1  # "---", "%YAML" before the first entry belong to the preamble
    if first == len(starts):
        body = raw[bom:]
        return (raw, []) if not body.strip(b" \t\r\n") or body.lstrip().startswith((b"#", b"---", b"%")) else None
    entries = starts[first:]
    if any(raw.startswith(_MARKERS, at) or raw.startswith((b"{", b"[", b"-", b"?"), at) for at in entries):
        return None
    preamble = raw[:entries[0]]
    bounds = [*entries, len(raw)]
    chunks = []
    expected = ids if ids is not None and len(ids) == len(entries) else None
    for n, (begin, end) in enumerate(zip(bounds, bounds[1:], strict=False)):
        text = raw[begin:end]
        if not text.endswith(b"\n"):
            text += b"\n"
        chunks.append((_keyed(text, expected[n]) if expected is not None else _key_of(text), text))
    return preamble, chunks


def layout_of(raw: bytes, items: dict[str, MemoryItem]) -> Layout:
    """The layout of ``raw``, whose entries parsed into ``items`` (in file order): each chunk tied to
    its item. An entry whose key is not its id (a duplicate kept under a new id) has no chunk."""
    found = split_chunks(raw, list(items))
    if found is None:
        return Layout(split=False)
    preamble, chunks = found
    if len(chunks) != len(items):
        return Layout(split=False)
    layout = Layout(preamble)
    for (memory_id, item), (key, text) in zip(items.items(), chunks, strict=True):
        if key is None or key == memory_id:
            layout.chunks[memory_id] = Chunk(item, text)
    return layout


def _keyed(text: bytes, memory_id: str) -> str | None:
    """The key of a chunk expected to be ``memory_id``'s (checked cheaply first)."""
    return memory_id if text.startswith(memory_id.encode("utf-8") + b":") else _key_of(text)


def serialise(changed: Mapping[str, MemoryItem | None], layout: Layout) -> tuple[bytes, Layout]:
    """The whole file from ``layout`` with the entries in ``changed`` dumped anew (``None``: the
    entry left; a new id goes last); returns it and its layout. Costs one dump per changed entry and
    one join of the file's text, however many entries stay as they were."""
    chunks = dict(layout.chunks)
    for memory_id, item in changed.items():
        if item is None:
            chunks.pop(memory_id, None)
        else:
            chunks[memory_id] = Chunk(item, dump_entry(memory_id, item))
    text = b"".join([layout.preamble, *map(_TEXT, chunks.values())]) if chunks else layout.preamble + b"{}\n"
    return text, Layout(layout.preamble, chunks)


def fresh_id(memory_id: str, taken: set[str]) -> str:
    """``<id>-2``, ``-3`` … : the first not in ``taken`` (a repeated id's later entry keeps every entry)."""
    n = 2
    while f"{memory_id}-{n}" in taken:
        n += 1
    return f"{memory_id}-{n}"


@dataclass
class Parsed:
    """A store file's entries (every one kept) and what reading them found. ``rewrite``: entries
    whose text must be written anew (repaired, or re-id'd duplicates); cosmetic normalisations
    (another valid way of writing the same memory) are not among them."""

    items: dict[str, MemoryItem]
    issues: list[str]
    repaired: list[str]
    rewrite: set[str]

    def read(self, memory_id: str, raw: Any) -> None:
        """One stored entry, read into the result (its repairs noted; a repaired one is rewritten)."""
        item, note = item_from_raw(memory_id, raw)
        found, fixed = validate_item(memory_id, item, cosmetic=[])
        if note and not isinstance(raw, dict):  # (a missing hit is only another layout)
            fixed.append(note)
        self.issues += found
        self.repaired += fixed
        if fixed or (isinstance(raw, dict) and not APP_KEYS.isdisjoint(raw)):  # (app keys: to the sidecar)
            self.rewrite.add(memory_id)
        self.items[memory_id] = item


def parse_items(raw: bytes, source: str) -> Parsed:
    """Items of a store file, every entry kept. A second entry with an id already seen (``1`` and
    ``'1'`` are the same id) is kept under ``<id>-2`` (``-3`` …) and reported as an issue. Raises
    what ``load_pairs`` raises."""
    pairs = load_pairs(raw, source)
    taken = {str(key) for key, _ in pairs}
    parsed = Parsed({}, [], [], set())
    for key, value in pairs:
        memory_id = str(key)
        if memory_id in parsed.items:
            new_id = fresh_id(memory_id, taken)
            taken.add(new_id)
            parsed.issues.append(Finding(f"duplicate id {memory_id!r} in {source}: both entries kept, the later one "
                                         f"now has the id {new_id!r}",
                                         f"{source} 里的 id {memory_id!r} 重复了：两条都保留，后一条的 id 改成了 {new_id!r}"))
            memory_id = new_id
            parsed.rewrite.add(memory_id)
        parsed.read(memory_id, value)
    return parsed


def parse_trash(raw: bytes, source: str) -> dict[str, dict[str, Any]]:
    """Trash entries (id -> entry dict); a duplicated id is kept under a fresh id too."""
    pairs = load_pairs(raw, source)
    taken = {str(key) for key, _ in pairs}
    trash: dict[str, dict[str, Any]] = {}
    for key, value in pairs:
        if not isinstance(value, dict):
            continue
        memory_id = str(key)
        if memory_id in trash:
            memory_id = fresh_id(memory_id, taken)
            taken.add(memory_id)
        trash[memory_id] = value
    return trash
