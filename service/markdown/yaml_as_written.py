"""Values ruamel's round trip would write back changed, kept as the note wrote them.

`service.markdown.yaml_edit` writes a whole frontmatter block back after an edit of one property.
Its constructor reads these values as the classes below (each reads as before: a text, a float
or a date and time), and its representer writes each back as its own text.
"""

from __future__ import annotations

import datetime as dt
import math
import re


class DateAsWritten(str):
    """A date-shaped value that is no date (`2023-02-29`, `2024-13-01`): read as its text, as
    Obsidian shows it (ruamel raised, and the note's properties could be neither read nor edited),
    and written back as it was, unquoted (`yaml_edit._yaml` registers both)."""

    __slots__ = ()


class IntAsWritten(str):
    """An int Python will not convert (past 4,300 digits): its text, written back plain."""

    __slots__ = ()


class FloatAsWritten(float):
    """A float whose text ruamel wrote back changed (`float_as_written`): its value, read as
    before, and its text, written back as it was (an edit of another property rewrote
    `3.14159265358979323846` as `3.14159265358979311600`, `1e-999` as `0e+000`, `1e999` as `.inf`)."""

    text: str


_SIGNIFICANT = 15  # digits a double always gives back as written


def float_as_written(text: str, value: float) -> bool:
    """Whether ruamel would write the float `value`, read from `text`, as another text: more
    significant digits than a double holds, or a number past a double's range either way."""
    mantissa = text.lower().replace("_", "").lstrip("+-").split("e")[0]
    if mantissa in (".inf", ".nan"):
        return False
    digits = mantissa.replace(".", "").lstrip("0")
    return len(digits) > _SIGNIFICANT or not math.isfinite(value) or (value == 0 and bool(digits.strip("0")))


FRACTION_PAST_MICROSECONDS = re.compile(r"[.,]\d{7,}")


class TimeAsWritten(dt.datetime):
    """A date and time with more than six digits of a second (`timestamp_as_written`)."""

    text: str


def timestamp_as_written(value: dt.datetime) -> TimeAsWritten:
    """`value` (ruamel's TimeStamp or a datetime) as a `_TimeAsWritten`: the same date, time,
    zone and ruamel's notes of it, so it reads (`to_plain`) as before."""
    held = TimeAsWritten(
        value.year, value.month, value.day, value.hour, value.minute, value.second, value.microsecond, value.tzinfo
    )
    held.__dict__.update(getattr(value, "__dict__", {}))
    return held
