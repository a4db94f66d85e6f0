"""Field checks and safe repairs shared by every store's ``self_check``."""

from __future__ import annotations

import json
from datetime import date, datetime, time
from typing import Any, Callable, Mapping, Sequence

from ..item import MAX_DESCRIPTION_CHARS, MAX_REASON_CHARS, MAX_THEME_CHARS, MemoryItem, normalize_time, now_iso
from ..record import ADDED, MAX_HIT, Field, as_text, clamp_hit, plain as _plain, split_extra

__all__ = ["HIT_REPAIRED", "Finding", "as_text", "item_from_fields", "item_from_raw", "oversize", "oversize_fields", "said_once",
           "said_in", "sound_row", "trash_entry_problem", "validate_item", "validate_items"]


#: The words of a clamped hit count's note (``said_once`` gathers them into one line).
HIT_REPAIRED = "hit repaired to"


class Finding(str):
    """A line of a self-check (``SelfCheckReport.issues`` / ``repaired``): its English text (what the log
    and the app's details show) with the same in Chinese beside it (``zh``), for a front end that says
    it in the person's language (``said_in``)."""

    zh: str

    def __new__(cls, en: str, zh: str) -> "Finding":
        line = super().__new__(cls, en)
        line.zh = zh
        return line

    def __getnewargs__(self) -> tuple[str, str]:  # (a copy, a pickle: both languages)
        return (str(self), self.zh)


def said_in(line: str, language: str) -> str:
    """``line`` in ``language`` ("zh…" or "en"): a ``Finding``'s Chinese, else the line as it is."""
    zh = getattr(line, "zh", None)
    return zh if zh and language.startswith("zh") else str(line)


_FIELD_ZH = {"description": "内容", "theme": "主题", "reason": "历史里的一条原因"}


def read_only(path: object) -> Finding:
    """A store that can be read, not written."""
    return Finding(f"{path} is read-only: memories can be read, not changed", f"{path} 是只读的：记忆可以查看，不能修改")


def not_saved(detail: object) -> Finding:
    """Repairs a check made that could not be written."""
    return Finding(f"repairs could not be saved: {detail}", f"修复没能保存：{detail}")


def validate_item(memory_id: str, item: MemoryItem, cosmetic: list[str] | None = None) -> tuple[list[str], list[str]]:
    """Repair ``item`` in place where it is safe; return (issues, repaired) messages. With a
    ``cosmetic`` list, what is only another valid way of writing the same memory (``history: null``,
    a time with a space, dates in the history, ``pinned: yes``) is noted there instead of as a
    repair: a file keeps such an entry's text (reading it again gives the same memory)."""
    issues: list[str] = []
    repaired: list[str] = []
    layout = repaired if cosmetic is None else cosmetic
    for name in ("description", "theme"):
        value = getattr(item, name)
        if value is not None and not isinstance(value, str):
            setattr(item, name, as_text(value))
            repaired.append(Finding(f"{memory_id}: {name} was {_kind(value)}, stored as text",
                                    f"{memory_id}：{_FIELD_ZH[name]}原来是{_kind(value, zh=True)}，已存成文字"))
            value = getattr(item, name)
        if value is None or (isinstance(value, str) and not value.strip()):
            if name == "theme":
                item.theme = "未分类"
                repaired.append(Finding(f"{memory_id}: empty theme set to 未分类", f"{memory_id}：主题是空的，已设为“未分类”"))
            else:
                issues.append(Finding(f"{memory_id}: empty description", f"{memory_id}：内容是空的"))
        elif not isinstance(value, str):
            kind = type(value).__name__
            issues.append(Finding(f"{memory_id}: {name} is {kind}, not text", f"{memory_id}：{_FIELD_ZH[name]}是 {kind}，不是文字"))
        elif value != value.strip():
            setattr(item, name, value.strip())
            repaired.append(Finding(f"{memory_id}: stripped blanks around {name}", f"{memory_id}：去掉了{_FIELD_ZH[name]}前后的空白"))
    if item.history is None or not isinstance(item.history, list):
        if item.history not in (None, []):
            kind = type(item.history).__name__
            issues.append(Finding(f"{memory_id}: history was {kind}; kept as a note",
                                  f"{memory_id}：历史原来是 {kind}，已作为一条备注保留"))
            item.history = [{"time": now_iso(), "action": "note", "actor": "user",
                             "reason": "自检：无法识别的历史", "raw": _plain(item.history)}]
            repaired.append(_history_reset(memory_id))
        else:
            item.history = []
            layout.append(_history_reset(memory_id))
    else:
        plain = [_plain(e) if isinstance(e, dict) else {"raw": _plain(e)} for e in item.history]
        if any(a is not b for a, b in zip(plain, item.history, strict=True)):
            (layout if all(isinstance(e, dict) for e in item.history) else repaired).append(
                Finding(f"{memory_id}: history entries normalised", f"{memory_id}：历史条目已规整"))
            item.history = plain
    if not isinstance(item.hit, int) or isinstance(item.hit, bool) or not 0 <= item.hit <= MAX_HIT:
        item.hit = clamp_hit(item.hit)
        repaired.append(Finding(f"{memory_id}: {HIT_REPAIRED} {item.hit}", f"{memory_id}：命中次数不可能，已改为 {item.hit}"))
    for f in ADDED:
        value = getattr(item, f.name)
        read = f.read(value)
        if read != value or type(read) is not type(value):
            setattr(item, f.name, read)
            layout.append(Finding(f"{memory_id}: {f.name} was {value!r}, read as {read!r}",
                                  f"{memory_id}：{f.name} 原来是 {value!r}，读作 {read!r}"))
    fixed_time = normalize_time(item.latest_update_time)
    if fixed_time is None:
        item.latest_update_time = now_iso()
        repaired.append(Finding(f"{memory_id}: missing latest_update_time set to now",
                                f"{memory_id}：没有 latest_update_time，已设为现在"))
    elif fixed_time != item.latest_update_time:
        item.latest_update_time = fixed_time
    return issues, repaired


def _history_reset(memory_id: str) -> Finding:
    return Finding(f"{memory_id}: history reset to a list", f"{memory_id}：历史已重置为列表")


def _kind(value: Any, *, zh: bool = False) -> str:
    if isinstance(value, bool):
        return "是/否值" if zh else "a yes/no value"
    if isinstance(value, (int, float)):
        return "数字" if zh else "a number"
    if isinstance(value, (datetime, date, time)):
        return "日期或时间" if zh else "a date or time"
    if isinstance(value, (list, tuple)):
        return "列表" if zh else "a list"
    if isinstance(value, dict):
        return "键值表" if zh else "a mapping"
    return type(value).__name__


def oversize_fields(memory_id: str, item: MemoryItem) -> list[str]:
    """What of ``item`` is over the limits of ``item.py`` (one message each; empty when all fit)."""
    found = []
    for name, length, limit in oversize(item):
        what = "a history reason" if name == "reason" else name
        found.append(Finding(f"{memory_id}: {what} is {length:,} characters long (limit {limit:,})",
                             f"{memory_id}：{_FIELD_ZH[name]}有 {length:,} 个字（上限 {limit:,}）"))
    return found


def oversize(item: MemoryItem) -> list[tuple[str, int, int]]:
    """What of ``item`` is over the limits of ``item.py``: (field, its length, the limit) each, the field
    ``description``, ``theme`` or ``reason`` (a history entry's, the first one too long)."""
    found = []
    for name, limit in (("description", MAX_DESCRIPTION_CHARS), ("theme", MAX_THEME_CHARS)):
        value = getattr(item, name)
        if isinstance(value, str) and len(value) > limit:
            found.append((name, len(value), limit))
    for entry in item.history if isinstance(item.history, list) else ():
        reason = entry.get("reason") if isinstance(entry, dict) else None
        if isinstance(reason, str) and len(reason) > MAX_REASON_CHARS:
            found.append(("reason", len(reason), MAX_REASON_CHARS))
            break
    return found


def said_once(repaired: list[str]) -> list[str]:
    """Repair notes as a person reads them: every clamped hit count is one line (a file where
    thousands of memories say ``hit: .inf`` is one finding, not thousands)."""
    hits = [note for note in repaired if HIT_REPAIRED in note]
    if not hits:
        return repaired
    rest = [note for note in repaired if HIT_REPAIRED not in note]
    count = "1 memory" if len(hits) == 1 else f"{len(hits):,} memories"
    return [*rest, Finding(f"{count} had an impossible hit count (infinite, negative, not a number or above "
                           f"{MAX_HIT:,}): read as a count from 0 to {MAX_HIT:,}",
                           f"{len(hits):,} 条记忆的命中次数不可能（无穷大、负数、不是数字或超过 {MAX_HIT:,}）："
                           f"已读作 0 到 {MAX_HIT:,} 之间的次数")]


def validate_items(items: dict[str, Any]) -> tuple[list[str], list[str]]:
    issues: list[str] = []
    repaired: list[str] = []
    for memory_id, item in items.items():
        i, r = validate_item(memory_id, item)
        issues += i
        repaired += r
    return issues, repaired


def item_from_raw(memory_id: str, raw: Any) -> tuple[MemoryItem, str | None]:
    """Build an item from a raw stored value, its fields as stored (``validate_item`` repairs them)
    and its other keys kept as ``extra``. Non-mapping values are kept as a description."""
    if isinstance(raw, dict):
        item = MemoryItem.__new__(MemoryItem)
        item.description = raw.get("description")
        item.theme = raw.get("theme")
        item.history = raw.get("history")
        item.latest_update_time = raw.get("latest_update_time")
        hit = raw.get("hit")
        item.hit = 0 if hit is None else hit
        for f in ADDED:
            value = raw.get(f.name)
            setattr(item, f.name, f.default() if value is None else value)
        item.extra = split_extra(raw)
        note = None if hit is not None else Finding(f"{memory_id}: missing hit set to 0", f"{memory_id}：没有命中次数，已设为 0")
        return item, note
    return MemoryItem(str(raw), "未分类"), Finding(f"{memory_id}: entry was not a mapping; kept its text as the description",
                                                 f"{memory_id}：这一项不是键值表，已把它的文字作为内容保留")


def item_from_fields(memory_id: str, fields: Mapping[str, Any]) -> tuple[MemoryItem, list[str], list[str]]:
    """An item from what a store read (``{name: value}`` of ``record.FIELDS`` as stored, ``history``
    as JSON text or already parsed, other keys kept as ``extra``: see ``record.row_values``), with
    (issues, repaired) as ``validate_item`` gives them. A row written by another program or damaged
    by hand never breaks a read: a field of the wrong kind is repaired in the item returned (history
    that is not a list is kept as a note entry, a hit out of range clamped…) and said; the store
    decides whether to write the repair back. Sound rows take a fast path."""
    history, hit = fields.get("history"), fields.get("hit")
    description, theme, stamp = fields.get("description"), fields.get("theme"), fields.get("latest_update_time")
    if isinstance(history, (str, bytes)):
        try:
            history = json.loads(history) if history else []
        except ValueError:
            pass  # kept as text: validate_item keeps it as a note
    if (type(history) is list and all(type(entry) is dict for entry in history) and type(hit) is int
            and 0 <= hit <= MAX_HIT and type(description) is str and type(theme) is str and theme.strip()
            and type(stamp) is str and stamp
            and all(_sound(f, fields.get(f.name)) for f in ADDED)):
        added = {f.name: fields[f.name] for f in ADDED if f.name in fields}
        return MemoryItem(description, theme, history, stamp, hit, extra=split_extra(fields), **added), [], []
    item, _ = item_from_raw(memory_id, {**fields, "history": history})
    issues, repaired = validate_item(memory_id, item)
    return item, issues, repaired


def sound_row(columns: Sequence[str]) -> Callable[[Sequence[Any]], bool]:
    """A test of a table row (its first values in ``columns`` order, as the table gives them) that is
    True only when the self-check's full pass would find nothing in it: ``item_from_raw`` of
    ``record.row_values(row, columns, shared=False, extra=False)``, then :func:`validate_item` and
    :func:`oversize_fields`, would report no issue and make no repair. It asks the same questions of
    the raw values, without building an item: a sound row costs ~1 µs and the parse of its
    history instead of ~8 µs (a self-check of 100,000 memories, issue 37). A row it says
    False of goes through the full pass, which says what is wrong (or that nothing is)."""
    at = {name: i for i, name in enumerate(columns)}
    if not {"description", "theme", "history", "latest_update_time", "hit"} <= at.keys():
        return lambda row: False  # a table without a seed column: every row the full way
    i_desc, i_theme, i_history = at["description"], at["theme"], at["history"]
    i_time, i_hit = at["latest_update_time"], at["hit"]
    added = [(f, at[f.name]) for f in ADDED if f.name in at]
    scan = json.JSONDecoder().scan_once  # json.loads's own scanner, without its wrapper (a text it reads
    # whole from its first character is one json.loads reads the same way; any other takes the full way)

    def sound(row: Sequence[Any]) -> bool:
        desc, theme, stamp, hit, text = row[i_desc], row[i_theme], row[i_time], row[i_hit], row[i_history]
        if not (type(desc) is str and desc and len(desc) <= MAX_DESCRIPTION_CHARS and desc == desc.strip()
                and type(theme) is str and theme and len(theme) <= MAX_THEME_CHARS and theme == theme.strip()
                and type(stamp) is str and stamp.strip()
                and (hit is None or (type(hit) is int and 0 <= hit <= MAX_HIT))
                and type(text) is str and text):
            return False
        try:
            history, end = scan(text, 0)
        except (StopIteration, ValueError):
            return False
        if end != len(text) or type(history) is not list:
            return False
        for entry in history:  # (JSON's objects are plain already: validate_item keeps them as they are)
            if type(entry) is not dict:
                return False
        if len(text) > MAX_REASON_CHARS:  # (a reason is shorter than the JSON text holding it)
            for entry in history:
                reason = entry.get("reason")
                if type(reason) is str and len(reason) > MAX_REASON_CHARS:
                    return False
        for spec, i in added:
            value = spec.from_column(row[i])
            if value is None:
                value = spec.default()
            read = spec.read(value)
            if read != value or type(read) is not type(value):
                return False
        return True

    return sound


def _sound(spec: Field, value: Any) -> bool:
    return value is None or (type(value) is type(spec.read(value)) and spec.read(value) == value)


def trash_entry_problem(entry: Any) -> str | None:
    """What makes a stored trash entry unusable (None: it is usable). An entry is a mapping whose
    ``item`` is a mapping with a text description and theme and, if any, a list of history entries."""
    if not isinstance(entry, dict):
        return f"not a mapping but {_kind(entry)}"
    item = entry.get("item")
    if not isinstance(item, dict):
        return "it holds no memory"
    if not isinstance(item.get("description"), str) or not isinstance(item.get("theme"), str):
        return "its memory has no text description or theme"
    if item.get("history") is not None and not isinstance(item["history"], list):
        return "its memory's history is not a list"
    return None
