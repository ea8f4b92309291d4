"""A write of many new notes during the first index is applied between the load's batches too.

557955df applied a write's index round between the load's batches only when it held at most 32
paths (`early.EARLY_MAX`); a larger one waited for the end of the load (minutes at 100k notes),
and the caller, its round ended, did not wait for it either: `bulk_create_notes` of 40 notes
made during the load answered, and none of them was found by search, alias or backlinks until
the index was ready. The limit is about replacing notes the index holds already (in a cold load
the by-note indexes are deferred: their rows are found by scans); new notes cost no scan, so a
round now waits only when more than `EARLY_MAX` of its notes are indexed (`service/indexer/early.py`).

Through the dispatch chain, on a load held in the middle (`tests/first_index_gate.py`), bulk and
small load: 40 new notes found before ready; after the load, the word index's integrity check,
every link to a note resolved. And a rewrite of more than `EARLY_MAX` notes the index holds still waits
for the end of the load, and is in once it is ready."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from service.indexer.early import EARLY_MAX
from tests.conftest import Harness, started
from tests.first_index_gate import FirstIndexGate, FirstRoundHeld, vault_files

MANY = EARLY_MAX + 8


async def as_client(vg: Harness, tool: str, /, **args: Any) -> dict[str, Any]:
    """A call of one MCP session: its writes' index rounds are queued, its reads wait for them."""
    request = SimpleNamespace(request=SimpleNamespace(headers={"mcp-session-id": "w2"}), session=None)
    result = await vg.app.dispatcher.call(tool, args, principal=vg.principal, transport="http", request=request)
    assert not result.is_error, result.structured
    assert result.structured is not None
    return result.structured


async def many_in_one_round(vg: Harness, tool: str, **args: Any) -> None:
    held = FirstRoundHeld(vg.indexer())
    await as_client(vg, tool, **args, elicit_token=await vg.token_for(tool, **args))
    held.go.set()
    await as_client(vg, "index_status")  # waits for the call's rounds
    assert max(held.sizes) > EARLY_MAX  # the premise: a round of many paths


def paths(found: dict[str, Any]) -> list[str]:
    return sorted(item["path"] for item in found["items"])


async def backlinks(vg: Harness, path: str) -> set[str]:
    return {item["path"] for item in (await as_client(vg, "get_backlinks", path=path))["items"]}


async def exact(vg: Harness) -> None:
    await vg.indexer().query_indexes.settled()
    check = "INSERT INTO fts_words(fts_words, rank) VALUES ('integrity-check', 1)"
    await vg.app.db.run_write(lambda c: c.execute(check))
    unresolved = {str(r[0]) for r in await vg.app.db.fetchall("SELECT target_raw FROM links WHERE target_path IS NULL")}
    assert unresolved == {"Fresh"}  # the gate's notes link to a note no file is


def new_note(i: int) -> dict[str, str]:
    return {"path": f"Bulk/B{i:02d}", "content": f"---\naliases: [Bulk {i:02d}]\n---\nbulk{i:02d}q see [[Target]]\n"}


@pytest.mark.parametrize("bulk", [True, False], ids=["bulk-load", "small-load"])
async def test_many_new_notes_are_found_before_the_first_index_ends(
    make_vault: Callable[..., Path], monkeypatch: pytest.MonkeyPatch, bulk: bool
) -> None:
    gate = FirstIndexGate(monkeypatch, at=3, bulk=bulk)  # 3 batches stored, the 4th parsed and held
    last = f"Bulk/B{MANY - 1:02d}.md"
    async with started(make_vault(vault_files())) as vg:
        try:
            await gate.wait_held()
            await many_in_one_round(vg, "bulk_create_notes", notes=[new_note(i) for i in range(MANY)])
            found = await as_client(vg, "search_text", query=f"bulk{MANY - 1:02d}q")
            assert paths(found) == [last] and found["partial"] is True
            assert (await as_client(vg, "read_note", path=f"Bulk {MANY - 1:02d}"))["path"] == last
            assert {f"Bulk/B{i:02d}.md" for i in range(MANY)} <= await backlinks(vg, "Target")
            assert not vg.indexer().ready
        finally:
            gate.release()
        await vg.settled()
        assert vg.indexer().ready
        assert paths(await vg.ok("search_text", query="bulk00q")) == ["Bulk/B00.md"]
        assert (await vg.ok("index_status"))["notes"] == len(vault_files()) + MANY
        await exact(vg)


async def test_a_rewrite_of_many_indexed_notes_waits_for_the_end_of_the_load(
    make_vault: Callable[..., Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    gate = FirstIndexGate(monkeypatch, at=8, bulk=True)  # 40 of the 41 notes stored, the last batch held
    async with started(make_vault(vault_files())) as vg:
        try:
            await gate.wait_held()
            stored = sorted(str(r[0]) for r in await vg.app.db.fetchall("SELECT path FROM notes"))
            notes = [p for p in stored if p.startswith("Notes/")][: EARLY_MAX + 2]
            assert len(notes) == EARLY_MAX + 2
            rewrites = []
            for path in notes:
                etag = (await vg.ok("read_note", path=path))["etag"]
                rewrites.append({"path": path, "content": "rewritten zqjvk\n", "expected_etag": etag})
            await many_in_one_round(vg, "bulk_create_notes", notes=rewrites, overwrite=True)
            found = await as_client(vg, "search_text", query="zqjvk", limit=100)
            assert notes[-1] not in paths(found)  # its round waits for the end of the load
            assert not vg.indexer().ready
        finally:
            gate.release()
        await vg.settled()
        assert vg.indexer().ready
        assert paths(await vg.ok("search_text", query="zqjvk", limit=100)) == sorted(notes)
        await exact(vg)
