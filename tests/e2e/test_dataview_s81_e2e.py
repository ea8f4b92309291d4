"""Session 81 (D1): Dataview semantics over real HTTP with the SDK client in both protocol eras."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from mcp import Client

from tests.conftest import e2e
from tests.e2e.calls import error, ok


async def test_rows_that_fail_sources_dataview_has(make_vault: Callable[..., Path], mode: str) -> None:
    """A row whose expression has no implementation for its types (binaryop.ts, functions.ts) is
    left out, and a query every row of which fails is an error (engine.ts), where the server kept
    such rows with null; `outgoing([[Ghost]])` of no note lists the pages linking to it written so
    (resolver.ts), where it listed none; `FROM csv(...)` is mode_unavailable, not a syntax error."""
    files = {"A.md": "n:: 2\nWaiting on [[Ghost]].\n", "B.md": "n:: text\n", "C.md": "nothing\n"}
    async with e2e(make_vault(files)) as (url, harness), Client(url, mode=mode) as client:  # type: ignore[arg-type]
        await harness.indexed()
        out = await ok(client, "search_dql", query="TABLE n - 1 AS m WHERE n - 1 < 5")
        assert [(r["path"], r["cells"][0]["value"]) for r in out["rows"]] == [("A.md", 1)]
        failed = await error(client, "search_dql", query="LIST WHERE length(file.size) > 1")
        assert failed["code"] == "query_syntax_error" and failed["details"]["reason"] == "every_row_failed"
        checked = await ok(client, "validate_dql", query="TABLE lower(3)")
        assert checked["valid"] is False and checked["error"]["function"] == "lower"
        out = await ok(client, "search_dql", query="LIST FROM outgoing([[Ghost]])")
        assert [r["path"] for r in out["rows"]] == ["A.md"]
        csv = await error(client, "search_dql", query='LIST FROM csv("data.csv")')
        assert csv["code"] == "mode_unavailable" and csv["details"]["source"] == "csv"
