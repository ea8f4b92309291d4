"""Session 78 (V2): values written as text as Dataview writes them with its default settings
(value.ts Values.toString, settings.ts DEFAULT_QUERY_SETTINGS), through the dispatch chain. A
null is renderNullAs ('\\-', a Markdown-escaped dash: Obsidian shows '-'), text + anything is
text (binaryop.ts), a list inside a list or an object is bracketed, display(date) is
defaultDateFormat 'MMMM dd, yyyy' (with a time: 'h:mm a - MMMM dd, yyyy')."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from tests.conftest import started


def cells(out: dict[str, Any]) -> list[Any]:
    return [c["value"] for c in out["rows"][0]["cells"]]


async def test_null_and_nested_lists_written_as_dataview_writes_them(make_vault: Callable[..., Path]) -> None:
    """`"Due: " + due` for a note without `due` was null (Dataview 'Due: \\-'); string(null) was
    'null'; a nested list lost its brackets ('1, 2, 3' for list(1, list(2, 3))); display(date)
    was 'January 5, 2024' and dropped the time. A number + null has no implementation in
    binaryop.ts: the row fails, and this query of one row with it (session 81; it was null)."""
    async with started(make_vault({"N.md": "---\nstatus: open\n---\n"})) as vg:
        await vg.indexed()
        query = (
            'TABLE WITHOUT ID "Due: " + due, due + "!", string(due), join(list("a", due)), '
            'string(list(1, list(2, 3))), string(object("k", list(1, null))), display(date(2024-01-05)), '
            'display(date(2024-01-05T15:30)) FROM "N"'
        )
        out = await vg.ok("search_dql", query=query)
        assert cells(out) == [
            "Due: \\-", "\\-!", "\\-", "a, \\-", "1, [2, 3]", "{ k: [1, \\-] }", "January 05, 2024",
            "3:30 PM - January 05, 2024",
        ]  # fmt: skip
        failed = await vg.err("search_dql", "query_syntax_error", query='TABLE WITHOUT ID 1 + due FROM "N"')
        assert failed["details"]["errors"] == ["No implementation found for 'number + null'"]
        rows = await vg.ok("search_dql", query='LIST WHERE "x" + due = "x\\\\-"')
        assert [r["path"] for r in rows["rows"]] == ["N.md"]
