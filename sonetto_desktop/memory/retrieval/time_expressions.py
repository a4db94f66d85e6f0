"""Chinese time expressions -> calendar date ranges, and dates written in memories.

``resolve_time_ranges(text, now)`` turns what a query says about time into ``DateRange`` values
(inclusive ``start`` .. ``end``); ``dates_in_text(text, ref)`` finds the dates a memory mentions.
Both read English too, with the same rules where the languages say the same thing (``time_english.py``:
"last week", "two days ago", "next Friday", "May 3rd"); a text mixing both ("我 last week 去的") is read
once. Pure functions, no I/O.

Rules (documented because several phrases are ambiguous):

- 今天/今晚/今早 = today; 明天/后天/大后天, 昨天/前天/大前天 = one day each.
- N天后 / N天以后 / N天之后 = the single day now + N; N天前 / N天以前 / N天之前 = now - N;
  N天内 / 未来N天 = today .. now + N. N may be Arabic or Chinese (八, 两, 十二). Likewise
  N周后/N个月后 (week / month) resolve to that whole week / month.
- 这周/本周 = Monday .. Sunday of the current week; 下周 / 上周 = the next / previous one.
- 周X / 星期X / 礼拜X without 这/下/上: this week's X if it is today or later, else next week's.
  这周X is always this week's, 下周X next week's, 上周X last week's.
- An expression followed by 之前/以前/前 (这周五之前, 12月10日前) is a deadline: today .. that day
  (if the day is in the past, only that day). Followed by 之后/以后/后: that day .. 30 days on.
- 周末 = the Saturday and Sunday of this week (下周末 / 上周末 the next / previous ones).
- N月 / N月份 = that month of the current year; if it lies after the current month (ambiguous
  between "coming" and "last year's"), the same month of the previous year is returned as well.
- M月D日 / M月D号 without a year = the occurrence nearest to the reference time (within half a year).
- YYYY年M月D日, YYYY年M月, YYYY-MM-DD and YYYY/MM/DD are absolute; YYYY年 (1900-2099) alone is that year,
  but not as a count of years (过去2000年, 2000年前, 近2000年来).
- 最近 / 近来 / 近期 / 这阵子 / 这段时间 = the last 14 days; 这几天 = three days either side.
- 这个月/本月, 上个月, 下个月; 今年, 去年, 明年 = the whole month / year. 月初 / 月底 = the first /
  last seven days of this month; 年初 / 年底 = January / December of this year.
- Fixed-date holidays (元旦, 情人节, 五一, 国庆, 万圣节, 双十一, 圣诞 ...) = their nearest occurrence
  (国庆 and 五一 span their holiday week). Lunar holidays (春节, 中秋) are not resolved.
"""

from __future__ import annotations

import re
from datetime import MAXYEAR, MINYEAR, date, datetime, timedelta

from . import time_english
from .calendar_ranges import (RECENT_DAYS, DateRange, day_range, month_or_last_years, month_range, nearest_date,
                              safe_date, shift_month, week_monday, year_range)

_DIGITS = {"零": 0, "〇": 0, "一": 1, "二": 2, "两": 2, "三": 3, "四": 4, "五": 5, "六": 6, "七": 7, "八": 8, "九": 9}
_NUM = r"[0-9]{1,3}|[零〇一二两三四五六七八九十百]{1,4}"
_YEAR = r"(?P<y>\d{4}|[零〇一二三四五六七八九]{4})"  # 2024, 二〇二四
_WEEKDAY = {"一": 0, "二": 1, "三": 2, "四": 3, "五": 4, "六": 5, "日": 6, "天": 6, "末": 5,
            "1": 0, "2": 1, "3": 2, "4": 3, "5": 4, "6": 5, "7": 6}


def parse_number(text: str) -> int | None:
    """``"12"`` / ``"十二"`` / ``"两"`` / ``"二十五"`` -> int; None if not a number below 1000."""
    if not text:
        return None
    if text.isdigit():
        return int(text)
    total, current = 0, None
    for ch in text:
        if ch in _DIGITS:
            current = _DIGITS[ch]
        elif ch == "十":
            total += (current if current is not None else 1) * 10
            current = None
        elif ch == "百":
            total += (current if current is not None else 1) * 100
            current = None
        else:
            return None
    return total + (current or 0)


# ── query-side patterns ─────────────────────────────────────────────────
# Each entry: compiled pattern, handler(match, today) -> DateRange | list[DateRange] | None.

_BEFORE = r"(?P<before>之前|以前|前(?!天|年|几|一|两))?"
_AFTER = r"(?P<after>之后|以后)?"

_RELATIVE_DAYS = {
    "大前天": -3, "前天": -2, "昨天": -1, "昨日": -1, "昨晚": -1, "昨夜": -1,
    "今天": 0, "今日": 0, "今晚": 0, "今早": 0, "今夜": 0, "今儿": 0, "今天早上": 0,
    "明天": 1, "明日": 1, "明晚": 1, "明早": 1, "明儿": 1,
    "后天": 2, "大后天": 3,
}


def _deadline(target: DateRange, m: re.Match, today: date) -> DateRange:
    """Apply a trailing 之前/之后 to a resolved range."""
    groups = m.groupdict()
    if groups.get("before"):
        if target.end >= today:
            return DateRange(today, target.end, m.group(0))
        return target
    if groups.get("after"):
        return DateRange(target.start, target.start + timedelta(days=30), m.group(0))
    return target


def _h_relative_day(m: re.Match, today: date) -> DateRange:
    return _deadline(day_range(today, _RELATIVE_DAYS[m.group("word")], m.group(0)), m, today)


def _h_n_units(m: re.Match, today: date) -> DateRange | None:
    n = parse_number(m.group("n"))
    if n is None or n > 3650:
        return None
    unit, direction = m.group("unit"), m.group("dir")
    sign = -1 if direction in ("前", "以前", "之前") else 1
    label = m.group(0)
    if direction in ("内", "以内", "之内"):
        span = n if unit == "天" else n * 7 if unit in ("周", "星期", "个星期", "礼拜", "个礼拜") else n * 30
        return DateRange(today, today + timedelta(days=span), label)
    if unit == "天":
        return day_range(today, sign * n, label)
    if unit in ("周", "星期", "个星期", "礼拜", "个礼拜"):
        monday = week_monday(today) + timedelta(weeks=sign * n)
        return DateRange(monday, monday + timedelta(days=6), label)
    year, month = shift_month(today.year, today.month, sign * n)
    return month_range(year, month, label)


def _h_future_n_days(m: re.Match, today: date) -> DateRange | None:
    n = parse_number(m.group("n"))
    if n is None:
        return None
    return DateRange(today, today + timedelta(days=n), m.group(0))


def _week_offset(prefix: str | None) -> int | None:
    if not prefix:
        return None
    if prefix in ("下", "下个"):
        return 1
    if prefix in ("上", "上个"):
        return -1
    if prefix in ("下下", "下下个"):
        return 2
    return 0  # 这 / 本 / 这个


def _h_weekday(m: re.Match, today: date) -> DateRange | None:
    wd = _WEEKDAY.get(m.group("wd"))
    if wd is None:
        return None
    offset = _week_offset(m.group("pre"))
    monday = week_monday(today)
    if m.group("wd") == "末":
        if offset is None:
            offset = 0
        sat = monday + timedelta(weeks=offset, days=5)
        return _deadline(DateRange(sat, sat + timedelta(days=1), m.group(0)), m, today)
    if offset is None:
        target = monday + timedelta(days=wd)
        if target < today:
            target += timedelta(weeks=1)
    else:
        target = monday + timedelta(weeks=offset, days=wd)
    return _deadline(DateRange(target, target, m.group(0)), m, today)


def _h_week(m: re.Match, today: date) -> DateRange:
    offset = _week_offset(m.group("pre")) or 0
    monday = week_monday(today) + timedelta(weeks=offset)
    return _deadline(DateRange(monday, monday + timedelta(days=6), m.group(0)), m, today)


def _year(text: str) -> int:
    """A year written in digits (2024) or digit by digit in Chinese (二〇二四)."""
    return int(text) if text.isdigit() else int("".join(str(_DIGITS[ch]) for ch in text))


def _h_full_date(m: re.Match, today: date) -> DateRange | None:
    """YYYY年M月D日 and ISO dates (parse_number reads both digit and Chinese parts)."""
    d = safe_date(_year(m.group("y")), parse_number(m.group("m")) or 0, parse_number(m.group("d")) or 0)
    return None if d is None else _deadline(DateRange(d, d, m.group(0)), m, today)


def _h_month_day(m: re.Match, today: date) -> DateRange | None:
    month, day = parse_number(m.group("m")), parse_number(m.group("d"))
    if not month or not day or month > 12:
        return None
    d = nearest_date(month, day, today)
    return None if d is None else _deadline(DateRange(d, d, m.group(0)), m, today)


def _h_year_month(m: re.Match, today: date) -> DateRange | None:
    month = parse_number(m.group("m"))
    if not month or month > 12:
        return None
    year = _year(m.group("y"))
    return month_range(year, month, m.group(0)) if MINYEAR <= year <= MAXYEAR else None


def _h_month(m: re.Match, today: date) -> list[DateRange] | None:
    month = parse_number(m.group("m"))
    if not month or month > 12:
        return None
    return month_or_last_years(today, month, m.group(0))


def _h_rel_month(m: re.Match, today: date) -> DateRange:
    word = m.group("word")
    delta = {"上": -1, "下": 1}.get(word[0], 0)
    if word.startswith("上上"):
        delta = -2
    year, month = shift_month(today.year, today.month, delta)
    return _deadline(month_range(year, month, m.group(0)), m, today)


def _h_rel_year(m: re.Match, today: date) -> DateRange:
    delta = {"今年": 0, "去年": -1, "明年": 1, "前年": -2, "后年": 2}[m.group("word")]
    return year_range(today.year + delta, m.group(0))


_HOLIDAYS = {"元旦": (1, 1, 1), "情人节": (2, 14, 1), "劳动节": (5, 1, 5), "五一": (5, 1, 5), "儿童节": (6, 1, 1),
             "国庆": (10, 1, 7), "万圣节": (10, 31, 1), "双十一": (11, 11, 1), "双11": (11, 11, 1), "平安夜": (12, 24, 1),
             "圣诞": (12, 25, 1)}


def _h_holiday(m: re.Match, today: date) -> DateRange | None:
    month, day, days = _HOLIDAYS[m.group("word")]
    start = nearest_date(month, day, today)
    return None if start is None else DateRange(start, start + timedelta(days=days - 1), m.group(0))


def _h_month_part(m: re.Match, today: date) -> DateRange:
    """月初 / 月底 (this month's first / last week), 年初 / 年底 (January / December)."""
    word = m.group("word")
    if word[0] == "年":
        month = 1 if word[1] in "初头" else 12
        return month_range(today.year, month, m.group(0))
    whole = month_range(today.year, today.month, m.group(0))
    if word[1] in "初头":
        return DateRange(whole.start, whole.start + timedelta(days=6), m.group(0))
    return DateRange(whole.end - timedelta(days=6), whole.end, m.group(0))


def _h_recent(m: re.Match, today: date) -> DateRange:
    if m.group("word") == "这几天":
        return DateRange(today - timedelta(days=3), today + timedelta(days=3), m.group(0))
    return DateRange(today - timedelta(days=RECENT_DAYS), today, m.group(0))


_PATTERNS: list[tuple[re.Pattern[str], object]] = [
    (re.compile(_YEAR + r"\s*年\s*(?P<m>" + _NUM + r")\s*月\s*(?P<d>" + _NUM + r")\s*[日号]" + _BEFORE + _AFTER), _h_full_date),
    (re.compile(r"(?P<y>\d{4})[-/.](?P<m>\d{1,2})[-/.](?P<d>\d{1,2})" + _BEFORE + _AFTER), _h_full_date),
    (re.compile(_YEAR + r"\s*年\s*(?P<m>" + _NUM + r")\s*月(?!" + r"[0-9零〇一二两三四五六七八九十])"), _h_year_month),
    # a year alone (19xx / 20xx): not a count of years (过去2000年, 2000年前, 近2000年来, 2000年历史)
    (re.compile(r"(?<![\d去近这那多每约达])(?P<y>(?:19|20)\d\d)\s*年(?![前后来间内里代历度底初末中头份\d零〇一二两三四五六七八九十])"
                + _BEFORE + _AFTER), lambda m, today: _deadline(year_range(int(m.group("y")), m.group(0)), m, today)),
    # (not after a year: one no calendar has, "0000年1月5日", is no date at all, not this year's 1月5日)
    (re.compile(r"(?<!\d年)(?<!\d)(?P<m>" + _NUM + r")月(?P<d>" + _NUM + r")[日号]" + _BEFORE + _AFTER), _h_month_day),
    (re.compile(r"(?<![年\d])(?P<m>[0-9]{1,2}|十[一二]?|[一二三四五六七八九])(?:月份|月)(?![0-9零〇一二两三四五六七八九十底初中]|[日号])"),
     _h_month),
    (re.compile(r"(?P<n>" + _NUM + r")(?P<unit>天|周|个星期|星期|个礼拜|礼拜|个月)(?P<dir>以后|之后|后|以前|之前|前|以内|之内|内)"),
     _h_n_units),
    (re.compile(r"(?:未来|接下来的?|往后)(?P<n>" + _NUM + r")天"), _h_future_n_days),
    (re.compile(r"(?P<pre>下下个?|下个?|上个?|这个?|本)?(?:周|星期|礼拜)(?P<wd>[一二三四五六日天末1-7])" + _BEFORE + _AFTER),
     _h_weekday),
    (re.compile(r"(?P<pre>下下个?|下个?|上个?|这个?|本)(?:周|星期|礼拜)(?![一二三四五六日天末1-7])" + _BEFORE + _AFTER), _h_week),
    (re.compile(r"(?P<word>上上个月|上个月|下个月|这个月|本月|上月|下月)" + _BEFORE + _AFTER), _h_rel_month),
    (re.compile(r"(?P<word>今年|去年|明年|前年|后年)"), _h_rel_year),
    (re.compile(r"(?P<word>大前天|大后天|今天早上|" + "|".join(
        sorted((w for w in _RELATIVE_DAYS if w not in ("大前天", "大后天", "今天早上")), key=len, reverse=True)
    ) + r")" + _BEFORE + _AFTER), _h_relative_day),
    (re.compile(r"(?P<word>最近|近来|近期|这阵子|这段时间|这些天|这几天)"), _h_recent),
    (re.compile(r"(?P<word>" + "|".join(_HOLIDAYS) + r")"), _h_holiday),
    (re.compile(r"(?P<word>月初|月底|月末|年初|年底|年末|年头)" + _BEFORE + _AFTER),
     lambda m, today: _deadline(_h_month_part(m, today), m, today)),
]


def _as_date(now: datetime | date) -> date:
    return now.date() if isinstance(now, datetime) else now


def resolve_time_ranges(text: str, now: datetime | date) -> list[DateRange]:
    """Every time expression in ``text`` as a ``DateRange`` (in order of appearance, no duplicates)."""
    if not text:
        return []
    today = _as_date(now)
    taken: list[tuple[int, int]] = []
    found: list[tuple[int, DateRange]] = []
    for pattern, handler in _PATTERNS + time_english.patterns_for(text):
        for m in pattern.finditer(text):
            span = m.span()
            if any(span[0] < end and start < span[1] for start, end in taken):
                continue
            try:
                result = handler(m, today)  # type: ignore[operator]
            except (ValueError, OverflowError):  # a day no calendar has (year 0, past 9999): no date
                result = None
            if result is None:
                continue
            taken.append(span)
            for r in result if isinstance(result, list) else [result]:
                found.append((span[0], r))
    found.sort(key=lambda pair: pair[0])
    out: list[DateRange] = []
    for _, r in found:
        if r not in out:
            out.append(r)
    return out


# ── memory-side: dates written in a description ───────────────────────

_DOC_FULL = re.compile(r"(?P<y>\d{4})年(?P<m>\d{1,2})月(?P<d>\d{1,2})[日号]?")
_DOC_ISO = re.compile(r"(?<!\d)(?P<y>\d{4})[-/.](?P<m>\d{1,2})[-/.](?P<d>\d{1,2})(?!\d)")
_DOC_MD = re.compile(r"(?<![\d年])(?P<m>\d{1,2})月(?P<d>\d{1,2})[日号]")
_DOC_YM = re.compile(r"(?P<y>\d{4})年(?P<m>\d{1,2})月(?!\d)")
_DOC_M = re.compile(r"(?<![\d年])(?P<m>\d{1,2}|十[一二]?|[一二三四五六七八九])月(?![\d日号底初中一二三四五六七八九十])")


def date_spans_in_text(text: str, ref: datetime | date) -> list[DateRange]:
    """Dates and months a memory mentions, as ranges (a month is its whole span).

    A date without a year is the occurrence nearest to ``ref`` (the memory's own time)."""
    if not text:
        return []
    ref_day = _as_date(ref)
    spans: list[DateRange] = []
    taken: list[tuple[int, int]] = []
    if "月" in text or _DOC_ISO.search(text):  # every Chinese form but ISO names a month
        _chinese_date_spans(text, ref_day, spans, taken)
    return spans + time_english.english_date_spans(text, ref_day, taken)


def _chinese_date_spans(text: str, ref_day: date, spans: list[DateRange], taken: list[tuple[int, int]]) -> None:

    def free(span: tuple[int, int]) -> bool:
        return not any(span[0] < e and s < span[1] for s, e in taken)

    for pattern in (_DOC_FULL, _DOC_ISO):
        for m in pattern.finditer(text):
            d = safe_date(int(m.group("y")), int(m.group("m")), int(m.group("d")))
            if d and free(m.span()):
                taken.append(m.span())
                spans.append(DateRange(d, d, m.group(0)))
    for m in _DOC_MD.finditer(text):
        if not free(m.span()):
            continue
        d = nearest_date(int(m.group("m")), int(m.group("d")), ref_day) if 1 <= int(m.group("m")) <= 12 else None
        if d:
            taken.append(m.span())
            spans.append(DateRange(d, d, m.group(0)))
    for m in _DOC_YM.finditer(text):
        month = int(m.group("m"))
        if 1 <= month <= 12 and MINYEAR <= int(m.group("y")) <= MAXYEAR and free(m.span()):
            taken.append(m.span())
            spans.append(month_range(int(m.group("y")), month, m.group(0)))
    for m in _DOC_M.finditer(text):
        month = parse_number(m.group("m"))
        if month and 1 <= month <= 12 and free(m.span()):
            taken.append(m.span())
            d = nearest_date(month, 1, ref_day) or date(ref_day.year, month, 1)
            spans.append(month_range(d.year, month, m.group(0)))


def dates_in_text(description: str, now: datetime | date) -> list[date]:
    """The dates a memory mentions (M月D日, YYYY年M月D日, ISO, "May 3rd", "3 June 2023"; a bare "M月" or
    "March 2025" gives its first day)."""
    return [span.start for span in date_spans_in_text(description, now)]
