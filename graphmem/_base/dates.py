"""Time expressions from conversations ("yesterday", "last March", "2 years ago") resolved
in code against the message's time in the speaker's timezone -- never by trusting a model
to do calendar arithmetic. Every result is the start of the named period, in UTC."""

from __future__ import annotations

import re
from datetime import date, datetime, time, timedelta, timezone, tzinfo
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from .errors import InvalidInputError

MONTHS = {name: i for i, name in enumerate(
    ["january", "february", "march", "april", "may", "june", "july", "august", "september",
     "october", "november", "december"], start=1)}
MONTHS.update({name[:3]: i for name, i in list(MONTHS.items())})
MONTHS["sept"] = 9
WEEKDAYS = {name: i for i, name in enumerate(
    ["monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"])}
NUMBERS = {"a": 1, "an": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6,
           "seven": 7, "eight": 8, "nine": 9, "ten": 10, "a couple of": 2, "a few": 3}
_NOISE = re.compile(r"^(since|from|in|on|at|during|around|about|as of|starting|back in)\s+")
_AGO = re.compile(r"^(\d+|a couple of|a few|an|a|one|two|three|four|five|six|seven|eight|nine|ten)\s+"
                  r"(day|week|month|year)s?\s+ago$")
_ISO = re.compile(r"^(\d{4})(?:-(\d{1,2})(?:-(\d{1,2}))?)?$")
_MONTH_YEAR = re.compile(r"^([a-z]+)\.?\s+(\d{4})$")
_MONTH_DAY_YEAR = re.compile(r"^([a-z]+)\.?\s+(\d{1,2})(?:st|nd|rd|th)?,?\s+(\d{4})$")
_DAY_MONTH_YEAR = re.compile(r"^(\d{1,2})(?:st|nd|rd|th)?\s+(?:of\s+)?([a-z]+)\.?,?\s+(\d{4})$")


def zone(name: str) -> ZoneInfo:
    try:
        return ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError, TypeError):
        raise InvalidInputError("timezone", f"{name!r} is not an IANA timezone (e.g. 'Europe/Berlin')") from None


def resolve(expression: str | None, reference: datetime, tz: tzinfo) -> datetime | None:
    """The start of the period ``expression`` names, seen from ``reference`` (an aware
    datetime) in timezone ``tz``, in UTC; None when the expression is not understood."""
    if expression is None:
        return None
    text = " ".join(expression.casefold().replace(",", ", ").split()).strip(" .")
    text = _NOISE.sub("", text)
    local = reference.astimezone(tz)
    today = local.date()
    try:
        day = _day(text, today)
    except (ValueError, OverflowError):  # "3000 years ago": outside the calendar
        return None
    if day is None:
        return None
    if isinstance(day, datetime):
        return day
    return datetime.combine(day, time(0), tzinfo=tz).astimezone(timezone.utc)


def _day(text: str, today: date) -> date | datetime | None:
    if text in ("today", "now", "currently", "nowadays", "these days", "right now", "this morning", "tonight"):
        return today
    if text in ("yesterday", "last night"):
        return today - timedelta(days=1)
    if text == "tomorrow":
        return today + timedelta(days=1)
    if text in ("the day before yesterday",):
        return today - timedelta(days=2)
    if m := _AGO.match(text):
        n = int(m.group(1)) if m.group(1).isdigit() else NUMBERS[m.group(1)]
        return _shift(today, m.group(2), -n)
    for prefix, step in (("last ", -1), ("next ", 1), ("this ", 0)):
        if text.startswith(prefix):
            return _relative(text[len(prefix):], today, step)
    if m := _ISO.match(text):
        try:
            return date(int(m.group(1)), int(m.group(2) or 1), int(m.group(3) or 1))
        except ValueError:
            return None
    if len(text) > 10 and text[4] == "-" and "t" in text:  # an ISO datetime
        try:
            parsed = datetime.fromisoformat(text.upper())
        except ValueError:
            return None
        return parsed.astimezone(timezone.utc) if parsed.tzinfo else None
    if m := _MONTH_YEAR.match(text):
        return _date(int(m.group(2)), MONTHS.get(m.group(1)), 1)
    if m := _MONTH_DAY_YEAR.match(text):
        return _date(int(m.group(3)), MONTHS.get(m.group(1)), int(m.group(2)))
    if m := _DAY_MONTH_YEAR.match(text):
        return _date(int(m.group(3)), MONTHS.get(m.group(2)), int(m.group(1)))
    if text in MONTHS:  # "in March": the most recent March, this year's if it has begun
        month = MONTHS[text]
        return date(today.year if month <= today.month else today.year - 1, month, 1)
    if text in WEEKDAYS:  # "on Tuesday": the most recent one before today
        return today - timedelta(days=(today.weekday() - WEEKDAYS[text] - 1) % 7 + 1)
    return None


def _relative(unit: str, today: date, step: int) -> date | None:
    if unit == "week":
        return today - timedelta(days=today.weekday()) + timedelta(weeks=step)
    if unit == "month":
        return _shift(today.replace(day=1), "month", step)
    if unit == "year":
        return date(today.year + step, 1, 1)
    if unit in MONTHS:
        month = MONTHS[unit]
        if step < 0:  # last March: the most recent March that has ended or begun before this month
            return date(today.year if month < today.month else today.year - 1, month, 1)
        if step > 0:
            return date(today.year if month > today.month else today.year + 1, month, 1)
        return date(today.year, month, 1)
    if unit in WEEKDAYS:
        delta = (today.weekday() - WEEKDAYS[unit]) % 7
        if step < 0:
            return today - timedelta(days=delta or 7)
        if step > 0:
            return today + timedelta(days=(WEEKDAYS[unit] - today.weekday()) % 7 or 7)
        return today - timedelta(days=delta)
    return None


def _shift(day: date, unit: str, n: int) -> date:
    if unit == "day":
        return day + timedelta(days=n)
    if unit == "week":
        return day + timedelta(weeks=n)
    if unit == "year":
        return _clamped(day.year + n, day.month, day.day)
    months = day.year * 12 + day.month - 1 + n
    return _clamped(months // 12, months % 12 + 1, day.day)


def _clamped(year: int, month: int, day: int) -> date:
    for d in (day, 30, 29, 28):
        try:
            return date(year, month, min(day, d))
        except ValueError:
            continue
    raise ValueError(f"no day {day} in {year}-{month}")


def _date(year: int, month: int | None, day: int) -> date | None:
    if month is None:
        return None
    try:
        return date(year, month, day)
    except ValueError:
        return None


_NUMBER = r"(?:\d+|a couple of|a few|an|a|one|two|three|four|five|six|seven|eight|nine|ten)"
_MONTH_NAMES = r"(?:january|february|march|april|june|july|august|september|october|november|december" \
               r"|jan|feb|mar|apr|jun|jul|aug|sept|sep|oct|nov|dec)"  # "may" only where it cannot be the verb
_WEEKDAY_NAMES = r"(?:monday|tuesday|wednesday|thursday|friday|saturday|sunday)"
_NOT_POSSESSIVE = r"(?!['\u2019]s\b)"  # "June's team" is a person's
_MENTION = re.compile("|".join((
    rf"\b{_NUMBER}\s+(?:day|week|month|year)s?\s+ago\b",
    rf"\b(?:last|next|this)\s+(?:week|month|year|{_MONTH_NAMES}|{_WEEKDAY_NAMES})\b{_NOT_POSSESSIVE}",
    r"\b(?:the day before yesterday|yesterday|tomorrow|last night)\b",
    r"\b\d{4}-\d{1,2}-\d{1,2}\b",
    rf"\b(?:may|{_MONTH_NAMES})\.?\s+\d{{1,2}}(?:st|nd|rd|th)?,?\s+\d{{4}}\b",
    rf"\b\d{{1,2}}(?:st|nd|rd|th)?\s+(?:of\s+)?(?:may|{_MONTH_NAMES})\.?,?\s+\d{{4}}\b",
    rf"\b(?:in|since|during)\s+(?:may|{_MONTH_NAMES})(?:\s+\d{{4}})?\b{_NOT_POSSESSIVE}",
    rf"\bon\s+{_WEEKDAY_NAMES}\b{_NOT_POSSESSIVE}",
)), re.IGNORECASE)


def mentions(text: str, reference: datetime, tz: tzinfo) -> list[tuple[int, int, datetime]]:
    """The time expressions in ``text`` that ``resolve`` understands ("a week ago", "last
    March", "on Friday", "2023-05-01"...): their character spans and the start of the
    period each names, seen from ``reference``."""
    found = []
    for match in _MENTION.finditer(text):
        moment = resolve(match.group(0), reference, tz)
        if moment is not None:
            found.append((match.start(), match.end(), moment))
    return found
