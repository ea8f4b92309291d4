"""A NUL in a search query separates words, as every other control character does. search_text
and search_notes answered query_syntax_error 'the search engine rejected the query' (reason
'unterminated string' from SQLite's FTS5, hint null) for 'sync\\x00' while search_hybrid answered
(found by U7, session 74, sending odd inputs from the MCP TypeScript SDK client);
service/retrieval/query.py promises every string becomes an expression FTS5 accepts or a
syntax error of its own."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from tests.conftest import started

VAULT = {"Sync.md": "# Sync\n\nSync settings and selective syncing.\n", "Other.md": "# Other\n\nNothing here.\n"}


async def test_a_nul_in_a_query_separates_words(make_vault: Callable[..., Path]) -> None:
    async with started(make_vault(VAULT)) as vg:
        await vg.indexed()
        for query in ("sync\x00", "\x00sync", "sync\x00settings", "selective\x00\x00 syncing"):
            out = await vg.ok("search_text", query=query)
            assert [i["path"] for i in out["items"]] == ["Sync.md"], query
            notes = await vg.ok("search_notes", query=query, mode="full_text")
            assert [i["path"] for i in notes["items"]] == ["Sync.md"], query
        empty = await vg.call("search_text", query="\x00")
        assert empty.structured is not None and empty.structured["error"]["code"] == "query_syntax_error"
        assert empty.structured["error"]["hint"]
