"""The note names the server holds for address resolution (`NoteNames`, read by the warm-up once
the index is ready) share the path strings the indexer's scan keeps, instead of holding a second
copy of every path read from SQLite: at 10^5 notes the copies were 8.6 MB of a settled server."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from service.indexer.runner import indexer_of
from service.tools.context import note_name_loader
from tests.conftest import started
from tests.tools.test_query_warmup import _until

VAULT = {
    "Projects/Launch plan.md": "---\naliases: [Rocket]\n---\n# Launch plan\n\nGoals.\n",
    "Daily/2026-01-01.md": "# Day\n\nSee [[Rocket]].\n",
    "Inbox/Idea.md": "# Idea\n\nA thought.\n",
}


async def test_the_held_note_names_share_the_indexers_path_strings(make_vault: Callable[..., Path]) -> None:
    async with started(make_vault(VAULT)) as vg:
        await vg.indexed()
        vault = next(iter(vg.app.vaults.values()))
        indexer = indexer_of(vault)
        assert indexer is not None
        await _until(lambda: vg.app.warmup.names_warmed == 1)
        held = await indexer.names.get(note_name_loader(vg.app.services.db, vault.id))  # the list read ahead
        assert indexer.names.full_reads == 1
        known = {path: path for path in indexer.files()}
        assert sorted(n.path for n in held) == sorted(p for p in known if p.endswith(".md"))
        assert all(n.path is known[n.path] for n in held)  # the same objects, not equal copies
        found = await vg.ok("read_note", path="Rocket")  # resolution over the held names still works
        assert found["path"] == "Projects/Launch plan.md"
