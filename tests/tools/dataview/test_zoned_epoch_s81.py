"""Session 81 (D1): a date written with a zone that is the epoch is false, as any other epoch.

data-model/value.ts `Values.isTruthy`: a date is truthy when `toMillis() != 0`, the instant,
whatever its zone. d43cd472 compared the server's date with a naive local epoch (R1 s80: an
aware datetime would never equal it, so would never be false). Dates here are the server's local
times, a written offset converted (docs/dataview.md): a zoned epoch, in a query, a property (YAML
reads `...Z` as an aware datetime) or an inline field, is the local epoch, false; a moment after
it, true.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from tests.conftest import started

FILES = {
    "A.md": "---\nz: 1970-01-01T00:00:00Z\nk: 1970-01-01T05:30:00+05:30\nlater: 1970-01-01T00:00:01Z\n---\n"
    "f:: 1970-01-01T00:00:00.000+00:00\n",
}


async def test_a_zoned_epoch_is_false(make_vault: Callable[..., Path]) -> None:
    async with started(make_vault(FILES)) as vg:
        await vg.indexed()
        query = (
            'TABLE WITHOUT ID choice(date("1970-01-01T00:00:00Z"), 1, 2), '
            'choice(date("1970-01-01T01:00:00+01:00"), 1, 2), choice(z, 1, 2), choice(k, 1, 2), '
            'choice(f, 1, 2), choice(later, 1, 2), choice(date("1970-01-01T00:00:01Z"), 1, 2), '
            'typeof(z), typeof(f) FROM "A"'
        )
        cells = (await vg.ok("search_dql", query=query))["rows"][0]["cells"]
        assert [c["value"] for c in cells] == [2, 2, 2, 2, 2, 1, 1, "date", "date"]
