"""Task records held column by column, so that a query filters, sorts and groups tens of thousands
of tasks with array operations instead of a Python call per task.

Built once over records in the base order (status type, due date, priority, path, line): a task's
position is therefore the last sort key of every order. Each column is derived the first time a
query needs it and kept with the records (the same for every caller; ACL narrowing is the
caller's index list). Dates are held as codes: the position of the written value among the
column's distinct values in string order (-1: no date), so a comparison against an ISO day is a
comparison of integers and keeps the string semantics of the per-task tests exactly.
"""

from __future__ import annotations

import posixpath
import re
import string
import unicodedata
from collections.abc import Callable, Hashable, Sequence
from datetime import date
from itertools import repeat
from typing import TYPE_CHECKING, Any

from service.dates import iso_day_or_none
from service.obsidian.tasks_query.record import OPEN_TYPES, TYPE_RANK, TaskRecord

if TYPE_CHECKING:
    import numpy as np
    from numpy.typing import NDArray

    Ints = NDArray[np.int64]
    Bools = NDArray[np.bool_]
else:
    from service.numpy_lazy import np

    Ints = Bools = Any

# Urgency as the Tasks plugin documents it, in units of 1/2100 so that every score is an integer
# (the index computes the same integers in SQL: equal scores tie in both, to the last task).
URGENCY_SCALE = 2100
URGENCY_PRIORITY = {"highest": 18900, "high": 12600, "medium": 8190, "none": 4095, "low": 0, "lowest": -3780}
URGENCY_SCHEDULED = 10500  # scheduled today or earlier (5.0)
URGENCY_STARTS_LATER = -6300  # starts after today (-3.0)


def urgency_of_due(days_late: int) -> int:
    """The due date's share: 12.0 from 7 days late, 2.4 from 14 days ahead, linear between."""
    return (min(max(days_late, -14), 7) + 14) * 960 + 5040


def urgency_of(t: TaskRecord, today: date) -> float:
    """One task's urgency score (as `Columns.urgency`, for one task)."""
    due = iso_day_or_none(t.due) if t.due is not None else None
    score = urgency_of_due(today.toordinal() - due.toordinal()) if due is not None else 0
    score += URGENCY_PRIORITY[t.priority or "none"]
    iso = today.isoformat()
    if t.scheduled is not None and iso_day_or_none(t.scheduled) is not None and t.scheduled <= iso:
        score += URGENCY_SCHEDULED
    if t.start is not None and iso_day_or_none(t.start) is not None and t.start > iso:
        score += URGENCY_STARTS_LATER
    return score / URGENCY_SCALE


def _int32(n: int) -> int:
    n &= 0xFFFFFFFF
    return n - (1 << 32) if n & 0x80000000 else n


def random_key(text: str) -> int:
    """The plugin's `sort by random` key of `text` (its tinySimpleHash over UTF-16 code units,
    JavaScript's 32-bit arithmetic): the same order as Obsidian's for the same day and descriptions."""
    h = 9
    units = text.encode("utf-16-le")
    for i in range(0, len(units), 2):
        h = _int32((h ^ (units[i] | units[i + 1] << 8)) * 387_420_489)  # Math.imul(h ^ c, 9 ** 9)
    u = h & 0xFFFFFFFF
    return _int32(u ^ (u >> 9))  # h ^ (h >>> 9)


def dense_rank(values: Sequence[Hashable]) -> Ints:
    """Each value's position among the distinct values in sorted order (equal values, equal rank)."""
    position = {v: i for i, v in enumerate(sorted(set(values)))}  # type: ignore[type-var]
    return np.fromiter((position[v] for v in values), dtype=np.int64, count=len(values))


_RUNS = re.compile(r"\d+|\D+")


def natural_key(text: str) -> tuple[Any, ...]:
    """`text` compared as the Tasks plugin compares ids (a numeric locale comparison): runs of
    digits by their value and before letters ('9' before '11'), letters without regard to case,
    then the text as written."""
    runs = tuple((0, int(r), "") if r.isdigit() else (1, 0, r.lower()) for r in _RUNS.findall(text))
    return (runs, text)


# The order of ASCII spaces and punctuation in Unicode's default collation (CLDR root), which
# JavaScript's `localeCompare` follows: all of them before digits, digits before letters. A key
# maps them to the characters 1, 2, … (below digits and letters), a run of digits to 'F', its length
# and its digits (so 9 < 10), letters to lower case without accents.
_ORDERED = "\t\n _-,;:!?.'\"()[]{}@*/\\&#%`^+<=>|~$"
_PUNCTUATION = {ord(c): chr(1 + i) for i, c in enumerate(_ORDERED)}
_ASCII = bytes.maketrans(
    (_ORDERED + string.ascii_uppercase).encode(), bytes(range(1, len(_ORDERED) + 1)) + string.ascii_lowercase.encode()
)
_DIGIT_RUN = re.compile(r"\d+")


def _digits(m: re.Match[str]) -> str:
    run = m.group().lstrip("0") or "0"
    return "F" + chr(0x47 + len(run)) + run


_LEADING_LINK = re.compile(r"^\[\[?([^\]]*)]]?")
_LEADING_MARKUP = tuple(
    re.compile(p) for p in (r"^\*\*([^*]+)\*\*", r"^\*([^*]+)\*", r"^==([^=]+)==", r"^__([^_]+)__", r"^_([^_]+)_")
)


def clean_description(text: str) -> str:
    """What `sort by description` compares (the plugin's DescriptionField.cleanDescription): a
    leading link as its shown text, then leading bold, italic and highlight markup without its marks."""
    if text[:1] not in ("[", "*", "=", "_"):  # most descriptions: nothing to take off
        return text
    if (m := _LEADING_LINK.match(text)) is not None:
        inner = m.group(1)
        text = inner[inner.find("|") + 1 :] + text[m.end() :]
    for pattern in _LEADING_MARKUP:
        if (m := pattern.match(text)) is not None:
            text = m.group(1) + text[m.end() :]
    return text


def _nth_tag(tags: list[str], nth: int) -> tuple[int, tuple[str, str]]:
    """`sort by tag N` (the plugin's makeCompareByTagComparator): tasks with an Nth tag by it, then
    those with fewer tags (alike), then those with none."""
    return (0, locale_key(tags[nth - 1])) if len(tags) >= nth else (1 if tags else 2, ("", ""))


def locale_key(text: str) -> tuple[str, str]:
    """`text` in the order of JavaScript's `a.localeCompare(b, undefined, {numeric: true})`, the order
    the Tasks plugin gives group names (TaskGroups.sortTaskGroups) and compares texts in: spaces and
    punctuation first (`(No tags)` before `#tag`), runs of digits by their value ('every 3 weeks'
    before 'every 10 days'), letters without regard to accents or case, then lower case first."""
    if text.isascii():  # most texts: one pass in C
        primary = text.encode().translate(_ASCII).decode()
    else:
        plain = "".join(c for c in unicodedata.normalize("NFD", text) if not unicodedata.combining(c))
        primary = plain.casefold().translate(_PUNCTUATION)
    if not primary.isalpha():
        primary = _DIGIT_RUN.sub(_digits, primary)
    return primary, text.swapcase()


class Columns:
    def __init__(self, records: list[TaskRecord]) -> None:
        self.records = records
        self.n = len(records)
        paths: dict[str, int] = {}
        self.note = np.fromiter((paths.setdefault(t.path, len(paths)) for t in records), np.int64, self.n)
        self.paths = list(paths)
        self.type_rank = np.fromiter((TYPE_RANK[t.kind] for t in records), np.int64, self.n)
        self.priority = np.fromiter((t.priority_rank for t in records), np.int64, self.n)
        self.all = np.arange(self.n, dtype=np.int64)
        self.headings_placed = False  # set by whoever places every record's heading
        self.properties_placed = False  # … and its note's properties
        self.links_placed = False  # … and its note's links (`links.NoteLinks`)
        self.heading_notes: set[int] = set()  # notes whose tasks have their headings placed
        self._cache: dict[Hashable, Any] = {}

    def _memo(self, key: Hashable, build: Callable[[], Any]) -> Any:
        found = self._cache.get(key)
        if found is None:
            found = self._cache[key] = build()
        return found

    def tasks_of_notes(self, notes: list[int]) -> list[TaskRecord]:
        """Every task of these notes (by note number)."""

        def build() -> list[list[int]]:
            by_note: list[list[int]] = [[] for _ in self.paths]
            for i, k in enumerate(self.note.tolist()):
                by_note[k].append(i)
            return by_note

        by_note = self._memo("by note", build)
        return [self.records[i] for k in notes for i in by_note[k]]

    # -- per task ---------------------------------------------------------------------------

    @property
    def open(self) -> Bools:
        open_ranks = np.array([TYPE_RANK[k] for k in OPEN_TYPES])
        return self._memo("open", lambda: np.isin(self.type_rank, open_ranks))  # type: ignore[no-any-return]

    def flags(self, name: str, test: Callable[[TaskRecord], bool]) -> Bools:
        """A yes/no fact of every task, kept under `name`."""
        return self._memo(("flag", name), lambda: np.fromiter(map(test, self.records), np.bool_, self.n))  # type: ignore[no-any-return]

    def strings(self, name: str, get: Callable[[TaskRecord], str]) -> list[str]:
        """A text of every task, kept under `name`."""
        return self._memo(("text", name), lambda: [get(t) for t in self.records])  # type: ignore[no-any-return]

    def date_codes(self, name: str) -> tuple[list[str], Ints]:
        """The distinct written values of a date column in string order, and each task's code."""

        def build() -> tuple[list[str], Ints]:
            values = [t.date(name) for t in self.records]  # happens: the earliest valid of the three
            distinct = sorted({v for v in values if v is not None})
            position = {v: i for i, v in enumerate(distinct)}
            codes = np.fromiter((-1 if v is None else position[v] for v in values), np.int64, self.n)
            return distinct, codes

        return self._memo(("date", name), build)  # type: ignore[no-any-return]

    def invalid_dates(self, name: str) -> Bools:
        """Which tasks' date `name` is written but names no day (2026-02-30): the plugin's invalid date."""

        def build() -> Bools:
            distinct, codes = self.date_codes(name)
            bad = np.array([iso_day_or_none(v) is None for v in distinct] + [False], dtype=np.bool_)
            return bad[codes]  # code -1 (no date) reads the trailing False

        return self._memo(("invalid", name), build)  # type: ignore[no-any-return]

    def note_mask(self, test: Callable[[str], bool], idx: Ints) -> Bools:
        """`test` of the note path of each task at `idx`, asked once per note."""
        per_note = np.fromiter(map(test, self.paths), np.bool_, len(self.paths))
        return per_note[self.note[idx]]

    def flags_at(self, test: Callable[[TaskRecord], bool], idx: Ints) -> Bools:
        """`test` of each task at `idx`, task by task."""
        records = self.records
        return np.fromiter((test(records[i]) for i in idx.tolist()), np.bool_, len(idx))

    def note_contains(self, name: str, get: Callable[[str], str], needle: str, idx: Ints) -> Bools:
        """Whether a lower-cased text of the note of each task at `idx` (`get` of its path, kept
        under `name`) contains `needle`."""
        texts = self._memo(("note text", name), lambda: [get(p).lower() for p in self.paths])
        per_note = np.fromiter(map(str.__contains__, texts, repeat(needle)), np.bool_, len(self.paths))
        return per_note[self.note[idx]]

    def contains_mask(self, name: str, get: Callable[[TaskRecord], str], needle: str, idx: Ints) -> Bools:
        """Whether a text of each task at `idx` (kept under `name`) contains `needle`: one C-level
        pass over every task's text when `idx` holds many of them."""
        texts = self.strings(name, get)
        if len(idx) * 4 < self.n:
            return np.fromiter((needle in texts[i] for i in idx.tolist()), np.bool_, len(idx))
        found = np.fromiter(map(str.__contains__, texts, repeat(needle)), np.bool_, self.n)
        return found if len(idx) == self.n else found[idx]

    def text_mask(self, name: str, get: Callable[[TaskRecord], str], test: Callable[[str], bool], idx: Ints) -> Bools:
        """`test` of a text of each task at `idx` (the texts kept under `name`)."""
        texts = self.strings(name, get)
        return np.fromiter((test(texts[i]) for i in idx.tolist()), np.bool_, len(idx))

    # -- sort keys (ascending; smaller first) ------------------------------------------------

    def sort_key(self, name: str, today: date) -> Ints:
        if name == "urgency":
            if ("urgency", today) not in self._cache:  # a few days kept, not one array per day ever asked
                # Queries run in worker threads, two at once: the keys are copied before they are
                # read, and a day another query dropped meanwhile is gone already.
                days = [k for k in list(self._cache) if isinstance(k, tuple) and k[0] == "urgency"]
                for k in days[: max(0, len(days) - 3)]:
                    self._cache.pop(k, None)
            return self._memo(("urgency", today), lambda: -self.urgency(today))  # type: ignore[no-any-return]
        if name == "random":  # the plugin's: a hash of the day and the description, another order each day
            day = today.isoformat() + " "
            return np.fromiter((random_key(day + t.description) for t in self.records), np.int64, self.n)
        return self._memo(("sort", name), lambda: self._sort_key(name))  # type: ignore[no-any-return]

    def _sort_key(self, name: str) -> Ints:
        if name in ("due", "scheduled", "start", "done", "created", "cancelled", "happens"):
            distinct, codes = self.date_codes(name)  # invalid dates first, as the plugin sorts them
            return np.where(self.invalid_dates(name), -1, np.where(codes < 0, len(distinct), codes))
        if name == "status":
            return (~self.open).astype(np.int64)
        if name == "status.type":
            return self.type_rank
        if name == "priority":
            return self.priority
        if name == "path":  # texts as the plugin's comparators order them: localeCompare with numbers
            return dense_rank([locale_key(p) for p in self.paths])[self.note]
        if name == "filename":
            return dense_rank([locale_key(posixpath.basename(p)) for p in self.paths])[self.note]
        if name == "recurring":
            return np.fromiter((t.recurrence is None for t in self.records), np.int64, self.n)
        if name == "tag" or name.startswith("tag "):  # `sort by tag N`: by the Nth tag (the plugin's comparator)
            nth = int(name[4:] or 1)
            return dense_rank([_nth_tag(t.tags, nth) for t in self.records])
        keys: dict[str, Callable[[TaskRecord], Hashable]] = {
            "description": lambda t: locale_key(clean_description(t.searched_description)),
            "status.name": lambda t: locale_key(t.status_name),
            "heading": lambda t: locale_key(t.heading or ""),  # none: '' first, as the plugin compares ''
            "id": lambda t: natural_key(t.task_id or ""),  # no id: '' first, as the plugin compares ''
        }
        return dense_rank([keys[name](t) for t in self.records])

    def urgency(self, today: date) -> Ints:
        """Each task's urgency score times URGENCY_SCALE, counted from `today`."""
        iso, day = today.isoformat(), today.toordinal()
        distinct, codes = self.date_codes("due")
        by_value = [
            urgency_of_due(day - d.toordinal()) if (d := iso_day_or_none(v)) is not None else 0 for v in distinct
        ]
        due = np.array([*by_value, 0], dtype=np.int64)[codes]  # code -1 reads the trailing 0
        prio = np.array([URGENCY_PRIORITY[p] for p in ("highest", "high", "medium", "none", "low", "lowest")])
        score = due + prio[self.priority]
        sched_values, sched = self.date_codes("scheduled")
        ok = np.array([iso_day_or_none(v) is not None and v <= iso for v in sched_values] + [False])
        score = score + np.where(ok[sched], URGENCY_SCHEDULED, 0)
        start_values, start = self.date_codes("start")
        later = np.array([iso_day_or_none(v) is not None and v > iso for v in start_values] + [False])
        return score + np.where(later[start], URGENCY_STARTS_LATER, 0)  # type: ignore[no-any-return]

    # -- groups ------------------------------------------------------------------------------

    def groups(self, name: str, of: Callable[[TaskRecord], tuple[Any, str]]) -> tuple[Ints, Ints, list[str]]:
        """Under `group by <name>` (one group a task): each task's group number, each group's rank
        in group order, and each group's name."""

        def build() -> tuple[Ints, Ints, list[str]]:
            number: dict[str, int] = {}
            orders: list[Any] = []
            ids = np.empty(self.n, dtype=np.int64)
            for i, t in enumerate(self.records):
                order, label = of(t)
                found = number.get(label)
                if found is None:
                    found = number[label] = len(orders)
                    orders.append(order)
                ids[i] = found
            rank = np.empty(len(orders), dtype=np.int64)
            rank[sorted(range(len(orders)), key=orders.__getitem__)] = np.arange(len(orders))
            return ids, rank, list(number)

        return self._memo(("group", name), build)  # type: ignore[no-any-return]
