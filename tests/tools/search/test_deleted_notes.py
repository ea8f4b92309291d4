"""Deleted notes never appear in results: a note removed from disk by another program, before
any watcher applies it (here there is none), is left out of every search page, the page is cut
again without it, and the index drops it."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from service.indexer.runner import indexer_of
from tests.conftest import started
from tests.search_vault import SEARCH_VAULT

GONE = "Projects/Alpha.md"


def _paths(out: dict[str, object]) -> list[str]:
    items = out["items"]
    assert isinstance(items, list)
    return [i["path"] for i in items]


async def test_a_note_deleted_on_disk_is_dropped_from_every_search_page(make_vault: Callable[..., Path]) -> None:
    root = make_vault(SEARCH_VAULT)
    async with started(root, index={"watch": False}) as vg:
        await vg.indexed()
        assert GONE in _paths(await vg.ok("search_text", query="launch", limit=5))
        (root / GONE).unlink()
        # Nothing told the index: without the check the stale row would still be a hit.
        text = await vg.ok("search_text", query="launch", limit=5)
        assert GONE not in _paths(text) and _paths(text) == ["Private/Secret.md"]
        page = await vg.ok("search_text", query="rocket", sort="path", limit=2)
        assert _paths(page) == ["Journal/2026-01-06.md", "Private/Secret.md"] and page["next_cursor"]
        regex = await vg.ok("search_regex", pattern="[Ff]uel|omega", limit=5)
        assert _paths(regex) == ["Private/Secret.md"]
        tags = await vg.ok("search_tags", tags=["project/alpha"], limit=5)
        assert _paths(tags) == ["Private/Secret.md"] and tags["total"] == 1
        props = await vg.ok("search_properties", filters=[{"key": "status", "op": "==", "value": "active"}])
        assert _paths(props) == ["Private/Secret.md"]
        logic = await vg.ok("query_jsonlogic", logic={"==": [{"var": "properties.status"}, "active"]})
        assert _paths(logic) == ["Private/Secret.md"]
        notes = await vg.ok("search_notes", mode="tags", query="project/alpha", limit=5)
        assert _paths(notes) == ["Private/Secret.md"] and notes["total"] == 1
        hybrid = await vg.ok("search_vault", query="launch", tags=["active"], limit=5)
        assert GONE not in _paths(hybrid)
        indexer = indexer_of(next(iter(vg.app.vaults.values())))
        assert indexer is not None

        async def count() -> int:
            row = await vg.app.services.db.fetchone("SELECT count(*) FROM notes WHERE path = ?", (GONE,))
            return int(row[0])

        # The search queued the path for the indexer, which drops it (bounded wait on the generation).
        await indexer.wait_for(lambda: GONE not in indexer._files, within=60)
        assert await count() == 0
        assert (await vg.ok("index_status"))["notes"] == len(SEARCH_VAULT) - 1
