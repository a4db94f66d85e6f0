"""Time expressions resolved against a fixed "now" (no clock reads)."""

from __future__ import annotations

from datetime import date, datetime

import pytest

from sonetto_desktop.memory.retrieval.time_expressions import (
    DateRange,
    date_spans_in_text,
    dates_in_text,
    parse_number,
    resolve_time_ranges,
)

WED = datetime(2026, 12, 2, 12, 0)  # a Wednesday


def d(month: int, day: int, year: int = 2026) -> date:
    return date(year, month, day)


def spans(text: str, now: datetime = WED) -> list[tuple[date, date]]:
    return [(r.start, r.end) for r in resolve_time_ranges(text, now)]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("今天有点累", [(d(12, 2), d(12, 2))]),
        ("今晚吃什么", [(d(12, 2), d(12, 2))]),
        ("今早起晚了", [(d(12, 2), d(12, 2))]),
        ("明天要早起", [(d(12, 3), d(12, 3))]),
        ("后天的汇报", [(d(12, 4), d(12, 4))]),
        ("大后天出发", [(d(12, 5), d(12, 5))]),
        ("昨天说的事", [(d(12, 1), d(12, 1))]),
        ("前天去了医院", [(d(11, 30), d(11, 30))]),
        ("大前天下雨", [(d(11, 29), d(11, 29))]),
        ("3天后", [(d(12, 5), d(12, 5))]),
        ("八天后有什么安排", [(d(12, 10), d(12, 10))]),
        ("两天前我说过", [(d(11, 30), d(11, 30))]),
        ("十二天以后", [(d(12, 14), d(12, 14))]),
        ("二十天之后", [(d(12, 22), d(12, 22))]),
        ("五天之前", [(d(11, 27), d(11, 27))]),
        ("10天内要交", [(d(12, 2), d(12, 12))]),
        ("这周有什么安排", [(d(11, 30), d(12, 6))]),
        ("本周", [(d(11, 30), d(12, 6))]),
        ("下周", [(d(12, 7), d(12, 13))]),
        ("上周", [(d(11, 23), d(11, 29))]),
        ("周五晚上", [(d(12, 4), d(12, 4))]),  # still ahead this week
        ("周一开会", [(d(12, 7), d(12, 7))]),  # already past: next week's
        ("星期三", [(d(12, 2), d(12, 2))]),  # today counts as this week's
        ("礼拜天", [(d(12, 6), d(12, 6))]),
        ("这周一", [(d(11, 30), d(11, 30))]),  # 这周X is always this week's
        ("下周三", [(d(12, 9), d(12, 9))]),
        ("上周五", [(d(11, 27), d(11, 27))]),
        ("这周五之前有啥要交的", [(d(12, 2), d(12, 4))]),
        ("周末去哪", [(d(12, 5), d(12, 6))]),
        ("下周末", [(d(12, 12), d(12, 13))]),
        ("我8月份都干了些什么", [(d(8, 1), d(8, 31))]),
        ("十一月", [(d(11, 1), d(11, 30))]),
        ("12月25日", [(d(12, 25), d(12, 25))]),
        ("12月10号前", [(d(12, 2), d(12, 10))]),
        ("1月5号", [(d(1, 5, 2027), d(1, 5, 2027))]),  # nearest occurrence: next January
        ("2026年8月3日", [(d(8, 3), d(8, 3))]),
        ("2025年3月", [(d(3, 1, 2025), d(3, 31, 2025))]),
        ("2026-12-25之前", [(d(12, 2), d(12, 25))]),
        ("最近过得怎么样", [(d(11, 18), d(12, 2))]),
        ("近来", [(d(11, 18), d(12, 2))]),
        ("上个月", [(d(11, 1), d(11, 30))]),
        ("这个月", [(d(12, 1), d(12, 31))]),
        ("下个月", [(d(1, 1, 2027), d(1, 31, 2027))]),
        ("今年", [(d(1, 1), d(12, 31))]),
        ("去年", [(d(1, 1, 2025), d(12, 31, 2025))]),
    ],
)
def test_resolution_table(text, expected):
    assert spans(text) == expected


def test_future_month_is_ambiguous_and_gives_both_years():
    spring = datetime(2026, 3, 10)
    assert spans("8月份", spring) == [(d(8, 1), d(8, 31)), (d(8, 1, 2025), d(8, 31, 2025))]
    assert spans("2月份", spring) == [(d(2, 1), d(2, 28))]


def test_year_boundaries():
    new_year_eve = datetime(2026, 12, 30)
    assert spans("三天后", new_year_eve) == [(d(1, 2, 2027), d(1, 2, 2027))]
    assert spans("下周", new_year_eve) == [(d(1, 4, 2027), d(1, 10, 2027))]
    january = datetime(2027, 1, 3)  # a Sunday
    assert spans("上个月", january) == [(d(12, 1), d(12, 31))]
    assert spans("两天前", january) == [(d(1, 1, 2027), d(1, 1, 2027))]
    assert spans("12月20日", january) == [(d(12, 20), d(12, 20))]  # nearest: the one just past
    assert spans("这周", january) == [(d(12, 28), d(1, 3, 2027))]


def test_month_boundaries():
    assert spans("下个月", datetime(2026, 1, 31)) == [(d(2, 1), d(2, 28))]
    assert spans("明天", datetime(2026, 2, 28)) == [(d(3, 1), d(3, 1))]
    assert spans("昨天", datetime(2024, 3, 1)) == [(d(2, 29, 2024), d(2, 29, 2024))]


def test_several_expressions_in_order_and_none():
    assert spans("昨天和下周三") == [(d(12, 1), d(12, 1)), (d(12, 9), d(12, 9))]
    assert resolve_time_ranges("帮我算一下 128 除以 16", WED) == []
    assert resolve_time_ranges("", WED) == []
    assert resolve_time_ranges("13月40日", WED) == []  # not a date: nothing, no error


def test_accepts_a_date_as_now():
    assert spans("明天", date(2026, 12, 2)) == [(d(12, 3), d(12, 3))]


@pytest.mark.parametrize(("text", "value"), [("8", 8), ("八", 8), ("两", 2), ("十", 10), ("十二", 12),
                                             ("二十", 20), ("二十五", 25), ("一百零五", 105), ("x", None)])
def test_parse_number(text, value):
    assert parse_number(text) == value


def test_dates_in_memories():
    text = "2026年8月3日和同事看演唱会；12月4日下午汇报；备份于2026-01-02；5月要搬家。"
    found = dates_in_text(text, WED)
    assert d(8, 3) in found and d(12, 4) in found and d(1, 2) in found
    assert d(5, 1, 2027) in found  # bare month: its first day, nearest occurrence to the reference
    assert len(found) == 4


def test_memory_dates_use_the_memory_time_for_the_year():
    written_in_march = datetime(2026, 3, 1)
    assert dates_in_text("约了4月2日体检", written_in_march) == [d(4, 2)]
    assert dates_in_text("约了4月2日体检", datetime(2027, 3, 20)) == [d(4, 2, 2027)]


def test_memory_month_span_covers_the_month():
    (span,) = date_spans_in_text("2026年8月去了成都", WED)
    assert (span.start, span.end) == (d(8, 1), d(8, 31))
    assert span.overlaps(DateRange(d(8, 20), d(9, 2)))
    assert not span.overlaps(DateRange(d(9, 1), d(9, 2)))


def test_no_dates_in_plain_text():
    assert dates_in_text("小林喜欢秋天和银杏", WED) == []
    assert dates_in_text("", WED) == []


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("月底前要交报告", [(d(12, 2), d(12, 31))]),
        ("月初", [(d(12, 1), d(12, 7))]),
        ("年底", [(d(12, 1), d(12, 31))]),
        ("下下周", [(d(12, 14), d(12, 20))]),
        ("下下周三", [(d(12, 16), d(12, 16))]),
        ("圣诞节有什么安排", [(d(12, 25), d(12, 25))]),
        ("国庆去哪玩了", [(d(10, 1), d(10, 7))]),
        ("元旦", [(d(1, 1, 2027), d(1, 1, 2027))]),
    ],
)
def test_month_parts_and_fixed_holidays(text, expected):
    assert spans(text) == expected


def test_a_day_no_calendar_has_is_no_date_and_a_year_in_chinese_digits_counts():
    from sonetto_desktop.memory.retrieval.time_expressions import date_spans_in_text

    assert resolve_time_ranges("9999年12月31日之后", date(2026, 1, 1)) == []  # (was OverflowError)
    assert resolve_time_ranges("0000年1月5日", date(2026, 1, 1)) == []  # not this year's 1月5日 either
    assert date_spans_in_text("旧表格上的日期写着0000年1月。", date(2026, 1, 1)) == []  # (was ValueError)
    got = resolve_time_ranges("二〇二四年三月五日我去了哪", date(2025, 6, 1))
    assert [(r.start, r.end) for r in got] == [(date(2024, 3, 5), date(2024, 3, 5))]  # not 2025-03-05
    assert [(r.start, r.end) for r in resolve_time_ranges("2024 年 3 月 5 日", date(2025, 6, 1))] == [
        (date(2024, 3, 5), date(2024, 3, 5))]
    got = resolve_time_ranges("去年12月5日", date(2026, 12, 6))  # a relative year before a day is as it was
    assert (date(2026, 12, 5), date(2026, 12, 5)) in [(r.start, r.end) for r in got]
