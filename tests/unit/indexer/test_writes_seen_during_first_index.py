"""Read-your-writes while the first index is being built: a write through vaultgate is applied
between the load's batches (`service/indexer/early.py`), so the caller finds it by its words, its
alias and its links before the index is ready, instead of after the whole load (minutes at 100k
notes). Through the dispatch chain, on a load held in the middle (`tests/first_index_gate.py`),
as a bulk load into an empty index (word triggers and query indexes deferred) and as a small one.

After the load: the notes the load parsed before the write keep the written text (its batch
leaves them out), links parsed before the new note existed resolve to it, and the word index
matches `note_text` exactly (FTS5's integrity check)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import Harness, started
from tests.first_index_gate import NOTES, FirstIndexGate, vault_files


async def rewrite(vg: Harness, path: str, content: str) -> None:
    etag = (await vg.ok("read_note", path=path))["etag"]
    await vg.ok("write_note", path=path, content=content, mode="overwrite", expected_etag=etag)


FRESH = "---\naliases: [Freshly Made]\n---\n# Fresh\n\nzyxquux links to [[Target]]\n"


def paths(found: dict[str, Any]) -> list[str]:
    return sorted(item["path"] for item in found["items"])


async def search(vg: Harness, query: str) -> list[str]:
    found = await vg.ok("search_text", query=query)
    assert found["partial"] is not vg.indexer().ready
    return paths(found)


async def backlinks(vg: Harness, path: str) -> list[str]:
    return sorted({item["path"] for item in (await vg.ok("get_backlinks", path=path))["items"]})


def token(path: str) -> str:
    return f"tok{path[-5:-3]}x"  # Notes/N07.md: tok07x


@pytest.mark.parametrize("bulk", [True, False], ids=["bulk-load", "small-load"])
async def test_a_write_is_found_before_the_first_index_ends(
    make_vault: Callable[..., Path], monkeypatch: pytest.MonkeyPatch, bulk: bool
) -> None:
    gate = FirstIndexGate(monkeypatch, at=3, bulk=bulk)  # 3 batches stored, the 4th parsed and held
    every = sorted(p for p in vault_files() if p.startswith("Notes/"))
    async with started(make_vault(vault_files())) as vg:
        try:
            await gate.wait_held()
            await vg.ok("create_note", path="Fresh", content=FRESH)  # in-process: waits for its index update
            stored = sorted(str(r[0]) for r in await vg.app.db.fetchall("SELECT path FROM notes"))
            before = [p for p in stored if p in every and p != "Fresh.md"]
            held = sorted(p for p in gate.held_batch if p.startswith("Notes/"))
            later = [p for p in every if p not in before and p not in held]
            assert len(before) >= 10 and held and later  # the load really is in its middle
            old, parsed, unread = before[0], held[0], later[-1]
            await rewrite(vg, old, "# Old\n\nqwvbnm now, see [[Fresh]]\n")  # stored before
            await rewrite(vg, parsed, "# Held\n\nrtyfgh now, see [[Fresh]]\n")  # parsed, its batch held
            await rewrite(vg, unread, "# Later\n\nplmokn now, see [[Fresh]]\n")  # not read yet

            assert await search(vg, "zyxquux") == ["Fresh.md"]
            assert (await vg.ok("read_note", path="Freshly Made"))["path"] == "Fresh.md"
            assert "Fresh.md" in await backlinks(vg, "Target")
            assert await search(vg, "qwvbnm") == [old]
            assert await search(vg, token(old)) == []  # the note's old words went with its old text
            assert await search(vg, "rtyfgh") == [parsed]
            assert await search(vg, "plmokn") == [unread]
            # The notes stored before held [[Fresh]] unresolved: the new note's round resolved them.
            assert await backlinks(vg, "Fresh") == sorted({*before, parsed, unread})
            status = await vg.ok("index_status")
            assert not vg.indexer().ready and status["state"] == "reconciling"
        finally:
            gate.release()
        await vg.settled()
        assert vg.indexer().ready

        assert await search(vg, token(parsed)) == []  # the held batch's older parse was left out
        assert await search(vg, "rtyfgh") == [parsed]
        assert await search(vg, token(unread)) == []
        assert await search(vg, "zyxquux") == ["Fresh.md"]
        assert await search(vg, token(later[0])) == [later[0]]  # the load went on
        # Parsed before Fresh existed (the held batch) or after: every note's link resolves.
        assert await backlinks(vg, "Fresh") == every
        assert (await vg.ok("index_status"))["notes"] == NOTES + 2
        await vg.indexer().query_indexes.settled()
        check = "INSERT INTO fts_words(fts_words, rank) VALUES ('integrity-check', 1)"
        await vg.app.db.run_write(lambda c: c.execute(check))
        assert list(await vg.app.db.fetchall("SELECT target_raw FROM links WHERE target_path IS NULL")) == []
