"""The value types of Bases expressions and the rules every operator shares.

Plain Python values stand for the primitives (None = null, bool, int/float, str, list, dict);
`Date` and `Duration` come from `dates`; `Link`, `FileRef` (a file of the snapshot: a row, or
`this`), `Regex` and `Rendered` (html, image, icon) are defined here. The shared rules follow the
help pages and JavaScript: truthiness, equality (a link equals a file it resolves to), ordering
(numbers, strings, dates, durations; nulls last), string forms, type names, and the typed JSON
cell a result carries. Frontmatter values become Bases values in `from_property`: ISO date
strings become dates and '[[wikilinks]]' become links.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from typing import Any

import regex

from service.bases.dates import Date, Duration, parse_date
from service.bases.snapshot import Record, Snapshot
from service.budget import compile_regex, regex_call

_WIKILINK = re.compile(r"^!?\[\[([^\]|#]*)(#[^\]|]*)?(?:\|([^\]]*))?\]\]$")


class EvalError(Exception):
    """An expression failed on a value (wrong type, bad argument); the cell or row reports it."""


@dataclass(frozen=True, slots=True)
class Link:
    target: str
    path: str | None = None
    display: str | None = None

    def text(self) -> str:
        return self.display or self.target


@dataclass(frozen=True, slots=True)
class FileRef:
    record: Record
    is_this: bool = False  # `this`: `.x` reads the note's property x, `.file` the file itself


@dataclass(frozen=True, slots=True)
class Regex:
    source: str
    flags: str
    compiled: Any  # a `regex` pattern

    def run(self, method: str, *args: Any, **kwargs: Any) -> Any:
        """Run on the `regex` package with the running query's time left (`service.budget`), so a
        catastrophic pattern cannot outlive the budget."""
        return regex_call(self.compiled, method, *args, **kwargs)


@dataclass(frozen=True, slots=True)
class Rendered:
    kind: str  # html | image | icon
    value: Any


def make_regex(source: str, flags: str) -> Regex:
    py = regex.V0
    if "i" in flags:
        py |= regex.IGNORECASE
    if "m" in flags:
        py |= regex.MULTILINE
    if "s" in flags:
        py |= regex.DOTALL
    try:
        return Regex(source, flags, compile_regex(source, py))
    except regex.error as exc:
        raise EvalError(f"invalid regular expression /{source}/: {exc}") from exc


def parse_link(text: str, snapshot: Snapshot | None, source: str | None = None) -> Link:
    """`text` as a link, resolved from the note `source` when given (a property's own note)."""
    m = _WIKILINK.match(text.strip())
    if m:
        target, display = m.group(1).strip(), m.group(3)
    else:
        target, display = text, None
    path = snapshot.resolve(target, source) if snapshot is not None and target and "://" not in target else None
    return Link(target, path, display)


def from_property(raw: Any, snapshot: Snapshot | None, source: str | None = None) -> Any:
    """A frontmatter value (JSON from the index) as a Bases value; its links resolved from the
    note `source` that holds it."""
    if isinstance(raw, str):
        if raw.startswith("[[") or raw.startswith("![["):
            if _WIKILINK.match(raw.strip()):
                return parse_link(raw, snapshot, source)
        elif len(raw) >= 10 and raw[:4].isdigit() and raw[4:5] == "-":
            date = parse_date(raw)
            if date is not None:
                return date
        return raw
    if isinstance(raw, list):
        return [from_property(v, snapshot, source) for v in raw]
    if isinstance(raw, dict):
        return {k: from_property(v, snapshot, source) for k, v in raw.items()}
    return raw


def type_name(v: Any) -> str:
    if v is None:
        return "null"
    if isinstance(v, bool):
        return "boolean"
    if isinstance(v, (int, float)):
        return "number"
    if isinstance(v, str):
        return "string"
    if isinstance(v, list):
        return "list"
    if isinstance(v, dict):
        return "object"
    if isinstance(v, Date):
        return "date"
    if isinstance(v, Duration):
        return "duration"
    if isinstance(v, Link):
        return "link"
    if isinstance(v, FileRef):
        return "file"
    if isinstance(v, Regex):
        return "regexp"
    if isinstance(v, Rendered):
        return v.kind
    return "unknown"


def truthy(v: Any) -> bool:
    if v is None:
        return False
    if isinstance(v, bool):
        return v
    if isinstance(v, (int, float)):
        return v != 0 and not math.isnan(v)
    if isinstance(v, (str, list, dict)):
        return len(v) > 0
    return True


def is_empty(v: Any) -> bool:
    if v is None:
        return True
    t = type(v)
    return (t is str or t is list or t is dict) and len(v) == 0


def link_path(v: Any) -> str | None:
    """The vault path a file, link or path string designates (None when it designates none)."""
    if isinstance(v, FileRef):
        return v.record.path
    if isinstance(v, Link):
        return v.path
    return None


def equals(a: Any, b: Any) -> bool:
    if a is None or b is None:
        return a is None and b is None
    if isinstance(a, (Link, FileRef)) or isinstance(b, (Link, FileRef)):
        pa, pb = link_path(a), link_path(b)
        if pa is not None and pb is not None:
            return pa == pb
        if isinstance(a, Link) and isinstance(b, Link):
            return a.target == b.target
        if isinstance(a, Link) and isinstance(b, str):
            return a.target == b or to_string(a) == b
        if isinstance(b, Link) and isinstance(a, str):
            return b.target == a or to_string(b) == a
        return False
    if isinstance(a, bool) or isinstance(b, bool):
        return a is b or (isinstance(a, bool) and isinstance(b, bool) and a == b)
    if isinstance(a, (int, float)) and isinstance(b, (int, float)):
        return bool(a == b)
    if isinstance(a, Date) and isinstance(b, Date):
        return a.value == b.value
    if isinstance(a, Duration) and isinstance(b, Duration):
        return a == b
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(equals(x, y) for x, y in zip(a, b, strict=True))
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(equals(a[k], b[k]) for k in a)
    if isinstance(a, Regex) and isinstance(b, Regex):
        return a.source == b.source and a.flags == b.flags
    if type(a) is not type(b):
        return False
    return bool(a == b)


def identity(v: Any) -> Any:
    """A hashable key under which equal values (by `equals`) meet: for unique counts and groups."""
    t = type(v)
    if t is str or v is None:
        return v
    if t is bool:
        return ("b", v)
    if t is int or t is float:
        return ("n", v)
    if isinstance(v, (Link, FileRef)):
        path = link_path(v)
        return ("l", path) if path is not None else ("t", v.target if isinstance(v, Link) else "")
    if isinstance(v, (Date, Duration)):
        return ("d", t.__name__, v.millis())
    if isinstance(v, list):
        return ("L", tuple(identity(x) for x in v))
    return (type_name(v), to_string(v))


def as_number(v: Any) -> float | None:
    """A value on the number line (numbers, dates as ms, durations as ms), else None."""
    if isinstance(v, bool):
        return None
    if isinstance(v, (int, float)):
        return v
    if isinstance(v, (Date, Duration)):
        return v.millis()
    return None


def compare(a: Any, b: Any) -> int | None:
    """-1/0/1 for ordered pairs (numbers, dates, durations, strings, booleans), else None."""
    na, nb = as_number(a), as_number(b)
    if na is not None and nb is not None:
        return (na > nb) - (na < nb)
    if isinstance(a, str) and isinstance(b, str):
        return (a > b) - (a < b)
    if isinstance(a, bool) and isinstance(b, bool):
        return int(a) - int(b)
    if isinstance(a, (Link, FileRef)) or isinstance(b, (Link, FileRef)):
        sa, sb = to_string(a), to_string(b)
        return (sa > sb) - (sa < sb)
    return None


def _rank(v: Any) -> int:
    if isinstance(v, bool):
        return 1
    if isinstance(v, (int, float)):
        return 2
    if isinstance(v, (Date, Duration)):
        return 3
    return 4


def sort_key(v: Any) -> tuple[Any, ...]:
    """A total order for sorting rows and lists: by kind, then value; empty values last."""
    if is_empty(v):
        return (9, 0)
    n = as_number(v)
    if n is not None:
        return (_rank(v), n)
    if isinstance(v, bool):
        return (1, int(v))
    return (4, to_string(v).lower(), to_string(v))


def format_number(n: float) -> str:
    if isinstance(n, bool):
        return "true" if n else "false"
    if isinstance(n, int):
        return str(n)
    if math.isnan(n):
        return "NaN"
    if math.isinf(n):
        return "Infinity" if n > 0 else "-Infinity"
    if n == int(n) and abs(n) < 1e21:
        return str(int(n))
    return repr(n)


def to_string(v: Any) -> str:
    if v is None:
        return "null"
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, (int, float)):
        return format_number(v)
    if isinstance(v, str):
        return v
    if isinstance(v, list):
        return ", ".join(to_string(x) for x in v)
    if isinstance(v, dict):
        return "{" + ", ".join(f'"{k}": {to_string(x)}' for k, x in v.items()) + "}"
    if isinstance(v, (Date, Duration)):
        return v.text()
    if isinstance(v, Link):
        return v.text()
    if isinstance(v, FileRef):
        return v.record.path
    if isinstance(v, Regex):
        return f"/{v.source}/{v.flags}"
    if isinstance(v, Rendered):
        return to_string(v.value)
    return str(v)


def cell(v: Any) -> dict[str, Any]:
    """The typed JSON form of a value in a result: {"type": ..., "value": ...}."""
    kind = type_name(v)
    if v is None or isinstance(v, (bool, str)):
        return {"type": kind, "value": v}
    if isinstance(v, (int, float)):
        return {"type": kind, "value": v if math.isfinite(v) else None}
    if isinstance(v, list):
        return {"type": kind, "value": [cell(x) for x in v]}
    if isinstance(v, dict):
        return {"type": kind, "value": {k: cell(x) for k, x in v.items()}}
    if isinstance(v, Date):
        return {"type": kind, "value": v.value.isoformat(timespec="seconds") if v.has_time else v.text()}
    if isinstance(v, Duration):
        return {"type": kind, "value": {"months": v.months, "ms": v.ms}}
    if isinstance(v, Link):
        return {"type": kind, "value": {"target": v.target, "path": v.path, "display": v.display}}
    if isinstance(v, FileRef):
        return {"type": "file", "value": v.record.path}
    return {"type": kind, "value": to_string(v)}
