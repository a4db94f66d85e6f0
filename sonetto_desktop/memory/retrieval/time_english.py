"""English time expressions -> calendar date ranges (beside the Chinese ones of ``time_expressions.py``,
which reads both through its ``resolve_time_ranges`` / ``date_spans_in_text``). Pure functions, no I/O.

A small grammar, not a list of phrases: a number (digits, number words up to ninety-nine, "a", "a couple
of", "a few", "several"), a unit (day, week, fortnight, month, year), a direction (ago / back / earlier,
later / from now, "in N", "within N", "the past N"), weekday and month names, seasons, a relative word
(last / this / next / coming / the ... before last) and a bound (before / by / until, after / since).
The rules match the Chinese ones where both languages say the same thing:

- yesterday / today / tonight / tomorrow / last night / the day before yesterday = one day each, as 昨天 ...
- N days ago / in N days / N days from now = that single day (N天前 / N天后); N weeks / months / years
  ago = that whole week / month / year; within N days / the next N days = today .. now + N (N天内); the
  past N days = now - N .. today. "a few" is 2-4, "a couple of" 2, "several" 3-7: the span of them all.
- last / this / next week, month, year, weekend = as 上周 / 这周 / 下周 ...; the week before last = 上上周.
- A weekday: "this Friday" is this week's; "last Friday" the latest one before today and, when that one is
  in this week, last week's too (people mean either); "next Friday" the coming one and, when it is in this
  week, next week's too; "this coming Friday" the coming one. A bare "(on) Friday" is both the last one and
  the coming one (English uses it for both). Abbreviations (fri, sat, sun, wed ...) only after last / this /
  next: alone they are ordinary words. A plural ("on Mondays") is a habit, no date.
- Month names: with a day ("May 3rd", "the 3rd of May", "October 13, 2023") a single day, without a year the
  occurrence nearest to now (as M月D日); with a year ("May 2023") that month; after in / during / by / last /
  next ... ("in March") this year's (and last year's as well when it is still to come, as N月); alone ("may
  I", "march on") no date. "this may" is a date only at the end of a clause ("this may be wrong" is not), and so is "2 may" ("these 2
  may help" is not; "on 2 May we", "2nd May", "2 May 2023" are).
- in / during / throughout YYYY (1900-2099) = that year (since / until / by ... YYYY: bounded as below), unless
  the word after it is what the number counts ("in 2000 words", "in 1999 dollars": a plural or a unit) and no
  verb follows that word ("in 2019 things changed", "in 2019 prices went up" are years). A season with last / this / next or a year
  ("summer 2021", "last summer"): spring = March-May, summer = June-August, autumn / fall = September-
  November, winter = December-February (northern hemisphere).
- recently / lately / these days = the last 14 days (最近); "one of these days" is none (a day to come). The end / beginning of the month = its last /
  first seven days (月底 / 月初); of the year = December / January.
- Christmas (Eve), New Year's (Eve / Day), Valentine's Day, Halloween = their nearest occurrence.
- before / by / until / till X = today .. X (only X if it is past), as X之前; after X = X .. 30 days on, as
  X之后; since X = X .. today.

Dates written in memories (:func:`english_date_spans`): only forms with a day or a year ("May 3rd",
"3 June 2023", "March 2025"); a bare month name in a memory is no date.
"""

from __future__ import annotations

import re
from datetime import MAXYEAR, MINYEAR, date, timedelta
from typing import Callable

from .calendar_ranges import (RECENT_DAYS, DateRange, day_range, month_or_last_years, month_range, nearest_date,
                              safe_date, shift_month, week_monday, year_range)

# ── the words ──────────────────────────────────────────────────────────

_ONES = ["zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "eleven", "twelve",
         "thirteen", "fourteen", "fifteen", "sixteen", "seventeen", "eighteen", "nineteen"]
_TENS = ["twenty", "thirty", "forty", "fifty", "sixty", "seventy", "eighty", "ninety"]
_VAGUE = {"a couple of": (2, 2), "couple of": (2, 2), "a few": (2, 4), "few": (2, 4), "several": (3, 7),
          "a": (1, 1), "an": (1, 1)}
_MONTHS = ["january", "february", "march", "april", "may", "june", "july", "august", "september", "october",
           "november", "december"]
_MONTH_ABBR = {"jan": 1, "feb": 2, "mar": 3, "apr": 4, "jun": 6, "jul": 7, "aug": 8, "sep": 9, "sept": 9,
               "oct": 10, "nov": 11, "dec": 12}
_WEEKDAYS = ["monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"]
_WEEKDAY_ABBR = {"mon": 0, "tue": 1, "tues": 1, "wed": 2, "thu": 3, "thur": 3, "thurs": 3, "fri": 4,
                 "sat": 5, "sun": 6}
_SEASONS = {"spring": 3, "summer": 6, "autumn": 9, "fall": 9, "winter": 12}  # first month, three months each
_HOLIDAYS = {"christmas eve": (12, 24), "christmas": (12, 25), "new years eve": (12, 31), "new years day": (1, 1),
             "new years": (1, 1), "valentines day": (2, 14), "valentines": (2, 14), "halloween": (10, 31)}
_UNIT_DAYS = {"day": 1, "week": 7, "fortnight": 14, "month": 30, "year": 365}


def _alt(words: list[str] | dict) -> str:
    return "|".join(sorted(words, key=len, reverse=True))


_L, _R = r"(?<![a-z0-9])", r"(?![a-z0-9])"  # word edges that hold beside Chinese characters too
_NUMBER = (r"(?P<n>\d{1,4}|(?:" + _alt(_TENS) + r")(?:[- ](?:" + _alt(_ONES[1:10]) + r"))?|" + _alt(_ONES) + "|"
           + _alt(_VAGUE).replace(" ", r"\s+") + r")")
_UNIT = r"(?P<unit>day|week|fortnight|month|year)s?"
_MONTH = r"(?P<mon>" + _alt(_MONTHS) + "|" + _alt(_MONTH_ABBR) + r")\.?"
_FULL_MONTH = r"(?P<mon>" + _alt(_MONTHS) + r")"
_DAY = r"(?P<d>\d{1,2})(?:st|nd|rd|th)?"
_YEAR = r"(?P<y>\d{4})"
_BOUND = r"(?:(?P<bound>before|by|until|till|after|since)\s+)?"
_CLAUSE_END = re.compile(r"\s*(?:$|[^\sa-z])", re.IGNORECASE)  # end of text, punctuation, a digit, Chinese


def _number(text: str) -> tuple[int, int] | None:
    """(lowest, highest) a number means: ``"12"``, ``"twenty-one"``, ``"a few"`` (2-4); None if none."""
    text = " ".join(text.lower().split())
    if text.isdigit():
        return int(text), int(text)
    if text in _VAGUE:
        return _VAGUE[text]
    if text in _ONES:
        return _ONES.index(text), _ONES.index(text)
    tens, _, ones = text.replace("-", " ").partition(" ")
    value = (_TENS.index(tens) + 2) * 10 + (_ONES.index(ones) if ones else 0)
    return value, value


def _month(name: str) -> int:
    name = name.lower().rstrip(".")
    return _MONTHS.index(name) + 1 if name in _MONTHS else _MONTH_ABBR[name]


def _weekday(name: str) -> int:
    name = name.lower()
    return _WEEKDAYS.index(name) if name in _WEEKDAYS else _WEEKDAY_ABBR[name]


def _label(m: re.Match) -> str:
    return m.group(0).strip()


# ── bounds: before / by / until, after, since ─────────────────────────


def _bounded(found: DateRange | list[DateRange] | None, m: re.Match, today: date
             ) -> DateRange | list[DateRange] | None:
    """Apply a leading before / after / since to what ``found`` resolved (as 之前 / 之后 do)."""
    bound = (m.groupdict().get("bound") or "").lower()
    if found is None or not bound:
        return found
    out = []
    for r in found if isinstance(found, list) else [found]:
        if bound == "since":
            out.append(DateRange(r.start, max(r.start, today), _label(m)))
        elif bound == "after":
            out.append(DateRange(r.start, r.start + timedelta(days=30), _label(m)))
        else:
            out.append(DateRange(today, r.end, _label(m)) if r.end >= today else r)
    return out


# ── handlers: (match, today) -> DateRange | list[DateRange] | None ────

_RELATIVE_DAYS = {"the day before yesterday": -2, "day before yesterday": -2, "yesterday": -1, "last night": -1,
                  "today": 0, "tonight": 0, "this morning": 0, "this afternoon": 0, "this evening": 0,
                  "tomorrow": 1, "the day after tomorrow": 2, "day after tomorrow": 2}


def _h_relative_day(m: re.Match, today: date) -> DateRange:
    word = " ".join(m.group("word").lower().split())
    return day_range(today, _RELATIVE_DAYS[word], _label(m))


def _unit_span(today: date, unit: str, offset: int, label: str) -> DateRange:
    """The day / week / month / year ``offset`` units from today's (a fortnight: two weeks)."""
    if unit == "day":
        return day_range(today, offset, label)
    if unit in ("week", "fortnight"):
        monday = week_monday(today) + timedelta(weeks=offset * (2 if unit == "fortnight" else 1))
        return DateRange(monday, monday + timedelta(days=6), label)
    if unit == "month":
        return month_range(*shift_month(today.year, today.month, offset), label)
    return year_range(today.year + offset, label)


def _h_units_away(m: re.Match, today: date) -> DateRange | None:
    """N units ago / later / from now, in N units: that day, or that whole week / month / year."""
    n = _number(m.group("n"))
    unit = m.group("unit").lower()
    if n is None or n[1] * _UNIT_DAYS[unit] > 3650 * 3:
        return None
    sign = -1 if (m.group("dir") or "").lower() in ("ago", "back", "earlier", "before") else 1
    first, last = (_unit_span(today, unit, sign * k, _label(m)) for k in n)
    lo, hi = sorted((first, last), key=lambda r: r.start)
    return DateRange(lo.start, hi.end, _label(m))


def _h_units_window(m: re.Match, today: date) -> DateRange | None:
    """within N units / the next N units (today .. + N); the past / last N units (- N .. today)."""
    n = _number(m.group("n"))
    if n is None or n[1] > 3650:
        return None
    days = n[1] * _UNIT_DAYS[m.group("unit").lower()]
    if m.group("way").lower().split()[-1] in ("past", "last", "previous"):
        return DateRange(today - timedelta(days=days), today, _label(m))
    return DateRange(today, today + timedelta(days=days), _label(m))


_OFFSETS = {"last": -1, "past": -1, "previous": -1, "this": 0, "next": 1, "coming": 1, "following": 1}


def _h_relative_unit(m: re.Match, today: date) -> DateRange | None:
    """last / this / next week, month, year; the week before last; the weekend."""
    unit = m.group("unit").lower()
    word = (m.group("rel") or "this").lower().split()[-1]
    twice = " ".join((m.group("twice") or "").lower().split())
    if word == "the" and not twice and unit != "weekend":
        return None  # "the week" alone: any week
    offset = _OFFSETS.get(word, 0)
    if twice:
        offset = -2 if twice == "before last" else 2
    if unit == "weekend":
        if word == "the":  # "the weekend": the last one and this week's
            return [_h_relative_unit_weekend(today, -1, _label(m)), _h_relative_unit_weekend(today, 0, _label(m))]
        return _h_relative_unit_weekend(today, offset, _label(m))
    return _unit_span(today, unit, offset, _label(m))


def _h_relative_unit_weekend(today: date, offset: int, label: str) -> DateRange:
    saturday = week_monday(today) + timedelta(weeks=offset, days=5)
    return DateRange(saturday, saturday + timedelta(days=1), label)


def _h_weekday(m: re.Match, today: date) -> list[DateRange] | DateRange | None:
    name = m.group("wd").lower()
    rel = " ".join((m.group("rel") or "").lower().split())
    if name in _WEEKDAY_ABBR and rel not in ("last", "this", "next", "this coming", "coming"):
        return None  # "sat", "sun", "wed" alone are words
    wd, label = _weekday(name), _label(m)
    monday = week_monday(today)
    ahead = today + timedelta(days=(wd - today.weekday()) % 7 or 7)  # the first one after today
    behind = today - timedelta(days=(today.weekday() - wd) % 7 or 7)  # the latest one before today

    def one(day: date) -> DateRange:
        return DateRange(day, day, label)

    if rel == "this":
        return one(monday + timedelta(days=wd))
    if rel in ("this coming", "coming"):
        return one(ahead)
    if rel == "last":
        return [one(behind - timedelta(weeks=1)), one(behind)] if behind >= monday else one(behind)
    if rel == "next":
        return [one(ahead), one(ahead + timedelta(weeks=1))] if ahead < monday + timedelta(weeks=1) else one(ahead)
    coming = today if today.weekday() == wd else ahead
    return [one(behind), one(coming)]


_NUMBER_MAY = re.compile(r"(?:the\s+)?\d{1,2}\s+may", re.IGNORECASE)  # "2 may": the month, or "these 2 may be ..."


def _h_full_date(m: re.Match, today: date) -> DateRange | None:
    """Month D(, YYYY) and D (of) Month(, YYYY): without a year, the occurrence nearest to now. A bare
    number before "may" is that day only at a clause's end ("we met 2 May"; "these 2 may be" is the verb)."""
    month, day = _month(m.group("mon")), int(m.group("d"))
    year = m.group("y")
    if _NUMBER_MAY.fullmatch(m.group(0)) and not _CLAUSE_END.match(m.string, m.end()):
        return None
    d = safe_date(int(year), month, day) if year else nearest_date(month, day, today)
    return None if d is None else DateRange(d, d, _label(m))


def _h_month_year(m: re.Match, today: date) -> DateRange | None:
    year = int(m.group("y"))
    return month_range(year, _month(m.group("mon")), _label(m)) if MINYEAR <= year <= MAXYEAR else None


def _h_named_month(m: re.Match, today: date) -> list[DateRange] | DateRange | None:
    """in / during / last / this / next <Month>."""
    word = " ".join((m.group("rel") or m.group("rel2") or "").lower().split())
    month, label = _month(m.group("mon")), _label(m)
    if word == "this" and month == 5 and not _CLAUSE_END.match(m.string, m.end()):
        return None  # "this may be", "this may help": the verb
    if word == "last":
        return month_range(today.year - (1 if month >= today.month else 0), month, label)
    if word == "next":
        return month_range(today.year + (1 if month <= today.month else 0), month, label)
    if word == "this":
        return month_range(today.year, month, label)
    return month_or_last_years(today, month, label)


def _h_year(m: re.Match, today: date) -> DateRange | None:
    year = int(m.group("y"))
    return year_range(year, _label(m)) if 1900 <= year <= 2099 else None


def _season(year: int, first: int, label: str) -> DateRange:
    start = month_range(year, first, label).start
    end = month_range(*shift_month(year, first, 2), label).end
    return DateRange(start, end, label)


def _h_season(m: re.Match, today: date) -> DateRange | None:
    first, label = _SEASONS[m.group("season").lower()], _label(m)
    if m.group("y"):
        return _season(int(m.group("y")), first, label)
    word = (m.group("rel") or "").lower()
    if not word:
        return None  # "fall", "spring" alone are words
    this = _season(today.year - (1 if first == 12 and today.month < 3 else 0), first, label)  # (Jan.: last Dec.'s)
    if word == "this":
        return this
    if word == "last":
        return this if this.end < today else _season(this.start.year - 1, first, label)
    return this if this.start > today else _season(this.start.year + 1, first, label)


def _h_month_part(m: re.Match, today: date) -> DateRange:
    """the end / beginning of the month (its last / first seven days), of the year (December / January)."""
    part, label = m.group("part").lower(), _label(m)
    if m.group("unit").lower() == "year":
        return month_range(today.year, 12 if part == "end" else 1, label)
    whole = month_range(today.year, today.month, label)
    if part == "end":
        return DateRange(whole.end - timedelta(days=6), whole.end, label)
    return DateRange(whole.start, whole.start + timedelta(days=6), label)


_ONE_OF = re.compile(r"of\s+$", re.IGNORECASE)


def _h_recent(m: re.Match, today: date) -> DateRange | None:
    if _ONE_OF.search(m.string, 0, m.start()):
        return None  # "one of these days": some day to come
    return DateRange(today - timedelta(days=RECENT_DAYS), today, _label(m))


def _h_holiday(m: re.Match, today: date) -> DateRange | None:
    month, day = _HOLIDAYS[" ".join(re.sub("['\u2019]", "", m.group("word").lower()).split())]
    d = nearest_date(month, day, today)
    return None if d is None else DateRange(d, d, _label(m))


Handler = Callable[[re.Match, date], "DateRange | list[DateRange] | None"]


def _bound(handler: Handler) -> Handler:
    return lambda m, today: _bounded(handler(m, today), m, today)


def _p(body: str) -> re.Pattern[str]:
    return re.compile(_L + body + _R, re.IGNORECASE)


_MONTH_WORDS = r"in|during|last|this|next|early|late|mid|(?:the\s+)?(?:beginning|start|end|middle)\s+of"
_REL_WEEKDAY = r"(?:(?P<rel>last|this\s+coming|this|next|coming|on)\s+)?"
_HOLIDAY_NAMES = _alt([h.replace("s", "['\u2019]?s", 1) if h.startswith(("new", "val")) else h for h in _HOLIDAYS]
                      ).replace(" ", r"\s+")

#: A number the word after it counts is no year ("in 2000 words", "in 1999 dollars", "during 2000 years"):
#: a plural (but the few words ending in s that are no nouns) or a unit or currency written alone.
_FUNCTION_S = ("is", "was", "has", "does", "as", "us", "his", "its", "this", "thus", "yes", "plus", "always",
               "perhaps", "besides", "unless", "whereas")
_COUNTED = ("people", "yuan", "rmb", "cny", "usd", "hkd", "yen", "won", "percent", "feet", "men", "women", "children",
            "kg", "km", "cm", "mm", "m", "g", "lb", "ft", "kb", "mb", "gb")
#: ... unless a verb follows the plural: then it begins a clause the number dates ("in 2019 things changed",
#: "in 2019 prices went up"). A verb: a form of be / have / do, a modal, a common irregular past, or a word in
#: -ed that is no noun or adjective ("needed" is a verb, "red" / "speed" / "hundred" are not).
_CLAUSE_VERBS = ("are", "were", "is", "was", "have", "had", "has", "do", "did", "does", "will", "would", "could",
                 "can", "might", "may", "must", "should", "got", "went", "came", "began", "became", "grew", "fell",
                 "rose", "took", "made", "felt", "kept", "saw", "ran", "still")
_NOT_ED = ("bed", "red", "shed", "bred", "sled", "need", "seed", "speed", "breed", "feed",
           "weed", "greed", "steed", "bleed", "deed", "reed", "hundred", "sacred", "naked", "wicked", "kindred")
_CLAUSE_VERB = (r"\s+(?:" + _alt(list(_CLAUSE_VERBS)) + r"|(?!(?:" + _alt(list(_NOT_ED)) + r")(?![a-z']))[a-z]+ed)"
                r"(?![a-z'])")
_NOT_COUNTING = (r"(?!\s*(?:(?!(?:" + _alt(list(_FUNCTION_S)) + r")(?![a-z']))[a-z]+s|" + _alt(list(_COUNTED))
                 + r")(?![a-z])(?!" + _CLAUSE_VERB + r"))")

#: (pattern, handler), longest forms first: ``resolve_time_ranges`` skips a match overlapping an earlier one.
PATTERNS: list[tuple[re.Pattern[str], Handler]] = [
    (_p(_BOUND + r"(?:on\s+)?(?:the\s+)?" + _DAY + r"\s+(?:of\s+)?" + _MONTH + r"(?:,?\s*" + _YEAR + ")?"),
     _bound(_h_full_date)),
    (_p(_BOUND + r"(?:on\s+)?" + _MONTH + r"\s*(?:the\s+)?" + _DAY + r"(?!\d)(?:,?\s*" + _YEAR + ")?"),
     _bound(_h_full_date)),
    (_p(_BOUND + r"(?:in\s+)?" + _MONTH + r",?\s*(?:of\s+)?" + _YEAR), _bound(_h_month_year)),
    (_p(r"(?P<word>(?:the\s+)?day\s+(?:before\s+yesterday|after\s+tomorrow))"), _h_relative_day),
    (_p(r"(?P<way>within|in\s+the\s+next|the\s+next|over\s+the\s+next|next|(?:over\s+|in\s+|for\s+)?the\s+"
        r"(?:past|last|previous)|past)\s+" + _NUMBER + r"\s+" + _UNIT), _h_units_window),
    (_p(_NUMBER + r"\s+" + _UNIT + r"\s+(?P<dir>ago|back|earlier|later|from\s+now|hence)"), _h_units_away),
    (_p(r"in\s+" + _NUMBER + r"\s+" + _UNIT + r"(?P<dir>)"), _h_units_away),
    (_p(r"(?:(?:the\s+)?(?P<part>end|beginning|start)\s+of\s+(?:the|this)\s+(?P<unit>month|year))"), _h_month_part),
    (_p(_BOUND + r"(?P<rel>last|this|next|past|coming|the\s+previous|the\s+following|the)\s+(?P<unit>week)"
        r"(?P<twice>\s*(?:before\s+last|after\s+next))?"), _bound(_h_relative_unit)),
    (_p(_BOUND + r"(?P<rel>last|this|next|past|coming|the\s+previous|the\s+following)\s+(?P<unit>month|year)"
        r"(?P<twice>)"), _bound(_h_relative_unit)),
    (_p(r"(?:the\s+)?(?P<unit>month|year)(?P<rel>)(?P<twice>\s+(?:before\s+last|after\s+next))"), _h_relative_unit),
    (_p(_BOUND + r"(?:(?P<rel>last|this|next|past|coming|the)\s+)(?P<unit>weekend)(?P<twice>)"),
     _bound(_h_relative_unit)),
    (_p(_BOUND + _REL_WEEKDAY + r"(?P<wd>" + _alt(_WEEKDAYS) + "|" + _alt(_WEEKDAY_ABBR) + r")\.?"),
     _bound(_h_weekday)),
    (_p(r"(?P<word>yesterday|last\s+night|today|tonight|this\s+(?:morning|afternoon|evening)|tomorrow)"),
     _h_relative_day),
    (_p(_BOUND + r"(?:(?P<rel>last|this|next)\s+)?(?P<season>" + _alt(_SEASONS) + r")(?:\s+(?:of\s+)?" + _YEAR
        + ")?"), _bound(_h_season)),
    (_p(r"(?:(?P<bound>before|by|until|till|after|since)\s+(?:(?P<rel>last|this|next)\s+)?|(?P<rel2>" + _MONTH_WORDS
        + r")(?:\s+|-))" + _FULL_MONTH + r"(?!\.?\s*\d)"), _bound(_h_named_month)),
    (_p(r"(?:(?P<bound>before|by|until|till|after|since)|in|during|throughout)\s+" + _YEAR + _NOT_COUNTING),
     _bound(_h_year)),
    (_p(r"(?P<word>recently|lately|these\s+days)"), _h_recent),
    (_p(_BOUND + r"(?P<word>" + _HOLIDAY_NAMES + ")"), _bound(_h_holiday)),
]

_HAS_LATIN = re.compile(r"[a-zA-Z]")
_DOC_HINT = re.compile(r"\d")


def has_latin(text: str) -> bool:
    return bool(_HAS_LATIN.search(text))


# ── which forms a text can have: the words each pattern cannot match without ──

_UNITS = frozenset(u + s for u in _UNIT_DAYS for s in ("", "s"))
_MONTH_NAMES = frozenset(_MONTHS) | frozenset(_MONTH_ABBR)
_WEEKDAY_NAMES = frozenset(_WEEKDAYS) | frozenset(_WEEKDAY_ABBR)
_MONTH_YEAR = frozenset({"month", "year"})
#: For each of ``PATTERNS``: (a word it needs one of, or None: any; whether it needs a digit).
_CUES: list[tuple[frozenset[str] | None, bool]] = [
    (_MONTH_NAMES, True), (_MONTH_NAMES, True), (_MONTH_NAMES, True),
    (frozenset({"yesterday", "tomorrow"}), False),
    (_UNITS, False), (_UNITS, False), (_UNITS, False),
    (_MONTH_YEAR, False), (frozenset({"week"}), False), (_MONTH_YEAR, False), (_MONTH_YEAR, False),
    (frozenset({"weekend"}), False),
    (_WEEKDAY_NAMES, False),
    (frozenset({"yesterday", "night", "today", "tonight", "morning", "afternoon", "evening", "tomorrow"}), False),
    (frozenset(_SEASONS), False),
    (frozenset(_MONTHS), False),
    (None, True),
    (frozenset({"recently", "lately", "days"}), False),
    (frozenset({"christmas", "new", "valentine", "valentines", "halloween"}), False),
]
_WORDS = re.compile(r"[a-z]+")


def patterns_for(text: str) -> list[tuple[re.Pattern[str], Handler]]:
    """The ``PATTERNS`` ``text`` can have a match of: those whose words it has (one pass over its words; every
    pattern over a long English message took ~9 ms per 2,000 characters, on every query)."""
    if not has_latin(text):
        return []
    words, digit = set(_WORDS.findall(text.lower())), _DOC_HINT.search(text) is not None
    return [entry for entry, (cues, needs_digit) in zip(PATTERNS, _CUES, strict=True)
            if (digit or not needs_digit) and (cues is None or not words.isdisjoint(cues))]


# ── memory-side: dates written in a description ───────────────────────


def english_date_spans(text: str, ref: date, taken: list[tuple[int, int]]) -> list[DateRange]:
    """The English dates with a day or a year in ``text`` (the first three ``PATTERNS``, no bound) that overlap
    no span in ``taken``; their spans are added to ``taken``."""
    if not _DOC_HINT.search(text) or not has_latin(text):
        return []
    out = []
    for pattern, handler in [entry for entry in patterns_for(text) if entry in PATTERNS[:3]]:
        for m in pattern.finditer(text):
            span = m.span()
            if m.group("bound") or any(span[0] < e and s < span[1] for s, e in taken):
                continue
            found = handler(m, ref)
            if isinstance(found, DateRange):
                taken.append(span)
                out.append(found)
    return out
