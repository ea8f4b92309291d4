"""A real vault (Obsidian's own help, copied to tmp): moving a heavily linked note keeps every link."""

from __future__ import annotations

from pathlib import Path

from service.graph.queries import GraphQueries
from tests.conftest import started
from tests.real_vaults import VAULTS, needs, writable_copy

HELP = VAULTS / "obsidian-help-en"


async def _counts(queries: GraphQueries, vault_id: str) -> tuple[int, int]:
    resolved = await queries.db.fetchone(
        "SELECT count(*) FROM links WHERE vault_id = ? AND target_path IS NOT NULL", (vault_id,)
    )
    broken = await queries.db.fetchone(
        "SELECT count(*) FROM links WHERE vault_id = ? AND target_path IS NULL", (vault_id,)
    )
    return int(resolved[0]), int(broken[0])


@needs(HELP)
async def test_moving_the_most_linked_note_keeps_every_backlink(tmp_path: Path) -> None:
    root = tmp_path / "help"
    writable_copy(HELP, root)
    async with started(root, index={"watch": False}) as vg:  # the move's own updates, nothing else
        await vg.indexed()
        vault = next(iter(vg.app.services.vaults.values()))
        queries = GraphQueries(vg.app.services.db)
        row = await queries.db.fetchone(
            "SELECT target_path, count(*) AS n FROM links WHERE vault_id = ? AND target_path LIKE '%.md' "
            "GROUP BY target_path ORDER BY n DESC, target_path LIMIT 1",
            (vault.id,),
        )
        target, inbound = str(row[0]), int(row[1])
        assert inbound >= 10
        sources_before = sorted({e.source for e in await queries.backlinks(vault.id, [target])})
        counts_before = await _counts(queries, vault.id)

        new_path = "Moved Here/" + target.rsplit("/", 1)[-1]
        preview = await vg.ok("move_note", path=target, new_path=new_path, dry_run=True)
        assert (root / target).exists()
        out = await vg.confirmed("move_note", path=target, new_path=new_path)
        assert out["files_changed"] == preview["files_changed"]

        edges = await queries.backlinks(vault.id, [new_path])
        assert len(edges) == inbound
        moved_sources = {out_item["path"]: out_item.get("new_path") for out_item in out["items"]}
        expected = sorted(moved_sources.get(s) or (new_path if s == target else s) for s in sources_before)
        assert sorted({e.source for e in edges}) == sorted(set(expected))
        assert await _counts(queries, vault.id) == counts_before
        assert await queries.backlinks(vault.id, [target]) == []
