"""A write during a cold load resolves its address without reading a list of the whole vault.

While the first index is built into an empty index, an address is resolved against the notes on
disk too. Each call used to list the vault and, every stored batch having asked for a full read,
read every stored name again: at 100k notes a `create_note` then took 1.5-3.5 s, however small.
Now the load gives the note names the notes the scan found and the aliases of each batch it
stores (`service/indexer/names.py`). Through the dispatch chain, on a cold load held in the
middle (`tests/first_index_gate.py`): the calls find notes stored before (by name and alias), a
note not read yet (by name), the note the call itself created (by alias); and none of them
listed the vault or read every name."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from service.tools.context import ToolContext
from tests.conftest import Harness, started
from tests.first_index_gate import FirstIndexGate, vault_files


def nicknamed() -> dict[str, str | bytes]:
    """The gate's vault, each note with an alias of its own: Notes/N07.md is 'Nick 07'."""
    files = vault_files()
    for path, text in list(files.items()):
        if path.startswith("Notes/"):
            files[path] = f"---\naliases: [Nick {path[-5:-3]}]\n---\n{text!s}"
    return files


async def stored_paths(vg: Harness) -> set[str]:
    return {str(r[0]) for r in await vg.app.db.fetchall("SELECT path FROM notes")}


async def test_a_write_during_a_cold_load_lists_no_vault(
    make_vault: Callable[..., Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    listings: list[str] = []
    on_disk = ToolContext._files_on_disk

    def listing(ctx: ToolContext, suffix: str) -> list[str]:
        listings.append(suffix)
        return on_disk(ctx, suffix)

    monkeypatch.setattr(ToolContext, "_files_on_disk", listing)
    gate = FirstIndexGate(monkeypatch, at=3, bulk=True)  # 3 batches stored, the 4th parsed and held
    async with started(make_vault(nicknamed())) as vg:
        try:
            await gate.wait_held()
            names = vg.indexer().names
            made = await vg.ok("create_note", path="Fresh", content="---\naliases: [Freshly Made]\n---\n# Fresh\n")
            assert made["path"] == "Fresh.md"
            # Read after the write: the load applied it waiting for the held batch, every batch
            # before it stored and its names given (a batch still committing as the gate holds
            # the next one's parse could be in the table and not yet in the names).
            stored = sorted(p for p in await stored_paths(vg) if p.startswith("Notes/"))
            unread = sorted(p for p in vault_files() if p.startswith("Notes/") and p not in stored)
            unread = [p for p in unread if p not in gate.held_batch]
            assert len(stored) >= 10 and unread  # the load really is in its middle
            # A note on disk the load has not read is found by its name: creating it is refused.
            name = unread[-1].rpartition("/")[2][:-3]
            error = await vg.err("create_note", "already_exists", path=name, content="twin")
            assert error["details"]["path"] == unread[-1]
            # A stored note by its alias (given by the load's batch), the new one by its own.
            nick = f"Nick {stored[0][-5:-3]}"
            assert (await vg.ok("read_note", path=nick))["path"] == stored[0]
            assert (await vg.ok("read_note", path="Freshly Made"))["path"] == "Fresh.md"
            assert (await vg.ok("read_note", path=name))["path"] == unread[-1]
            assert not vg.indexer().ready
            # The calls read no list of the vault: no listing, no read of every name.
            assert listings == [] and names.full_reads == 0
        finally:
            gate.release()
        await vg.settled()
        assert vg.indexer().ready
        # Once ready, the index's names: every note by its alias, the one created during the load too.
        assert (await vg.ok("read_note", path=f"Nick {unread[-1][-5:-3]}"))["path"] == unread[-1]
        assert (await vg.ok("read_note", path="Freshly Made"))["path"] == "Fresh.md"
        assert not names.with_files
