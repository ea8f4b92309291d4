"""Task lines as Obsidian and the Tasks plugin write them: read their fields, edit them in place.

A task is a list item with a one-character status between brackets (`- [ ] call`, `1. [x] done`,
also inside blockquotes and callouts: `> - [/] draft`). Its fields come in the Tasks plugin's two
formats, read alike and written back in the format the task already uses:

- emoji: 📅 due, ⏳ scheduled, 🛫 start, ➕ created, ✅ done, ❌ cancelled, 🔁 recurrence, 🆔 id,
  ⛔ depends on (comma-separated ids), 🏁 on completion, priority 🔺 ⏫ 🔼 🔽 ⏬;
- Dataview inline fields, in brackets or parentheses: `[due:: 2026-11-30]`, `(scheduled:: …)`,
  `start`, `created`, `completion`, `cancelled`, `repeat`, `id`, `dependsOn`, `onCompletion`,
  `priority` (highest/high/medium/low/lowest).

The Tasks plugin reads only the format its settings select (`taskFormat`: the emoji by default, or
'dataview'): the readers take that format (`fmt`), and None reads both (a vault without the plugin's
settings, and Dataview's own reading).

Pure functions over one line's text; whether a line is in a code block is the parser's business
(`service.markdown.parse`). Editing touches only the status character and the field it changes:
a new field goes at the end of the line, before a trailing block id (`^abc`), as the Tasks plugin
appends its done date.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Literal

Style = Literal["emoji", "dataview"]

# The line: prefix (indent, blockquote markers, bullet or number, '['), status, '] ', body.
TASK_LINE = re.compile(r"^((?:[ \t]*>)*[ \t]*(?:[-*+]|\d+[.)])[ \t]+\[)(.)(\][ \t]+)(.*)$")
DATE = r"\d{4}-\d{2}-\d{2}"
DATE_FIELDS = ("due", "scheduled", "start", "created", "done", "cancelled")
EMOJI = {
    "due": "📅",
    "scheduled": "⏳",
    "start": "🛫",
    "created": "➕",
    "done": "✅",
    "cancelled": "❌",
    "recurrence": "🔁",
    "id": "🆔",
    "depends_on": "⛔",
    "on_completion": "🏁",
}
# Alternative spellings the Tasks plugin reads for a field (variation selectors, hourglass).
_EMOJI_ALT = {"due": "📆🗓", "scheduled": "⌛", "start": "", "done": "", "cancelled": ""}
PRIORITY_EMOJI = {"🔺": "highest", "⏫": "high", "🔼": "medium", "🔽": "low", "⏬": "lowest"}
PRIORITIES = ("highest", "high", "medium", "none", "low", "lowest")  # most to least urgent
DATAVIEW_KEY = {
    "due": "due",
    "scheduled": "scheduled",
    "start": "start",
    "created": "created",
    "done": "completion",
    "cancelled": "cancelled",
    "recurrence": "repeat",
    "id": "id",
    "depends_on": "dependsOn",
    "on_completion": "onCompletion",
    "priority": "priority",
}
_FROM_DATAVIEW = {v.lower(): k for k, v in DATAVIEW_KEY.items()}
_INLINE = re.compile(r"([\[(])\s*([A-Za-z][\w -]*?)\s*::\s*([^\])]*?)\s*([\])])")
_ANY_EMOJI = "".join(EMOJI.values()) + "".join(PRIORITY_EMOJI) + "".join(_EMOJI_ALT.values())
# A value runs up to the next field emoji, a Dataview field, a tag-free block id or the end.
_VALUE_END = rf"(?=\s*(?:[{_ANY_EMOJI}]|[\[(][A-Za-z][\w -]*::|\^[A-Za-z0-9-]+\s*$)|\s*$)"


def _emoji_pattern(name: str) -> re.Pattern[str]:
    marks = "|".join(map(re.escape, [EMOJI[name], *_EMOJI_ALT.get(name, "")]))
    value = f"({DATE})" if name in DATE_FIELDS else rf"([^{_ANY_EMOJI}\n]*?){_VALUE_END}"
    return re.compile(rf"(?:{marks})\ufe0f?[ \t]*{value}")


_EMOJI_RE = {name: _emoji_pattern(name) for name in EMOJI}
_EMOJI_SCAN = tuple((name, (emoji, *_EMOJI_ALT.get(name, "")), _EMOJI_RE[name]) for name, emoji in EMOJI.items())
_DATE_RE = re.compile(DATE)
# from the start of a run of blanks: from each blank of a long run it was quadratic to reject
_BLOCK_ID = re.compile(r"(?<![ \t])[ \t]+\^[A-Za-z0-9-]+[ \t]*$")
_TAG = re.compile(r"(?:(?<=\s)|^)#([\w/-]*[^\W\d][\w/-]*)")


@dataclass(frozen=True, slots=True)
class TaskFields:
    """The Tasks plugin fields of one task body (dates as `YYYY-MM-DD`)."""

    due: str | None = None
    scheduled: str | None = None
    start: str | None = None
    created: str | None = None
    done: str | None = None
    cancelled: str | None = None
    priority: str | None = None  # highest | high | medium | low | lowest
    recurrence: str | None = None  # the rule as written: 'every week when done'
    id: str | None = None
    depends_on: tuple[str, ...] = ()
    on_completion: str | None = None
    style: Style = "emoji"  # the format the task's fields are written in
    description: str = ""  # the body without its fields and block id
    tags: tuple[str, ...] = field(default=())


def scan_fields(body: str) -> tuple[dict[str, str], Style, str]:
    """The fields written in a task body as raw text (name -> value), their format, and the body
    without them. The index's fast path (`service.markdown.parse`); `parse_fields` builds on it."""
    found: dict[str, str] = {}
    style: Style = "emoji"
    rest = body
    if "::" in body:
        for m in _INLINE.finditer(body):
            if (m.group(1) == "[") != (m.group(4) == "]"):
                continue
            name = _FROM_DATAVIEW.get(m.group(2).strip().lower().replace(" ", ""))
            if name is None:
                continue
            value = m.group(3).strip()
            if name in DATE_FIELDS and not _DATE_RE.fullmatch(value):
                continue
            found.setdefault(name, value.lower() if name == "priority" else value)
            style = "dataview"
            rest = rest.replace(m.group(0), " ")
    if not body.isascii():
        for name, marks, pattern in _EMOJI_SCAN:
            for mark in marks:
                if mark in rest:
                    break
            else:
                continue
            e = pattern.search(rest)
            if e:
                found.setdefault(name, e.group(1).strip())
                rest = rest[: e.start()] + " " + rest[e.end() :]
        for emoji, level in PRIORITY_EMOJI.items():
            if emoji in rest:
                found.setdefault("priority", level)
                rest = rest.replace(emoji + "\ufe0f", " ").replace(emoji, " ")
                break
    if found.get("priority") not in PRIORITIES:
        found.pop("priority", None)
    return found, style, rest


# -- the Tasks plugin's reading: fields from the end of the line ----------------------------------
# The plugin (DefaultTaskSerializer / DataviewTaskSerializer.deserialize) takes fields off the END
# of the body, one after another, and stops at the first text that is none: `Call Bob 📅 2026-12-01
# about it` has no due date, its description keeps the 📅. Tags between fields are stepped over and
# stay in the description. Each round tries the fields in the plugin's order; a field written
# twice keeps the leftmost value, as the later rounds overwrite.
_ID = r"[a-zA-Z0-9_-]+"
_PLUGIN_VALUES = {
    **{name: DATE for name in DATE_FIELDS},
    "recurrence": r"[a-zA-Z0-9, !]+",
    "on_completion": r"[a-zA-Z]+",
    "id": _ID,
    # the plugin's `ID( *, *ID *)*`, unambiguous: its two readings of the spaces before a comma
    # made a line like `⛔ a  , a  , … ?` take exponential time to reject (the value is stripped)
    "depends_on": rf"{_ID}(?: *, *{_ID})*",
}
_PLUGIN_ORDER: tuple[str, ...] = ("priority", "done", "cancelled", "due", "scheduled", "start", "created")
_PLUGIN_ORDER += ("recurrence", "on_completion", "#", "id", "depends_on")
# '[' closed by ']', '(' by ')': the plugin's lookahead ('[' with a ']' later in the line) reads the
# same on the field, but scanned the rest of the line at each bracket (quadratic on a long line).
_OPEN, _CLOSE = r"(?:(\[)|\()", r"(?(1)\]|\))"


def _plugin_patterns(name: str) -> tuple[re.Pattern[str], ...]:
    if name == "#":
        return (re.compile(r'(?:^|\s)#[^ !@#$%^&*(),.?":{}|<>]+$'),)
    if name == "priority":
        emoji = "(?P<v>" + "|".join(PRIORITY_EMOJI) + ")\ufe0f?$"
        dataview = rf"{_OPEN} *priority:: *(?P<v>highest|high|medium|low|lowest) *{_CLOSE}(?: *,)?$"
        return re.compile(emoji), re.compile(dataview)
    marks = "|".join(map(re.escape, [EMOJI[name], *_EMOJI_ALT.get(name, "")]))
    value = _PLUGIN_VALUES[name]
    key = DATAVIEW_KEY[name]
    # A recurrence rule holds spaces: ` *(rule)` and `(rule) *` read a run of spaces two ways
    # (quadratic to reject); the rule alone is the same text, its spaces stripped after.
    space = "" if name == "recurrence" else " *"
    return (
        re.compile(rf"(?:{marks})\ufe0f?{space}(?P<v>{value})$"),
        re.compile(rf"{_OPEN} *{key}::{space}(?P<v>{value}){space}{_CLOSE}(?: *,)?$"),
    )


def _needles(name: str) -> tuple[tuple[str, ...], ...]:
    """For each of `_plugin_patterns(name)`: texts one of which a line holds when it can match
    (a C substring test skips the patterns that cannot: most lines hold one field or two)."""
    if name == "#":
        return (("#",),)
    marks = tuple(PRIORITY_EMOJI) if name == "priority" else (EMOJI[name], *_EMOJI_ALT.get(name, ""))
    return marks, (f"{DATAVIEW_KEY[name]}::",)


_PLUGIN_RE = tuple((name, tuple(zip(_plugin_patterns(name), _needles(name), strict=True))) for name in _PLUGIN_ORDER)


def field_spans(
    body: str, fmt: Style | None = None
) -> tuple[dict[str, tuple[str, int, int]], Style, list[tuple[int, int]]]:
    """The fields the Tasks plugin reads in a task body: name -> (raw value, start, end) where
    it is written in `body` (a trailing block id is stepped over), their format, and the spans of
    every field taken off (a field written twice: both). `fmt`: the only format read (the plugin's
    taskFormat; a field of the other is description text), None both."""
    found: dict[str, tuple[str, int, int]] = {}
    spans: list[tuple[int, int]] = []
    style: Style = "emoji"
    block = _BLOCK_ID.search(body)
    start = len(body) - len(body.lstrip())
    end = len(body[: block.start() if block else len(body)].rstrip())
    line = body[start:end]
    # The patterns the line can match at all (its later rounds read less of it): most lines hold
    # a field or two, so most of the plugin's 23 patterns are never run.
    kept = (0, 1) if fmt is None else (0,) if fmt == "emoji" else (1,)  # each field's patterns: emoji, dataview
    tried = [
        (
            name,
            [
                (i, pattern)
                for i, (pattern, needles) in enumerate(patterns)
                if (i in kept or name == "#") and any(n in line for n in needles)
            ],
        )
        for name, patterns in _PLUGIN_RE
    ]
    tried = [(name, patterns) for name, patterns in tried if patterns]
    for _ in range(21):  # the plugin's rounds: each tries every field once, in its order
        matched = False
        line = body[start:end]
        for name, patterns in tried:
            for i, pattern in patterns:
                m = pattern.search(line)
                if m is None:
                    continue
                if name != "#":
                    value = m.group("v").strip()
                    if name == "priority":
                        value = value if i else PRIORITY_EMOJI[value]
                    found[name] = (value, start + m.start(), start + m.end())
                    spans.append((start + m.start(), start + m.end()))
                style = "dataview" if i else style
                line = line[: m.start()].rstrip()
                matched = True
                break
        end = start + len(line)
        if not matched:
            break
    return found, style, spans


def read_fields(body: str, fmt: Style | None = None) -> tuple[dict[str, str], Style, str]:
    """The fields of a task body as the Tasks plugin reads them (from the end of the line; see
    `field_spans`; `fmt` the only format read), their format, and the body without them: what
    `scan_fields` gives for a reader that takes fields anywhere (Dataview)."""
    if ("::" not in body or fmt == "emoji") and (body.isascii() or fmt == "dataview"):
        return {}, "emoji", body
    found, style, spans = field_spans(body, fmt)
    rest = body
    for start, end in spans:  # taken off from the end: earlier offsets hold
        rest = rest[:start] + " " + rest[end:]
    return {name: value for name, (value, _, _) in found.items()}, style, rest


def depends_on(found: dict[str, str]) -> tuple[str, ...]:
    raw = found.get("depends_on")
    return tuple(d.strip() for d in raw.split(",") if d.strip()) if raw else ()


def parse_fields(body: str, fmt: Style | None = None) -> TaskFields:
    """The fields of a task body (the text after `] `) as the Tasks plugin reads them: from the
    end of the line (`read_fields`), in format `fmt` (None: either)."""
    found, style, rest = read_fields(body, fmt)
    rest = _BLOCK_ID.sub("", rest)
    return TaskFields(
        due=found.get("due"),
        scheduled=found.get("scheduled"),
        start=found.get("start"),
        created=found.get("created"),
        done=found.get("done"),
        cancelled=found.get("cancelled"),
        priority=found.get("priority"),
        recurrence=found.get("recurrence") or None,
        id=found.get("id") or None,
        depends_on=depends_on(found),
        on_completion=found.get("on_completion") or None,
        style=style,
        description=" ".join(rest.split()),
        tags=tuple(dict.fromkeys(_TAG.findall(rest))),
    )


@dataclass(frozen=True, slots=True)
class TaskLine:
    """One task line split into its parts; `str(task)` is the line again, byte for byte."""

    prefix: str  # indent, blockquote markers, bullet and '['
    status: str
    gap: str  # '] ' as written
    body: str

    def __str__(self) -> str:
        return f"{self.prefix}{self.status}{self.gap}{self.body}"

    @property
    def fields(self) -> TaskFields:
        return parse_fields(self.body)


def task_line(line: str) -> TaskLine | None:
    m = TASK_LINE.match(line)
    return TaskLine(m.group(1), m.group(2), m.group(3), m.group(4)) if m else None


def _field_span(body: str, name: str, fmt: Style | None) -> tuple[int, int] | None:
    """Where field `name` is written in `body` as the Tasks plugin reads it (among the fields at
    the end of the line, in format `fmt`, None either), or None: a field written in the middle of
    the text is description to the plugin, and setting it appends one, as the plugin does."""
    found = field_spans(body, fmt)[0].get(name)
    return (found[1], found[2]) if found else None


def set_field(body: str, name: str, value: str | None, style: Style, fmt: Style | None = None) -> str:
    """`body` with field `name` set to `value` (None removes it). An existing field (read in
    format `fmt`, None either) keeps its place and format; a new one is appended in `style`,
    before a trailing block id."""
    span = _field_span(body, name, fmt)
    if span is not None:
        start, end = span
        if value is None:
            before, after = body[:start].rstrip(" \t"), body[end:]
            return before + (after if not after or after[:1] in " \t" else " " + after)
        own: Style = "dataview" if body[start] in "[(" else "emoji"
        return body[:start] + written(name, value, own, bracket=body[start]) + body[end:]
    if value is None:
        return body
    block = _BLOCK_ID.search(body)
    head, tail = (body[: block.start()], body[block.start() :]) if block else (body, "")
    head = head.rstrip(" \t")
    return f"{head} {written(name, value, style)}{tail}" if head else written(name, value, style) + tail


def written(name: str, value: str, style: Style, bracket: str = "[") -> str:
    """One field as text: `📅 2026-11-30`, or `[due:: 2026-11-30]` (`(due:: …)` when `bracket` is '(')."""
    if style == "dataview":
        return f"({DATAVIEW_KEY[name]}:: {value})" if bracket == "(" else f"[{DATAVIEW_KEY[name]}:: {value}]"
    return f"{EMOJI[name]} {value}"


def without_block_id(body: str) -> str:
    return _BLOCK_ID.sub("", body)


# -- statuses ------------------------------------------------------------------------------------

StatusType = Literal["todo", "in_progress", "on_hold", "done", "cancelled", "non_task"]
TASKS_PLUGIN_DATA = ".obsidian/plugins/obsidian-tasks-plugin/data.json"
# The Tasks plugin's default statuses (no status settings): type and the status a toggle moves to.
# `X` is not one: the
# plugin reads a character its settings do not name as the status `Unknown`, type TODO, next `x`
# (Dataview counts `[X]` completed, as `[x]`: service/dataview/items.py).
CORE_STATUSES: dict[str, tuple[StatusType, str]] = {
    " ": ("todo", "x"),
    "x": ("done", " "),
    "/": ("in_progress", "x"),
    "-": ("cancelled", " "),
}
_TYPES: dict[str, StatusType] = {
    "TODO": "todo",
    "IN_PROGRESS": "in_progress",
    "ON_HOLD": "on_hold",  # Tasks 7.23
    "DONE": "done",
    "CANCELLED": "cancelled",
    "NON_TASK": "non_task",
}


# The plugin's default status settings: two core statuses, and two custom ones a user may delete.
_DEFAULT_STATUS_SETTINGS = {
    "coreStatuses": [
        {"symbol": " ", "name": "Todo", "nextStatusSymbol": "x", "type": "TODO"},
        {"symbol": "x", "name": "Done", "nextStatusSymbol": " ", "type": "DONE"},
    ],
    "customStatuses": [
        {"symbol": "/", "name": "In Progress", "nextStatusSymbol": "x", "type": "IN_PROGRESS"},
        {"symbol": "-", "name": "Cancelled", "nextStatusSymbol": " ", "type": "CANCELLED"},
    ],
}


def _configured_statuses(plugin_data: object) -> list[tuple[str, StatusType, str, str]]:
    """The statuses the Tasks plugin registers, as (symbol, type, next symbol, name), in its
    order: the settings' core statuses, then the custom ones (StatusSettings.applyToStatusRegistry).
    Settings with `statusSettings` list the statuses themselves: one whose custom statuses omit
    `/` or `-` has none of that symbol (the plugin reads it as Unknown); a list missing from the
    settings is the plugin's default. A symbol listed twice keeps its first entry."""
    settings = plugin_data.get("statusSettings") if isinstance(plugin_data, dict) else None
    if not isinstance(settings, dict):
        settings = _DEFAULT_STATUS_SETTINGS
    out: list[tuple[str, StatusType, str, str]] = []
    seen: set[str] = set()
    for group in ("coreStatuses", "customStatuses"):
        entries = settings.get(group)
        for entry in entries if isinstance(entries, list) else _DEFAULT_STATUS_SETTINGS[group]:
            if not isinstance(entry, dict):
                continue
            symbol, nxt, name = entry.get("symbol", " "), entry.get("nextStatusSymbol", "x"), entry.get("name")
            if not isinstance(symbol, str) or len(symbol) != 1 or symbol in seen:
                continue  # a task's status is one character: a longer symbol matches none
            seen.add(symbol)
            kind = _TYPES.get(str(entry.get("type", "")).upper(), "todo")  # the plugin: unknown type -> TODO
            out.append((symbol, kind, nxt if isinstance(nxt, str) and len(nxt) == 1 else " ", str(name or "")))
    return out


def status_table(plugin_data: object) -> dict[str, tuple[StatusType, str]]:
    """Status character -> (type, next status): the statuses the Tasks plugin settings register
    (`statusSettings`; the plugin's defaults ` `, `x`, `/`, `-` when the settings have none)."""
    return {symbol: (kind, nxt) for symbol, kind, nxt, _ in _configured_statuses(plugin_data)}


def status_names(plugin_data: object) -> dict[str, str]:
    """Status character -> the name the Tasks plugin shows (the settings' `name` of each status it
    registers); a character named nowhere is 'Unknown', as in the plugin."""
    return {symbol: name for symbol, _, _, name in _configured_statuses(plugin_data) if name}


def status_type(table: dict[str, tuple[StatusType, str]], status: str) -> StatusType:
    """A status the settings do not name is a task still to do, as the Tasks plugin treats it."""
    return table[status][0] if status in table else "todo"
