"""Relative times for cards ("刚刚", "3分钟前", "昨天", "3天前"). Pure Python: no Qt needed."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sonetto_desktop.memory.item import parse_time

_ZH = {
    "now": "刚刚",
    "minutes": "{n}分钟前",
    "hours": "{n}小时前",
    "yesterday": "昨天",
    "days": "{n}天前",
    "months": "{n}个月前",
    "years": "{n}年前",
}
_EN = {
    "now": "just now",
    "minutes": "{n} min ago",
    "hours": "{n} h ago",
    "yesterday": "yesterday",
    "days": "{n} days ago",
    "months": "{n} months ago",
    "years": "{n} years ago",
    "month": "a month ago",
    "year": "a year ago",
}


def relative_time(when: Any, now: datetime | None = None, *, lang: str = "zh") -> str:
    """How long ago ``when`` (ISO string or datetime) was, for a person; ``""`` if it cannot be read.

    Under a minute (or in the future: clocks drift) is "刚刚"; the previous calendar day is "昨天"
    unless it was under six hours ago; then days, months (30 days) and years (365 days).
    """
    words = _EN if lang.lower().startswith("en") else _ZH
    then = parse_time(when)
    if then is None:
        return ""
    now = now or datetime.now()
    if then.tzinfo is not None and now.tzinfo is None:
        then = then.astimezone().replace(tzinfo=None)
    elif then.tzinfo is None and now.tzinfo is not None:
        now = now.astimezone().replace(tzinfo=None)
    seconds = (now - then).total_seconds()
    if seconds < 60:
        return words["now"]
    if seconds < 3600:
        return words["minutes"].format(n=int(seconds // 60))
    day_gap = (now.date() - then.date()).days
    if seconds < 6 * 3600 or day_gap == 0:
        return words["hours"].format(n=int(seconds // 3600))
    if day_gap == 1:
        return words["yesterday"]
    if day_gap < 30:
        return words["days"].format(n=day_gap)
    if day_gap < 365:
        return _count(words, "month", day_gap // 30)
    return _count(words, "year", day_gap // 365)


def every_form(lang: str = "zh") -> list[str]:
    """Every form ``relative_time`` says in ``lang``, each with two-digit numbers: the widest a place
    showing any of them must allow for ("59分钟前", "11 months ago")."""
    words = _EN if lang.lower().startswith("en") else _ZH
    return [words["now"], words["yesterday"], words["minutes"].format(n=59), words["hours"].format(n=23),
            words["days"].format(n=29), words["months"].format(n=11), words["years"].format(n=10)]


def _count(words: dict[str, str], unit: str, n: int) -> str:
    if n == 1 and unit in words:
        return words[unit]
    return words[unit + "s"].format(n=n)
