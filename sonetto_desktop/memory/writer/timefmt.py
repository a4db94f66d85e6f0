"""The current time as the memory writer sees it: a date with its Chinese weekday, plus a small
calendar of nearby days so the model can turn "后天" or "下周三" into an absolute date without
doing weekday arithmetic itself (models are unreliable at that)."""

from __future__ import annotations

from datetime import date, datetime, timedelta

from ..item import weekday_zh

_SHORT_ZH = ("周一", "周二", "周三", "周四", "周五", "周六", "周日")


def _md(day: date) -> str:
    return f"{day.month}月{day.day}日（{_SHORT_ZH[day.weekday()]}）"


def _md_short(day: date) -> str:
    return f"{day.month}月{day.day}日"


def format_now(now: datetime | None = None) -> str:
    """One line: ``2026年12月2日 星期三 11:07`` (local time)."""
    now = now or datetime.now()
    return f"{now.year}年{now.month}月{now.day}日 {weekday_zh(now.date())} {now:%H:%M}"


def relative_day_table(now: datetime | None = None) -> str:
    """Reference dates for relative expressions, weeks starting on Monday (the Chinese convention):
    this week and next, each day with its date, the named days (昨天 … 大后天) tagged where they
    fall (yesterday on a Monday gets a line of its own)."""
    today = (now or datetime.now()).date()
    named = {today + timedelta(days=offset): name
             for name, offset in (("昨天", -1), ("今天", 0), ("明天", 1), ("后天", 2), ("大后天", 3))}
    monday = today - timedelta(days=today.weekday())
    lines = [f"{name}={_md(day)}" for day, name in named.items() if day < monday]
    for label, start in (("本周", monday), ("下周", monday + timedelta(days=7))):
        days = [start + timedelta(days=i) for i in range(7)]
        lines.append(f"{label}：" + "、".join(
            f"{_SHORT_ZH[day.weekday()]}={_md_short(day)}" + (f"（{named[day]}）" if day in named else "") for day in days))
    return "\n".join(lines)


def time_block(now: datetime | None = None) -> str:
    """The block appended to the writer's user prompt."""
    now = now or datetime.now()
    return f"## 当前时间\n{format_now(now)}\n日期参考：\n{relative_day_table(now)}"
