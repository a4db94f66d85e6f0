"""Calendar ranges shared by the Chinese and the English time expressions (``time_expressions.py``,
``time_english.py``): the ``DateRange`` they resolve to and the date arithmetic they share. Pure
functions, no I/O."""

from __future__ import annotations

import calendar
from dataclasses import dataclass
from datetime import date, timedelta

RECENT_DAYS = 14


@dataclass(frozen=True)
class DateRange:
    """Inclusive calendar range ``start`` .. ``end`` with the phrase that produced it."""

    start: date
    end: date
    label: str = ""

    def overlaps(self, other: "DateRange") -> bool:
        return self.start <= other.end and other.start <= self.end

    def contains(self, day: date) -> bool:
        return self.start <= day <= self.end


def month_range(year: int, month: int, label: str) -> DateRange:
    last = calendar.monthrange(year, month)[1]
    return DateRange(date(year, month, 1), date(year, month, last), label)


def year_range(year: int, label: str) -> DateRange:
    return DateRange(date(year, 1, 1), date(year, 12, 31), label)


def shift_month(year: int, month: int, delta: int) -> tuple[int, int]:
    index = year * 12 + (month - 1) + delta
    return index // 12, index % 12 + 1


def safe_date(year: int, month: int, day: int) -> date | None:
    try:
        return date(year, month, day)
    except ValueError:
        return None


def nearest_date(month: int, day: int, ref: date) -> date | None:
    """The date M-D nearest to ``ref`` (this, last or next year)."""
    options = [d for y in (ref.year - 1, ref.year, ref.year + 1) if (d := safe_date(y, month, day))]
    if not options:
        return None
    return min(options, key=lambda d: abs((d - ref).days))


def week_monday(day: date) -> date:
    return day - timedelta(days=day.weekday())


def day_range(today: date, offset: int, label: str) -> DateRange:
    d = today + timedelta(days=offset)
    return DateRange(d, d, label)


def month_or_last_years(today: date, month: int, label: str) -> list[DateRange]:
    """A month named without a year: this year's, and last year's as well when this year's is still
    to come (ambiguous between "coming" and "last year's")."""
    ranges = [month_range(today.year, month, label)]
    if month > today.month:
        ranges.append(month_range(today.year - 1, month, label))
    return ranges
