"""Dataview's duration parts and `durationformat` as Luxon 3.4 computes them (session 78, V2).

context.ts reads `d.days` as `d.shiftTo("days").days`; functions.ts `durationformat` is Luxon's
`toFormat`. The cases below were worked by hand from Luxon's casual matrix (a year is 12 months,
52 weeks or 365 days; a month 4 weeks or 30 days) and checked with Luxon 3.4.3 under node; the
property holds for every duration written with whole units."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from service.dataview import durations as D
from service.dataview.values import parse_duration, typed_text

CASUAL_MS = (365 * 86_400_000, 30 * 86_400_000, 7 * 86_400_000, 86_400_000, 3_600_000, 60_000, 1000, 1)


def written(text: str) -> D.Duration:
    d = parse_duration(text)
    assert d is not None
    return d


def field(text: str) -> D.Duration:
    d = typed_text(text)
    assert isinstance(d, D.Duration)
    return d


@pytest.mark.parametrize(
    ("duration", "parts"),
    [
        # {days: 46}: 46 / 30 months, 46 / 7 weeks, 46 * 24 hours
        (written("46 days"), [0.12602739726027398, 1.5333333333333334, 6.571428571428571, 46, 1104, 66240, 3974400]),
        # a field's 46 days is {months: 1, weeks: 2, days: 4}: 30 + 14 + 4 = 48 days
        (field("46 days"), [0.13275377590446083, 1.6333333333333333, 6.571428571428571, 48, 1152, 69120, 4147200]),
        # {hours: 36}: a day and a half
        (written("36 hours"), [0.00410958904109589, 0.05, 0.21428571428571427, 1.5, 36, 2160, 129600]),
        # {years: 2, months: 2, weeks: 1, days: 1} once normalised: 730 + 60 + 7 + 1 = 798 days
        (
            field("1 year 400 days"),
            [2.188637161924833, 26.283333333333335, 113.14285714285714, 798, 19152, 1149120, 68947200],
        ),
        (
            field("90 minutes"),
            [0.00017123287671232877, 0.0020833333333333333, 0.008928571428571428, 0.0625, 1.5, 90, 5400],
        ),
        # s79: {months: 1.5} kept as written (45 days), and normalised: {months: 1, weeks: 2}
        (written("1.5 months"), [0.125, 1.5, 6, 45, 1080, 64800, 3888000]),
        (field("1.5 months"), [0.12179487179487179, 1.5, 6, 44, 1056, 63360, 3801600]),
        # dur(1 year 3 days) / 4: normalizeDuration({years: 0.25, days: 0.75})
        (
            D.scaled(written("1 year 3 days"), 4, divide=True),
            [0.25205479452054796, 3.025, 12.107142857142858, 90.75, 2178, 130680, 7840800],
        ),
    ],
)
def test_each_part_is_the_duration_shifted_to_that_unit(duration: D.Duration, parts: list[float]) -> None:
    assert [D.part(duration, unit) for unit in D.UNITS[:-1]] == parts
    assert D.part(duration, "day") == parts[3] and D.part(duration, "week") is None  # context.ts has no "week"


@pytest.mark.parametrize(
    ("duration", "fmt", "text"),
    [
        (written("365 days 5 hours 49 minutes"), "yyyy ddd hh mm ss", "0001 000 05 49 00"),  # Dataview's docs
        (written("3 days 7 hours 43 seconds"), "ddd'd' hh'h' ss's'", "003d 07h 43s"),  # Dataview's docs
        (written("46 days"), "M'm' d'd'", "1m 16d"),
        (field("46 days"), "M'm' d'd'", "1m 18d"),
        (field("365 days 5 hours 49 minutes"), "yyyy ddd hh mm ss", "0001 031 05 49 00"),
        (written("-36 hours"), "d h", "-1 -12"),
        (written("90 minutes"), "h:mm", "1:30"),
        (written("3 weeks 2 days"), "w 'and' d", "3 and 2"),
        (written("-1.5 days"), "dd hh", "-01 -12"),
    ],
)
def test_durationformat_is_luxon_to_format(duration: D.Duration, fmt: str, text: str) -> None:
    assert D.to_format(duration, fmt) == text


_amounts = st.lists(st.integers(min_value=-10_000, max_value=10_000), min_size=8, max_size=8)


@given(_amounts)
def test_a_written_duration_shifted_to_milliseconds_is_its_casual_total(amounts: list[int]) -> None:
    """Luxon boils every larger unit down into the smallest at its casual size, so the
    milliseconds part (and `durationformat(d, "S")`) is the sum of each unit times its size."""
    d = D.Duration(0, 0.0, tuple(float(a) for a in amounts))
    total = sum(a * ms for a, ms in zip(amounts, CASUAL_MS, strict=True))
    assert D.part(d, "milliseconds") == total
    assert D.to_format(d, "S") == str(total)
