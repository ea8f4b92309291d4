"""search_dql through the dispatch chain: `dateformat` writes Luxon's tokens as Dataview does (en-US),
and `sort(…)` first in a TABLE or LIST is the function, not the SORT command."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from tests.conftest import started

NOTE = "---\nmet: 2026-01-05T14:07:09\ntags: [b, a, c]\n---\n# Met\n"


@pytest.mark.covers("search_dql", "success")
async def test_dateformat_writes_luxon_tokens_and_sort_is_a_function_in_a_column(
    make_vault: Callable[..., Path],
) -> None:
    async with started(make_vault({"Met.md": NOTE})) as vg:
        await vg.indexed()
        formats = {
            "DDD": "January 5, 2026",
            "DD": "Jan 5, 2026",
            "D": "1/5/2026",
            "DDDD": "Monday, January 5, 2026",
            "cccc": "Monday",
            "ccc, LLL d": "Mon, Jan 5",
            "t": "2:07 PM",
            "TT": "14:07:09",
            "ff": "Jan 5, 2026, 2:07 PM",
            "'Q'q kk o": "Q1 26 5",
            "yyyy-MM-dd EEEE": "2026-01-05 Monday",  # the tokens read before stay as they were
        }
        columns = ", ".join(f'dateformat(met, "{f}")' for f in formats)
        out = await vg.ok("search_dql", query=f'TABLE WITHOUT ID {columns} FROM "Met"')
        assert [c["value"] for c in out["rows"][0]["cells"]] == list(formats.values())
        for query in ('TABLE sort(file.tags) FROM "Met"', "LIST sort(file.tags)", "TABLE WITHOUT ID sort(tags) AS s"):
            out = await vg.ok("search_dql", query=query)
            row = out["rows"][0]
            value = row["cells"][0] if "cells" in row else row["value"]
            assert [v.lstrip("#") for v in value["value"]] == ["a", "b", "c"], query
        out = await vg.ok("search_dql", query='TABLE file.name FROM "Met" SORT file.name DESC')
        assert out["columns"] == ["File", "file.name"] and len(out["rows"]) == 1


@pytest.fixture
def zone(monkeypatch: pytest.MonkeyPatch) -> Iterator[Callable[[str], None]]:
    """Set the process's zone (TZ) for the test; the machine's is back afterwards."""

    def set_zone(name: str) -> None:
        monkeypatch.setenv("TZ", name)
        time.tzset()

    yield set_zone
    monkeypatch.undo()
    time.tzset()


@pytest.mark.covers("search_dql", "success")
async def test_zone_tokens_write_the_server_s_zone(
    make_vault: Callable[..., Path], zone: Callable[[str], None]
) -> None:
    """Dates are the server's local times, so Luxon's zone tokens write its zone at that date, as
    Dataview writes the system zone (they were written as they are: 'ZZ' gave 'ZZ'); the macros
    ending with the zone end with its name (fff was 'fff'); a written offset is the same moment
    in local time (it was taken as UTC), and x/X count from 1970 UTC."""
    summer = "---\nmet: 2026-01-05T14:07:09\nsummer: 2026-07-05T14:07:09\nat: 2026-01-05T14:07:09+02:00\n---\n"
    formats = {
        "z | Z | ZZ | ZZZ": "America/New_York | -5 | -05:00 | -0500",
        "ZZZZ | ZZZZZ": "EST | Eastern Standard Time",
        "fff | FFFF": "January 5, 2026, 2:07 PM EST | Monday, January 5, 2026, 2:07:09 PM Eastern Standard Time",
        "ttt yyyy TTTT": "2:07:09 PM EST 2026 14:07:09 Eastern Standard Time",
        "x X": "1767640029000 1767640029",
    }
    zone("America/New_York")
    async with started(make_vault({"Met.md": summer + "# Met\n"})) as vg:
        await vg.indexed()
        columns = ", ".join(f'dateformat(met, "{f}")' for f in formats)
        out = await vg.ok("search_dql", query=f'TABLE WITHOUT ID {columns} FROM "Met"')
        assert [c["value"] for c in out["rows"][0]["cells"]] == list(formats.values())
        query = 'TABLE WITHOUT ID dateformat(summer, "ZZ ZZZZ ZZZZZ"), dateformat(at, "HH:mm ZZ") FROM "Met"'
        out = await vg.ok("search_dql", query=query)
        assert [c["value"] for c in out["rows"][0]["cells"]] == ["-04:00 EDT Eastern Daylight Time", "07:07 -05:00"]
    zone("Asia/Kolkata")  # a zone without an en-US name: en-US writes its offset
    async with started(make_vault({"Met.md": summer + "# Met\n"})) as vg:
        await vg.indexed()
        query = 'TABLE WITHOUT ID dateformat(met, "z Z ZZZZ ZZZZZ") FROM "Met"'
        out = await vg.ok("search_dql", query=query)
        assert out["rows"][0]["cells"][0]["value"] == "Asia/Kolkata +5:30 GMT+5:30 GMT+05:30"
