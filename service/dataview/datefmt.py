"""Luxon-style date and duration formats, as Dataview's `dateformat`, `durationformat` and
`date(text, format)` take them: Luxon's tokens (years, months, standalone months L, days,
weekdays E and c, hours, minutes, seconds, milliseconds, meridiem, ISO week years and weeks,
ordinal days, quarters, eras, the en-US localized macros D DD DDD DDDD t tt T TT f ff F FF,
epoch x X, the zone z Z ZZ ZZZ ZZZZ ZZZZZ and the macros ending with it, ttt tttt TTT TTTT fff
ffff FFF FFFF, in the server's zone: `zones.py`) and 'quoted literals'; a date is read back from
the numeric ones. Touches nothing outside itself.
"""

from __future__ import annotations

import datetime as dt
import re

from service.dataview.values import Duration
from service.dataview.zones import named_offset, offset_of, offset_text, zone_name

_DATE_TOKENS = re.compile(
    r"'[^']*'|yyyyyy|yyyy|yy|y|MMMMM|MMMM|MMM|MM|M|LLLLL|LLLL|LLL|LL|L|dd|d|EEEEE|EEEE|EEE|E|ccccc|cccc|ccc|c"
    r"|HH|H|hh|h|mm|m|ss|s|SSS|S|a|kkkk|kk|WW|W|ooo|o|qq|q|GGGGG|GG|G|DDDD|DDD|DD|D|TTTT|TTT|TT|T|tttt|ttt|tt|t"
    r"|FFFF|FFF|FF|F|ffff|fff|ff|f|x|X|ZZZZZ|ZZZZ|ZZZ|ZZ|Z|z"
)


def format_date(d: dt.datetime, fmt: str) -> str:
    """`fmt` as Luxon's `toFormat` writes it in the en-US locale (a letter that is no token is
    written as it is, as Luxon does); the macro tokens D DD DDD DDDD, t tt T TT, f ff F FF are
    Luxon's localized forms for en-US (a plain space before AM/PM)."""

    def token(m: re.Match[str]) -> str:
        t = m.group()
        if t.startswith("'"):
            return t[1:-1]
        return _token(d, t)

    return _DATE_TOKENS.sub(token, fmt)


def _token(d: dt.datetime, t: str) -> str:
    iso = d.isocalendar()
    hour12, meridiem = (d.hour % 12) or 12, "AM" if d.hour < 12 else "PM"
    month, weekday = d.strftime("%B"), d.strftime("%A")
    short, medium, full = f"{d.month}/{d.day}/{d.year}", f"{month[:3]} {d.day}, {d.year}", f"{month} {d.day}, {d.year}"
    time, time_s = f"{hour12}:{d.minute:02d} {meridiem}", f"{hour12}:{d.minute:02d}:{d.second:02d} {meridiem}"
    clock = f"{d.hour:02d}:{d.minute:02d}"
    table = {
        "yyyyyy": f"{d.year:06d}", "yyyy": f"{d.year:04d}", "yy": f"{d.year % 100:02d}", "y": str(d.year),
        "MMMMM": month[0], "MMMM": month, "MMM": month[:3], "MM": f"{d.month:02d}", "M": str(d.month),
        "LLLLL": month[0], "LLLL": month, "LLL": month[:3], "LL": f"{d.month:02d}", "L": str(d.month),
        "dd": f"{d.day:02d}", "d": str(d.day),
        "EEEEE": weekday[0], "EEEE": weekday, "EEE": weekday[:3], "E": str(iso[2]),
        "ccccc": weekday[0], "cccc": weekday, "ccc": weekday[:3], "c": str(iso[2]),
        "HH": f"{d.hour:02d}", "H": str(d.hour), "hh": f"{hour12:02d}", "h": str(hour12),
        "mm": f"{d.minute:02d}", "m": str(d.minute), "ss": f"{d.second:02d}", "s": str(d.second),
        "SSS": f"{d.microsecond // 1000:03d}", "S": str(d.microsecond // 1000), "a": meridiem,
        "kkkk": f"{iso[0]:04d}", "kk": f"{iso[0] % 100:02d}", "WW": f"{iso[1]:02d}", "W": str(iso[1]),
        "ooo": f"{d.timetuple().tm_yday:03d}", "o": str(d.timetuple().tm_yday),
        "qq": f"{(d.month - 1) // 3 + 1:02d}", "q": str((d.month - 1) // 3 + 1),
        "GGGGG": "A", "GG": "Anno Domini", "G": "AD",
        "D": short, "DD": medium, "DDD": full, "DDDD": f"{weekday}, {full}",
        "t": time, "tt": time_s, "T": clock, "TT": f"{clock}:{d.second:02d}",
        "f": f"{short}, {time}", "ff": f"{medium}, {time}", "F": f"{short}, {time_s}", "FF": f"{medium}, {time_s}",
        "x": str(int(_epoch(d) * 1000)), "X": str(int(_epoch(d))),
    }  # fmt: skip
    if t in table:
        return table[t]
    return _zoned(d, t, time_s, f"{d.hour:02d}:{d.minute:02d}:{d.second:02d}", full, f"{weekday}, {full}", time)


def _zoned(d: dt.datetime, t: str, time_s: str, clock_s: str, full: str, long_day: str, time: str) -> str:
    """The zone tokens and the macros ending with the zone (`service.dataview.zones`)."""
    if t == "z":
        return zone_name(d)
    if t in ("Z", "ZZ", "ZZZ"):
        return offset_text(offset_of(d)[0], {"Z": "narrow", "ZZ": "short", "ZZZ": "techie"}[t])
    short, long = named_offset(d, long=False), named_offset(d, long=True)
    return {
        "ZZZZ": short, "ZZZZZ": long, "ttt": f"{time_s} {short}", "tttt": f"{time_s} {long}",
        "TTT": f"{clock_s} {short}", "TTTT": f"{clock_s} {long}", "fff": f"{full}, {time} {short}",
        "ffff": f"{long_day}, {time} {long}", "FFF": f"{full}, {time_s} {short}",
        "FFFF": f"{long_day}, {time_s} {long}",
    }[t]  # fmt: skip


def _epoch(d: dt.datetime) -> float:
    """Seconds since 1970 of the local time `d` (UTC where the C library cannot place it)."""
    offset, _ = offset_of(d)
    try:
        return (d - offset).replace(tzinfo=dt.UTC).timestamp()
    except OverflowError:
        return d.replace(tzinfo=dt.UTC).timestamp()


_PARSE = {
    "yyyy": r"(?P<year>\d{4})", "yy": r"(?P<yy>\d{2})", "MM": r"(?P<month>\d{2})", "M": r"(?P<month>\d{1,2})",
    "dd": r"(?P<day>\d{2})", "d": r"(?P<day>\d{1,2})", "HH": r"(?P<hour>\d{2})", "H": r"(?P<hour>\d{1,2})",
    "mm": r"(?P<minute>\d{2})", "m": r"(?P<minute>\d{1,2})", "ss": r"(?P<second>\d{2})", "s": r"(?P<second>\d{1,2})",
    "SSS": r"(?P<ms>\d{3})", "x": r"(?P<x>-?\d+)", "X": r"(?P<X>-?\d+)",
}  # fmt: skip


def parse(text: str, fmt: str) -> dt.datetime | None:
    pattern = ""
    for m in re.finditer(r"'[^']*'|yyyy|yy|MM|M|dd|d|HH|H|mm|m|ss|s|SSS|x|X|.", fmt):
        t = m.group()
        pattern += re.escape(t[1:-1]) if t.startswith("'") and len(t) > 1 else _PARSE.get(t, re.escape(t))
    try:
        found = re.fullmatch(pattern, text.strip())
    except re.error:
        return None
    if found is None:
        return None
    g = {k: v for k, v in found.groupdict().items() if v is not None}
    if "x" in g or "X" in g:
        seconds = int(g["x"]) / 1000 if "x" in g else int(g["X"])
        try:  # a local time, as every date here
            return dt.datetime.fromtimestamp(seconds)
        except (OverflowError, ValueError, OSError):
            return None
    year = int(g["year"]) if "year" in g else 2000 + int(g["yy"]) if "yy" in g else dt.date.today().year
    try:
        return dt.datetime(
            year, int(g.get("month", 1)), int(g.get("day", 1)), int(g.get("hour", 0)), int(g.get("minute", 0)),
            int(g.get("second", 0)), int(g.get("ms", 0)) * 1000,
        )  # fmt: skip
    except ValueError:
        return None


_UNITS = (("y", 12 * 30 * 86400.0), ("M", 30 * 86400.0), ("w", 7 * 86400.0), ("d", 86400.0), ("h", 3600.0),
          ("m", 60.0), ("s", 1.0), ("S", 0.001))  # fmt: skip


def format_duration(d: Duration, fmt: str) -> str:
    """Each unit in `fmt` takes what the larger units present left over (Luxon's `toFormat`)."""
    used = {u for u, _ in _UNITS if re.search(rf"(?<!')({u})+", _unquoted(fmt))}
    left_months, left_seconds = d.months, d.seconds
    amounts: dict[str, int] = {}
    for unit, size in _UNITS:
        if unit not in used:
            continue
        if unit == "y":
            amounts[unit], left_months = divmod(left_months, 12)
        elif unit == "M":
            amounts[unit], left_months = left_months, 0
        else:
            total = left_seconds + left_months * 30 * 86400
            left_months = 0
            amounts[unit] = int(total // size)
            left_seconds = total - amounts[unit] * size

    def token(m: re.Match[str]) -> str:
        t = m.group()
        return t[1:-1] if t.startswith("'") else str(amounts.get(t[0], 0)).zfill(len(t))

    return re.sub(r"'[^']*'|y+|M+|w+|d+|h+|m+|s+|S+", token, fmt)


def _unquoted(fmt: str) -> str:
    return re.sub(r"'[^']*'", "", fmt)


# Luxon's casual conversion matrix, each unit in the next smaller one (a year is 12 months, a month
# 4 weeks when weeks roll up into it), smallest last
_ROLL = (("year", 12), ("month", 4), ("week", 7), ("day", 24), ("hour", 60), ("minute", 60), ("second", 1000))


def duration_words(d: Duration) -> str:
    """A duration as Dataview writes it (normalize.ts renderMinimalDuration): Luxon's
    `shiftToAll().normalize()` — from the smallest unit up, as many whole larger units as each
    holds roll up into them, the sign of the whole span kept — then `toHuman()` of the units not
    zero ('1 month, 2 weeks, 4 days' for 46 days, '-1 month, -2 weeks, -1 day')."""
    total_ms = round(d.seconds * 1000)
    values = [0, d.months, 0, 0, 0, 0, 0, total_ms]  # years, months, weeks, days, ..., milliseconds
    factor = -1 if d.months * 30 * 86_400_000 + total_ms < 0 else 1
    for at in range(len(_ROLL) - 1, -1, -1):  # milliseconds into seconds, ..., months into years
        conv = _ROLL[at][1]
        roll = (values[at + 1] * factor) // conv
        values[at] += roll * factor
        values[at + 1] -= roll * conv * factor
    names = [name for name, _ in _ROLL] + ["millisecond"]
    parts = [f"{v} {name}{'' if abs(v) == 1 else 's'}" for v, name in zip(values, names, strict=True) if v]
    return ", ".join(parts) or "0 seconds"
