"""Moment.js date formats, as Obsidian's daily notes, Periodic Notes and Templates use them.

`format_date(fmt, when)` writes a date (or datetime) the way `moment().format(fmt)` does;
`parse_date(fmt, text)` reads such a text back to the first day it names (the day, the week's
first day, the month's first day, …), so `format(parse(format(d)))` gives the same text.

Tokens read and written (`TOKENS`): years `YYYY` `YY`, quarter `Q`, months `M` `MM` `MMM` `MMMM`,
days `D` `DD` `Do` `DDD` `DDDD` (day of year), weekdays `d` `dd` `ddd` `dddd` `e` `E`, locale
weeks `w` `ww` with their year `gggg` `gg`, ISO weeks `W` `WW` with their year `GGGG` `GG`, time
`H` `HH` `h` `hh` `m` `mm` `s` `ss` `A` `a`. Written only (`FORMAT_TOKENS`, the rest of
Moment's format table): ordinals `Mo` `Qo` `DDDo` `do` `wo` `Wo`, years `Y` `YYYYY` `YYYYYY`,
era years `y` `yy` `yyy` `yyyy` `yo` and eras `N`…`NNNNN`, week years `ggggg` `GGGGG`, hours
`k` `kk` (1-24), `Hmm` `Hmmss` `hmm` `hmmss`, fractional seconds `S` to `SSSSSSSSS`, Unix time
`X` `x`, offsets `Z` `ZZ` (the machine's local offset: dates are naive local times), zone
names `z` `zz` (empty, as Moment without a time-zone plugin writes them), and the localised
formats `LT` `LTS` `L` `LL` `LLL` `LLLL` `l` `ll` `lll` `llll`.

Everything else is read as Moment reads it (its own token pattern, in its own order): text in
brackets is literal (`[W]`), a backslash makes the token or character after it literal (`\\YYYY`
is `YYYY`), `/` makes the path a subfolder, and every character that is no token is written as
it is, letters included (`YYYY-MM-DDTHH:mm` is `2026-11-30T10:00`, as Moment writes it); a line
break outside brackets is dropped, as Moment drops it. Nothing is guessed: this is Moment's whole
format table, so a letter outside it is no token in Moment either. What is refused is a format a
note name cannot be read back from (`parse_date`: a token of `FORMAT_TOKENS` outside `TOKENS`)
and, with `strict=True`, a letter outside brackets that is no token (a check for formats that
must hold tokens only; Moment itself never refuses one).

Locale weeks (`w` `ww` `gggg` `gg` `e`) follow a week rule `(dow, doy)` as Moment's locales
define it: `dow` is the first day of the week (0 = Sunday), and week 1 is the week holding
January `7 + dow - doy`. The default is Moment's default locale, English (`(0, 6)`: Sunday,
1 January); `service.dates.locales` finds the rule a vault's settings choose. ISO tokens (`W`
`WW` `GGGG` `GG` `E`) are always ISO: Monday, week 1 holds 4 January. Names (`MMMM`, `dddd`, `Do`)
are English whatever the week rule.
"""

from __future__ import annotations

import calendar
import math
import re
from datetime import date, datetime, timedelta

TOKENS = (
    "YYYY", "YY", "gggg", "gg", "GGGG", "GG", "Q", "MMMM", "MMM", "MM", "M", "ww", "w", "WW", "W",
    "Do", "DDDD", "DDD", "DD", "D", "dddd", "ddd", "dd", "d", "E", "e",
    "HH", "H", "hh", "h", "mm", "m", "ss", "s", "A", "a",
)  # fmt: skip
FORMAT_TOKENS = (
    *TOKENS, "Mo", "Qo", "DDDo", "do", "wo", "Wo", "Y", "YYYYY", "YYYYYY", "y", "yy", "yyy", "yyyy", "yo",
    "N", "NN", "NNN", "NNNN", "NNNNN", "ggggg", "GGGGG", "k", "kk", "Hmm", "Hmmss", "hmm", "hmmss",
    *("S" * n for n in range(1, 10)), "X", "x", "Z", "ZZ", "z", "zz",
)  # fmt: skip
# Moment's English localised formats, expanded before the other tokens are read.
LOCALISED = {
    "LTS": "h:mm:ss A", "LT": "h:mm A", "LLLL": "dddd, MMMM D, YYYY h:mm A", "LLL": "MMMM D, YYYY h:mm A",
    "LL": "MMMM D, YYYY", "L": "MM/DD/YYYY", "llll": "ddd, MMM D, YYYY h:mm A", "lll": "MMM D, YYYY h:mm A",
    "ll": "MMM D, YYYY", "l": "M/D/YYYY",
}  # fmt: skip
# Moment's own patterns (`localFormattingTokens`, `formattingTokens`), alternatives in its order: a
# bracket runs to the last `]` before the next `[`; a backslash takes the whole token after it; a
# match that names no token ('T', but also Moment's quirk 'w|') is written without its backslashes;
# a line break matches nothing and is dropped (JavaScript's '.').
_LOCALISED = re.compile(r"(\[[^\[]*\])|(\\)?(LTS|LT|LL?L?L?|l{1,4})")
_TOKEN = re.compile(
    r"(\[[^\[]*\])|(\\)?([Hh]mm(?:ss)?|Mo|MM?M?M?|Do|DDDo|DD?D?D?|ddd?d?|do?|w[o|w]?|W[o|W]?|Qo?|N{1,5}"
    r"|YYYYYY|YYYYY|YYYY|YY|y{2,4}|yo?|gg(?:ggg?)?|GG(?:GGG?)?|e|E|a|A|hh?|HH?|kk?|mm?|ss?|S{1,9}|x|X|zz?|ZZ?"
    r"|[^\n\r\u2028\u2029])"
)
_KNOWN = frozenset(FORMAT_TOKENS)
_READABLE = frozenset(TOKENS)
MONTHS = calendar.month_name[1:]
DAYS = ("Sunday", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday")  # Moment's d: 0 = Sunday
Week = tuple[int, int]  # (dow, doy) as in Moment's locale data
LOCALE_WEEK: Week = (0, 6)  # English: (first day of week 0 = Sunday, 'doy' 6: week 1 holds 1 January)
ISO_WEEK: Week = (1, 4)  # Monday, week 1 holds 4 January


class MomentError(ValueError):
    """A format a note name cannot be read back from, a text that does not fit its format, or (strict)
    a letter that is no token."""


def _expand_localised(fmt: str) -> str:
    if "L" not in fmt and "l" not in fmt:
        return fmt
    return _LOCALISED.sub(lambda m: LOCALISED[m.group(3)] if m.group(3) and not m.group(2) else m.group(0), fmt)


def tokens(fmt: str, strict: bool = False) -> list[tuple[bool, str]]:
    """`fmt` split into (is_token, text) parts as Moment splits it (see the module docstring);
    with `strict`, a letter outside brackets that is no token is `MomentError`."""
    out: list[tuple[bool, str]] = []
    for m in _TOKEN.finditer(_expand_localised(fmt)):
        bracketed, escaped, text = m.groups()
        if bracketed is not None:
            out.append((False, bracketed[1:-1]))
        elif not escaped and text in _KNOWN:
            out.append((True, text))
        elif strict and not escaped and text[0].isalpha():
            raise MomentError(
                f"{text[0]!r} in {fmt!r} is no Moment.js token (tokens: {' '.join(FORMAT_TOKENS)}; "
                "put literal text in [brackets])"
            )
        else:
            out.append((False, m.group(0).replace("\\", "")))
    return out


# -- weeks, as Moment computes them (dow: first day of the week, 0 = Sunday; doy: 7 + dow minus
# the January day that is always in week 1) -----------------------------------------------------


def _first_week_offset(year: int, dow: int, doy: int) -> int:
    fwd = 7 + dow - doy  # a January day, or one of late December (ar-kw's (0, 12): -5), as Moment counts it
    fwdlw = (7 + ((date(year, 1, 1) + timedelta(days=fwd - 1)).isoweekday() % 7) - dow) % 7
    return -fwdlw + fwd - 1


def _weeks_in_year(year: int, dow: int, doy: int) -> int:
    days = 366 if calendar.isleap(year) else 365
    return (days - _first_week_offset(year, dow, doy) + _first_week_offset(year + 1, dow, doy)) // 7


def week_of(d: date, dow: int, doy: int) -> tuple[int, int]:
    """(week-year, week) of `d`."""
    offset = _first_week_offset(d.year, dow, doy)
    week = (d.timetuple().tm_yday - offset - 1) // 7 + 1
    if week < 1:
        return d.year - 1, week + _weeks_in_year(d.year - 1, dow, doy)
    if week > _weeks_in_year(d.year, dow, doy):
        return d.year + 1, week - _weeks_in_year(d.year, dow, doy)
    return d.year, week


def week_start(week_year: int, week: int, dow: int, doy: int) -> date:
    """The first day of week `week` of `week_year`."""
    first = date(week_year, 1, 1) + timedelta(days=_first_week_offset(week_year, dow, doy))
    return first + timedelta(weeks=week - 1)


def _ordinal(n: int) -> str:
    suffix = "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{suffix}"


def _value(token: str, t: datetime, week: Week) -> str:
    d = t.date()
    moment_day = d.isoweekday() % 7
    match token:
        case "YYYY":
            return f"{d.year:04d}"
        case "YY":
            return f"{d.year % 100:02d}"
        case "gggg" | "gg" | "GGGG" | "GG":
            year = week_of(d, *(ISO_WEEK if token[0] == "G" else week))[0]
            return f"{year % 100:02d}" if len(token) == 2 else f"{year:04d}"
        case "ww" | "w" | "WW" | "W":
            number = week_of(d, *(ISO_WEEK if token[0] == "W" else week))[1]
            return f"{number:02d}" if len(token) == 2 else str(number)
        case "Q":
            return str((d.month - 1) // 3 + 1)
        case "MMMM" | "MMM":
            return MONTHS[d.month - 1] if token == "MMMM" else MONTHS[d.month - 1][:3]
        case "MM" | "M":
            return f"{d.month:02d}" if token == "MM" else str(d.month)
        case "Do":
            return _ordinal(d.day)
        case "DDDD" | "DDD":
            yday = d.timetuple().tm_yday
            return f"{yday:03d}" if token == "DDDD" else str(yday)
        case "DD" | "D":
            return f"{d.day:02d}" if token == "DD" else str(d.day)
        case "dddd" | "ddd" | "dd":
            return DAYS[moment_day][: {"dddd": 9, "ddd": 3, "dd": 2}[token]]
        case "d":
            return str(moment_day)
        case "e":  # the day's place in the locale week: 0 is the week's first day
            return str((moment_day - week[0]) % 7)
        case "E":
            return str(d.isoweekday())
        case "HH" | "H":
            return f"{t.hour:02d}" if token == "HH" else str(t.hour)
        case "hh" | "h":
            hour = t.hour % 12 or 12
            return f"{hour:02d}" if token == "hh" else str(hour)
        case "mm" | "m":
            return f"{t.minute:02d}" if token == "mm" else str(t.minute)
        case "ss" | "s":
            return f"{t.second:02d}" if token == "ss" else str(t.second)
        case "A" | "a":
            half = "AM" if t.hour < 12 else "PM"
            return half if token == "A" else half.lower()
    return _written_only(token, t, week)


def _written_only(token: str, t: datetime, week: Week) -> str:
    """The tokens Moment writes but `parse_date` does not read."""
    if token.endswith("o") and token not in ("yo",):  # Mo Qo DDDo do wo Wo: the number as an ordinal
        return _ordinal(int(_value(token[:-1] if token != "do" else "d", t, week)))
    if token[0] == "S":  # fractional seconds: Moment keeps milliseconds, then pads with zeros
        return f"{t.microsecond // 1000:03d}{'0' * 6}"[: len(token)]
    if token in ("Hmm", "Hmmss", "hmm", "hmmss"):
        return "".join(_value(part, t, week) for part in (token[0], "mm", "ss")[: 3 if token.endswith("ss") else 2])
    match token:
        case "Y":  # Moment: four digits up to 9999
            return f"{t.year:04d}"
        case "y" | "yo":
            return _ordinal(t.year) if token == "yo" else str(t.year)
        case "YYYYY" | "ggggg" | "GGGGG":
            year = t.year if token[0] == "Y" else int(_value(token[:4], t, week))
            return f"{year:05d}"
        case "YYYYYY":
            return f"{'+' if t.year >= 0 else '-'}{abs(t.year):06d}"
        case "yy" | "yyy" | "yyyy":  # the era year padded, never cut ('yy' is 2026, unlike 'YY')
            return f"{t.year:0{len(token)}d}"
        case "N" | "NN" | "NNN" | "NNNNN":
            return "AD"
        case "NNNN":
            return "Anno Domini"
        case "k" | "kk":
            return f"{t.hour or 24:02d}" if token == "kk" else str(t.hour or 24)
        case "X":  # whole seconds, rounded down as Moment's unix() rounds (before 1970 too)
            return str(math.floor(t.timestamp()))
        case "x":
            return str(math.floor(t.timestamp() * 1000))
        case "Z" | "ZZ":
            offset = t.astimezone().utcoffset() or timedelta(0)
            minutes = int(offset.total_seconds() // 60)
            hours, mins = divmod(abs(minutes), 60)
            sign = "+" if minutes >= 0 else "-"
            return f"{sign}{hours:02d}:{mins:02d}" if token == "Z" else f"{sign}{hours:02d}{mins:02d}"
        case "z" | "zz":
            return ""
    raise MomentError(f"unsupported Moment.js token {token!r}")


def format_date(fmt: str, when: date | datetime, week: Week = LOCALE_WEEK, strict: bool = False) -> str:
    """`when` written as Moment's `format(fmt)` writes it (locale weeks by `week`; `strict`: see
    the module docstring)."""
    t = when if isinstance(when, datetime) else datetime(when.year, when.month, when.day)
    return "".join(_value(text, t, week) if is_token else text for is_token, text in tokens(fmt, strict))


_PATTERN = {
    "YYYY": r"\d{4}", "YY": r"\d{2}", "gggg": r"\d{4}", "gg": r"\d{2}", "GGGG": r"\d{4}", "GG": r"\d{2}",
    "Q": r"[1-4]", "MMMM": "|".join(MONTHS), "MMM": "|".join(m[:3] for m in MONTHS), "MM": r"\d{2}",
    "M": r"\d{1,2}", "ww": r"\d{2}", "w": r"\d{1,2}", "WW": r"\d{2}", "W": r"\d{1,2}",
    "Do": r"\d{1,2}(?:st|nd|rd|th)", "DDDD": r"\d{3}", "DDD": r"\d{1,3}", "DD": r"\d{2}", "D": r"\d{1,2}",
    "dddd": "|".join(DAYS), "ddd": "|".join(x[:3] for x in DAYS), "dd": "|".join(x[:2] for x in DAYS),
    "d": r"[0-6]", "e": r"[0-6]", "E": r"[1-7]", "HH": r"\d{2}", "H": r"\d{1,2}", "hh": r"\d{2}",
    "h": r"\d{1,2}", "mm": r"\d{2}", "m": r"\d{1,2}", "ss": r"\d{2}", "s": r"\d{1,2}", "A": "AM|PM", "a": "am|pm",
}  # fmt: skip


def _year(text: str) -> int:
    n = int(text)
    return n if len(text) == 4 else n + (2000 if n <= 68 else 1900)  # Moment's two-digit years


def parse_date(fmt: str, text: str, week: Week = LOCALE_WEEK) -> date:
    """The first day `text`, written in `fmt`, names; `MomentError` when it does not fit."""
    parts = tokens(fmt)
    unreadable = [p for is_token, p in parts if is_token and p not in _READABLE]
    if unreadable:
        raise MomentError(f"the Moment.js token {unreadable[0]!r} in {fmt!r} is written but cannot be read back")
    regex = "".join(f"({_PATTERN[p]})" if is_token else re.escape(p) for is_token, p in parts)
    m = re.fullmatch(regex, text, re.IGNORECASE)
    if not m:
        raise MomentError(f"{text!r} is not written in the format {fmt!r}")
    got: dict[str, str] = {}
    for value, token in zip(m.groups(), (p for is_token, p in parts if is_token), strict=True):
        got.setdefault(token, value)
    try:
        return _resolve(got, week)
    except (ValueError, KeyError) as exc:
        raise MomentError(f"{text!r} is not a valid date in the format {fmt!r}: {exc}") from None


def _weekday_offset(got: dict[str, str], first: int, locale_first: int) -> int:
    """Days from the week's first day (`first`, 0 = Sunday) to the weekday the text names (0
    when none); `e` counts from the locale week's first day `locale_first`."""
    for token in ("dddd", "ddd", "dd"):
        if token in got:
            names = [x[: len(got[token])].lower() for x in DAYS] if token != "dddd" else [x.lower() for x in DAYS]
            return (names.index(got[token].lower()) - first) % 7
    if "E" in got:
        return (int(got["E"]) % 7 - first) % 7
    if "d" in got:
        return (int(got["d"]) - first) % 7
    if "e" in got:
        return (int(got["e"]) + locale_first - first) % 7
    return 0


def _resolve(got: dict[str, str], week: Week) -> date:
    year = _year(got.get("YYYY") or got["YY"]) if ("YYYY" in got or "YY" in got) else None
    month = next((int(got[t]) for t in ("MM", "M") if t in got), None)
    for token in ("MMMM", "MMM"):
        if token in got and month is None:
            month = [m[: len(got[token])].lower() for m in MONTHS].index(got[token].lower()) + 1
    day = next((int(got[t]) for t in ("DD", "D") if t in got), None)
    if day is None and "Do" in got:
        day = int(got["Do"][:-2])
    iso_year = next((_year(got[t]) for t in ("GGGG", "GG") if t in got), None)
    iso_week = next((int(got[t]) for t in ("WW", "W") if t in got), None)
    loc_year = next((_year(got[t]) for t in ("gggg", "gg") if t in got), None)
    loc_week = next((int(got[t]) for t in ("ww", "w") if t in got), None)
    if year is not None and month is not None:
        return date(year, month, day or 1)
    if iso_week is not None:
        week_year = iso_year if iso_year is not None else year
        if week_year is None:
            raise ValueError("an ISO week needs its year (GGGG)")
        _check_week(week_year, iso_week, ISO_WEEK)
        offset = _weekday_offset(got, ISO_WEEK[0], week[0])
        return week_start(week_year, iso_week, *ISO_WEEK) + timedelta(days=offset)
    if loc_week is not None:
        week_year = loc_year if loc_year is not None else year
        if week_year is None:
            raise ValueError("a week needs its year (gggg)")
        _check_week(week_year, loc_week, week)
        return week_start(week_year, loc_week, *week) + timedelta(days=_weekday_offset(got, week[0], week[0]))
    if year is None:
        raise ValueError("the format names no year")
    for token in ("DDDD", "DDD"):
        if token in got:
            return date(year, 1, 1) + timedelta(days=int(got[token]) - 1)
    if "Q" in got:
        return date(year, 3 * int(got["Q"]) - 2, 1)
    return date(year, 1, 1)


def _check_week(year: int, week: int, rules: Week) -> None:
    if not 1 <= week <= _weeks_in_year(year, *rules):
        raise ValueError(f"week {week} does not exist in {year}")
