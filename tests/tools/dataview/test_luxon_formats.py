"""search_dql through the dispatch chain: `dateformat` writes Luxon's tokens as Dataview does (en-US),
and `sort(…)` first in a TABLE or LIST is the function, not the SORT command."""

from __future__ import annotations

from collections.abc import Callable
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
            # Luxon's macros ending with the zone's name are kept as written (dates carry no zone), as
            # ZZZZ is; they were read as ff + f, tt + t: 'Jan 5, 2026, 2:07 PM1/5/2026, 2:07 PM'
            "fff | FFFF": "fff | FFFF",
            "ttt yyyy TTTT": "ttt 2026 TTTT",
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
