"""The Tasks plugin's "use filename as Scheduled date for undated tasks" (its `DateFallback`).

With `useFilenameAsScheduledDate` on, a task with no scheduled, due or start date, in a note whose
name holds a date, is scheduled on that date for every query (`scheduled`, `happens`, `group by
scheduled`, urgency): the name (without its extension) written exactly in the additional format
`filenameAsScheduledDateFormat` (Moment.js, when set), else containing `YYYY-MM-DD`, else
`YYYYMMDD`. With `filenameAsDateFolders` set, only notes under one of those folders. Pure: the
settings as the plugin's `data.json` holds them.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date

from service.dates.moment import MomentError, parse_date

_DASHED = re.compile(r"(\d{4})-(\d{2})-(\d{2})")
_PLAIN = re.compile(r"(\d{4})(\d{2})(\d{2})")


@dataclass(frozen=True, slots=True)
class FilenameDates:
    enabled: bool = False
    folders: tuple[str, ...] = ()
    fmt: str = ""

    @classmethod
    def of(cls, data: object) -> FilenameDates:
        """From the plugin's settings (`data.json`, parsed); off when they do not turn it on."""
        if not isinstance(data, dict) or data.get("useFilenameAsScheduledDate") is not True:
            return cls()
        folders = data.get("filenameAsDateFolders")
        fmt = data.get("filenameAsScheduledDateFormat")
        return cls(
            True,
            tuple(f for f in folders if isinstance(f, str)) if isinstance(folders, list) else (),
            fmt if isinstance(fmt, str) else "",
        )

    def scheduled(self, path: str) -> str | None:
        """The date an undated task of the note at `path` is scheduled on (ISO), or None."""
        if not self.enabled or (self.folders and not any(path.startswith(f + "/") for f in self.folders)):
            return None
        name = path.rsplit("/", 1)[-1]
        name = name[: name.rfind(".")] if "." in name else name
        if self.fmt:
            try:
                return parse_date(self.fmt, name).isoformat()
            except MomentError:
                pass
        found = _DASHED.search(name) or _PLAIN.search(name)
        if found is None:
            return None
        try:
            return date(int(found.group(1)), int(found.group(2)), int(found.group(3))).isoformat()
        except ValueError:
            return None
