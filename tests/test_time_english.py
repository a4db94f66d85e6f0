"""English time expressions, resolved by the same ``resolve_time_ranges`` as the Chinese ones, against a
fixed "now" (no clock reads); English dates written in memories."""

from __future__ import annotations

from datetime import date, datetime

import pytest

from sonetto_desktop.memory.retrieval import time_english
from sonetto_desktop.memory.retrieval.time_expressions import date_spans_in_text, resolve_time_ranges

WED = datetime(2026, 12, 2, 12, 0)  # a Wednesday


def d(month: int, day: int, year: int = 2026) -> date:
    return date(year, month, day)


def spans(text: str, now: datetime | date = WED) -> list[tuple[date, date]]:
    return [(r.start, r.end) for r in resolve_time_ranges(text, now)]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # days relative to today
        ("what did I eat yesterday", [(d(12, 1), d(12, 1))]),
        ("Today I feel tired", [(d(12, 2), d(12, 2))]),
        ("anything on tonight?", [(d(12, 2), d(12, 2))]),
        ("remind me tomorrow", [(d(12, 3), d(12, 3))]),
        ("the day before yesterday", [(d(11, 30), d(11, 30))]),
        ("the day after tomorrow", [(d(12, 4), d(12, 4))]),
        ("what did we talk about last night", [(d(12, 1), d(12, 1))]),
        # a number of units, in digits or words
        ("two days ago", [(d(11, 30), d(11, 30))]),
        ("3 days ago", [(d(11, 29), d(11, 29))]),
        ("twenty-one days ago", [(d(11, 11), d(11, 11))]),
        ("a week ago", [(d(11, 23), d(11, 29))]),
        ("two weeks ago", [(d(11, 16), d(11, 22))]),
        ("a month ago", [(d(11, 1), d(11, 30))]),
        ("four years ago", [(d(1, 1, 2022), d(12, 31, 2022))]),
        ("in 3 days", [(d(12, 5), d(12, 5))]),
        ("five days from now", [(d(12, 7), d(12, 7))]),
        ("in two weeks", [(d(12, 14), d(12, 20))]),
        ("within 10 days", [(d(12, 2), d(12, 12))]),
        ("in the next 5 days", [(d(12, 2), d(12, 7))]),
        ("over the past 3 days", [(d(11, 29), d(12, 2))]),
        ("a few days ago", [(d(11, 28), d(11, 30))]),
        ("a couple of weeks ago", [(d(11, 16), d(11, 22))]),
        # weeks, months, years named relative to now
        ("last week", [(d(11, 23), d(11, 29))]),
        ("this week", [(d(11, 30), d(12, 6))]),
        ("next week", [(d(12, 7), d(12, 13))]),
        ("the week before last", [(d(11, 16), d(11, 22))]),
        ("last month", [(d(11, 1), d(11, 30))]),
        ("this month", [(d(12, 1), d(12, 31))]),
        ("next month", [(d(1, 1, 2027), d(1, 31, 2027))]),
        ("last year", [(d(1, 1, 2025), d(12, 31, 2025))]),
        ("next year", [(d(1, 1, 2027), d(12, 31, 2027))]),
        ("this weekend", [(d(12, 5), d(12, 6))]),
        ("last weekend", [(d(11, 28), d(11, 29))]),
        ("next weekend", [(d(12, 12), d(12, 13))]),
        ("the end of the month", [(d(12, 25), d(12, 31))]),
        ("recently", [(d(11, 18), d(12, 2))]),
        # weekdays
        ("last Friday", [(d(11, 27), d(11, 27))]),
        ("last Monday", [(d(11, 23), d(11, 23)), (d(11, 30), d(11, 30))]),  # the latest one is this week's: both
        ("this Friday", [(d(12, 4), d(12, 4))]),
        ("next Friday", [(d(12, 4), d(12, 4)), (d(12, 11), d(12, 11))]),  # the coming one is this week's: both
        ("this coming Monday", [(d(12, 7), d(12, 7))]),
        ("next Wed", [(d(12, 9), d(12, 9))]),
        ("on Friday", [(d(11, 27), d(11, 27)), (d(12, 4), d(12, 4))]),  # bare: the last one and the coming one
        # months and dates
        ("in March", [(d(3, 1), d(3, 31))]),
        ("in August", [(d(8, 1), d(8, 31))]),
        ("last May", [(d(5, 1), d(5, 31))]),
        ("this June we went hiking", [(d(6, 1), d(6, 30))]),
        ("what did I do this May?", [(d(5, 1), d(5, 31))]),
        ("by this March", [(d(3, 1), d(3, 31))]),
        ("next March", [(d(3, 1, 2027), d(3, 31, 2027))]),
        ("on May 3rd", [(d(5, 3, 2027), d(5, 3, 2027))]),  # nearest to now, as 5月3日
        ("May 3", [(d(5, 3, 2027), d(5, 3, 2027))]),
        ("Dec. 25th", [(d(12, 25), d(12, 25))]),
        ("on the 3rd of May", [(d(5, 3, 2027), d(5, 3, 2027))]),
        ("October 13, 2023", [(d(10, 13, 2023), d(10, 13, 2023))]),
        ("on 3 June, 2023", [(d(6, 3, 2023), d(6, 3, 2023))]),
        ("1 February 2023", [(d(2, 1, 2023), d(2, 1, 2023))]),
        ("in May 2023", [(d(5, 1, 2023), d(5, 31, 2023))]),
        ("Sept 2022", [(d(9, 1, 2022), d(9, 30, 2022))]),
        ("in 2023", [(d(1, 1, 2023), d(12, 31, 2023))]),
        ("summer 2021", [(d(6, 1, 2021), d(8, 31, 2021))]),
        ("last summer", [(d(6, 1), d(8, 31))]),
        ("Christmas", [(d(12, 25), d(12, 25))]),
        ("on Valentine’s Day", [(d(2, 14, 2027), d(2, 14, 2027))]),
        # deadlines and starts, as 之前 / 之后
        ("before Friday", [(d(11, 27), d(11, 27)), (d(12, 2), d(12, 4))]),  # the last one is past: that day
        ("by next Wednesday", [(d(12, 2), d(12, 9))]),
        ("since last Friday", [(d(11, 27), d(12, 2))]),
        ("after Christmas", [(d(12, 25), d(1, 24, 2027))]),
    ],
)
def test_english_resolution_table(text, expected):
    assert spans(text) == expected


def test_an_ambiguous_month_gives_both_years_as_the_chinese_one_does():
    spring = datetime(2026, 3, 10)
    assert spans("in August", spring) == [(d(8, 1), d(8, 31)), (d(8, 1, 2025), d(8, 31, 2025))]
    assert spans("8月份", spring) == spans("in August", spring)


def test_english_and_chinese_forms_agree():
    for zh, en in [("昨天", "yesterday"), ("前天", "the day before yesterday"), ("上周", "last week"),
                   ("下周三", "next Wednesday"), ("两天前", "two days ago"), ("三天后", "in three days"),
                   ("上个月", "last month"), ("下个月", "next month"), ("去年", "last year"), ("下周末", "next weekend"),
                   ("十天内", "within ten days"), ("月底", "end of this month"), ("圣诞", "Christmas")]:
        assert spans(zh) == spans(en), (zh, en)


def test_mixed_chinese_and_english():
    assert spans("我 last week 去的那家店") == [(d(11, 23), d(11, 29))]
    assert spans("我last week去的那家店") == [(d(11, 23), d(11, 29))]  # no spaces around the English
    assert spans("昨天和next Wednesday") == [(d(12, 1), d(12, 1)), (d(12, 9), d(12, 9))]
    assert spans("我们May 3rd见过") == spans("我们5月3日见过") == [(d(5, 3, 2027), d(5, 3, 2027))]
    assert spans("YESTERDAY 吃了什么") == [(d(12, 1), d(12, 1))]


def test_boundaries_of_months_and_years():
    new_year_eve = datetime(2026, 12, 30)
    assert spans("in three days", new_year_eve) == [(d(1, 2, 2027), d(1, 2, 2027))]
    assert spans("next week", new_year_eve) == [(d(1, 4, 2027), d(1, 10, 2027))]
    assert spans("last month", datetime(2027, 1, 3)) == [(d(12, 1), d(12, 31))]
    assert spans("tomorrow", datetime(2026, 2, 28)) == [(d(3, 1), d(3, 1))]
    assert spans("last summer", datetime(2026, 7, 10)) == [(d(6, 1, 2025), d(8, 31, 2025))]  # this one is not over
    assert spans("last December", datetime(2026, 12, 10)) == [(d(12, 1, 2025), d(12, 31, 2025))]


@pytest.mark.parametrize(
    "text",
    [
        "may I ask you something",
        "May I borrow your pen",
        "this may be wrong",
        "this may help you",
        "These 2 may be useful",  # a number before the verb: no 2 May
        "the first 3 may not work",
        "step 4 may fail",
        "one of these days I will visit Japan",  # some day to come, not the last two weeks
        "a budget of 2023 dollars",
        "we will march on",
        "they march in the parade",
        "I want a second opinion",
        "the sun was bright",
        "I sat on the bench",
        "a wedding on a wed afternoon",  # no qualifier: an abbreviated day is no date
        "I go jogging on Mondays",  # a habit, no date
        "at last we met",
        "the last time we spoke",
        "one day I will travel",
        "years ago I had a cat",
        "a few days",
        "we need 3 days to finish",
        "the year of the dragon",
        "I fall asleep early",
        "in the fall of Rome",
        "my friend June likes tea",
        "april showers",
        "128 divided by 16",
        "2023 people came",
        "mon ami",
        "decide later",
        "todays",
        "",
    ],
)
def test_ordinary_words_are_no_dates(text):
    assert resolve_time_ranges(text, WED) == []


def test_a_number_before_may_is_a_date_when_it_reads_as_one():
    may_2 = [(d(5, 2, 2027), d(5, 2, 2027))]
    assert spans("we met 2 May") == spans("2 May, we met") == spans("on 2 May we met") == may_2
    assert spans("2nd May we met") == spans("the 2 of May we met") == may_2
    assert spans("by 2 may I left") == [(d(12, 2), d(5, 2, 2027))]
    assert spans("2 May 2023 we met") == [(d(5, 2, 2023), d(5, 2, 2023))]
    assert date_spans_in_text("Both 2 may need a vet; the 3 may cost more", WED) == []


def year(y: int) -> list[tuple[date, date]]:
    return [(d(1, 1, y), d(12, 31, y))]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # a number the sentence counts something with is no year ...
        ("write it in 2000 words", []),
        ("in 2000 words or less", []),
        ("I walked 2000 steps today", [(d(12, 2), d(12, 2))]),  # (today is a date; 2000 is not)
        ("got there in 2000 steps", []),
        ("a 1999 price", []),
        ("paid in 1999 dollars", []),
        ("in 2000 yuan", []),
        ("in 1999 people's money", []),
        ("during 2000 years of history", []),
        ("since 2015 km", []),
        ("走了2000步", []),
        ("过去2000年", []),
        ("2000年前的事", []),
        # ... where the sentence makes it one, it is
        ("in 2019", year(2019)),
        ("In 2019 I went to Beijing", year(2019)),
        ("what happened in 2000?", year(2000)),
        ("in 2000, words were cheap", year(2000)),
        ("in 2019 was he there", year(2019)),
        ("since 2015", [(d(1, 1, 2015), d(12, 2))]),
        ("since 2015 he has lived here", [(d(1, 1, 2015), d(12, 2))]),
        ("2019年", year(2019)),
        ("我2019年去了北京", year(2019)),
        ("2019 年的时候", year(2019)),
        ("2019年3月", [(d(3, 1, 2019), d(3, 31, 2019))]),
        # a plural a verb follows begins a clause: the number before it is when that clause happened
        ("in 2019 things changed", year(2019)),
        ("In 2019 prices went up", year(2019)),
        ("in 2019 people moved away", year(2019)),
        ("in 2019 kids were small", year(2019)),
        ("during 2008 banks had failed", year(2008)),
        # ... and a plural whose next word is no verb still counts
        ("in 2000 steps red faced", []),
    ],
)
def test_a_number_is_a_year_only_where_the_sentence_makes_it_one(text, expected):
    assert spans(text) == expected


def test_a_day_no_calendar_has_is_no_date():
    assert spans("February 30, 2023") == []
    assert spans("May 40") == []
    assert spans("in 0000") == []
    assert spans("9999 years from now") == []  # past the calendar: nothing, no error
    assert spans("December 31, 9999 onwards") == [(date(9999, 12, 31), date(9999, 12, 31))]
    assert spans("after December 31, 9999") == []  # (its 30 days on have no calendar)


def test_english_dates_written_in_memories():
    found = [(s.start, s.end) for s in date_spans_in_text(
        "Met Anna on May 3rd; the trip is on 14 June 2027; moved in March 2025; backup 2026-01-02.", WED)]
    assert (d(5, 3, 2027), d(5, 3, 2027)) in found  # without a year: nearest to the memory's time
    assert (d(6, 14, 2027), d(6, 14, 2027)) in found
    assert (d(3, 1, 2025), d(3, 31, 2025)) in found
    assert (d(1, 2), d(1, 2)) in found
    assert len(found) == 4


def test_memory_dates_need_a_day_or_a_year():
    assert date_spans_in_text("May I say this went well in March", WED) == []
    assert date_spans_in_text("I bought 3 apples", WED) == []
    written_in_march = datetime(2026, 3, 1)
    assert [s.start for s in date_spans_in_text("dentist on April 2nd", written_in_march)] == [d(4, 2)]


_EVERY_FORM = [
    "what did I eat yesterday", "Today I feel tired", "anything on tonight?", "the day before yesterday",
    "what did we talk about last night", "this morning", "3 days ago", "twenty-one days ago", "a week ago",
    "four years ago", "in 3 days", "five days from now", "in two weeks", "within 10 days", "in the next 5 days",
    "over the past 3 days", "a couple of weeks ago", "a fortnight ago", "last week", "this week",
    "the week before last", "last month", "next year", "the year before last", "this weekend", "last weekend",
    "the end of the month", "the beginning of the year", "recently", "lately", "these days", "last Friday",
    "next Wed", "on Friday", "this coming Monday", "in March", "last May", "mid-June", "by this March",
    "on May 3rd", "Dec. 25th", "on the 3rd of May", "October 13, 2023", "on 3 June, 2023", "in May 2023",
    "Sept 2022", "in 2023", "since 2019", "summer 2021", "last summer", "this fall", "Christmas", "Christmas Eve",
    "on Valentine’s Day", "valentines", "New Year's Eve", "new years day", "halloween", "before Friday",
    "by next Wednesday", "since last Friday", "after Christmas", "我 last week 去的那家店", "我们May 3rd见过",
    "YESTERDAY 吃了什么", "昨天和next Wednesday",
]


@pytest.mark.parametrize("text", _EVERY_FORM)
def test_the_english_forms_a_text_is_read_for_are_all_it_can_have(text):
    """A text is read only for the forms whose words it has (a long message costs one pass over its words,
    not every form's pattern over it): every form found in it by all the patterns is among them."""
    asked = time_english.patterns_for(text)
    found = [(pattern, handler) for pattern, handler in time_english.PATTERNS
             if any(handler(m, WED.date()) is not None for m in pattern.finditer(text))]
    assert found, text
    assert [entry[0].pattern for entry in found if entry not in asked] == []


def test_a_text_without_english_time_words_is_not_read_for_them():
    assert time_english.patterns_for("So I finally cleaned the garage and found the old boxes from when we "
                                     "moved: photos of the kids, my dad's tools and letters I never opened.") == []
    assert time_english.patterns_for("我昨天去了那家店") == []
