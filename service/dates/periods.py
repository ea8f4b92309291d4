"""Periodic notes: where the note of a day, week, month, quarter or year lives, per the settings.

Settings come, in this order, from the Periodic Notes plugin (`.obsidian/plugins/periodic-notes/
data.json`) in either of its formats — 0.0.17: one `{enabled, format, folder, template}` object
per period under `daily` … `yearly`; 1.0: `calendarSets`, the active set (`activeCalendarSet`)
holding `{enabled, format, folder, templatePath}` under `day` … `year` — then, for daily notes,
the core Daily notes plugin (`.obsidian/daily-notes.json`: `folder`, `format`, `template`), then
Obsidian's defaults (`YYYY-MM-DD`, `gggg-[W]ww`, `YYYY-MM`, `YYYY-[Q]Q`, `YYYY`, vault root, no
template). An empty format or folder is the default, as in the plugins. A period the Periodic
Notes plugin lists as disabled falls through to the next source. Locale weeks in a format follow
the vault's week rule (`service.dates.locales`), given by the caller.

Pure functions over the parsed JSON; reading the files is the caller's (`service.vault.config`).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date
from typing import Any, Literal

from service.dates.moment import LOCALE_WEEK, Week, format_date, parse_date

Period = Literal["daily", "weekly", "monthly", "quarterly", "yearly"]
PERIODS: tuple[Period, ...] = ("daily", "weekly", "monthly", "quarterly", "yearly")
DEFAULT_FORMAT: dict[Period, str] = {
    "daily": "YYYY-MM-DD",
    "weekly": "gggg-[W]ww",
    "monthly": "YYYY-MM",
    "quarterly": "YYYY-[Q]Q",
    "yearly": "YYYY",
}
_GRANULARITY: dict[Period, str] = {
    "daily": "day",
    "weekly": "week",
    "monthly": "month",
    "quarterly": "quarter",
    "yearly": "year",
}
PERIODIC_NOTES_DATA = ".obsidian/plugins/periodic-notes/data.json"
DAILY_NOTES = ".obsidian/daily-notes.json"

Source = Literal["periodic-notes 1.0", "periodic-notes 0.0.17", "daily-notes", "default"]


@dataclass(frozen=True, slots=True)
class PeriodConfig:
    period: Period
    format: str
    folder: str  # vault-relative, '' for the root, no slashes around it
    template: str | None  # vault path of the template note as configured ('.md' optional)
    source: Source
    week: Week = LOCALE_WEEK  # the locale week rule (dow, doy) of `ww`, `gggg` and `e`

    def name_for(self, day: date) -> str:
        """The note name (its path below the folder, without '.md') of the period holding `day`."""
        return format_date(self.format, day, self.week)

    def path_for(self, day: date) -> str:
        """The vault path of the note for the period holding `day`."""
        name = self.name_for(day)
        return f"{self.folder}/{name}.md" if self.folder else f"{name}.md"

    def start_of(self, day: date) -> date:
        """The first day of the period the note for `day` stands for (as its name says)."""
        return parse_date(self.format, self.name_for(day), self.week)


def _text(value: Any) -> str:
    return value.strip() if isinstance(value, str) else ""


def _folder(value: Any) -> str:
    return _text(value).strip("/")


def _from_plugin(period: Period, data: dict[str, Any]) -> tuple[dict[str, Any], Source] | None:
    sets = data.get("calendarSets")
    if isinstance(sets, list) and sets:
        active = data.get("activeCalendarSet")
        chosen = next((s for s in sets if isinstance(s, dict) and s.get("id") == active), None)
        chosen = chosen or next((s for s in sets if isinstance(s, dict)), None)
        entry = chosen.get(_GRANULARITY[period]) if chosen else None
        if isinstance(entry, dict) and entry.get("enabled"):
            return {"format": entry.get("format"), "folder": entry.get("folder"),
                    "template": entry.get("templatePath")}, "periodic-notes 1.0"  # fmt: skip
        return None
    entry = data.get(period)
    if isinstance(entry, dict) and entry.get("enabled"):
        return entry, "periodic-notes 0.0.17"
    return None


def period_config(period: Period, periodic_notes: Any, daily_notes: Any, week: Week = LOCALE_WEEK) -> PeriodConfig:
    """The settings for `period` from the two plugins' parsed JSON (None when absent)."""
    found: tuple[dict[str, Any], Source] | None = None
    if isinstance(periodic_notes, dict):
        found = _from_plugin(period, periodic_notes)
    if found is None and period == "daily" and isinstance(daily_notes, dict):
        found = daily_notes, "daily-notes"
    entry, source = found if found is not None else ({}, "default")
    template = _text(entry.get("template"))
    return PeriodConfig(
        period=period,
        format=_text(entry.get("format")) or DEFAULT_FORMAT[period],
        folder=_folder(entry.get("folder")),
        template=template or None,
        source=source,
        week=week,
    )
