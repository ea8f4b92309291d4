"""Session 82 (D2): Dataview's `and`/`or` and index access over real HTTP with the SDK client in
both protocol eras."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from mcp import Client

from tests.conftest import e2e
from tests.e2e.calls import error, ok


async def test_and_or_and_index_fail_rows_as_dataview(make_vault: Callable[..., Path], mode: str) -> None:
    """`and`/`or` evaluate both operands (binaryop.ts `&`, `|`): `true or n - 1` leaves out a row
    whose n is text, where the server kept it; `s.length` on a string fails the row (context.ts:
    a string is indexed by a number only), where the server answered 3; a list indexed by a
    non-integer is null; `rows.l` is one value per row, not flattened (context.ts)."""
    files = {"A.md": "---\ns: abc\nl: [10, 20]\n---\nn:: 2\n", "B.md": "n:: text\n"}
    async with e2e(make_vault(files)) as (url, harness), Client(url, mode=mode) as client:  # type: ignore[arg-type]
        await harness.indexed()
        out = await ok(client, "search_dql", query="LIST WHERE true or n - 1 > 0")
        assert [r["path"] for r in out["rows"]] == ["A.md"]
        out = await ok(client, "search_dql", query="TABLE s.length")
        assert [r["path"] for r in out["rows"]] == ["B.md"]
        failed = await error(client, "search_dql", query='TABLE s.length FROM "A"')
        assert failed["code"] == "query_syntax_error" and failed["details"]["reason"] == "every_row_failed"
        assert failed["details"]["errors"] == ["string indexing requires a numeric index (string[index])"]
        out = await ok(client, "search_dql", query='TABLE WITHOUT ID l[1], l[1.5] FROM "A"')
        assert [c["value"] for c in out["rows"][0]["cells"]] == [20, None]
        out = await ok(client, "search_dql", query="TABLE WITHOUT ID rows.l GROUP BY true")  # one value per row
        assert out["rows"][0]["cells"][0]["value"] == [[10, 20], None]
