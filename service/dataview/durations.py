"""Dataview's durations: Luxon `Duration`s, and the Luxon arithmetic Dataview reads them with.

A `Duration` is calendar months plus exact seconds. Dataview keeps a Luxon object of units
(years, months, weeks, ... milliseconds): a `dur(...)` literal or `dur("...")` holds the units as
written (`dur(46 days)` is {days: 46}); everything else — an inline or frontmatter field, `a - b`,
`d1 + d2`, `d * 2` — is normalised (`shiftToAll().normalize()`: 46 days is {months: 1, weeks: 2,
days: 4}). `units` keeps the written units (not part of equality); without them the normalised
ones are read from months and seconds. What reads the units: `d.days` and the other parts
(context.ts: `d.shiftTo("days").days`, a total in Luxon's casual units — a month is 30 days, a
year 365 — possibly fractional), `durationformat` (Luxon `toFormat`: `shiftTo` the format's
units, each floored) and the text Dataview writes (`toHuman` of the normalised units).
Luxon 3.4 (Dataview's lockfile): src/duration.js `shiftTo`, `normalizeValues`, impl/formatter.js
`parseFormat`, `formatDurationFromString`. Touches nothing outside itself.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field

UNITS = ("years", "months", "weeks", "days", "hours", "minutes", "seconds", "milliseconds")
_MS = {"years": 365 * 86_400_000, "months": 30 * 86_400_000, "weeks": 7 * 86_400_000, "days": 86_400_000,
       "hours": 3_600_000, "minutes": 60_000, "seconds": 1000, "milliseconds": 1}  # fmt: skip
# Luxon's casual conversion matrix: how many of the smaller unit one of the larger holds
_MATRIX: dict[str, dict[str, float]] = {
    big: {small: float(_MS[big] // _MS[small]) for small in UNITS[at + 1 :]} for at, big in enumerate(UNITS)
}
_MATRIX["years"].update(months=12.0, weeks=52.0)
_MATRIX["months"].update(weeks=4.0)


@dataclass(frozen=True, slots=True)
class Duration:
    """A span: calendar months (years are 12) plus exact seconds, as Luxon keeps them apart (a
    written fraction of a year or month in the seconds, as `DateTime.plus` adds it); `units`: the
    Luxon units as a `dur(...)` wrote them, or as normalising a fraction of a month left them
    (`from_units`; see the module's doc)."""

    months: int = 0
    seconds: float = 0.0
    units: tuple[float, ...] | None = field(default=None, compare=False)

    def total_seconds(self) -> float:
        return self.months * 30 * 86400 + self.seconds

    def __neg__(self) -> Duration:
        return Duration(-self.months, -self.seconds)

    def __add__(self, other: Duration) -> Duration:
        return Duration(self.months + other.months, self.seconds + other.seconds)


# -- parsing: `6hr 4min`, `1 year, 2 months` (parse.ts `duration`) ------------------------------

_NAMES: dict[str, int] = {}
for _at, _names in enumerate(
    (
        ("y", "yr", "yrs", "year", "years"),
        ("mo", "month", "months"),
        ("w", "wk", "wks", "week", "weeks"),
        ("d", "day", "days"),
        ("h", "hr", "hrs", "hour", "hours"),
        ("m", "min", "mins", "minute", "minutes"),
        ("s", "sec", "secs", "second", "seconds"),
        ("ms", "millisecond", "milliseconds", "msec", "msecs"),
    )
):
    for _n in _names:
        _NAMES[_n] = _at
_DUR_PART = re.compile(r"\s*(-?\d+(?:\.\d+)?)\s*([a-zA-Z]+)\s*,?")


def parse_duration(text: str) -> Duration | None:
    """`text` as a duration, keeping the units as written (a field's value drops them: Dataview
    normalises it)."""
    text = text.strip()
    if not text:
        return None
    written = [0.0] * len(UNITS)
    pos = 0
    while pos < len(text):
        m = _DUR_PART.match(text, pos)
        if m is None or m.end() == pos:
            return None
        at = _NAMES.get(m.group(2).lower())
        if at is None:
            return None
        written[at] += float(m.group(1))
        pos = m.end()
    if not all(map(math.isfinite, written)):  # past a double: left as text
        return None
    # Luxon's DateTime.plus adds the whole years and months as calendar units and the rest of
    # them as milliseconds (a year's fraction at 365 days, a month's at 30): dur(1.5 months) is
    # one month and 15 days on a date
    months = math.trunc(written[0]) * 12 + math.trunc(written[1])
    rest = [math.fmod(written[0], 1), math.fmod(written[1], 1), *written[2:]]
    seconds = sum(rest[at] * (_MS[UNITS[at]] / 1000) for at in range(len(UNITS)))
    return Duration(months, seconds, tuple(written))


def from_units(values: dict[str, float]) -> Duration:
    """Dataview's `normalizeDuration` (`shiftToAll().normalize()`) of a Luxon object of units, as
    `Duration` holds it: `dur(3 months) / 2` and an inline `1.5 months` are 1 month 2 weeks (the
    half month carried into weeks, 4 to a month), not 1 month."""
    shifted = shift_to(values, list(UNITS))
    _normalize(shifted)
    months = shifted["years"] * 12 + shifted["months"]
    seconds = sum(shifted[unit] * (_MS[unit] / 1000) for unit in UNITS[2:])
    return Duration(int(months), seconds, tuple(shifted[unit] for unit in UNITS))


def normal_units(d: Duration) -> dict[str, float]:
    """`shiftToAll().normalize()` of the units Dataview holds for `d` (what it writes as text)."""
    if d.units is None:
        return normalised(d)
    return dict(zip(UNITS, from_units(units_of(d)).units or (), strict=True))


def scaled(d: Duration, factor: float, divide: bool = False) -> Duration | None:
    """`d * n` and `d / n` (binaryop.ts: `normalizeDuration(d.mapUnits(x => x * n))`, or `x / n`);
    None past a double."""
    try:
        return from_units({unit: v / factor if divide else v * factor for unit, v in units_of(d).items()})
    except (OverflowError, ValueError, ZeroDivisionError):
        return None


def summed(a: Duration, b: Duration, sign: int) -> Duration | None:
    """`a + b` and `a - b` (`normalizeDuration(a.plus(b))`, Luxon adding unit by unit)."""
    values = units_of(a)
    for unit, v in units_of(b).items():
        values[unit] = values.get(unit, 0.0) + sign * v
    try:
        return from_units(values)
    except (OverflowError, ValueError, ZeroDivisionError):
        return None


# -- Luxon's arithmetic --------------------------------------------------------------------------


def normalised(d: Duration) -> dict[str, float]:
    """The units Dataview holds for `d` when it did not come from `dur(...)`:
    `shiftToAll().normalize()` of {months, milliseconds}."""
    values = dict.fromkeys(UNITS, 0.0)
    values["months"], values["milliseconds"] = float(d.months), float(round(d.seconds * 1000))
    _normalize(values)
    return values


def units_of(d: Duration) -> dict[str, float]:
    if d.units is None:
        return normalised(d)
    return {unit: v for unit, v in zip(UNITS, d.units, strict=True) if v}


def shift_to(values: dict[str, float], targets: list[str]) -> dict[str, float]:
    """Luxon `Duration.shiftTo(...targets)`: the larger units boiled down into each target, the
    integer part kept there and the rest carried on; what is left over becomes the last
    target's fraction; then `normalizeValues`."""
    built: dict[str, float] = {}
    carried: dict[str, float] = {}  # insertion order, as the JS object's keys
    last = ""
    for unit in UNITS:
        if unit in targets:
            last = unit
            own = 0.0
            for held in carried:
                own += _MATRIX[held][unit] * carried[held]
                carried[held] = 0.0
            own += values.get(unit, 0.0)
            whole = float(math.trunc(own))
            built[unit] = whole
            carried[unit] = (own * 1000 - whole * 1000) / 1000
        elif unit in values:
            carried[unit] = values[unit]
    for unit, value in carried.items():
        if value != 0:
            built[last] += value if unit == last else value / _MATRIX[last][unit]
    _normalize(built)
    return built


def _normalize(values: dict[str, float]) -> None:
    """Luxon `normalizeValues` (in place): from the smallest unit up, whole larger units roll up
    (the sign of the whole span kept), then each fraction rolls down into the next unit."""
    millis = values.get("milliseconds", 0.0)
    for unit in UNITS[-2::-1]:
        if values.get(unit):
            millis += values[unit] * _MS[unit]
    factor = -1 if millis < 0 else 1
    smaller = ""
    for unit in reversed(UNITS):
        if unit not in values:
            continue
        if smaller:
            conv = _MATRIX[unit][smaller]
            roll = float(math.floor(values[smaller] * factor / conv))
            values[unit] += roll * factor
            values[smaller] -= roll * conv * factor
        smaller = unit
    larger = ""
    for unit in UNITS:
        if unit not in values:
            continue
        if larger:
            fraction = math.fmod(values[larger], 1)
            values[larger] -= fraction
            values[unit] += fraction * _MATRIX[larger][unit]
        larger = unit


_PARTS = {"year": "years", "month": "months", "weeks": "weeks", "day": "days", "hour": "hours",
          "minute": "minutes", "second": "seconds", "millisecond": "milliseconds"}  # fmt: skip
_PARTS.update({unit: unit for unit in UNITS})


def part(d: Duration, name: str) -> int | float | None:
    """`d.days` and the others as Dataview reads them (context.ts): `d.shiftTo(unit)[unit]`, a
    total (`dur(36 hours).days` is 1.5; a month counts 30 days). `week` (singular) is null there."""
    unit = _PARTS.get(name)
    if unit is None:
        return None
    try:
        return _number(shift_to(units_of(d), [unit])[unit])
    except (OverflowError, ValueError, ZeroDivisionError):
        return None


def _number(v: float) -> int | float | None:
    if not math.isfinite(v):
        return None
    return int(v) if v.is_integer() else v


# -- toFormat ----------------------------------------------------------------------------------

_TOKEN_UNITS = {"y": "years", "M": "months", "w": "weeks", "d": "days", "h": "hours", "m": "minutes",
                "s": "seconds", "S": "milliseconds"}  # fmt: skip


def _tokens(fmt: str) -> list[tuple[bool, str]]:
    """Luxon `Formatter.parseFormat`: runs of one character, '...' quoted text and runs of
    spaces as literals."""
    out: list[tuple[bool, str]] = []
    current, full, quoted = "", "", False
    for c in fmt:
        if c == "'":
            if full:
                out.append((quoted or full.isspace(), full))
            current, full, quoted = "", "", not quoted
        elif quoted or c == current:
            full += c
        else:
            if full:
                out.append((full.isspace(), full))
            full = current = c
    if full:
        out.append((quoted or full.isspace(), full))
    return out


def to_format(d: Duration, fmt: str) -> str | None:
    """`durationformat(d, fmt)`: Luxon `toFormat` — `d` shifted to the format's units, each
    written floored and padded to its token's length ('yyyy ddd' of 365 days: '0001 000')."""
    tokens = _tokens(fmt)
    targets = [_TOKEN_UNITS[v[0]] for literal, v in tokens if not literal and v[0] in _TOKEN_UNITS]
    try:
        values = shift_to(units_of(d), targets) if targets else {}
        out = []
        for literal, text in tokens:
            unit = None if literal else _TOKEN_UNITS.get(text[0])
            if unit is None:
                out.append(text)
                continue
            n = math.floor(values.get(unit, 0.0))
            out.append(("-" + str(-n).zfill(len(text))) if n < 0 else str(n).zfill(len(text)))
        return "".join(out)
    except (OverflowError, ValueError, ZeroDivisionError):  # a span past a double
        return None
