"""graph read tools over the index: backlinks, outlinks, neighbours, broken links, orphans."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from pathlib import Path

import pytest

from service.indexer.runner import indexer_of
from tests.conftest import Harness, started

GRAPH = {
    "A.md": "# A\n\nTo [[B]] and [[Missing]].\nEmbed ![[C#Part|c]]\n",
    "B.md": "# B\n\nOn to [C](C.md).\n",
    "C.md": "# C\n\n## Part\n",
    "D.md": "Back to [[A]].\n",
    "Lonely.md": "Nobody links here. [[Lonely]]\n",
    "Sub/E.md": "Broken [x](Nowhere.md)\n",
}


@pytest.fixture
async def graph(make_vault: Callable[..., Path]) -> AsyncIterator[Harness]:
    async with started(make_vault(GRAPH)) as harness:
        await harness.indexed()
        yield harness


@pytest.mark.covers("get_backlinks", "success")
async def test_backlinks_carry_the_linking_line(vg: Harness) -> None:
    await vg.indexed()
    out = await vg.ok("get_backlinks", path="Projects/Plan")
    assert out["target"] == "Projects/Plan.md"
    assert [(i["path"], i["line"], i["text"]) for i in out["items"]] == [("Welcome.md", 8, "See [[Projects/Plan]].")]
    item = out["items"][0]
    assert item["title"] == "Welcome" and item["obsidian_url"].endswith("file=Welcome.md")
    assert out["next_cursor"] is None


@pytest.mark.covers("get_outlinks", "success")
async def test_outlinks_flag_resolved_and_unresolved(graph: Harness) -> None:
    out = await graph.ok("get_outlinks", path="A.md")
    got = [(i["path"], i["resolved"], i["line"], i["embed"], i["subpath"]) for i in out["items"]]
    assert got == [
        ("B.md", True, 3, False, None),
        ("Missing.md", False, 3, False, None),
        ("C.md", True, 4, True, "Part"),
    ]
    assert out["items"][0]["text"] == "To [[B]] and [[Missing]]."
    urls = [i["obsidian_url"].split("?")[0] + "|" + i["obsidian_url"].rsplit("file=", 1)[1] for i in out["items"]]
    # An unresolved target gets the URL that creates it, as clicking the link in Obsidian does.
    assert urls == ["obsidian://open|B.md", "obsidian://new|Missing", "obsidian://open|C.md"]


async def test_backlinks_paginate_with_a_cursor(graph: Harness) -> None:
    first = await graph.ok("get_outlinks", path="A", limit=2)
    assert len(first["items"]) == 2 and first["next_cursor"]
    rest = await graph.ok("get_outlinks", path="A", limit=2, cursor=first["next_cursor"])
    assert [i["path"] for i in rest["items"]] == ["C.md"] and rest["next_cursor"] is None
    await graph.err("get_outlinks", "validation_error", path="B", cursor=first["next_cursor"])


@pytest.mark.covers("graph_neighbors", "success")
async def test_neighbors_follow_direction_and_depth(graph: Harness) -> None:
    one = await graph.ok("graph_neighbors", path="A")
    assert [(i["path"], i["distance"], i["direction"]) for i in one["items"]] == [
        ("B.md", 1, "out"),
        ("C.md", 1, "out"),
        ("D.md", 1, "in"),
    ]
    out2 = await graph.ok("graph_neighbors", path="D", depth=3, direction="out")
    assert [(i["path"], i["distance"], i["via"]) for i in out2["items"]] == [
        ("A.md", 1, "D.md"),
        ("B.md", 2, "A.md"),
        ("C.md", 2, "A.md"),
    ]
    capped = await graph.ok("graph_neighbors", path="D", depth=3, direction="out", max_nodes=1)
    assert capped["truncated"] is True and [i["path"] for i in capped["items"]] == ["A.md"]


@pytest.mark.covers("find_broken_links", "success")
async def test_broken_links_list_source_line_and_target(graph: Harness) -> None:
    out = await graph.ok("find_broken_links", limit=10)
    assert [(i["path"], i["line"], i["target"]) for i in out["items"]] == [
        ("A.md", 3, "Missing"),
        ("Sub/E.md", 1, "Nowhere.md"),
    ]
    scoped = await graph.ok("find_broken_links", limit=10, folder="Sub")
    assert [i["path"] for i in scoped["items"]] == ["Sub/E.md"]
    page = await graph.ok("find_broken_links", limit=1)
    assert len(page["items"]) == 1 and page["next_cursor"]


@pytest.mark.covers("find_orphans", "success")
async def test_orphans_have_no_links_in_or_out(graph: Harness) -> None:
    out = await graph.ok("find_orphans")
    assert [i["path"] for i in out["items"]] == ["Lonely.md", "Sub/E.md"]


@pytest.mark.covers("get_backlinks", "failure")
@pytest.mark.covers("get_outlinks", "failure")
@pytest.mark.covers("graph_neighbors", "failure")
@pytest.mark.covers("find_broken_links", "failure")
@pytest.mark.covers("find_orphans", "failure")
async def test_graph_tools_fail_on_missing_or_invalid_paths(graph: Harness) -> None:
    before = graph.snapshot()
    for tool in ("get_backlinks", "get_outlinks", "graph_neighbors"):
        await graph.err(tool, "note_not_found", path="Nope")
        await graph.err(tool, "path_invalid", path="../etc/passwd")
    await graph.err("find_broken_links", "validation_error", limit=0)
    for tool in ("find_broken_links", "find_orphans"):
        failed = await graph.err(tool, "note_not_found", folder="No/Such/Folder")
        assert failed["details"]["field"] == "folder"
        await graph.err(tool, "note_not_found", folder="A.md")  # a note is not a folder
        await graph.err(tool, "path_invalid", folder="../outside")
    assert graph.snapshot() == before


async def test_notes_deleted_on_disk_never_appear_in_graph_results(make_vault: Callable[..., Path]) -> None:
    """Another program deletes notes and no watcher tells the index: every graph tool checks its
    results against the disk, and the index then drops the notes."""
    root = make_vault(GRAPH)
    async with started(root, index={"watch": False}) as vg:
        await vg.indexed()
        (root / "D.md").unlink()  # links to A
        (root / "C.md").unlink()  # linked from A and B
        (root / "Lonely.md").unlink()  # an orphan
        (root / "Sub/E.md").unlink()  # holds a broken link
        indexer = indexer_of(next(iter(vg.app.vaults.values())))
        assert indexer is not None
        # First, while the index still holds all four (nothing has found them gone yet).
        broken = await vg.ok("find_broken_links", limit=10)
        assert [(i["path"], i["target"]) for i in broken["items"]] == [("A.md", "Missing")]
        await indexer.wait_for(lambda: "Sub/E.md" not in indexer._files, within=60)
        back = await vg.ok("get_backlinks", path="A")
        assert back["items"] == []
        out = await vg.ok("get_outlinks", path="A")
        assert [(i["path"], i["resolved"]) for i in out["items"]] == [
            ("B.md", True),
            ("Missing.md", False),
            ("C.md", False),  # its note is gone: the link is now unresolved
        ]
        near = await vg.ok("graph_neighbors", path="A", depth=2)
        assert [i["path"] for i in near["items"]] == ["B.md"]
        assert (await vg.ok("find_orphans"))["items"] == []
        gone = {"C.md", "D.md", "Lonely.md", "Sub/E.md"}
        await indexer.wait_for(lambda: gone.isdisjoint(indexer.files()), within=60)
        # Once dropped, the links into C are what they are on disk: broken.
        broken = await vg.ok("find_broken_links", limit=10)
        assert [(i["path"], i["target"]) for i in broken["items"]] == [
            ("A.md", "Missing"),
            ("A.md", "C"),
            ("B.md", "C.md"),
        ]
        assert (await vg.ok("index_status"))["notes"] == len(GRAPH) - len(gone)


class _DenyGuard:
    """Denies every operation on one path (stands in for the security layer's path ACL)."""

    def __init__(self, denied: str) -> None:
        self.denied = denied

    def check(self, principal: object, vault: object, rel: str, op: str) -> None:
        if rel == self.denied:
            from service.errors import AclDenied

            raise AclDenied("denied", details={"path": rel, "op": op})

    def allows(self, principal: object, vault: object, rel: str, op: str) -> bool:
        return rel != self.denied


async def test_unreadable_notes_never_appear_in_graph_results(graph: Harness) -> None:
    graph.app.services.guard = _DenyGuard("B.md")
    # A link to B looks exactly like the link to Missing: unresolved, never dropped (dropping it would
    # tell the caller that B exists).
    outlinks = (await graph.ok("get_outlinks", path="A"))["items"]
    assert [(i["path"], i["resolved"]) for i in outlinks] == [("B.md", False), ("Missing.md", False), ("C.md", True)]
    broken = [(i["path"], i["target"]) for i in (await graph.ok("find_broken_links"))["items"]]
    assert broken == [("A.md", "B"), ("A.md", "Missing"), ("Sub/E.md", "Nowhere.md")]
    # B is not even a hop: C is only reachable from D through A's embed.
    hood = await graph.ok("graph_neighbors", path="D", depth=3, direction="out")
    assert [i["path"] for i in hood["items"]] == ["A.md", "C.md"]
    assert "B.md" not in [i["path"] for i in (await graph.ok("find_orphans"))["items"]]
    await graph.err("get_backlinks", "acl_denied", path="B")
    backlinks_of_c = await graph.ok("get_backlinks", path="C", limit=1)
    assert [i["path"] for i in backlinks_of_c["items"]] == ["A.md"] and backlinks_of_c["next_cursor"] is None
