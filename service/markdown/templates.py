"""The core Templates plugin's variables and how a template's properties meet a note's.

`render` fills `{{title}}`, `{{date}}`, `{{time}}` and `{{date:FORMAT}}` / `{{time:FORMAT}}`
(Moment.js formats, `service.dates.moment`; without a format the configured defaults, Obsidian's
`YYYY-MM-DD` and `HH:mm` unless `.obsidian/templates.json` says otherwise). Any other `{{…}}`
stays as written, as Obsidian leaves it; a format with a token this module does not know is a
`validation_error`, never a guess.

`merge_properties` is how Obsidian inserts a template into a note that has properties: keys the
note lacks are added in the template's order, list values (tags, aliases, …) are united with the
note's own first, and a key the note already has keeps the note's value. The note's YAML stays
round-trip (`yaml_edit`): its order, comments and quoting are kept.
"""

from __future__ import annotations

import re
from datetime import datetime
from typing import Any

from service.dates.moment import LOCALE_WEEK, MomentError, Week, format_date
from service.errors import ValidationFailed
from service.markdown import frontmatter as fm
from service.markdown import yaml_edit

DEFAULT_DATE_FORMAT = "YYYY-MM-DD"
DEFAULT_TIME_FORMAT = "HH:mm"
_VARIABLE = re.compile(r"\{\{\s*(title|date|time)\s*(?::([^}]*))?\}\}", re.IGNORECASE)


def render(
    text: str, *, title: str, now: datetime, date_format: str, time_format: str, week: Week = LOCALE_WEEK
) -> str:
    """The template `text` with its variables filled for a note called `title` at `now` (locale
    weeks, `ww`, by the vault's week rule `week`)."""

    def value(m: re.Match[str]) -> str:
        name, fmt = m.group(1).lower(), m.group(2)
        if name == "title":
            return title
        fmt = (fmt or "").strip() or (date_format if name == "date" else time_format)
        try:
            return format_date(fmt, now, week)
        except MomentError as exc:
            raise ValidationFailed(
                str(exc), details={"reason": "unsupported_date_format", "variable": m.group(0)}
            ) from None

    return _VARIABLE.sub(value, text)


def split(text: str, rel: str) -> tuple[dict[str, Any], str]:
    """A rendered template's properties (plain JSON values) and its body."""
    front = fm.split(text)
    data = yaml_edit.plain(dict(yaml_edit.load(text, rel))) if front.raw is not None else {}
    return data, text[front.body_start :] if front.raw is not None else text


def merge_properties(note: str, rel: str, props: dict[str, Any]) -> str:
    """`note` with the template's `props` merged into its frontmatter (see the module docstring)."""
    if not props:
        return note

    def mutate(data: Any) -> None:
        for key, value in props.items():
            if key not in data or data[key] is None or data[key] == "":
                data[key] = yaml_edit.to_yaml_value(value)
                continue
            have = yaml_edit.plain(data[key])
            if isinstance(value, list) and isinstance(have, list):
                # In place: the note's list keeps its style (flow or block) and comments.
                data[key].extend(yaml_edit.to_yaml_value(v) for v in value if v not in have)

    return yaml_edit.edit_frontmatter(note, rel, mutate)
