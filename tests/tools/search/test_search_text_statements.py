"""What a search_text call asks besides its ranking, through the whole dispatch chain: the page's
snippets take the notes' sizes the ranking read (which notes are long enough to be quoted from a
window), so no statement asks the notes table for them again (issue 39: the per-call work of
`bench_search_buckets`' two-word buckets). A long note is still quoted from a window."""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

import pytest

from service.retrieval.windows import LONG_NOTE
from service.tools import search_common
from tests.conftest import started

T = TypeVar("T")


def _notes() -> dict[str, str]:
    filler = "Nothing of note in this sentence at all, only filler words. " * (LONG_NOTE // 50)
    return {
        "Short.md": "# Short\n\nThe orchid beside the greenhouse door.\n",
        "Other.md": "# Other\n\nA greenhouse with no flowers yet.\n",
        "Long.md": f"# Long\n\n{filler}\n\nAt last the orchid opened.\n",
    }


async def test_a_page_s_snippets_ask_no_size_the_ranking_read_and_a_long_note_is_windowed(
    make_vault: Callable[..., Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    statements: list[str] = []
    real = search_common.budgeted

    def traced(ctx: Any, fn: Callable[[sqlite3.Connection], T], at_least_ms: int = 0) -> Callable[..., T]:
        inner = real(ctx, fn, at_least_ms)

        def work(conn: sqlite3.Connection) -> T:
            conn.set_trace_callback(statements.append)
            try:
                return inner(conn)
            finally:
                conn.set_trace_callback(None)

        return work

    monkeypatch.setattr(search_common, "budgeted", traced)
    async with started(make_vault(_notes())) as vg:
        await vg.indexed()
        for query in ("orchid", "orchid greenhouse"):  # a strict page; a strict page and a relaxed pass
            statements.clear()
            out = await vg.ok("search_text", query=query)
            items = {i["path"]: i for i in out["items"]}
            assert {"Short.md", "Long.md"} <= set(items), out
            assert statements, "the search's reads were not traced"
            asked = [s for s in statements if "size >" in s]
            assert not asked, asked  # before: SELECT id FROM notes WHERE id IN (...) AND size > 16000
            long = items["Long.md"]
            assert long["snippet"].startswith("…") and "orchid" in long["snippet"].lower(), long
            start, end = long["highlights"][0]
            assert long["snippet"][start:end].lower() == "orchid"
            short = items["Short.md"]
            start, end = short["highlights"][0]
            assert short["snippet"][start:end].lower() in ("orchid", "greenhouse"), short
