"""Dataview's value types: text, number, boolean, date, duration, link, list, object, null.

Python carries them as `str`, `int`/`float`, `bool`, `datetime.datetime` (naive: the server's
local time; a written offset is converted to it), `Duration`, `Link`, `list`, `dict` and `None`; a lambda of the query
language is a `Lambda`. This module parses field values the way Dataview does (ISO dates,
durations such as `6hr 4min`, `[[links]]`, comma lists of quoted text or numbers), orders and
compares values across types, normalises keys (`Basic Field` -> `basic-field`), and renders
values as JSON with their type. Touches nothing outside itself.
"""

from __future__ import annotations

import datetime as dt
import math
import re
import zoneinfo
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from service.dataview.collate import compare_strings
from service.dataview.durations import Duration as Duration  # re-exported: the value types live here
from service.dataview.durations import from_units, units_of
from service.dataview.durations import parse_duration as parse_duration
from service.dataview.keys import canonical_key as canonical_key  # re-exported
from service.dataview.keys import strip_formatting as strip_formatting


@dataclass(frozen=True, slots=True)
class Link:
    """A link to a vault file (`path` as resolved, or as written when it resolves to nothing)."""

    path: str
    display: str | None = None
    embed: bool = False
    subpath: str | None = None
    # The target as the note wrote it, when `path` was resolved from it: what a caller who may
    # not read `path` is shown instead (not part of equality).
    written: str | None = field(default=None, compare=False)

    @property
    def kind(self) -> str:
        if not self.subpath:
            return "file"
        return "block" if self.subpath.startswith("^") else "header"

    def markdown(self) -> str:
        target = self.path.removesuffix(".md") + (f"#{self.subpath}" if self.subpath else "")
        text = f"[[{target}|{self.display}]]" if self.display else f"[[{target}]]"
        return ("!" if self.embed else "") + text


@dataclass(frozen=True, slots=True)
class Lambda:
    params: tuple[str, ...]
    call: Callable[[list[Any]], Any]


# -- type names, truthiness, ordering --------------------------------------------------------


def type_of(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, (int, float)):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, dt.datetime):
        return "date"
    if isinstance(value, Duration):
        return "duration"
    if isinstance(value, Link):
        return "link"
    if isinstance(value, list):
        return "array"
    if isinstance(value, Mapping):
        return "object"
    if isinstance(value, Lambda):
        return "function"
    return "string"


def truthy(value: Any) -> bool:
    if value is None:
        return False
    if isinstance(value, (bool, int, float, str, list)):
        return bool(value)
    if isinstance(value, Mapping):
        return bool(value)
    if isinstance(value, Duration):
        return value.total_seconds() != 0
    if isinstance(value, dt.datetime):  # value.ts isTruthy: toMillis() != 0 (the epoch, in local time, is false)
        return value != dt.datetime.fromtimestamp(0)  # compared, not value.timestamp(): year 1 has none
    return True


# Values of two types compare by their types' names (value.ts compareValue:
# `wrap1.type.localeCompare(wrap2.type)`), null before everything
_ORDER = {
    "array": 0,
    "boolean": 1,
    "date": 2,
    "duration": 3,
    "function": 4,
    "link": 5,
    "number": 6,
    "object": 7,
    "string": 8,
}


def compare(a: Any, b: Any) -> int:
    """Dataview's total order: null first, then by type, then within the type (strings as
    JavaScript's localeCompare orders them: `service.dataview.collate`)."""
    ta, tb = type_of(a), type_of(b)
    if ta != tb:
        if ta == "null" or tb == "null":
            return -1 if ta == "null" else 1
        return -1 if _ORDER.get(ta, 9) < _ORDER.get(tb, 9) else (1 if _ORDER.get(ta, 9) > _ORDER.get(tb, 9) else 0)
    if ta == "string":
        return compare_strings(a, b)
    if ta == "null":
        return 0
    if ta == "link":
        return _cmp(a.path.lower(), b.path.lower())
    if ta == "duration":
        return _cmp(a.total_seconds(), b.total_seconds())
    if ta == "array":
        for p, q in zip(a, b, strict=False):
            c = compare(p, q)
            if c:
                return c
        return (len(a) > len(b)) - (len(a) < len(b))
    if ta == "object":  # value.ts: the sorted keys (JavaScript's sort: UTF-16 order), then value by value
        ka, kb = ({str(k): v for k, v in o.items()} for o in (a, b))  # a YAML key may be a number
        keys = sorted(ka, key=_utf16)
        c = compare(keys, sorted(kb, key=_utf16))
        for key in keys if not c else ():
            c = compare(ka[key], kb[key])
            if c:
                break
        return c
    if ta == "function":
        return 0
    return _cmp(a, b)


def _utf16(key: str) -> bytes:
    return key.encode("utf-16-be", "surrogatepass")


def _cmp(a: Any, b: Any) -> int:
    return int(a > b) - int(a < b)


def equal(a: Any, b: Any) -> bool:
    return compare(a, b) == 0


class SortKey:
    """Wraps a value so Python's sort uses `compare`."""

    __slots__ = ("value",)

    def __init__(self, value: Any) -> None:
        self.value = value

    def __lt__(self, other: SortKey) -> bool:
        return compare(self.value, other.value) < 0

    def __eq__(self, other: object) -> bool:
        return isinstance(other, SortKey) and compare(self.value, other.value) == 0

    def __hash__(self) -> int:
        return 0


# -- parsing field values --------------------------------------------------------------------

_DATE = re.compile(
    r"^(\d{4})-(\d{2})(?:-(\d{2})(?:T(\d{2})(?::(\d{2})(?::(\d{2})(?:\.(\d{1,3})\d*)?)?)?"
    r"(Z|([+-])(\d{1,2})(?::?(\d{2}))?|\[([0-9A-Za-z+,\-./]+)\])?)?)?$"  # parse.ts: +9, +06:30, [Europe/Paris]
)
_LINK = re.compile(r"^(!?)\[\[([^\]|#^]*)(?:#([^\]|]*))?(?:\|([^\]]*))?\]\]$")
_NUMBER = re.compile(r"^-?\d+(?:\.\d+)?$")
_TYPED_START = frozenset("[!-0123456789")
_QUOTED = re.compile(r'^"(?:[^"\\]|\\.)*"$')


def parse_date(text: str) -> dt.datetime | None:
    m = _DATE.match(text.strip())
    if m is None:
        return None
    year, month, day, hour, minute, second, milli, zone, sign, zone_h, zone_m, zone_name = m.groups()
    try:
        value = dt.datetime(
            int(year),
            int(month),
            int(day or 1),
            int(hour or 0),
            int(minute or 0),
            int(second or 0),
            int((milli or "0").ljust(3, "0")) * 1000,
        )
    except ValueError:
        return None
    if zone:
        try:
            offset = dt.timedelta(hours=int(zone_h), minutes=int(zone_m or 0)) if sign else dt.timedelta(0)
            tz: dt.tzinfo = (
                zoneinfo.ZoneInfo(zone_name) if zone_name else dt.timezone(-offset if sign == "-" else offset)
            )
        except (ValueError, KeyError, OSError):  # ZoneInfoNotFoundError is a KeyError
            return None  # no such zone
        try:  # the same moment in the server's local time, as every date here (now(), file.mtime)
            value = value.replace(tzinfo=tz).astimezone().replace(tzinfo=None)
        except (OverflowError, ValueError, OSError):
            return None  # past the calendar's ends
    return value


def parse_link(text: str) -> Link | None:
    m = _LINK.match(text.strip())
    if m is None:
        return None
    embed, target, subpath, display = m.groups()
    return Link(path=target.strip(), display=display, embed=bool(embed), subpath=subpath or None)


def _atom(text: str) -> tuple[bool, Any]:
    text = text.strip()
    if _QUOTED.match(text):
        return True, text[1:-1].replace('\\"', '"')
    if _NUMBER.match(text):
        return True, float(text) if "." in text else int(text)
    if text.lower() in ("true", "false"):
        return True, text.lower() == "true"
    value = typed_text(text)
    return (True, value) if value is not text else (False, text)


def typed_text(text: str, written: bool = False) -> Any:
    """`text` as a link, date or duration when it is one, else `text` itself (cheap tests
    first: most strings start with a letter and are none of them). A duration keeps the units as
    `written` (a frontmatter value, markdown-file.ts parseFrontmatter) or is normalised (an
    inline field's, parse.ts atomInlineField)."""
    if not text:
        return text
    first = text[0]
    if first in "[!":
        return parse_link(text) or text
    if first.isdigit() or first == "-":
        if len(text) >= 7 and text[4:5] == "-":
            parsed = parse_date(text)
            if parsed is not None:
                return parsed
        d = parse_duration(text)
        return text if d is None else d if written else from_units(units_of(d))
    return text


def parse_inline_value(raw: str) -> Any:
    """An inline field's value: one typed atom, a comma list of atoms, or else the text itself."""
    text = raw.strip()
    if not text:
        return None
    ok, value = _atom(text)
    if ok:
        return value
    if "," in text:
        parts = [_atom(p) for p in _split_commas(text)]
        if len(parts) > 1 and all(ok for ok, _ in parts):
            return [v for _, v in parts]
    return text


def _split_commas(text: str) -> list[str]:
    out, depth, quoted, start = [], 0, False, 0
    for i, ch in enumerate(text):
        if ch == '"':
            quoted = not quoted
        elif not quoted and ch == "[":
            depth += 1
        elif not quoted and ch == "]":
            depth -= 1
        elif ch == "," and not quoted and depth == 0:
            out.append(text[start:i])
            start = i + 1
    out.append(text[start:])
    return out


def from_frontmatter(value: Any) -> Any:
    """A YAML value as Dataview sees it: strings that are links, dates or durations become those."""
    if isinstance(value, str):
        if value[:1] not in _TYPED_START:
            return value
        parsed = typed_text(value.strip(), written=True)
        return value if isinstance(parsed, str) else parsed
    if isinstance(value, list):
        return [from_frontmatter(v) for v in value]
    if isinstance(value, dict):
        return {str(k): from_frontmatter(v) for k, v in value.items()}
    return value


# -- rendering -------------------------------------------------------------------------------


def to_json(value: Any, url: Callable[[str], str] | None = None) -> Any:
    """A value as plain JSON: dates ISO, durations as {months, seconds}, links as objects."""
    if isinstance(value, dt.datetime):
        if value.hour == value.minute == value.second == value.microsecond == 0:
            return value.date().isoformat()
        return value.isoformat(timespec="milliseconds" if value.microsecond else "seconds")
    if isinstance(value, Duration):
        return {"months": value.months, "seconds": value.seconds}
    if isinstance(value, Link):
        out: dict[str, Any] = {"path": value.path, "link": value.markdown()}
        if value.display:
            out["display"] = value.display
        if value.subpath:
            out["subpath"] = value.subpath
        if url is not None and value.path.endswith(".md"):
            out["obsidian_url"] = url(value.path)
        return out
    if isinstance(value, list):
        return [to_json(v, url) for v in value]
    if isinstance(value, Mapping):
        return {str(k): to_json(v, url) for k, v in value.items()}
    if isinstance(value, Lambda):
        return "<function>"
    if isinstance(value, float) and (math.isnan(value) or math.isinf(value)):
        return None
    return value


def typed(value: Any, url: Callable[[str], str] | None = None) -> dict[str, Any]:
    """A value as {type, value}; an array or object holding a date, duration, link or function also
    has `types` (`item_types`): in JSON those read as another type (a date as a string)."""
    out = {"type": type_of(value), "value": to_json(value, url)}
    if isinstance(value, (list, Mapping)) and (types := item_types(value)) is not None:
        out["types"] = types
    return out


_OPAQUE = (dt.datetime, Duration, Link, Lambda)  # values whose JSON form is not their type's


def item_types(value: Any) -> Any:
    """The Dataview type of each item of `value` whose JSON form does not tell it (date, duration,
    link, function), shaped like `to_json(value)`: a list by position (null for an item whose JSON
    says its type), an object by key (only such keys); None when `value` holds none."""
    if isinstance(value, _OPAQUE):
        return type_of(value)
    if isinstance(value, list):
        inner = [item_types(v) for v in value]
        return inner if any(t is not None for t in inner) else None
    if isinstance(value, Mapping):
        found = {str(k): t for k, v in value.items() if (t := item_types(v)) is not None}
        return found or None
    return None


def day_start(d: dt.datetime) -> dt.datetime:
    return d.replace(hour=0, minute=0, second=0)


def stamp(seconds: float) -> dt.datetime:
    return dt.datetime.fromtimestamp(seconds).replace(microsecond=0)


def whole_seconds(t: float) -> int:
    """The whole seconds `stamp(t)` shows: `fromtimestamp` rounds the microseconds half to even
    (x.9999996 is the next second). A page keeps these (equal ones one object), not a float."""
    frac, whole = math.modf(t)
    micro = round(frac * 1e6)
    return int(whole) + (1 if micro >= 1_000_000 else -1 if micro < 0 else 0)


def holds_link(value: Any) -> bool:
    if isinstance(value, Link):
        return True
    if isinstance(value, list):
        return any(holds_link(v) for v in value)
    if isinstance(value, dict):
        return any(holds_link(v) for v in value.values())
    return False
