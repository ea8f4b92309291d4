"""Placeholders and presets of a Tasks query, expanded before a line is read, as the plugin does.

`{{query.file.path}}`, `{{query.file.pathWithoutExtension}}`, `{{query.file.root}}`,
`{{query.file.folder}}`, `{{query.file.filename}}` and `{{query.file.filenameWithoutExtension}}`
are the note the query is in (`file`), as the plugin's `query.file` gives them (`root` and `folder`
end in `/`; a note at the vault's root has `/`). `{{preset.NAME}}` is the text of a preset, and a
`preset NAME` line its instructions: the Tasks settings' `presets` (the plugin's default ones when
its settings name none). `{{! …}}` is a comment. Expanding goes on while the text changes (a
preset holding placeholders), at most `MAX_ROUNDS` times, as in the plugin. A placeholder in a line
when no `file` was given, an unknown name (letter case counts, as in the plugin) and a form this
server does not expand (`query.file.property('x')`) are a `QueryError`, never left as text to look
for: a filter would then silently keep nothing. In a `… by function` expression, `query.file.path`
(and the other names) is that text, as a quoted literal.
"""

from __future__ import annotations

import json
import posixpath
import re
from collections.abc import Mapping
from datetime import date, datetime
from typing import Any

from service.obsidian.tasks_query.filters import QueryError

MAX_ROUNDS = 10  # placeholders expanded within placeholders (the plugin's limit too)
MAX_PRESET_DEPTH = 10  # `preset` lines within presets
MAX_EXPANDED = 20_000  # characters one line may grow to
_PLACEHOLDER = re.compile(r"\{\{(.*?)\}\}", re.DOTALL)
_PROPERTY_CALL = re.compile(r"""(property|hasProperty)\((['"])([^'"]*)\2\)""")
_PRESET_LINE = re.compile(r"preset +(.*)", re.IGNORECASE)
_FUNCTION_LINE = re.compile(r"\s*(?:filter|sort|group)\s+by\s+function\b", re.IGNORECASE)
# In an expression: a string literal (skipped), or `query.file.<name>` (a call when `(` follows), or
# `.linksTo(query.file)` (group 4: a link's test against the query's note, read as `.linksToPath('path')`).
_QUERY_FILE = re.compile(  # group 2: a call's `(`, group 3: its one text argument
    r"""'(?:\\.|[^'\\])*'|"(?:\\.|[^"\\])*"|`(?:\\.|[^`\\])*`"""
    r"""|\bquery\.file\.(\w+)(\s*\(\s*(?:('[^']*'|"[^"]*")\s*\))?)?|(\.linksTo\(\s*query\.file\s*\))"""
)
_SHOWN = ("tree", "tags", "id", "depends on", "priority", "recurrence rule", "on completion", "created date",
          "start date", "scheduled date", "due date", "cancelled date", "done date", "urgency", "backlink",
          "edit button", "postpone button", "task count")  # fmt: skip
_DEFAULTS = (  # the plugin's order: (property, instruction when true, when false)
    ("TQ_show_toolbar", "show toolbar", "hide toolbar"),
    ("TQ_explain", "explain", ""),
    ("TQ_short_mode", "short mode", "full mode"),
    *((f"TQ_show_{s.replace(' ', '_')}", f"show {s}", f"hide {s}") for s in _SHOWN),
    ("TQ_extra_instructions", "", ""),
)
FILE_FIELDS = ("path", "pathWithoutExtension", "root", "folder", "filename", "filenameWithoutExtension")
DEFAULT_PRESETS = {
    "this_file": "path includes {{query.file.path}}",
    "this_folder": "folder includes {{query.file.folder}}",
    "this_folder_only": "filter by function task.file.folder === query.file.folder",
    "this_root": "root includes {{query.file.root}}",
    "hide_date_fields": "# Hide any values for all date fields\nhide due date\nhide scheduled date\nhide start date\n"
    "hide created date\nhide done date\nhide cancelled date",
    "hide_non_date_fields": "# Hide all the non-date fields, but not tags\nhide id\nhide depends on\n"
    "hide recurrence rule\nhide on completion\nhide priority",
    "hide_query_elements": "# Hide toolbar, postpone, edit, backlinks and task count\nhide toolbar\n"
    "hide postpone button\nhide edit button\nhide backlinks\nhide task count",
    "hide_everything": "# Hide everything except description and any tags\npreset hide_date_fields\n"
    "preset hide_non_date_fields\npreset hide_query_elements",
}


def _js_text(value: Any) -> str:
    """A property's value as the plugin writes it into a placeholder (JavaScript's String(), JSON
    for a list or an object)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    if isinstance(value, (list, dict)):
        return json.dumps(value, ensure_ascii=False, separators=(",", ":"), default=str)
    return value.isoformat() if isinstance(value, (date, datetime)) else str(value)


def _js_literal(value: Any) -> str:
    """A scalar property's value written as an expression literal."""
    if value is None or isinstance(value, (bool, int, float)):
        return "null" if value is None else _js_text(value)
    return "'" + _js_text(value).replace("\\", "\\\\").replace("'", "\\'") + "'"


def file_defaults(properties: Mapping[str, Any]) -> str:
    """The instructions the query note's `TQ_*` properties put before its queries (the plugin's
    Query File Defaults, 7.15): `TQ_explain`, `TQ_short_mode`, `TQ_show_*` and the text of
    `TQ_extra_instructions`; a property that is absent or null adds nothing."""
    lower = {str(k).lower(): v for k, v in properties.items()}
    lines: list[str] = []
    for name, yes, no in _DEFAULTS:
        value = lower.get(name.lower())
        if value is None:
            continue
        if name == "TQ_extra_instructions":
            lines += [value] if isinstance(value, str) else []
        else:
            lines.append(yes if value else no)
    return "\n".join(line for line in lines if line)


def file_fields(path: str) -> dict[str, str]:
    """`query.file`'s values for the note at vault path `path`."""
    folder, name = posixpath.split(path)
    return {
        "path": path,
        "pathWithoutExtension": path.removesuffix(".md"),
        "root": path.split("/", 1)[0] + "/" if folder else "/",
        "folder": folder + "/" if folder else "/",
        "filename": name,
        "filenameWithoutExtension": name.removesuffix(".md"),
    }


class Placeholders:
    """What a query's placeholders and presets expand to: the query's note, the vault's presets."""

    def __init__(
        self,
        file: str | None = None,
        presets: Mapping[str, str] | None = None,
        properties: Mapping[str, Any] | None = None,
    ) -> None:
        self.file = file_fields(file) if file is not None else None
        self.presets = dict(DEFAULT_PRESETS if presets is None else presets)
        self.properties = dict(properties or {})  # the query note's frontmatter

    def property(self, name: str) -> Any:
        """`query.file.property(name)`: the note's property, its name in any case; None when absent
        (a list without its null items, as the plugin gives it)."""
        found = next((v for k, v in self.properties.items() if str(k).lower() == name.lower()), None)
        return [v for v in found if v is not None] if isinstance(found, list) else found

    def expand(self, line: str) -> str:
        """`line` with its placeholders expanded (it may then hold several lines), and the
        `query.file.<name>` values of a `… by function` expression written as text literals."""
        if "{{" not in line or "}}" not in line:
            return self._in_expression(line)
        for _ in range(MAX_ROUNDS):
            expanded = _PLACEHOLDER.sub(self._value, line)
            if expanded == line:
                break
            if len(expanded) > MAX_EXPANDED:
                raise QueryError(f"the placeholders expand this line past {MAX_EXPANDED} characters")
            line = expanded
        return self._in_expression(line)

    def _in_expression(self, line: str) -> str:
        if "query.file" not in line or not _FUNCTION_LINE.match(line):
            return line

        def value(m: re.Match[str]) -> str:
            name = m.group(1)
            if m.group(4) is not None:  # link.linksTo(query.file): its resolved path is the query note's
                if self.file is None:
                    raise QueryError("'linksTo(query.file)' needs the note the query is in: give it as `file`",
                                     m.start() + 1)  # fmt: skip
                return f".linksToPath({_js_literal(self.file['path'])})"
            if name is None:
                return m.group(0)  # a string literal, as written
            if m.group(3) is not None and name in ("property", "hasProperty"):  # query.file.property('x')
                if self.file is None:
                    raise QueryError(f"'{m.group(0)}' needs the note the query is in: give it as `file`", m.start() + 1)
                got = self.property(m.group(3)[1:-1])
                got = got is not None if name == "hasProperty" else got
                if isinstance(got, (list, dict)):
                    raise QueryError(f"'{m.group(0)}' is a list or object, which expressions here do not read",
                                     m.start() + 1)  # fmt: skip
                return _js_literal(got)
            if m.group(2) is not None or name not in FILE_FIELDS:
                what = "is an expression value this server does not read" if m.group(2) else "is no query.file value"
                raise QueryError(f"'query.file.{name}' {what} (it reads {', '.join(FILE_FIELDS)})", m.start() + 1)
            if self.file is None:
                raise QueryError(
                    f"'query.file.{name}' needs the note the query is in: give it as `file`", m.start() + 1
                )
            return _js_literal(self.file[name])

        return _QUERY_FILE.sub(value, line)

    def preset(self, line: str, depth: int) -> str | None:
        """The instructions of a `preset NAME` line (None for another line)."""
        m = _PRESET_LINE.fullmatch(line)
        if m is None:
            return None
        name = m.group(1).strip()
        if depth >= MAX_PRESET_DEPTH:
            raise QueryError(f"presets nest more than {MAX_PRESET_DEPTH} deep (preset {name!r})")
        if name not in self.presets:
            raise QueryError(self._unknown_preset(name), m.start(1) + 1)
        return self.presets[name]

    def _value(self, m: re.Match[str]) -> str:
        inside = m.group(1).strip()
        if inside.startswith("!"):
            return ""  # a comment
        if self.file is None and not inside.startswith("preset."):
            raise QueryError(
                f"'{{{{{inside}}}}}' is a placeholder, and no file was given to expand it: give the note the query "
                "is in as `file`",
                m.start() + 1,
            )
        if inside.startswith("query.file."):
            name = inside.removeprefix("query.file.")
            if self.file is not None and name in self.file:
                return self.file[name]
            if call := _PROPERTY_CALL.fullmatch(name):
                got = self.property(call.group(3))
                got = got is not None if call.group(1) == "hasProperty" else got
                if got is None:
                    raise QueryError(f"'{{{{{inside}}}}}' is null: the note {self.file and self.file['path']!r} has "
                                     "no such property", m.start() + 1)  # fmt: skip
                return _js_text(got)
            if "(" in name or name.startswith("frontmatter"):
                raise QueryError(f"'{{{{{inside}}}}}' is a placeholder this server does not expand", m.start() + 1)
        elif inside.startswith("preset."):
            name = inside.removeprefix("preset.")
            if name in self.presets:
                return self.presets[name]
            raise QueryError(self._unknown_preset(name), m.start() + 1)
        known = ", ".join(f"query.file.{f}" for f in FILE_FIELDS)
        raise QueryError(f"unknown property {inside!r} in a placeholder (letter case counts): {known}, "
                         "preset.<name>", m.start() + 1)  # fmt: skip

    def _unknown_preset(self, name: str) -> str:
        named = ", ".join(sorted(self.presets)) or "none"
        return f"cannot find preset {name!r} in the Tasks settings (presets: {named})"
