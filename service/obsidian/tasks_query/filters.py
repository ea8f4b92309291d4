"""One filter of a Tasks query (a line, or an operand of a boolean line) read into a test.

Follows the Tasks plugin's documented meanings: `done` keeps the done, cancelled and non-task
statuses and `not done` the to-do and in-progress ones; a date filter never keeps a task without
that date, except `starts`, which keeps tasks without a start date; `happens` looks at the start,
scheduled and due dates and keeps a task when any of them matches; text filters (`includes`) are
case-insensitive substrings, `regex matches` takes `/pattern/flags`; `tags include` is a substring
of any of the task's tags written with their `#`; `exclude sub-items` keeps the tasks that are not
indented (`record.top_level`). A date filter on one column also carries an SQL condition, so the
index hands over fewer rows.
"""

from __future__ import annotations

import bisect
import posixpath
import re
from collections.abc import Callable
from dataclasses import dataclass
from datetime import date
from typing import TYPE_CHECKING, Any

import regex

from service.budget import compile_regex, regex_call
from service.dates import iso_day_or_none
from service.obsidian.tasks_query import record
from service.obsidian.tasks_query.columns import urgency_of
from service.obsidian.tasks_query.dates import Span, parse_span
from service.obsidian.tasks_query.dependencies import dependency_filter
from service.obsidian.tasks_query.expressions import ExpressionError, Function, compile_expression, truthy
from service.obsidian.tasks_query.record import DATE_FIELDS, OPEN_TYPES, PRIORITY_RANK, TYPE_RANK, TaskRecord

if TYPE_CHECKING:
    import numpy as np

    from service.obsidian.tasks_query.columns import Bools, Columns, Ints
else:
    from service.numpy_lazy import np

Test = Callable[[TaskRecord], bool]
Vector = Callable[["Columns", "Ints"], "Bools"]  # the test over the tasks at these positions, at once


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
    vector: Vector | None = None  # `test` over many tasks at once (None: task by task)


def global_filter(text: str) -> Filter:
    """Only list items whose text contains `text` are tasks (the Tasks plugin's global filter)."""
    return Filter(
        f"global filter: the task contains {text!r}",
        lambda t: text in t.text,
        ("instr(t.text, ?) > 0", (text,)),
        vector=lambda cols, idx: cols.text_mask("text", lambda t: t.text, lambda s: text in s, idx),
    )


def evaluate(f: Filter, cols: Columns, idx: Ints) -> Bools:
    """`f` over the tasks at positions `idx` of `cols`: one array operation where it has one."""
    return f.vector(cols, idx) if f.vector is not None else cols.flags_at(f.test, idx)


@dataclass(frozen=True, slots=True)
class Context:
    """What reading a query needs besides its text."""

    today: date
    closed: tuple[str, ...] = ("x", "-")  # status characters `done` keeps (types done, cancelled, non-task)
    max_depth: int = 64
    line: int = 0  # the line being read (1-based), and its text
    line_text: str = ""


_FUNCTION = re.compile(r"(filter|sort|group)\s+by\s+function(?:\s+(reverse)(?=\s))?\s*", re.IGNORECASE)


def read_function(source: str, offset: int, ctx: Context) -> tuple[Function, bool] | None:
    """`filter|sort|group by function [reverse] <expression>` (`source` starting at 1-based column
    `offset` of its line): the compiled expression and whether it says `reverse`; None for
    another instruction."""
    m = _FUNCTION.match(source)
    if m is None:
        return None
    try:
        node = compile_expression(source[m.end() :], offset + m.end(), ctx.max_depth)
    except ExpressionError as e:
        raise QueryError(e.message, e.column - offset + 1) from None
    return Function(node, source[m.end() :].strip(), ctx.line, ctx.line_text, urgency_of), bool(m.group(2))


_DATE_NAMES = {"starts": "start", "start": "start", "happens": "happens", **{n: n for n in DATE_FIELDS}}
_DATE = re.compile(
    r"(due|scheduled|starts?|happens|done|created|cancelled)(?: date)?"
    r"(?: (on or before|on or after|in or before|in or after|before|after|on|in))?(?: (.+))?",
    re.IGNORECASE,
)
_HAS = re.compile(r"(has|no) (due|scheduled|start|happens|done|created|cancelled) date", re.IGNORECASE)
_INVALID = re.compile(r"(due|scheduled|start|done|created|cancelled) date is invalid", re.IGNORECASE)
_TEXT = re.compile(
    r"(path|description|heading|folder|filename|root|recurrence|id|status\.name)"
    r" (includes|does not include|regex matches|regex does not match)(?: (.*))?",
    re.IGNORECASE,
)
_TAGS = re.compile(
    r"(?:tags?) (includes?|do not include|does not include|regex matches|regex does not match)(?: (.*))?",
    re.IGNORECASE,
)
_PRIORITY = re.compile(r"priority is(?: (above|below|not))? (\w+)", re.IGNORECASE)
_STATUS_TYPE = re.compile(r"status\.type is(?: (not))? (\w+)", re.IGNORECASE)
_UNSUPPORTED = ("blocked by", "status.symbol")


def _within(op: str, span: Span) -> Callable[[str], bool]:
    """A written date's test; an invalid one (2026-02-30) is on no day, as the plugin's invalid moment."""
    first, last = span[0].isoformat(), span[1].isoformat()
    tests: dict[str, Callable[[str], bool]] = {"before": lambda d: d < first, "after": lambda d: d > last,
                                               "on or before": lambda d: d <= last, "on or after": lambda d: d >= first,
                                               "on": lambda d: first <= d <= last}  # fmt: skip
    test = tests.get(op, tests["on"])
    return lambda d: test(d) and iso_day_or_none(d) is not None


def _sql_within(column: str, op: str, span: Span) -> tuple[str, tuple[Any, ...]]:
    first, last = span[0].isoformat(), span[1].isoformat()
    clause, params = {"before": ("< ?", (first,)), "after": ("> ?", (last,)), "on or before": ("<= ?", (last,)),
                      "on or after": (">= ?", (first,))}.get(op, ("BETWEEN ? AND ?", (first, last)))  # fmt: skip
    return f"(t.{column} {clause} AND date(t.{column}) IS t.{column})", params  # an invalid date: on no day


def _code_bounds(distinct: list[str], op: str, first: str, last: str) -> tuple[int, int]:
    """The date codes [lo, hi) that `op` keeps (codes: positions among the written values)."""
    lo = bisect.bisect_left(distinct, first) if op in ("on", "on or after") else 0
    lo = bisect.bisect_right(distinct, last) if op == "after" else lo
    hi = bisect.bisect_right(distinct, last) if op in ("on", "on or before") else len(distinct)
    hi = bisect.bisect_left(distinct, first) if op == "before" else hi
    return lo, hi


def _date_vector(columns: tuple[str, ...], op: str, span: Span, keep_missing: bool = False) -> Vector:
    first, last = span[0].isoformat(), span[1].isoformat()
    op = "on" if op not in ("before", "after", "on or before", "on or after") else op

    def vector(cols: Columns, idx: Ints) -> Bools:
        out: Bools | None = None
        for column in columns:
            distinct, codes = cols.date_codes(column)
            lo, hi = _code_bounds(distinct, op, first, last)
            c = codes[idx]
            m = (c >= lo) & (c < hi) & ~cols.invalid_dates(column)[idx]
            m = m | (c < 0) if keep_missing else m
            out = m if out is None else out | m
        assert out is not None
        return out

    return vector


def _date_filter(m: re.Match[str], source: str, today: date) -> Filter:
    name = _DATE_NAMES[m.group(1).lower()]
    op = (m.group(2) or "on").lower().replace("in or", "on or")  # `in or before <range>`: its last day too
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
        vector = _date_vector(("start", "scheduled", "due"), op, span)
        return Filter(explain + " (start, scheduled or due)", lambda t: any(ok(d) for d in t.happens()), sql,
                      vector=vector)  # fmt: skip
    if name == "start":
        clause, params = _sql_within("start", op, span)
        return Filter(
            explain + " (or no start date)",
            lambda t: t.start is None or ok(t.start),
            (f"(t.start IS NULL OR {clause})", params),
            vector=_date_vector(("start",), op, span, keep_missing=True),
        )

    def test(t: TaskRecord) -> bool:
        value = t.date(name)
        return value is not None and ok(value)

    return Filter(explain, test, _sql_within(name, op, span), vector=_date_vector((name,), op, span))


def _pattern(text: str, at: int) -> regex.Pattern[str]:
    m = re.fullmatch(r"/(.*)/([a-z]*)", text.strip(), re.DOTALL)
    if m is None:
        raise QueryError("a regular expression is written /pattern/ (flags i, m, s after it)", at)
    flags = 0
    for flag in m.group(2):  # JavaScript's g, u, d change nothing a search here reads: accepted, as the plugin does
        if flag not in "imsgud":
            raise QueryError(f"regular-expression flag {flag!r} is not read here (i, m, s; g, u, d change nothing)", at)
        flags |= {"i": regex.IGNORECASE, "m": regex.MULTILINE, "s": regex.DOTALL}.get(flag, 0)
    try:
        return compile_regex(m.group(1), flags)
    except regex.error as e:
        raise QueryError(f"invalid regular expression: {e}", at) from None


def _text_of(field: str) -> Callable[[TaskRecord], str]:
    if field == "path":
        return lambda t: t.path
    if field == "description":
        return lambda t: t.searched_description
    if field == "heading":
        return lambda t: t.heading or ""
    if field == "recurrence":
        return lambda t: t.recurrence or ""
    if field in ("id", "status.name"):
        return (lambda t: t.task_id or "") if field == "id" else (lambda t: t.status_name)
    if field == "filename":
        return lambda t: posixpath.basename(t.path)
    if field == "folder":
        return lambda t: posixpath.dirname(t.path) + "/" if "/" in t.path else "/"
    return lambda t: t.path.split("/", 1)[0] + "/" if "/" in t.path else "/"  # root


class _Match:
    """A test on one string; `on_text` tests the string as prepared: lower-cased when `lowered`
    (`includes` is case-insensitive), as written for a regular expression."""

    def __init__(self, verb: str, value: str, at: int) -> None:
        self.keep = verb in ("includes", "include", "regex matches")  # False: the filter is negated
        self.lowered = not verb.startswith("regex")
        self.needle: str | None = None  # the text looked for (None: a regular expression)
        if not self.lowered:
            pattern = _pattern(value, at)
            self.on_text: Callable[[str], bool] = lambda s: regex_call(pattern, "search", s) is not None
            return
        needle = self.needle = value.strip().lower()
        if not needle:
            raise QueryError("this filter needs some text to look for", at)
        self.on_text = lambda s: needle in s

    def __call__(self, s: str) -> bool:
        return self.on_text(s.lower() if self.lowered else s)


def _text_filter(m: re.Match[str], source: str) -> Filter:
    field, verb = m.group(1).lower(), m.group(2).lower()
    match = _Match(verb, m.group(3) or "", m.start(3) + 1 if m.group(3) else len(source) + 1)
    keep = match.keep
    get = _text_of(field)
    lower = match.lowered

    def vector(cols: Columns, idx: Ints) -> Bools:
        if field in ("path", "folder", "filename", "root") and match.needle is not None:
            found = cols.note_contains(field, get_path, match.needle, idx)
        elif field in ("path", "folder", "filename", "root"):
            found = cols.note_mask(lambda p: match(get_path(p)), idx)
        else:
            name = f"{field}.lower" if lower else field
            text = (lambda t: get(t).lower()) if lower else get
            if match.needle is not None:
                found = cols.contains_mask(name, text, match.needle, idx)
            else:
                found = cols.text_mask(name, text, match.on_text, idx)
        return found if keep else ~found

    get_path = _path_text(field)
    return Filter(
        f"{field} {verb} {(m.group(3) or '').strip()}",
        (lambda t: match(get(t))) if keep else (lambda t: not match(get(t))),
        *_text_sql(field, verb, (m.group(3) or "").strip().lower()),
        heading=field == "heading",
        vector=vector,
    )


def _path_text(field: str) -> Callable[[str], str]:
    """The text a path filter reads, from the note's path."""
    if field == "filename":
        return posixpath.basename
    if field == "folder":
        return lambda p: posixpath.dirname(p) + "/" if "/" in p else "/"
    if field == "root":
        return lambda p: p.split("/", 1)[0] + "/" if "/" in p else "/"
    return lambda p: p


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
    match = _Match(verb, m.group(2) or "", m.start(2) + 1 if m.group(2) else len(source) + 1)
    keep = match.keep

    def any_tag(t: TaskRecord) -> bool:
        return any(match("#" + tag) for tag in t.tags)

    def vector(cols: Columns, idx: Ints) -> Bools:
        if match.lowered:  # a needle without a line break matches within one tag of the joined list
            assert match.needle is not None
            found = cols.contains_mask("tags.lower", record.joined_tags, match.needle, idx)
        else:
            found = cols.flags_at(any_tag, idx)
        return found if keep else ~found

    needle = (m.group(2) or "").strip().lower().lstrip("#")
    sql = ("instr(lower(t.tags), ?) > 0", (needle,)) if keep and needle.isascii() and needle else None
    explain = f"tags {verb} {(m.group(2) or '').strip()}"
    return Filter(explain, any_tag if keep else (lambda t: not any_tag(t)), sql, exact=False, vector=vector)


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
    table = [keep(r) for r in range(len(PRIORITY_RANK))]
    return Filter(
        f"priority is {how + ' ' if how else ''}{level}",
        lambda t: keep(t.priority_rank),
        sql,
        vector=lambda cols, idx: np.array(table)[cols.priority[idx]],
    )


def _any_written(cols: Columns, idx: Ints) -> Bools:  # `has happens date`: an invalid date written counts
    found = [cols.date_codes(c)[1][idx] >= 0 for c in ("start", "scheduled", "due")]
    return found[0] | found[1] | found[2]


def _has_filter(m: re.Match[str]) -> Filter:
    has, name = m.group(1).lower() == "has", m.group(2).lower()
    if name == "happens":
        sql = "t.start IS NOT NULL OR t.scheduled IS NOT NULL OR t.due IS NOT NULL"
        return Filter(f"{m.group(1).lower()} happens date", lambda t: bool(t.happens()) == has,
                      (sql if has else f"NOT ({sql})", ()),
                      vector=lambda cols, idx: _any_written(cols, idx) == has)  # fmt: skip
    clause = f"t.{name} IS {'NOT ' if has else ''}NULL"
    return Filter(
        f"{m.group(1).lower()} {name} date",
        lambda t: (t.date(name) is not None) == has,
        (clause, ()),
        vector=lambda cols, idx: (cols.date_codes(name)[1][idx] >= 0) == has,
    )


def parse_filter(source: str, ctx: Context) -> Filter:
    """The filter `source` states (one instruction, already stripped)."""
    text = " ".join(source.split())
    lower = text.lower()
    if lower in ("done", "not done"):
        wanted = lower == "not done"
        marks = ",".join("?" * len(ctx.closed))
        sql = f"t.status {'NOT ' if wanted else ''}IN ({marks})" if ctx.closed else ("1" if wanted else "0")
        return Filter(lower, lambda t: (t.kind in OPEN_TYPES) == wanted, (sql, ctx.closed),
                      vector=lambda cols, idx: cols.open[idx] == wanted)  # fmt: skip
    if lower in ("is recurring", "is not recurring"):
        wanted = lower == "is recurring"
        return Filter(lower, lambda t: (t.recurrence is not None) == wanted,
                      vector=lambda cols, idx: cols.flags("recurring", record.is_recurring)[idx] == wanted)  # fmt: skip
    if lower == "exclude sub-items":
        return Filter(lower, record.top_level, (record.TOP_LEVEL_SQL, ()),
                      vector=lambda cols, idx: cols.flags("top level", record.top_level)[idx])  # fmt: skip
    if lower in ("has tags", "no tags"):
        wanted = lower == "has tags"
        return Filter(lower, lambda t: bool(t.tags) == wanted,
                      vector=lambda cols, idx: cols.flags("tagged", record.has_tags)[idx] == wanted)  # fmt: skip
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
        if kind not in TYPE_RANK:
            raise QueryError(f"unknown status type {m.group(2)!r}", m.start(2) + 1)
        rank = TYPE_RANK[kind]
        return Filter(lower, lambda t: (t.kind == kind) != negate,
                      vector=lambda cols, idx: (cols.type_rank[idx] == rank) != negate)  # fmt: skip
    if (found := read_function(source, 1, ctx)) is not None:
        function, _ = found
        if not lower.startswith("filter"):
            raise QueryError(f"'{lower.split(' by ')[0]} by function' is a line of its own, not a filter")
        today = ctx.today
        return Filter(f"filter by function {function.source}", lambda t: truthy(function(t, today)),
                      heading="heading" in function.source.lower())  # fmt: skip
    if (dependency := dependency_filter(text)) is not None:
        return Filter(dependency[0], dependency[1], vector=dependency[2])
    for start in _UNSUPPORTED:
        if lower.startswith(start):
            raise QueryError(f"'{start.strip()}' is a Tasks instruction this server does not evaluate")
    raise QueryError(f"do not understand the filter {text!r}")
