"""Export and import of memories: YAML (the seed's format; the app's own marks such as pins in a
``NAME.flags.yaml`` beside it, as a store keeps them), JSON, and a readable Markdown (MEMORY.md style).

An export is a backup that can be restored: the trash goes with it (JSON: ``"trash"``; YAML: a
``NAME.trash.yaml`` beside it, the store's trash entries; Markdown: a ``# 回收站`` part whose lines say
when they were deleted, ``deleted:``). Importing it puts those back into the trash, never on the wall
(:attr:`Incoming.trash`, ``BaseMemoryManager.import_trash``).

Import merges by id and skips exact duplicates (same description and theme as a stored memory);
see :meth:`BaseMemoryManager.import_items`. A file that gives one id to two entries (a repeated
key, ``1`` and ``'1'``, a Markdown line copied with its ``id:`` comment) keeps both: the later one
is read under ``<id>-2`` (``-3`` …), as the store reads its own file, and :attr:`Incoming.renamed`
says so.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any
from urllib.parse import quote, unquote

import yaml

from .changes import IMPORTED, USER, check_actor
from .errors import ImportFormatError
from .stores.base import BaseMemoryManager
from .files import atomic_write, remove_stale_temps
from . import kinds
from .item import MAX_DOCUMENT_BYTES, MemoryItem, clamp_hit, normalize_time, now_iso
from .reasons import reason_text
from .record import as_flag, parse_time
from .stores.validation import item_from_raw, oversize, trash_entry_problem, validate_item
from .stores.yaml.format import apply_flags, dump_flags, dump_mapping, entry_of, flags_of, fresh_id, parse_flags
from .stores.yaml.safe import YamlRefused, load_pairs, load_yaml

FORMATS = ("yaml", "json", "md")
_JSON_KIND = "sonetto-memories"


class Incoming(dict[str, MemoryItem]):
    """The entries of an import file by id, every one kept. ``renamed``: the id an entry is read
    under -> the id the file gave it, for the later entries of an id the file repeats."""

    def __init__(self) -> None:
        super().__init__()
        self.renamed: dict[str, str] = {}
        self.trash: dict[str, dict[str, Any]] = {}  # the export's trash entries: they go back into the trash
        self.trash_problem: ImportFormatError | None = None  # why a .yaml export's trash file was left out
        self.flags_problem: ImportFormatError | None = None  # why a .yaml export's pins file was left out


def _keep_every(pairs: list[tuple[str, MemoryItem]]) -> Incoming:
    """``pairs`` (id, item) in file order as an :class:`Incoming`: a repeated id's later entries
    under ``<id>-2``, ``-3`` … (an id the file does not use; the store's own rule, ``parse_items``)."""
    taken = {mid for mid, _ in pairs}
    items = Incoming()
    for mid, item in pairs:
        if mid in items:
            new_id = fresh_id(mid, taken)
            taken.add(new_id)
            items.renamed[new_id] = mid
            mid = new_id
        items[mid] = item
    return items


def format_for(path: str | Path) -> str:
    suffix = Path(path).suffix.lower()
    if suffix in (".yaml", ".yml"):
        return "yaml"
    if suffix == ".json":
        return "json"
    if suffix in (".md", ".markdown"):
        return "md"
    shown = repr(suffix or "(none)")
    raise ImportFormatError(f"unknown file type {shown}: use .yaml, .json or .md", "type", shown)


# ── export ────────────────────────────────────────────────────────────


class Exported(int):
    """How many memories an export holds (an ``int``); ``trashed``: how many of the trash besides."""

    trashed: int = 0

    @classmethod
    def of(cls, count: int, trashed: int) -> "Exported":
        done = cls(count)
        done.trashed = trashed
        return done


def flags_path(path: str | Path) -> Path:
    """Where a .yaml export keeps the app's own marks (pinned…): ``NAME.flags.yaml`` beside it, as a
    store keeps them beside its memory.yaml (``YamlFiles.flags_path``)."""
    path = Path(path)
    return path.with_name(f"{path.stem}.flags.yaml")


def trash_path(path: str | Path) -> Path:
    """Where a .yaml export keeps the trash (``NAME.trash.yaml`` beside it: the seed's format has no
    place for it): the store's trash entries, id -> ``{item, deleted_at, reason, actor}``."""
    path = Path(path)
    return path.with_name(f"{path.stem}.trash.yaml")


def _yaml_text(items: dict[str, MemoryItem]) -> str:
    # The store's own entries (``entry_of``): the seed's keys and the person's, not the app's, which
    # the seed's MemoryItem(**entry) refuses; those go to the flags file (``write_export``).
    data = {mid: entry_of(item) for mid, item in items.items()}
    return yaml.safe_dump(data, allow_unicode=True, default_flow_style=False, sort_keys=False)


def export_yaml(mm: BaseMemoryManager) -> str:
    """The seed's format (memory.yaml's entries): loads with SonettoHere's loader. The app's own
    fields (pinned) are not in it: :func:`write_export` writes them to :func:`flags_path`."""
    return _yaml_text(mm.all_items())


def export_yaml_text(mm: BaseMemoryManager) -> tuple[str, int]:
    """:func:`export_yaml` without a file to keep the app's marks beside (standard output), and how
    many memories have marks it leaves out (their pins)."""
    items = mm.all_items()
    return _yaml_text(items), len(flags_of(items))


def export_json(mm: BaseMemoryManager) -> str:
    return _json_text(mm.all_items(), mm.trash_entries())


def _json_text(items: dict[str, MemoryItem], trash: dict[str, dict[str, Any]] | None = None) -> str:
    data: dict[str, Any] = {
        "kind": _JSON_KIND,
        "version": 1,
        "exported_at": now_iso(),
        "memories": {mid: item.to_dict() for mid, item in items.items()},
    }
    if trash:
        data["trash"] = trash
    return json.dumps(data, ensure_ascii=False, indent=2, default=str)


#: The Markdown export's second line: its text is escaped (one memory a line, read back as it was).
#: A file without it (an older export, one written by hand) is read as written.
_MD_ESCAPED = "<!-- format: sonetto-md 2 (in a memory, \\n is a line break and \\\\ a backslash) -->"
_ESCAPES = {"\\": "\\\\", "\n": "\\n", "\r": "\\r", "\t": "\\t"}
# What else ends a line for str.splitlines (vertical tab, form feed, U+0085, U+2028 …): \\uXXXX.
_BREAKS = "\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029"
_UNESCAPES = {"\\": "\\", "n": "\n", "r": "\r", "t": "\t", "s": " ", "!": "!", ">": ">"}


def _code(ch: str) -> str:
    return _ESCAPES.get(ch) or ("\\s" if ch == " " else f"\\u{ord(ch):04x}")


def _md_escape(text: str) -> str:
    """``text`` on one line, reversibly (:func:`_md_unescape`): line breaks, tabs and backslashes
    escaped, a comment's ``<!--`` / ``-->`` broken (``<\\!--``, ``--\\>``) so the line's own comment
    is the only one, and white space at either end kept (``\\s``, ``\\uXXXX``: a bullet's text is
    stripped)."""
    out = re.sub(f"[\\\\\n\r\t{_BREAKS}]", lambda m: _code(m.group()), text)
    out = out.replace("<!--", "<\\!--").replace("-->", "--\\>")
    body = out.strip()
    if body == out:
        return out
    start = out.index(body[0]) if body else len(out)
    end = start + len(body)
    return "".join(map(_code, out[:start])) + body + "".join(map(_code, out[end:]))


def _md_unescape(text: str) -> str:
    return re.sub(r"\\(u[0-9a-f]{4}|.)", lambda m: (chr(int(m.group(1)[1:], 16)) if len(m.group(1)) == 5
                                                     else _UNESCAPES.get(m.group(1), m.group())), text)


#: The person's marks a Markdown line keeps (``pinned:yes``, ``locked:yes``), read back on import.
_MD_MARKS = ("pinned", "locked")
#: Characters of an author (``mcp:<app>``, ``import:<source>``) a Markdown line's comment keeps as they are;
#: the others (a space in an app's name) are %-escaped, so the comment stays words without blanks.
_MD_AUTHOR_SAFE = ":@._-"


def export_markdown(mm: BaseMemoryManager) -> str:
    """MEMORY.md style: ``## theme`` and one ``- text <!-- id:… -->`` line per memory; text escaped
    (``_MD_ESCAPED``) so that importing the file gives back every memory's text as it was. The trash
    follows under ``# 回收站``, its lines marked ``deleted:`` (when), ``deleted_by:``, ``why:`` and, for a
    memory merged into another, ``into:`` (that one's id)."""
    return _markdown_text(mm.get_memories_grouped(), mm.trash_entries())


#: The Markdown export's heading of the trash part (for the reader: each line's ``deleted:`` is what counts).
_MD_TRASH = "# 回收站 / Trash"


def _markdown_text(grouped: dict[str, list[dict[str, Any]]], trash: dict[str, dict[str, Any]] | None = None) -> str:
    """``export_markdown`` of a store whose ``get_memories_grouped()`` is ``grouped`` and whose trash is ``trash``."""
    lines = ["# MEMORY", "", f"<!-- exported by SonettoHere Desktop at {now_iso()} -->", _MD_ESCAPED, ""]
    for theme, cards in sorted(grouped.items()):
        lines += [f"## {_md_escape(str(theme))}", ""]
        lines += [_md_line(card) for card in cards]
        lines.append("")
    if trash:
        lines += [_MD_TRASH, ""]
        deleted: dict[str, list[str]] = {}
        for mid, entry in sorted(trash.items(), key=lambda pair: str(pair[1].get("deleted_at") or ""), reverse=True):
            item = MemoryItem.from_dict(entry.get("item") or {})
            card = {"id": mid, "description": item.description, "latest_update_time": item.latest_update_time,
                    "hit": item.hit, "author": item.author, "pinned": item.pinned, "locked": item.locked}
            by = quote(str(entry.get("actor") or USER), safe=_MD_AUTHOR_SAFE)
            why = f" why:{quote(str(entry['reason']), safe='')}" if entry.get("reason") else ""
            at = str(entry.get("deleted_at") or "")
            at = normalize_time(at) if parse_time(at) else now_iso()  # (one word: a time written with a space is not)
            into = entry.get("merged_into")  # (merged away: the trash says into which memory)
            into = f" into:{quote(into, safe=_MD_AUTHOR_SAFE)}" if isinstance(into, str) and into else ""
            deleted.setdefault(str(item.theme), []).append(_md_line(card, f"deleted:{at} deleted_by:{by}{why}{into}"))
        for theme, cards in sorted(deleted.items()):
            lines += [f"## {_md_escape(theme)}", "", *cards, ""]
    return "\n".join(lines)


def _md_line(card: dict[str, Any], gone: str = "") -> str:
    """One memory's line: its text, then a comment of what else it is (id, time, hits, author, marks;
    for a trashed one, ``gone``: when and by whom it was deleted, and why)."""
    text = _md_escape(str(card["description"]))
    updated = str(card["latest_update_time"] or "")
    when = f"updated:{updated[:10]}" + (f" time:{updated[11:]}" if updated[10:11] == "T" else "")
    marks = "".join(f" {name}:yes" for name in _MD_MARKS if card.get(name))
    author = str(card.get("author") or IMPORTED)  # whose memory it is (who imports it does not become so)
    by = f" by:{quote(author, safe=_MD_AUTHOR_SAFE)}" if author != IMPORTED else ""
    gone = f" {gone}" if gone else ""
    return f"- {text} <!-- id:{card['id']} {when} hit:{card['hit']}{by}{marks}{gone} -->"


def export_text(mm: BaseMemoryManager, fmt: str) -> str:
    if fmt == "yaml":
        return export_yaml(mm)
    if fmt == "json":
        return export_json(mm)
    if fmt == "md":
        return export_markdown(mm)
    raise ValueError(f"unknown export format {fmt!r}; choose one of {FORMATS}")


def write_export(mm: BaseMemoryManager, path: str | Path, fmt: str) -> Exported:
    """Write an export to ``path`` atomically (temp file, fsync, replace; owner-only): a crash or
    a full disk keeps the previous file whole. Returns how many memories were exported (and, as
    ``trashed``, how many trash entries)."""
    if fmt not in FORMATS:
        raise ValueError(f"unknown export format {fmt!r}; choose one of {FORMATS}")
    before = mm.trash_entries()
    cards = mm.get_memories_grouped() if fmt == "md" else None
    items = mm.all_items() if cards is None else None
    live = set(items) if items is not None else {card["id"] for group in cards.values() for card in group}
    # a memory deleted or restored while the memories were read is in the trash read before or the one
    # read after: a backup holds every memory once, never none (one restored meanwhile: in its trash)
    trash = {mid: entry for mid, entry in {**before, **mm.trash_entries()}.items() if mid not in live}
    if fmt == "yaml":
        _write_yaml(Path(path), items, trash)
    elif fmt == "json":
        _write_text(Path(path), _json_text(items, trash))
    else:
        _write_text(Path(path), _markdown_text(cards, trash))
    return Exported.of(len(live), len(trash))


def marks_beside(path: str | Path, fmt: str) -> Path | None:
    """The file beside a .yaml export at ``path`` that holds its pins (``flags_path``), when it holds
    any: who moves the export elsewhere needs it too. None for the other formats (they keep them)."""
    side = flags_path(path)
    if fmt != "yaml" or not side.is_file():
        return None
    try:
        return side if parse_flags(side.read_bytes()) else None
    except (OSError, ValueError, yaml.YAMLError):
        return None


def trash_beside(path: str | Path, fmt: str) -> Path | None:
    """The file beside a .yaml export at ``path`` that holds its trash (``trash_path``), when there is
    one: who moves the export elsewhere needs it too. None for the other formats (they keep it)."""
    side = trash_path(path)
    return side if fmt == "yaml" and side.is_file() else None


def write_empty_export(path: str | Path, fmt: str) -> None:
    """Write the export of no memories to ``path``, as :func:`write_export` writes an empty store's
    (no store needed: a data folder that has none yet)."""
    if fmt == "yaml":
        _write_yaml(Path(path), {})
    elif fmt == "json":
        _write_text(Path(path), _json_text({}))
    elif fmt == "md":
        _write_text(Path(path), _markdown_text({}))
    else:
        raise ValueError(f"unknown export format {fmt!r}; choose one of {FORMATS}")


def _write_text(path: Path, text: str) -> None:
    remove_stale_temps(path.parent, (path.name,))  # an earlier export killed mid-write
    atomic_write(path, text.encode("utf-8"))


def _write_yaml(path: Path, items: dict[str, MemoryItem], trash: dict[str, dict[str, Any]] | None = None) -> None:
    """The seed's entries, and beside them the pins (NAME.flags.yaml, as a store's memory.flags.yaml)
    and the trash (NAME.trash.yaml); one from an earlier export is emptied (the pins) or removed (the
    trash), so it pins or brings back nothing it should not."""
    flags, side, bin_ = flags_of(items), flags_path(path), trash_path(path)
    remove_stale_temps(path.parent, (path.name, side.name, bin_.name))
    if flags or side.exists():
        atomic_write(side, dump_flags(flags))
    if trash:
        atomic_write(bin_, dump_mapping(trash))  # (the store's own trash dump: the GIL let go between entries)
    else:
        bin_.unlink(missing_ok=True)
    atomic_write(path, _yaml_text(items).encode("utf-8"))


# ── import ────────────────────────────────────────────────────────────


_CONTAINERS = (list, tuple, dict)


def _items_from_pairs(pairs: list[tuple[Any, Any]], source: str) -> Incoming:
    items: list[tuple[str, MemoryItem]] = []
    for mid, raw in pairs:
        if not isinstance(raw, dict):  # e.g. some other program's JSON: never import its values as memories
            raise ImportFormatError(f"{source}: entry {mid!r} is not a memory (expected description, theme, ...)",
                                    "not_memory", source, repr(mid))
        for name in ("description", "theme"):
            if isinstance(raw.get(name), _CONTAINERS):
                kind = type(raw[name]).__name__
                raise ImportFormatError(f"{source}: memory {mid!r} has a {name} that is not text ({kind})",
                                        "not_text", source, repr(mid), name, kind)
        item, _ = item_from_raw(str(mid), raw)
        validate_item(str(mid), item)
        if not isinstance(item.description, str) or not item.description.strip():
            raise ImportFormatError(f"{source}: memory {mid!r} has no description", "no_description", source,
                                    repr(mid))
        if not isinstance(item.theme, str):
            kind = type(item.theme).__name__
            raise ImportFormatError(f"{source}: memory {mid!r} has a theme that is not text ({kind})", "not_text",
                                    source, repr(mid), "theme", kind)
        for name, length, limit in oversize(item)[:1]:
            raise ImportFormatError(f"{source}: memory {mid!r}: {name} is {length:,} characters long (limit {limit:,})",
                                    "too_long", source, repr(mid), name, f"{length:,}", f"{limit:,}")
        items.append((str(mid), item))
    return _keep_every(items)


# A bullet and its text, then the line's last comment (the export's id:, updated:, hit:) if any.
_MD_LINE = re.compile(r"^\s*[-*]\s+(?P<text>.+?)\s*(?:<!--(?P<meta>(?:(?!<!--).)*?)-->)?\s*$")


def parse_markdown(text: str) -> Incoming:
    """``## theme`` headings with ``- description`` bullets; ids, update times, hits, authors (``by:``),
    pins and locks from the export's comments.
    An export's escaped text (``_MD_ESCAPED``) is read back as it was; other files as written."""
    items: list[tuple[str, MemoryItem]] = []
    trash: list[tuple[str, dict[str, Any]]] = []
    theme = None
    lines = text.splitlines()
    read = _md_unescape if _MD_ESCAPED in (line.strip() for line in lines[:8]) else str
    for n, line in enumerate(lines, 1):
        if line.startswith("## "):
            theme = read(line[3:].strip())
            continue
        match = _MD_LINE.match(line)
        if not match:
            continue
        if not theme:
            raise ImportFormatError(f"line {n}: a memory before any '## theme' heading", "md_heading", str(n))
        meta = dict(re.findall(r"(\w+):(\S+)", match.group("meta") or ""))
        hit = meta.get("hit", "0")
        item = MemoryItem(read(match.group("text").strip()), theme, hit=clamp_hit(hit) if hit.isdigit() else 0)
        for name, length, limit in oversize(item)[:1]:
            raise ImportFormatError(f"line {n}: {name} is {length:,} characters long (limit {limit:,})",
                                    "md_too_long", str(n), name, f"{length:,}", f"{limit:,}")
        if meta.get("updated"):  # the day, and its time (an older export has none: midnight)
            updated = f"{meta['updated']}T{meta.get('time') or '00:00:00'}"
            item.latest_update_time = normalize_time(updated) if parse_time(updated) else meta["updated"] + "T00:00:00"
        item.pinned = as_flag(meta.get("pinned"))
        author = _md_author(meta.get("by"))
        if author is not None:  # whose memory it is: its first entry (without, the file is who imports it's)
            item.history.append({"time": item.latest_update_time, "action": kinds.CREATE, "actor": author,
                                 "reason": "", "new_description": item.description, "new_theme": item.theme})
        if as_flag(meta.get("locked")):  # (a lock is a history entry: the person's, as only the person locks)
            item.history.append({"time": item.latest_update_time, "action": kinds.LOCK, "actor": "user",
                                 "reason": reason_text("user.lock")})
        if meta.get("deleted"):  # a line of the trash part: back into the trash
            gone = {"deleted_at": meta["deleted"], "actor": unquote(meta.get("deleted_by") or USER),
                    "reason": unquote(meta.get("why") or "")}
            if meta.get("into"):  # merged into another memory (``merged_into``)
                gone["merged_into"] = unquote(meta["into"])
            trash.append((meta.get("id") or f"md{n}", _trash_entry(item, gone)))
            continue
        items.append((meta.get("id") or f"md{n}", item))
    incoming = _keep_every(items)
    incoming.trash = dict(_keep_every_entry(trash))
    return incoming


def _trash_entry(item: MemoryItem, raw: dict[str, Any]) -> dict[str, Any]:
    """A trash entry of an import file, as a store keeps one: ``item``, and when (an unreadable time:
    now), by whom (not an actor's name: the person) and why it was deleted; a merge's ``merged_into``."""
    when = str(raw.get("deleted_at") or "")
    try:
        actor = check_actor(raw.get("actor"))
    except ValueError:
        actor = USER
    entry = {"item": item.to_dict(), "deleted_at": normalize_time(when) if parse_time(when) else now_iso(),
             "reason": raw["reason"] if isinstance(raw.get("reason"), str) else "", "actor": actor}
    if isinstance(raw.get("merged_into"), str):
        entry["merged_into"] = raw["merged_into"]
    return entry


def _keep_every_entry(pairs: list[tuple[str, dict[str, Any]]]) -> list[tuple[str, dict[str, Any]]]:
    """``pairs`` (id, trash entry) with a repeated id's later entries under ``<id>-2`` … (as ``_keep_every``)."""
    taken = {mid for mid, _ in pairs}
    kept: dict[str, dict[str, Any]] = {}
    for mid, entry in pairs:
        if mid in kept:
            mid = fresh_id(mid, taken)
            taken.add(mid)
        kept[mid] = entry
    return list(kept.items())


def _trash_of(raw: Any, source: str) -> dict[str, dict[str, Any]]:
    """The trash entries an export holds (``raw``: id -> entry), each checked as a memory is; empty for none."""
    if not raw:
        return {}
    if not isinstance(raw, dict):
        raise ImportFormatError(f"{source}: the trash is not a mapping of id -> entry", "bad_trash_all", source)
    entries: list[tuple[str, dict[str, Any]]] = []
    for mid, entry in raw.items():
        if trash_entry_problem(entry) is not None:
            raise ImportFormatError(f"{source}: trash entry {mid!r} is not a deleted memory ({trash_entry_problem(entry)})",
                                    "bad_trash", source, repr(mid))
        [(_, item)] = _items_from_pairs([(str(mid), entry["item"])], source).items()
        entries.append((str(mid), _trash_entry(item, entry)))
    return dict(_keep_every_entry(entries))


def _md_author(value: str | None) -> str | None:
    """The author a Markdown line's ``by:`` names (our export's), or None (none, or not an actor's name)."""
    if not value:
        return None
    try:
        author = check_actor(unquote(value))
    except ValueError:
        return None
    return None if author == IMPORTED else author


def _json_pairs(text: str, trash: dict[str, Any] | None = None) -> list[tuple[Any, Any]]:
    """The (id, entry) pairs of a JSON export (ours, or a bare mapping), repeated keys included
    (``json.loads`` keeps only the last); our export's trash into ``trash`` (``"trash"``: id -> entry)."""
    repeated: dict[int, list[tuple[str, Any]]] = {}  # id() of an object that repeats a key -> its pairs

    def keep(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
        obj = dict(pairs)
        if len(obj) < len(pairs):
            repeated[id(obj)] = pairs
        return obj

    data = json.loads(text, object_pairs_hook=keep)
    if isinstance(data, dict) and data.get("kind") == _JSON_KIND:
        if trash is not None and data.get("trash") is not None:
            trash["trash"] = data["trash"]
        data = data.get("memories") or {}
    if not data:  # (null, [], {}: nothing to import)
        return []
    if not isinstance(data, dict):
        raise TypeError(f"expected a mapping of id -> memory, found {type(data).__name__}")
    return repeated.get(id(data), list(data.items()))


def read_import(path: str | Path) -> Incoming:
    path = Path(path)
    fmt = format_for(path)
    try:
        size = path.stat().st_size
    except OSError as exc:
        why = str(exc.strerror or exc)
        raise ImportFormatError(f"{path.name} cannot be read: {why}", "unreadable", path.name,
                                str(exc.errno or "")) from exc
    if size > MAX_DOCUMENT_BYTES:
        mb, limit = f"{size / 1e6:.0f}", str(MAX_DOCUMENT_BYTES // 1_000_000)
        raise ImportFormatError(f"{path.name} is {mb} MB; imports larger than {limit} MB are not read",
                                "too_big", path.name, mb, limit)
    try:
        text = path.read_text(encoding="utf-8-sig")  # (a byte order mark: Windows Notepad's "UTF-8 with BOM")
    except UnicodeDecodeError as exc:
        line = str(exc.object[:exc.start].count(b"\n") + 1)
        raise ImportFormatError(f"{path.name} is not UTF-8 text: {exc}", "not_utf8", path.name, line) from exc
    except OSError as exc:
        why = str(exc.strerror or exc)
        raise ImportFormatError(f"{path.name} cannot be read: {why}", "unreadable", path.name,
                                str(exc.errno or "")) from exc
    if fmt == "md":
        return parse_markdown(text)
    held: dict[str, Any] = {}  # (a JSON export's trash)
    try:
        pairs = load_pairs(text, path.name) if fmt == "yaml" else _json_pairs(text, held)
    except YamlRefused as exc:
        raise ImportFormatError(str(exc), *exc.words) from exc
    except TypeError as exc:  # not a mapping
        found = re.search(r"(?:found|is an?) (\w+)", str(exc))  # what the top level is ("list", "str")
        raise ImportFormatError(f"{path.name}: {exc}", "not_mapping", path.name,
                                found.group(1) if found else "?") from exc
    except RecursionError as exc:
        raise ImportFormatError(f"{path.name} cannot be parsed: nested too deeply", "too_deep", path.name) from exc
    except (yaml.YAMLError, json.JSONDecodeError) as exc:
        raise ImportFormatError(f"{path.name} cannot be parsed: {exc}", *_unparsable(path.name, exc, text)) from exc
    items = _items_from_pairs(pairs, path.name)
    if fmt == "yaml":
        try:
            _apply_flags_file(items, path)
        except ImportFormatError as exc:  # a damaged pins file costs the pins, not the memories
            items.flags_problem = exc
        try:
            items.trash = _trash_file(path)
        except ImportFormatError as exc:  # a damaged trash file costs its own entries, not the memories
            items.trash_problem = exc
    else:
        items.trash = _trash_of(held.get("trash"), path.name)
    return items


def _trash_file(path: Path) -> dict[str, dict[str, Any]]:
    """The trash of a .yaml export (its ``NAME.trash.yaml``, when there is one). ``ImportFormatError`` when
    it cannot be read: ``read_import`` then imports the memories without it (``Incoming.trash_problem``)."""
    side = trash_path(path)
    if side == path or not side.is_file():
        return {}
    return _trash_of(_side_data(side), side.name)


def _side_data(side: Path) -> Any:
    """The data of a file beside a .yaml export (its trash or its pins); ``ImportFormatError`` saying what is
    wrong and where when it cannot be read."""
    try:
        return load_yaml(side.read_bytes(), side.name)
    except YamlRefused as exc:
        raise ImportFormatError(str(exc), *exc.words) from exc
    except UnicodeDecodeError as exc:
        line = str(exc.object[:exc.start].count(b"\n") + 1)
        raise ImportFormatError(f"{side.name} is not UTF-8 text: {exc}", "not_utf8", side.name, line) from exc
    except OSError as exc:
        raise ImportFormatError(f"{side.name} cannot be read: {exc.strerror or exc}", "unreadable", side.name,
                                str(exc.errno or "")) from exc
    except RecursionError as exc:
        raise ImportFormatError(f"{side.name} cannot be parsed: nested too deeply", "too_deep", side.name) from exc
    except yaml.YAMLError as exc:
        raise ImportFormatError(f"{side.name} cannot be parsed: {exc}", *_unparsable(side.name, exc, "")) from exc


def _unparsable(name: str, exc: yaml.YAMLError | json.JSONDecodeError, text: str) -> tuple[str, ...]:
    """``ImportFormatError.words`` of a file the parser refused: where (line, column), not the parser's
    English (its message stays in the exception's text, for the log). Where the parser found the file
    ended too soon (a bracket or quote left open), where that began."""
    if isinstance(exc, json.JSONDecodeError):
        return "unparsable", name, str(exc.lineno), str(exc.colno)
    mark = getattr(exc, "problem_mark", None)
    if mark is None or (mark.index >= len(text.rstrip()) and getattr(exc, "context_mark", None) is not None):
        mark = getattr(exc, "context_mark", None) or mark
    if mark is None:
        return "unparsable_somewhere", name
    return "unparsable", name, str(mark.line + 1), str(mark.column + 1)


def _apply_flags_file(items: Incoming, path: Path) -> None:
    """The pins of a .yaml export (its ``NAME.flags.yaml``, when there is one): set where the entry
    did not set them itself. ``ImportFormatError`` when it cannot be read (nothing set): ``read_import``
    then imports the memories without the pins (``Incoming.flags_problem``), and says so."""
    side = flags_path(path)
    if side == path or not side.is_file():
        return
    data = _side_data(side)  # (its guards: size, no aliases)
    if data is not None and not isinstance(data, dict):
        raise ImportFormatError(f"{side.name}: the pins are not a mapping of id -> marks", "bad_flags_all", side.name)
    apply_flags(items, parse_flags(side.read_bytes()))


def follow_ids(trash: dict[str, dict[str, Any]], items: dict[str, MemoryItem], added: list[str],
               skipped: list[str], store: BaseMemoryManager) -> dict[str, dict[str, Any]]:
    """``trash`` (an export's entries) with each merged-away one's ``merged_into`` following the memory
    it went into as the import placed it: ``items`` imported gave ``added`` (in their order, an id the
    store used already gave a fresh one) and ``skipped`` (a memory the store has, maybe under another id)."""
    left_out = set(skipped)
    placed = dict(zip([mid for mid in items if mid not in left_out], added, strict=False))
    stored: dict[str, MemoryItem] | None = None  # (read once, when a merge went into a skipped duplicate)
    by_content: dict[tuple[str, str], str] = {}
    followed: dict[str, dict[str, Any]] = {}
    for mid, entry in trash.items():
        into = entry.get("merged_into")
        target = placed.get(into) if isinstance(into, str) else None
        if target is None and isinstance(into, str) and into in items:  # a duplicate: the store's memory
            if stored is None:
                stored = store.all_items()
                for sid, memory in stored.items():
                    by_content.setdefault((memory.description, memory.theme), sid)
            key = (items[into].description, items[into].theme)
            here = stored.get(into)
            target = into if here is not None and (here.description, here.theme) == key else by_content.get(key)
        followed[mid] = {**entry, "merged_into": target} if target is not None and target != into else entry
    return followed


def import_file(mm: BaseMemoryManager, path: str | Path) -> tuple[list[str], list[str]]:
    """Import a YAML / JSON / Markdown export (its trash back into the trash). Returns (added ids, skipped ids)."""
    incoming = read_import(path)
    with mm.group():
        added, skipped = mm.import_items(incoming)
        if incoming.trash:
            mm.import_trash(follow_ids(incoming.trash, incoming, added, skipped, mm))
    return added, skipped
