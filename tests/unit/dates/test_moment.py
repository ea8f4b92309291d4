"""Moment.js formats: every supported token written as Moment writes it, read back (round trip
format -> date -> path), and letters that are no token written as they are, as Moment writes
them."""

from __future__ import annotations

from datetime import date, datetime, timedelta

import pytest

from service.dates.moment import FORMAT_TOKENS, TOKENS, MomentError, format_date, parse_date

WHEN = datetime(2026, 11, 24, 15, 4, 5)  # a Tuesday
# What moment('2026-11-24T15:04:05').format(token) gives in the default (English) locale.
EXPECTED = {
    "YYYY": "2026", "YY": "26", "Q": "4", "M": "11", "MM": "11", "MMM": "Nov", "MMMM": "November",
    "D": "24", "DD": "24", "Do": "24th", "DDD": "328", "DDDD": "328", "d": "2", "dd": "Tu", "ddd": "Tue",
    "dddd": "Tuesday", "e": "2", "E": "2", "w": "48", "ww": "48", "W": "48", "WW": "48", "gggg": "2026",
    "gg": "26", "GGGG": "2026", "GG": "26", "H": "15", "HH": "15", "h": "3", "hh": "03", "m": "4", "mm": "04",
    "s": "5", "ss": "05", "A": "PM", "a": "pm",
}  # fmt: skip


def test_every_supported_token_is_written_as_moment_writes_it() -> None:
    assert set(EXPECTED) == set(TOKENS)
    for token, text in EXPECTED.items():
        assert format_date(token, WHEN) == text, token


@pytest.mark.parametrize(
    ("day", "locale_week", "iso_week"),
    [
        (date(2021, 1, 3), "2021-W02", "2020-W53"),  # a Sunday: locale weeks start on it, ISO weeks end on it
        (date(2024, 12, 29), "2025-W01", "2024-W52"),  # the locale week holding 1 January is week 1
        (date(2027, 1, 1), "2027-W01", "2026-W53"),  # 2026 has 53 ISO weeks
        (date(2026, 1, 1), "2026-W01", "2026-W01"),
    ],
)
def test_week_tokens_follow_locale_and_iso_rules(day: date, locale_week: str, iso_week: str) -> None:
    assert format_date("gggg-[W]ww", day) == locale_week
    assert format_date("GGGG-[W]WW", day) == iso_week


def test_brackets_slashes_ordinals_and_twelve_hour_clock() -> None:
    assert format_date("YYYY/MM/[Week] W [of] YYYY", date(2026, 11, 24)) == "2026/11/Week 48 of 2026"
    assert [format_date("Do", date(2026, 1, d)) for d in (1, 2, 3, 4, 11, 12, 13, 21, 22, 23, 31)] == [
        "1st", "2nd", "3rd", "4th", "11th", "12th", "13th", "21st", "22nd", "23rd", "31st"
    ]  # fmt: skip
    assert format_date("h:mm a", datetime(2026, 1, 1, 0, 7)) == "12:07 am"
    assert format_date("hh A", datetime(2026, 1, 1, 12, 0)) == "12 PM"


DAY_FORMATS = [
    "YYYY-MM-DD", "YY-M-D", "YYYY-MM-DD dddd", "dddd, MMMM Do YYYY", "ddd DD MMM YYYY", "YYYY-DDDD",
    "YYYY-DDD", "YYYY/MM/YYYY-MM-DD", "GGGG-[W]WW-E", "gggg-[W]ww-e", "gggg-[W]w-d", "GG-[W]W dd",
    "[Day] D [of] MMMM YYYY",
]  # fmt: skip
PERIOD_FORMATS = {
    "gggg-[W]ww": lambda d: d - timedelta(days=d.isoweekday() % 7),
    "GGGG-[W]WW": lambda d: d - timedelta(days=d.weekday()),
    "YYYY-MM": lambda d: d.replace(day=1),
    "YYYY-[Q]Q": lambda d: date(d.year, 3 * ((d.month - 1) // 3) + 1, 1),
    "YYYY": lambda d: date(d.year, 1, 1),
    "MMMM YYYY": lambda d: d.replace(day=1),
}


def _days() -> list[date]:
    start = date(2019, 12, 20)
    return [start + timedelta(days=n) for n in range(0, 3 * 366, 3)] + [date(2020, 2, 29), date(2026, 12, 31)]


@pytest.mark.parametrize("fmt", DAY_FORMATS)
def test_day_formats_round_trip(fmt: str) -> None:
    for day in _days():
        assert parse_date(fmt, format_date(fmt, day)) == day, (fmt, day)


@pytest.mark.parametrize("fmt", sorted(PERIOD_FORMATS))
def test_period_formats_read_back_the_first_day_of_the_period(fmt: str) -> None:
    for day in _days():
        text = format_date(fmt, day)
        start = parse_date(fmt, text)
        assert start == PERIOD_FORMATS[fmt](day), (fmt, day)
        assert format_date(fmt, start) == text


def test_every_token_round_trips_inside_a_full_date() -> None:
    for token in TOKENS:
        fmt = f"YYYY-MM-DD [<]{token}[>]"
        text = format_date(fmt, WHEN)
        assert parse_date(fmt, text) == WHEN.date(), token


PRECISE = datetime(2026, 11, 24, 15, 4, 5, 678_000)  # a Tuesday, with milliseconds
# What moment('2026-11-24T15:04:05.678').format(token) gives in the default (English) locale, for
# the tokens Moment writes that a note path never needs read back.
WRITTEN = {
    "Mo": "11th", "Qo": "4th", "DDDo": "328th", "do": "2nd", "wo": "48th", "Wo": "48th", "Y": "2026",
    "YYYYY": "02026", "YYYYYY": "+002026", "y": "2026", "yy": "2026", "yyyy": "2026", "yo": "2026th", "N": "AD",
    "NN": "AD", "NNN": "AD", "NNNN": "Anno Domini", "NNNNN": "AD", "ggggg": "02026", "GGGGG": "02026",
    "k": "15", "kk": "15", "Hmm": "1504", "Hmmss": "150405", "hmm": "304", "hmmss": "30405", "S": "6",
    "SS": "67", "SSS": "678", "SSSS": "6780", "SSSSS": "67800", "SSSSSS": "678000", "SSSSSSS": "6780000",
    "SSSSSSSS": "67800000", "SSSSSSSSS": "678000000", "yyy": "2026", "z": "", "zz": "",
    "LT": "3:04 PM", "LTS": "3:04:05 PM", "L": "11/24/2026", "LL": "November 24, 2026",
    "LLL": "November 24, 2026 3:04 PM", "LLLL": "Tuesday, November 24, 2026 3:04 PM", "l": "11/24/2026",
    "ll": "Nov 24, 2026", "lll": "Nov 24, 2026 3:04 PM", "llll": "Tue, Nov 24, 2026 3:04 PM",
}  # fmt: skip


def test_the_whole_format_table_is_written_as_moment_writes_it() -> None:
    assert set(FORMAT_TOKENS) - set(TOKENS) - set(WRITTEN) == {"X", "x", "Z", "ZZ"}  # machine-dependent: below
    for token, text in WRITTEN.items():
        assert format_date(token, PRECISE) == text, token
    assert format_date("X", PRECISE) == str(int(PRECISE.timestamp()))
    assert format_date("x", PRECISE) == str(int(PRECISE.timestamp() * 1000))
    offset = PRECISE.astimezone().utcoffset()
    assert offset is not None
    minutes = int(offset.total_seconds() // 60)
    sign, (hours, mins) = "+" if minutes >= 0 else "-", divmod(abs(minutes), 60)
    assert format_date("Z", PRECISE) == f"{sign}{hours:02d}:{mins:02d}"
    assert format_date("ZZ", PRECISE) == f"{sign}{hours:02d}{mins:02d}"
    assert format_date("[LT is] LT \\L", PRECISE) == "LT is 3:04 PM L"  # brackets and a backslash escape


@pytest.mark.parametrize("fmt", ["YYYY-MM-DD Mo", "X", "YYYY-MM-DD HH:mm:ss.SSS", "YYYY N", "kk:mm", "YYYYY"])
def test_written_only_tokens_are_not_read_back(fmt: str) -> None:
    assert format_date(fmt, WHEN)
    with pytest.raises(MomentError, match="cannot be read back"):
        parse_date(fmt, format_date(fmt, WHEN))


# What Moment 2.29 writes for `moment('2026-11-24T15:04:05.678').format(fmt)`: a letter that is no
# token is written as it is, a backslash takes the whole token after it, a bracket runs to the
# last `]` before the next `[`, a line break outside brackets is dropped.
AS_MOMENT_WRITES = {
    "YYYY-MM-DDTHH:mm": "2026-11-24T15:04",
    "YYYY-MM-DDTHH:mm:ss.SSS": "2026-11-24T15:04:05.678",
    "YYYY b qq t": "2026 b qq t",
    "[Week] W [of] YYYY, T": "Week 48 of 2026, T",
    "\\YYYY \\T \\[W] YYYY": "YYYY T [48] 2026",
    "[a]b] Y": "a]b 2026",
    "[[W]": "[W",
    "LT \\LT [LT]": "3:04 PM LT LT",
    "YYYY\nMM": "202611",
    "w| ggg": "w| 26g",
}


@pytest.mark.parametrize(("fmt", "text"), AS_MOMENT_WRITES.items())
def test_characters_that_are_no_token_are_written_as_moment_writes_them(fmt: str, text: str) -> None:
    assert format_date(fmt, PRECISE) == text


def test_a_note_name_with_letters_that_are_no_token_reads_back() -> None:
    assert format_date("YYYY-MM-DD[T]HH", WHEN) == format_date("YYYY-MM-DDTHH", WHEN) == "2026-11-24T15"
    assert parse_date("YYYY-MM-DDTHH", "2026-11-24T15") == date(2026, 11, 24)
    assert parse_date("gggg-[W]ww b", "2026-W48 b") == date(2026, 11, 22)


@pytest.mark.parametrize("fmt", ["YYYY-MM-DDTHH:mm", "YYYY b", "qq"])
def test_strict_refuses_a_letter_that_is_no_token(fmt: str) -> None:
    with pytest.raises(MomentError, match="no Moment.js token"):
        format_date(fmt, WHEN, strict=True)
    assert format_date("[T] \\T YYYY", WHEN, strict=True) == "T T 2026"  # brackets and escapes are fine


def test_text_not_in_the_format_is_refused() -> None:
    with pytest.raises(MomentError):
        parse_date("YYYY-MM-DD", "2026-13-01")
    with pytest.raises(MomentError):
        parse_date("YYYY-MM-DD", "24.11.2026")
    with pytest.raises(MomentError):
        parse_date("GGGG-[W]WW", "2025-W53")  # 2025 has 52 ISO weeks
