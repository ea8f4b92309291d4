"""The zone of a Dataview date, as Luxon's zone tokens write it: dates here are the server's local
times (as `now()` and `file.mtime` are; a written offset is converted to local time), so a date's
zone is the server's zone at that moment, as Dataview's dates are in the system zone of the machine
it runs on.

`offset_text` gives Luxon's narrow (`+5`, `+5:30`), short (`+05:00`) and techie (`+0500`)
offsets; `zone_name` the IANA name (`z`: the `TZ` setting or the `/etc/localtime` link; else UTC,
or a fixed offset `UTC+5`); `named_offset` the en-US named offset (`ZZZZ` EST, `ZZZZZ` Eastern
Standard Time): the United States zones' and UTC's names, and elsewhere the en-US form without a
name (`GMT+1`, `GMT+01:00`). A moment the C library cannot place (past the calendar's ends) is
read as UTC. Touches only the process's zone settings, read."""

from __future__ import annotations

import datetime as dt
import os
import zoneinfo
from functools import lru_cache

# en-US names of the zones that have them in the United States (and UTC); elsewhere en-US writes
# the offset (GMT+1), as Luxon's Intl does.
_LONG = {
    "EST": "Eastern Standard Time", "EDT": "Eastern Daylight Time", "CST": "Central Standard Time",
    "CDT": "Central Daylight Time", "MST": "Mountain Standard Time", "MDT": "Mountain Daylight Time",
    "PST": "Pacific Standard Time", "PDT": "Pacific Daylight Time", "AKST": "Alaska Standard Time",
    "AKDT": "Alaska Daylight Time", "HST": "Hawaii-Aleutian Standard Time", "UTC": "Coordinated Universal Time",
}  # fmt: skip


def offset_of(d: dt.datetime) -> tuple[dt.timedelta, str]:
    """The server zone's offset at the local time `d`, and its abbreviation (`EST`, `CET`, `UTC`)."""
    try:
        aware = d.astimezone()
    except (OverflowError, ValueError, OSError):
        return dt.timedelta(0), "UTC"
    return aware.utcoffset() or dt.timedelta(0), aware.tzname() or ""


def offset_text(offset: dt.timedelta, style: str) -> str:
    """`offset` as Luxon writes it: 'narrow' `+5` / `+5:30`, 'short' `+05:00`, 'techie' `+0500`."""
    minutes = int(offset.total_seconds()) // 60
    sign, minutes = ("+" if minutes >= 0 else "-"), abs(minutes)
    hours, rest = divmod(minutes, 60)
    if style == "narrow":
        return f"{sign}{hours}" + (f":{rest:02d}" if rest else "")
    return f"{sign}{hours:02d}:{rest:02d}" if style == "short" else f"{sign}{hours:02d}{rest:02d}"


def named_offset(d: dt.datetime, long: bool) -> str:
    """The en-US named offset of `d`'s zone: `ZZZZ` (long=False) or `ZZZZZ` (long=True)."""
    offset, abbreviation = offset_of(d)
    if abbreviation in _LONG:
        return _LONG[abbreviation] if long else abbreviation
    if not offset:
        return "Greenwich Mean Time" if long else "GMT"
    return "GMT" + offset_text(offset, "short" if long else "narrow")


def zone_name(d: dt.datetime) -> str:
    """`z`: the server zone's IANA name (Luxon's system zone), else UTC or the fixed offset."""
    found = _configured_zone(os.environ.get("TZ"))
    if found:
        return found
    offset, _ = offset_of(d)
    return "UTC" + (offset_text(offset, "narrow") if offset else "")


@lru_cache(maxsize=8)
def _configured_zone(tz: str | None) -> str | None:
    """The IANA name the process's zone is set by: `TZ`, else the `/etc/localtime` link."""
    candidates = [tz.removeprefix(":")] if tz else []
    try:
        target = os.path.realpath("/etc/localtime")
    except OSError:
        target = ""
    if "zoneinfo/" in target:
        candidates.append(target.split("zoneinfo/", 1)[1])
    for key in candidates:
        try:
            zoneinfo.ZoneInfo(key)
        except (ValueError, zoneinfo.ZoneInfoNotFoundError, OSError):
            continue
        return "UTC" if key in ("Etc/UTC", "UTC", "Etc/Universal", "Universal", "Zulu", "Etc/Zulu") else key
    return None
