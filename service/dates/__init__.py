"""Dates as Obsidian and its plugins write them: Moment.js formats, periodic-note periods and
settings, Tasks recurrence rules. Pure functions; nothing here reads files."""

from __future__ import annotations

from datetime import date

from service.errors import ValidationFailed


def iso_day(text: str, field: str = "date") -> date:
    """`text` (YYYY-MM-DD) as a date; a string of that shape that names no day (2026-02-30,
    0000-00-00) is a validation error, not a crash."""
    try:
        return date.fromisoformat(text)
    except ValueError:
        raise ValidationFailed(f"{field} {text!r} is not a calendar date", details={"field": field}) from None


def iso_day_or_none(text: str) -> date | None:
    """`text` as a date, or None when it names no day (a task's field as someone typed it)."""
    try:
        return date.fromisoformat(text)
    except ValueError:
        return None
