"""One filter of a Tasks query (a line, or an operand of a boolean line) read into a test.

Follows the Tasks plugin's documented meanings: `done` keeps the done, cancelled and non-task
statuses and `not done` the to-do and in-progress ones; a date filter never keeps a task without
that date, except `starts`, which keeps tasks without a start date; `happens` looks at the start,
scheduled and due dates and keeps a task when any of them matches; text filters (`includes`) are
case-insensitive substrings, `regex matches` takes `/pattern/flags`; `tags include` is a substring
of any of the task's tags written with their `#`. A date filter on one column also carries an SQL
condition, so the index hands over fewer rows.
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Callable
from dataclasses import dataclass
from datetime import date
from typing import Any

import regex

from service.budget import regex_call
from service.dates import iso_day_or_none
from service.obsidian.tasks_query.dates import Span, parse_span
from service.obsidian.tasks_query.record import DATE_FIELDS, OPEN_TYPES, PRIORITY_RANK, TaskRecord

Test = Callable[[TaskRecord], bool]


class QueryError(Exception):
    """A line the query language does not read; `column` is 1-based within the line (0: whole line)."""

    def __init__(self, message: str, column: int = 0) -> None:
        super().__init__(message)
        self.message = message
        self.column = column


@dataclass(frozen=True, slots=True)
class Filter:
    explain: str
    test: Test
    sql: tuple[str, tuple[Any, ...]] | None = None  # rows the test may keep are among those this selects
    exact: bool = True  # `sql` selects exactly what `test` keeps (False: a wider first cut)
    heading: bool = False  # reads the task's heading (looked up only when a filter needs it)


@dataclass(frozen=True, slots=True)
class Context:
    """What reading a query needs besides its text."""

    today: date
    closed: tuple[str, ...] = ("x", "X", "-")  # status characters `done` keeps (types done, cancelled, non-task)
    max_depth: int = 64


_DATE_NAMES = {"starts": "start", "start": "start", "happens": "happens", **{n: n for n in DATE_FIELDS}}
_DATE = re.compile(
    r"(due|scheduled|starts?|happens|done|created|cancelled)(?: date)?"
    r"(?: (on or before|on or after|before|after|on|in))?(?: (.+))?",
    re.IGNORECASE,
)
_HAS = re.compile(r"(has|no) (due|scheduled|start|happens|done|created|cancelled) date", re.IGNORECASE)
_INVALID = re.compile(r"(due|scheduled|start|done|created|cancelled) date is invalid", re.IGNORECASE)
_TEXT = re.compile(
    r"(path|description|heading|folder|filename|root|recurrence)"
    r" (includes|does not include|regex matches|regex does not match)(?: (.*))?",
    re.IGNORECASE,
)
_TAGS = re.compile(
    r"(?:tags?) (includes?|do not include|does not include|regex matches|regex does not match)(?: (.*))?",
    re.IGNORECASE,
)
_PRIORITY = re.compile(r"priority is(?: (above|below|not))? (\w+)", re.IGNORECASE)
_STATUS_TYPE = re.compile(r"status\.type is(?: (not))? (\w+)", re.IGNORECASE)
_UNSUPPORTED = ("filter by function", "exclude sub-items", "is blocking", "is not blocking", "is blocked",
                "is not blocked", "blocked by", "has id", "no id", "id ", "status.name", "status.symbol")  # fmt: skip


def _within(op: str, span: Span) -> Callable[[str], bool]:
    first, last = span[0].isoformat(), span[1].isoformat()
    if op == "before":
        return lambda d: d < first
    if op == "after":
        return lambda d: d > last
    if op == "on or before":
        return lambda d: d <= last
    if op == "on or after":
        return lambda d: d >= first
    return lambda d: first <= d <= last


def _sql_within(column: str, op: str, span: Span) -> tuple[str, tuple[Any, ...]]:
    first, last = span[0].isoformat(), span[1].isoformat()
    if op == "before":
        return f"t.{column} < ?", (first,)
    if op == "after":
        return f"t.{column} > ?", (last,)
    if op == "on or before":
        return f"t.{column} <= ?", (last,)
    if op == "on or after":
        return f"t.{column} >= ?", (first,)
    return f"t.{column} BETWEEN ? AND ?", (first, last)


def _date_filter(m: re.Match[str], source: str, today: date) -> Filter:
    name = _DATE_NAMES[m.group(1).lower()]
    op = (m.group(2) or "on").lower()
    phrase = m.group(3)
    if not phrase:
        raise QueryError(f"{m.group(1)} filter needs a date", len(source) + 1)
    span = parse_span(phrase, today)
    if span is None and op == "in":  # `due in two weeks`: a day counted from today, not a range
        span, op = parse_span("in " + phrase, today), "on"
    if span is None:
        raise QueryError(f"cannot read {phrase.strip()!r} as a date", m.start(3) + 1)
    ok = _within(op, span)
    first, last = span[0].isoformat(), span[1].isoformat()
    shown = {"before": first, "on or after": first, "after": last, "on or before": last}.get(op)
    shown = shown or (first if first == last else f"{first} to {last}")
    explain = f"{name} date {op} {shown}"
    if name == "happens":
        parts = [_sql_within(column, op, span) for column in ("start", "scheduled", "due")]
        sql = (" OR ".join(f"({c})" for c, _ in parts), tuple(p for _, ps in parts for p in ps))
        return Filter(explain + " (start, scheduled or due)", lambda t: any(ok(d) for d in t.happens()), sql)
    if name == "start":
        clause, params = _sql_within("start", op, span)
        return Filter(
            explain + " (or no start date)",
            lambda t: t.start is None or ok(t.start),
            (f"(t.start IS NULL OR {clause})", params),
        )

    def test(t: TaskRecord) -> bool:
        value = t.date(name)
        return value is not None and ok(value)

    return Filter(explain, test, _sql_within(name, op, span))


def _pattern(text: str, at: int) -> regex.Pattern[str]:
    m = re.fullmatch(r"/(.*)/([a-z]*)", text.strip(), re.DOTALL)
    if m is None:
        raise QueryError("a regular expression is written /pattern/ (flags i, m, s after it)", at)
    flags = 0
    for flag in m.group(2):
        if flag not in "ims":
            raise QueryError(f"unknown regular-expression flag {flag!r}", at)
        flags |= {"i": regex.IGNORECASE, "m": regex.MULTILINE, "s": regex.DOTALL}[flag]
    try:
        return regex.compile(m.group(1), flags)
    except regex.error as e:
        raise QueryError(f"invalid regular expression: {e}", at) from None


def _text_of(field: str) -> Callable[[TaskRecord], str]:
    if field == "path":
        return lambda t: t.path
    if field == "description":
        return lambda t: t.description
    if field == "heading":
        return lambda t: t.heading or ""
    if field == "recurrence":
        return lambda t: t.recurrence or ""
    if field == "filename":
        return lambda t: posixpath.basename(t.path)
    if field == "folder":
        return lambda t: posixpath.dirname(t.path) + "/" if "/" in t.path else "/"
    return lambda t: t.path.split("/", 1)[0] + "/" if "/" in t.path else "/"  # root


def _matcher(verb: str, value: str, at: int) -> tuple[Callable[[str], bool], bool]:
    """A test on one string, and whether the filter keeps what it matches (False: negated)."""
    keep = verb in ("includes", "include", "regex matches")
    if verb.startswith("regex"):
        pattern = _pattern(value, at)
        return (lambda s: regex_call(pattern, "search", s) is not None), keep
    needle = value.strip().lower()
    if not needle:
        raise QueryError("this filter needs some text to look for", at)
    return (lambda s: needle in s.lower()), keep


def _text_filter(m: re.Match[str], source: str) -> Filter:
    field, verb = m.group(1).lower(), m.group(2).lower()
    match, keep = _matcher(verb, m.group(3) or "", m.start(3) + 1 if m.group(3) else len(source) + 1)
    get = _text_of(field)
    return Filter(
        f"{field} {verb} {(m.group(3) or '').strip()}",
        (lambda t: match(get(t))) if keep else (lambda t: not match(get(t))),
        *_text_sql(field, verb, (m.group(3) or "").strip().lower()),
        heading=field == "heading",
    )


def _text_sql(field: str, verb: str, needle: str) -> tuple[tuple[str, tuple[Any, ...]] | None, bool]:
    """SQL for `path` (exact) and `description` (a first cut on the whole task text) includes,
    for plain ASCII text (SQLite's lower() folds ASCII only)."""
    if verb.startswith("regex") or not needle.isascii() or not needle:
        return None, True
    if field == "path":
        return (f"instr(lower(n.path), ?) {'>' if verb == 'includes' else '='} 0", (needle,)), True
    if field == "description" and verb == "includes" and len(needle.split()) == 1:
        return ("instr(lower(t.text), ?) > 0", (needle,)), False
    return None, True


def _tags_filter(m: re.Match[str], source: str) -> Filter:
    verb = m.group(1).lower().replace("does not", "do not")
    verb = "include" if verb in ("include", "includes") else verb
    match, keep = _matcher(verb, m.group(2) or "", m.start(2) + 1 if m.group(2) else len(source) + 1)

    def any_tag(t: TaskRecord) -> bool:
        return any(match("#" + tag) for tag in t.tags)

    needle = (m.group(2) or "").strip().lower().lstrip("#")
    sql = ("instr(lower(t.tags), ?) > 0", (needle,)) if keep and needle.isascii() and needle else None
    explain = f"tags {verb} {(m.group(2) or '').strip()}"
    return Filter(explain, any_tag if keep else (lambda t: not any_tag(t)), sql, exact=False)


def _priority_filter(m: re.Match[str]) -> Filter:
    level = m.group(2).lower()
    level = "none" if level == "normal" else level
    if level not in PRIORITY_RANK:
        raise QueryError(f"unknown priority {m.group(2)!r} (highest, high, medium, none, low, lowest)", m.start(2) + 1)
    rank, how = PRIORITY_RANK[level], (m.group(1) or "").lower()
    keeps: dict[str, Callable[[int], bool]] = {
        "above": lambda r: r < rank,
        "below": lambda r: r > rank,
        "not": lambda r: r != rank,
        "": lambda r: r == rank,
    }
    keep = keeps[how]
    levels = [p for p, r in PRIORITY_RANK.items() if keep(r)]
    named = [p for p in levels if p != "none"]
    parts = [f"t.priority IN ({','.join('?' * len(named))})"] if named else []
    parts += ["t.priority IS NULL"] if "none" in levels else []
    sql = (" OR ".join(parts) or "0", tuple(named))
    return Filter(f"priority is {how + ' ' if how else ''}{level}", lambda t: keep(t.priority_rank), sql)


def _has_filter(m: re.Match[str]) -> Filter:
    has, name = m.group(1).lower() == "has", m.group(2).lower()
    if name == "happens":
        sql = "t.start IS NOT NULL OR t.scheduled IS NOT NULL OR t.due IS NOT NULL"
        return Filter(f"{m.group(1).lower()} happens date", lambda t: bool(t.happens()) == has,
                      (sql if has else f"NOT ({sql})", ()))  # fmt: skip
    clause = f"t.{name} IS {'NOT ' if has else ''}NULL"
    return Filter(f"{m.group(1).lower()} {name} date", lambda t: (t.date(name) is not None) == has, (clause, ()))


def parse_filter(source: str, ctx: Context) -> Filter:
    """The filter `source` states (one instruction, already stripped)."""
    text = " ".join(source.split())
    lower = text.lower()
    if lower in ("done", "not done"):
        wanted = lower == "not done"
        marks = ",".join("?" * len(ctx.closed))
        sql = f"t.status {'NOT ' if wanted else ''}IN ({marks})" if ctx.closed else ("1" if wanted else "0")
        return Filter(lower, lambda t: (t.kind in OPEN_TYPES) == wanted, (sql, ctx.closed))
    if lower in ("is recurring", "is not recurring"):
        wanted = lower == "is recurring"
        return Filter(lower, lambda t: (t.recurrence is not None) == wanted)
    if lower in ("has tags", "no tags"):
        wanted = lower == "has tags"
        return Filter(lower, lambda t: bool(t.tags) == wanted)
    if m := _HAS.fullmatch(text):
        return _has_filter(m)
    if m := _INVALID.fullmatch(text):
        name = m.group(1).lower()
        return Filter(lower, lambda t: (v := t.date(name)) is not None and iso_day_or_none(v) is None)
    if m := _DATE.fullmatch(text):
        return _date_filter(m, text, ctx.today)
    if m := _TEXT.fullmatch(text):
        return _text_filter(m, text)
    if m := _TAGS.fullmatch(text):
        return _tags_filter(m, text)
    if m := _PRIORITY.fullmatch(text):
        return _priority_filter(m)
    if m := _STATUS_TYPE.fullmatch(text):
        kind, negate = m.group(2).lower(), bool(m.group(1))
        if kind not in ("todo", "in_progress", "done", "cancelled", "non_task"):
            raise QueryError(f"unknown status type {m.group(2)!r}", m.start(2) + 1)
        return Filter(lower, lambda t: (t.kind == kind) != negate)
    for start in _UNSUPPORTED:
        if lower.startswith(start):
            raise QueryError(f"'{start.strip()}' is a Tasks instruction this server does not evaluate")
    raise QueryError(f"do not understand the filter {text!r}")
