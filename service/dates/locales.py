"""Which week rule a vault's locale weeks follow: Moment's locale data and the plugins' overrides.

Moment numbers locale weeks (`ww`, `gggg`, `e`) by a rule `(dow, doy)` each locale defines
(`service.dates.moment`). Obsidian sets Moment's locale from its own language; the Calendar plugin
(`.obsidian/plugins/calendar/data.json`) and Periodic Notes 1.0 (`weekStart` and
`localeOverride` in `.obsidian/app.json`, where it stores them) can replace the locale and the
first day of the week. A `weekStart` of `"sunday"` … `"saturday"` changes `dow` only — Moment
merges the override into the locale's rule, so `doy` stays the locale's — and `"locale"` keeps
the locale's own rule. A `localeOverride` of `"system-default"` (or none) leaves the locale to
the machine, which a server cannot see: vaultgate's `notes.week_locale` setting stands in for it
(default `en`, Moment's default locale).

`WEEK_RULES` holds the rule of every locale Obsidian's languages map to, and of the English
variants, as Moment's locale files define them; a locale Moment gives no rule of its own has the
default `(0, 6)`. A locale not listed falls back to its language (`de-at` → `de`), then to the
default. Pure functions over parsed JSON.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from service.dates.moment import LOCALE_WEEK, Week

CALENDAR_DATA = ".obsidian/plugins/calendar/data.json"
APP_CONFIG = ".obsidian/app.json"
WEEKDAYS = ("sunday", "monday", "tuesday", "wednesday", "thursday", "friday", "saturday")

_MONDAY_4 = (1, 4)  # Monday first, week 1 holds 4 January (ISO-like)
WEEK_RULES: dict[str, Week] = {
    "en": LOCALE_WEEK, "en-us": LOCALE_WEEK, "en-ca": LOCALE_WEEK, "en-in": LOCALE_WEEK,
    "en-gb": _MONDAY_4, "en-ie": _MONDAY_4, "en-nz": _MONDAY_4, "en-au": (0, 4),
    "de": _MONDAY_4, "fr": _MONDAY_4, "es": _MONDAY_4, "it": _MONDAY_4, "nl": _MONDAY_4,
    "pl": _MONDAY_4, "pt": _MONDAY_4, "ru": _MONDAY_4, "cs": _MONDAY_4, "da": _MONDAY_4,
    "nn": _MONDAY_4, "nb": _MONDAY_4, "sv": _MONDAY_4, "fi": _MONDAY_4, "zh-cn": _MONDAY_4,
    "ro": (1, 7), "tr": (1, 7), "uk": (1, 7),
    "pt-br": LOCALE_WEEK, "zh-tw": LOCALE_WEEK, "ja": LOCALE_WEEK, "ko": LOCALE_WEEK,
    "hi": LOCALE_WEEK, "id": LOCALE_WEEK, "ar": (6, 12),
}  # fmt: skip


@dataclass(frozen=True, slots=True)
class WeekRule:
    dow: int
    doy: int
    locale: str
    source: str  # "calendar", "periodic-notes 1.0" or "vaultgate"

    @property
    def week(self) -> Week:
        return (self.dow, self.doy)


def locale_week(locale: str) -> Week:
    """Moment's `(dow, doy)` for `locale` (`en-GB`, `en_gb` and `en-gb` alike)."""
    key = locale.strip().lower().replace("_", "-")
    return WEEK_RULES.get(key) or WEEK_RULES.get(key.split("-")[0], LOCALE_WEEK)


def _text(value: Any) -> str:
    return value.strip().lower() if isinstance(value, str) else ""


def week_rule(calendar: Any, app: Any, fallback_locale: str = "en", fallback_start: str = "locale") -> WeekRule:
    """The week rule from the parsed Periodic Notes 1.0 (`app.json`) or Calendar plugin settings,
    in that order, else from vaultgate's fallback locale and week start."""
    for data, source in ((app, "periodic-notes 1.0"), (calendar, "calendar")):
        if isinstance(data, dict) and (_text(data.get("weekStart")) or _text(data.get("localeOverride"))):
            override = _text(data.get("localeOverride"))
            locale = override if override and override != "system-default" else _text(fallback_locale) or "en"
            return _rule(locale, _text(data.get("weekStart")) or "locale", source)
    return _rule(_text(fallback_locale) or "en", _text(fallback_start) or "locale", "vaultgate")


def _rule(locale: str, start: str, source: str) -> WeekRule:
    dow, doy = locale_week(locale)
    if start in WEEKDAYS:
        dow = WEEKDAYS.index(start)
    return WeekRule(dow, doy, locale, source)
