"""Links written in frontmatter properties are links of the note in every graph answer, as in
Obsidian (its backlinks, graph view, Dataview's file.inlinks / file.outlinks): get_backlinks,
get_outlinks, find_broken_links, find_orphans, graph_neighbors, shortest_path, graphrag_query,
search_dql. Each
such item names its `property`. An index built before (body links only) gains them on a warm
restart (migration 0023 re-parses every note). Before, the index's links rows held the body's
links only: a note linking only from a property was an orphan and in no backlinks."""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from pathlib import Path
from typing import Any

from mcp import Client

from service.indexer.reconcile import compare
from service.storage.db import Database
from service.storage.migrate import migrate
from tests.conftest import Harness, e2e, started
from tests.semantic.helpers import semantic, settled

PROP = '---\nup: "[[Hub]]"\nrelated:\n  - \'[[Other|o]]\'\n  - "[[Gone]]"\ntitle: x\n---\n# Prop\n\nNo body link.\n'
VAULT = {
    "Hub.md": "# Hub\n\nA zeppelin.\n",
    "Prop.md": PROP,
    "Other.md": "# Other\n",
    "Lone.md": "# Lone\n",
    "Body.md": "Body [[Lone]] mentions.\n",
}


def _links(items: list[dict[str, Any]]) -> list[tuple[Any, ...]]:
    return [(i["path"], i["line"], i["text"], i.get("property"), i["kind"]) for i in items]


async def _check_graph(vg: Harness) -> None:
    back = await vg.ok("get_backlinks", path="Hub")
    assert _links(back["items"]) == [("Prop.md", 2, 'up: "[[Hub]]"', "up", "wikilink")]
    out = await vg.ok("get_outlinks", path="Prop")
    assert [(i["target"], i["line"], i.get("property"), i.get("alias"), i["resolved"]) for i in out["items"]] == [
        ("Hub", 2, "up", None, True),
        ("Other", 4, "related", "o", True),
        ("Gone", 5, "related", None, False),
    ]
    broken = await vg.ok("find_broken_links")
    assert _links(broken["items"]) == [("Prop.md", 5, '  - "[[Gone]]"', "related", "wikilink")]
    orphans = await vg.ok("find_orphans")
    assert [i["path"] for i in orphans["items"]] == []  # Hub, Prop and Other are linked from a property
    near = await vg.ok("graph_neighbors", path="Hub", direction="in")
    assert [(i["path"], i["direction"]) for i in near["items"]] == [("Prop.md", "in")]
    path = await vg.ok("shortest_path", source="Hub", target="Other")
    assert [n["path"] for n in path["notes"]] == ["Hub.md", "Prop.md", "Other.md"]
    assert [(h["line"], h["text"]) for h in path["hops"]] == [(2, 'up: "[[Hub]]"'), (4, "  - '[[Other|o]]'")]
    inlinks = await vg.ok("search_dql", query="LIST FROM [[Hub]]")
    assert "Prop.md" in str(inlinks) and "Body.md" not in str(inlinks)
    outlinks = await vg.ok("search_dql", query="LIST FROM outgoing([[Prop]])")
    assert "Hub.md" in str(outlinks) and "Other.md" in str(outlinks) and "Lone.md" not in str(outlinks)


async def test_property_links_are_in_every_graph_answer(make_vault: Callable[..., Path]) -> None:
    async with started(make_vault(VAULT)) as vg:
        await vg.indexed()
        await _check_graph(vg)


async def test_graphrag_follows_a_property_link(make_vault: Callable[..., Path]) -> None:
    async with semantic(make_vault(VAULT)) as vg:
        await settled(vg)
        rag = await vg.ok("graphrag_query", query="zeppelin", hops=1, seeds=1, limit=10)
    reached = {h["path"]: [(x["source"], x["target"], x["direction"]) for x in h["link_path"]] for h in rag["items"]}
    assert reached.get("Prop.md") == [("Hub.md", "Prop.md", "backlink")], rag  # from the seed, by `up: "[[Hub]]"`


async def test_an_edit_adding_or_removing_a_property_link_updates_the_graph(make_vault: Callable[..., Path]) -> None:
    async with started(make_vault(VAULT)) as vg:
        await vg.indexed()
        await vg.ok("set_properties", path="Lone", properties={"see": "[[Hub]]"})
        await vg.settled()
        back = await vg.ok("get_backlinks", path="Hub")
        assert [(i["path"], i.get("property")) for i in back["items"]] == [("Lone.md", "see"), ("Prop.md", "up")]
        await vg.ok("delete_property", path="Prop", key="up")
        await vg.settled()
        back = await vg.ok("get_backlinks", path="Hub")
        assert [(i["path"], i.get("property")) for i in back["items"]] == [("Lone.md", "see")]


async def test_an_index_built_before_gains_property_links_on_a_warm_restart(make_vault: Callable[..., Path]) -> None:
    root = make_vault(VAULT)
    async with started(root) as vg:
        await vg.indexed()
        db_path = Path(vg.app.db.path)
    # The index as the code before wrote it: body links only, no `property` column, 0023 not applied.
    conn = sqlite3.connect(db_path)
    with conn:
        conn.execute("DELETE FROM links WHERE property IS NOT NULL")
        conn.execute("ALTER TABLE links DROP COLUMN property")
        conn.execute("DELETE FROM schema_migrations WHERE version = 23")
    conn.close()
    async with started(root) as vg:
        await vg.indexed()
        await _check_graph(vg)


async def test_the_upgrade_keeps_each_note_s_date_and_re_parses_every_note(make_vault: Callable[..., Path]) -> None:
    """0023 forced the re-parse by setting every note's mtime to -1: until a note was read again
    (the first reconcile after the upgrade), searches answered `mtime -1`, sorted by it, and
    `modified_after` 2000 matched no note. It clears the content hash only now; the comparison
    reads a note whose hash is '' again, so the links are gained and no date was ever wrong."""
    root = make_vault(VAULT)
    async with started(root) as vg:
        await vg.indexed()
        db_path = Path(vg.app.db.path)
    conn = sqlite3.connect(db_path)
    with conn:
        dates = dict(conn.execute("SELECT path, mtime FROM notes"))
        conn.execute("DELETE FROM links WHERE property IS NOT NULL")
        conn.execute("ALTER TABLE links DROP COLUMN property")
        conn.execute("DELETE FROM schema_migrations WHERE version = 23")
    conn.close()
    db = Database(db_path, readers=1)
    await db.open()
    try:
        assert await migrate(db) == [23]
        rows = await db.fetchall("SELECT path, mtime, etag FROM notes")
    finally:
        await db.close()
    assert {str(p): m for p, m, _e in rows} == dates and min(dates.values()) > 0
    assert {e for _p, _m, e in rows} == {""}
    # The comparison: a note of an empty hash is read though its mtime and size are the file's.
    conn = sqlite3.connect(db_path)
    try:
        vault_id = conn.execute("SELECT vault_id FROM notes LIMIT 1").fetchone()[0]
        disk = {str(p): (m, n) for p, m, n in conn.execute("SELECT path, mtime, size FROM notes")}
        changed, removed, added, _etags = compare(conn, vault_id=vault_id, disk=disk, full=False)
    finally:
        conn.close()
    assert sorted(changed) == sorted(dates) and (removed, added) == ([], [])
    async with started(root) as vg:
        await vg.indexed()
        await _check_graph(vg)
        found = await vg.ok("search_text", query="zeppelin", sort="mtime")
        assert found["items"] and all(i["mtime"] > 0 for i in found["items"])


async def test_over_http_a_note_linking_only_from_a_property_is_a_backlink_and_no_orphan(
    make_vault: Callable[..., Path],
) -> None:
    async with e2e(make_vault(VAULT)) as (url, vg), Client(url) as client:
        await vg.indexed()
        back = await client.call_tool("get_backlinks", {"path": "Hub"})
        assert not back.is_error and back.structured_content is not None, back
        assert _links(back.structured_content["items"]) == [("Prop.md", 2, 'up: "[[Hub]]"', "up", "wikilink")]
        orphans = await client.call_tool("find_orphans", {})
        assert not orphans.is_error and orphans.structured_content is not None, orphans
        assert orphans.structured_content["items"] == []
