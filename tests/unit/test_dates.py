"""Time expressions resolved in code, in the speaker's timezone."""

from __future__ import annotations

from datetime import datetime, timezone

import pytest

from graphmem import InvalidInputError
from graphmem._base import dates
from graphmem._base.dates import resolve, zone

NY = zone("America/New_York")
LATE = datetime(2024, 3, 2, 4, 30, tzinfo=timezone.utc)  # Friday 1 March 2024, 23:30 in New York


def local(year, month, day):
    return datetime(year, month, day, tzinfo=NY).astimezone(timezone.utc)


@pytest.mark.parametrize("expression, expected", [
    ("yesterday", local(2024, 2, 29)), ("today", local(2024, 3, 1)), ("Tomorrow", local(2024, 3, 2)),
    ("the day before yesterday", local(2024, 2, 28)),
    ("3 days ago", local(2024, 2, 27)), ("a week ago", local(2024, 2, 23)), ("two months ago", local(2024, 1, 1)),
    ("a year ago", local(2023, 3, 1)), ("a few days ago", local(2024, 2, 27)),
    ("last week", local(2024, 2, 19)), ("this week", local(2024, 2, 26)), ("next week", local(2024, 3, 4)),
    ("last month", local(2024, 2, 1)), ("last year", local(2023, 1, 1)), ("next month", local(2024, 4, 1)),
    ("last March", local(2023, 3, 1)), ("last February", local(2024, 2, 1)), ("in March", local(2024, 3, 1)),
    ("in June", local(2023, 6, 1)), ("next June", local(2024, 6, 1)),
    ("last Friday", local(2024, 2, 23)), ("on Tuesday", local(2024, 2, 27)), ("this Monday", local(2024, 2, 26)),
    ("2019", local(2019, 1, 1)), ("since 2021-07", local(2021, 7, 1)), ("2023-05-17", local(2023, 5, 17)),
    ("March 2022", local(2022, 3, 1)), ("Sept. 2020", local(2020, 9, 1)), ("June 3rd, 2020", local(2020, 6, 3)),
    ("3 June 2020", local(2020, 6, 3)), ("the 3rd of June 2020", None),
    ("2024-01-05T10:00:00+00:00", datetime(2024, 1, 5, 10, tzinfo=timezone.utc)),
    ("some day", None), ("February 30, 2023", None), ("3000 years ago", None), ("1000000000 days ago", None), ("2023-13", None), ("", None), (None, None),
])
def test_expressions_resolve_against_the_local_date(expression, expected):
    assert resolve(expression, LATE, NY) == expected


def test_the_same_instant_is_another_day_in_utc():
    assert resolve("yesterday", LATE, zone("UTC")) == datetime(2024, 3, 1, tzinfo=timezone.utc)
    assert resolve("yesterday", LATE, NY) == datetime(2024, 2, 29, 5, tzinfo=timezone.utc)


def test_month_arithmetic_clamps_to_the_month_end():
    assert resolve("1 month ago", datetime(2024, 3, 31, 12, tzinfo=timezone.utc), zone("UTC")) == \
        datetime(2024, 2, 29, tzinfo=timezone.utc)


def test_unknown_timezones_are_refused():
    with pytest.raises(InvalidInputError) as info:
        zone("Mars/Olympus")
    assert info.value.field == "timezone"


@pytest.mark.parametrize("text, found", [
    ("I mentioned visiting a museum two months ago. Did I go with a friend?", [("two months ago", "2023-01-11")]),
    ("Which book did I finish a week ago?", [("a week ago", "2023-03-04")]),
    ("What did I do last March and on Friday?", [("last March", "2022-03-01"), ("on Friday", "2023-03-10")]),
    ("Did June's team meet in June's office last may?", []),  # names, and "may" the verb
    ("in March 2022 I moved, since 2021-05-03", [("in March 2022", "2022-03-01"), ("2021-05-03", "2021-05-03")]),
    ("this may help, and I may go", []),
    ("What did I buy yesterday?", [("yesterday", "2023-03-10")]),
])
def test_mentions_finds_the_time_expressions_resolve_understands(text, found):
    reference = datetime(2023, 3, 11, 5, 28, tzinfo=timezone.utc)
    got = dates.mentions(text, reference, timezone.utc)
    assert [(text[start:end], moment.date().isoformat()) for start, end, moment in got] == found
