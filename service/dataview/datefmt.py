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
import math
import re
from decimal import ROUND_HALF_UP, Decimal

from service.dataview.durations import Duration, normal_units
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


def duration_words(d: Duration) -> str:
    """A duration as Dataview writes it (normalize.ts renderMinimalDuration): Luxon's
    `shiftToAll().normalize()` — from the smallest unit up, as many whole larger units as each
    holds roll up into them, the sign of the whole span kept — then `toHuman()` of the units not
    zero ('1 month, 2 weeks, 4 days' for 46 days, '-1 month, -2 weeks, -1 day')."""
    parts = []
    for unit, v in normal_units(d).items():
        if v:
            text = _human_number(v)
            parts.append(f"{text} {unit.removesuffix('s') if text in ('1', '-1') else unit}")
    return ", ".join(parts)  # Luxon 3.4 toHuman of no units: ""


def _human_number(v: float) -> str:
    """A number as en-US `Intl.NumberFormat` writes it in `toHuman`: the shortest decimal of the
    double rounded half away from zero to at most 3 decimals (142.857142... ms: '142.857')."""
    if not math.isfinite(v):
        return "∞" if v > 0 else "-∞" if v < 0 else "NaN"
    rounded = Decimal(repr(v)).quantize(Decimal("0.001"), rounding=ROUND_HALF_UP)
    text = f"{rounded:f}".rstrip("0").rstrip(".")
    return "-0" if text == "0" and v < 0 else text
