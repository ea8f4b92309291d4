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

`WEEK_RULES` holds the rule of every locale of Moment 2.29 (Obsidian's; the plugins' locale override
offers each one), as Moment's locale files define them, and `en-us`; a locale Moment gives no rule
of its own has the default `(0, 6)`. A locale not listed falls back to its language (`de-xx` →
`de`), then to the default. Pure functions over parsed JSON.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from service.dates.moment import LOCALE_WEEK, Week

CALENDAR_DATA = ".obsidian/plugins/calendar/data.json"
APP_CONFIG = ".obsidian/app.json"
WEEKDAYS = ("sunday", "monday", "tuesday", "wednesday", "thursday", "friday", "saturday")

# Every locale of Moment 2.29 (the one Obsidian bundles, all locales loaded), by its week rule
# (`moment.localeData(l)._week`): the Calendar plugin's and Periodic Notes' locale override offer
# each of them (`moment.locales()`). Locales of the default rule are listed too, so that `pt-br`
# does not fall back to `pt`'s.
_BY_RULE: dict[Week, str] = {
    (1, 4): "af ar-ma ar-tn bm br ca cs cy da de de-at de-ch el en-gb en-ie en-nz en-sg es es-do et fi "
    "fil fo fr fr-ch fy ga gd gl hu is it it-ch km lb lt lv mi mt my nb nl nl-be nn oc-lnc pl pt ru sd "
    "se sk sq ss sv tet tl-ph tlh tzl ur vi x-pseudo yo zh-cn",
    LOCALE_WEEK: "ar-sa bn bn-bd bo en en-ca en-il en-in en-us es-us fr-ca gu he hi id ja kn ko lo ml mn mr "
    "ne pa-in pt-br si ta te th zh-hk zh-mo zh-tw",
    (1, 7): "az be bg bs cv eo eu hr hy-am jv ka kk ky me mk ms ms-my ro sl sr sr-cyrl sw tg tk tr ug-cn uk uz uz-latn",
    (6, 12): "ar ar-ly fa ku tzm tzm-latn",
    (0, 4): "ar-dz en-au es-mx",
    (0, 3): "gom-deva gom-latn",
    (0, 12): "ar-kw",
    (7, 12): "dv",  # as Moment's dv.js writes it: 7 is Sunday again, week 1 holds 2 January
}
WEEK_RULES: dict[str, Week] = {locale: rule for rule, names in _BY_RULE.items() for locale in names.split()}


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
