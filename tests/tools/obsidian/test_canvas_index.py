"""Canvases in the index: text nodes are searchable, file nodes are links (backlinks), and a
canvas never passes for a note."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import AsyncIterator, Callable
from pathlib import Path

import pytest

from service.indexer.canvas_facts import canvas_facts
from service.semantic import store
from tests.conftest import Harness, started

BOARD = {
    "nodes": [
        {"id": "t1", "type": "text", "x": 0, "y": 0, "width": 300, "height": 80,
         "text": "Quarterly zeppelin roadmap, see [[Ideas#Later]]"},
        {"id": "f1", "type": "file", "x": 400, "y": 0, "width": 400, "height": 300, "file": "Projects/Plan.md",
         "subpath": "#Goals"},
        {"id": "f2", "type": "file", "x": 400, "y": 400, "width": 400, "height": 300, "file": "img/cat.png"},
        {"id": "g1", "type": "group", "x": -50, "y": -50, "width": 1000, "height": 900, "label": "Hangar"},
    ],
    "edges": [{"id": "e1", "fromNode": "t1", "toNode": "f1", "label": "blimp"}],
}  # fmt: skip

FILES: dict[str, str | bytes] = {
    "Projects/Plan.md": "# Plan\n\n## Goals\n",
    "Ideas.md": "# Ideas\n\n## Later\n",
    "Lonely.md": "nobody\n",
    "img/cat.png": b"\x89PNG",
    "Board.canvas": json.dumps(BOARD, indent="\t"),
}


@pytest.fixture
async def ix(make_vault: Callable[..., Path]) -> AsyncIterator[Harness]:
    async with started(make_vault(FILES)) as harness:
        await harness.indexed()
        yield harness


def test_facts_lines_point_at_the_node() -> None:
    text = json.dumps(BOARD, indent="\t")
    facts = canvas_facts("Maps/Board.canvas", text)
    assert facts.title == "Board"
    assert "zeppelin" in facts.body and "Hangar" in facts.body and "blimp" in facts.body
    lines = text.split("\n")
    got = [(ln.target, ln.subpath, ln.embed, ln.kind, lines[ln.line].strip()[:7]) for ln in facts.links]
    assert got == [
        ("Ideas", "Later", False, "wikilink", '"text":'),
        ("Projects/Plan.md", "Goals", True, "canvas", '"file":'),
        ("img/cat.png", None, True, "canvas", '"file":'),
    ]
    assert canvas_facts("Bad.canvas", "{nope").links == []


async def test_text_nodes_are_searchable(ix: Harness) -> None:
    out = await ix.ok("search_text", query="zeppelin")
    assert [i["path"] for i in out["items"]] == ["Board.canvas"]
    assert [i["path"] for i in (await ix.ok("search_text", query="blimp"))["items"]] == ["Board.canvas"]


async def test_file_nodes_are_backlinks(ix: Harness) -> None:
    out = await ix.ok("get_backlinks", path="Projects/Plan")
    assert [(i["path"], i["text"].strip()) for i in out["items"]] == [("Board.canvas", '"file": "Projects/Plan.md",')]
    ideas = await ix.ok("get_backlinks", path="Ideas")
    assert [i["path"] for i in ideas["items"]] == ["Board.canvas"]
    files = await ix.ok("list_attachments", kind="image")
    assert [n["path"] for n in files["items"][0]["embedded_by"]] == ["Board.canvas"]


async def test_a_canvas_is_not_a_note(ix: Harness) -> None:
    await ix.err("read_note", "not_a_note", path="Board.canvas")
    await ix.err("read_note", "note_not_found", path="Board")
    orphans = await ix.ok("find_orphans")
    assert [i["path"] for i in orphans["items"]] == ["Lonely.md"]


async def test_writes_reindex_the_canvas(ix: Harness) -> None:
    node = {"id": "n", "type": "file", "x": 0, "y": 0, "width": 10, "height": 10, "file": "Lonely.md"}
    text = {"id": "t", "type": "text", "x": 0, "y": 20, "width": 10, "height": 10, "text": "dirigible"}
    await ix.ok("write_canvas", path="Sky.canvas", nodes=[node, text])
    assert [i["path"] for i in (await ix.ok("get_backlinks", path="Lonely"))["items"]] == ["Sky.canvas"]
    assert [i["path"] for i in (await ix.ok("search_text", query="dirigible"))["items"]] == ["Sky.canvas"]
    read = await ix.ok("read_canvas", path="Sky")
    await ix.ok("write_canvas", path="Sky", nodes=[text], expected_etag=read["etag"])
    assert (await ix.ok("get_backlinks", path="Lonely"))["items"] == []
    await ix.ok("delete_note", path="Lonely")  # not the canvas: a note still deletes as before


async def test_moving_a_note_rewrites_the_canvas_that_shows_it(ix: Harness) -> None:
    before = ix.read("Board.canvas")
    out = await ix.confirmed("move_note", path="Projects/Plan", new_path="Archive/Roadmap")
    assert [i["path"] for i in out["items"]] == ["Board.canvas"] and out["links_rewritten"] == 1
    after = ix.read("Board.canvas")
    assert after == before.replace('"file": "Projects/Plan.md"', '"file": "Archive/Roadmap.md"')
    await ix.confirmed("move_note", path="Ideas", new_path="Notes/Thoughts")  # a wikilink in a text node
    assert "see [[Thoughts#Later]]" in ix.read("Board.canvas")  # the shortest form, as Obsidian writes it
    assert json.loads(ix.read("Board.canvas"))["nodes"][1]["file"] == "Archive/Roadmap.md"
    links = await ix.ok("get_backlinks", path="Archive/Roadmap")
    assert [i["path"] for i in links["items"]] == ["Board.canvas"]


async def test_a_canvas_never_lacks_a_property(ix: Harness) -> None:
    out = await ix.ok("search_properties", filters=[{"key": "status", "op": "not_exists"}])
    assert "Board.canvas" not in [i["path"] for i in out["items"]] and out["total"] == 3


async def test_a_canvas_is_counted_and_queried_as_no_note(ix: Harness) -> None:
    status = await ix.ok("index_status")
    assert status["notes"] == 3  # Plan, Ideas, Lonely: the canvas's links count, the canvas does not
    assert status["links"]["total"] == 3  # the canvas's two file nodes and its text link
    vaults = await ix.ok("list_vaults")
    assert vaults["items"][0]["notes"] == 3
    everything = await ix.ok("query_jsonlogic", logic={"!": {"var": "properties.status"}})
    assert "Board.canvas" not in [i["path"] for i in everything["items"]] and everything["total"] == 3
    by_path = await ix.ok("query_jsonlogic", logic={"in": ["Board", {"var": "path"}]})
    assert by_path["items"] == []
    listed = await ix.ok("list_notes")
    assert [i["path"] for i in listed["items"]] == ["Ideas.md", "Lonely.md", "Projects/Plan.md"]
    asked = await ix.ok("list_notes", include_attachments=True)
    assert "Board.canvas" in [i["path"] for i in asked["items"]]
    pages = await ix.ok("search_dql", query='LIST FROM ""')
    assert "Board.canvas" not in json.dumps(pages)
    inlinks = await ix.ok("eval_dataview_field", path="Projects/Plan", field="length(file.inlinks)")
    # Dataview reads Markdown pages only; get_backlinks shows the canvas.
    assert [f["value"] for f in inlinks["fields"].values()] == [0]


async def test_a_canvas_is_not_chunked_for_semantic_search(make_vault: Callable[..., Path]) -> None:
    from tests.semantic.helpers import semantic

    async with semantic(make_vault(FILES)) as h:
        rows = await h.app.db.fetchall(
            "SELECT n.path FROM chunks c JOIN notes n ON n.id = c.note_id WHERE n.path LIKE '%.canvas'"
        )
        assert rows == []
        status = await h.ok("index_status")
        assert status["notes"] == 3 and status["embeddings"]["backlog"] == 0
        assert [i["path"] for i in (await h.ok("search_text", query="zeppelin"))["items"]] == ["Board.canvas"]
        # Chunks an older build made of the canvas are dropped.
        vid = next(iter(h.app.vaults))

        def old_chunk(conn: sqlite3.Connection) -> None:
            (note_id,) = conn.execute("SELECT id FROM notes WHERE path = 'Board.canvas'").fetchone()
            conn.execute(
                "INSERT INTO chunks(vault_id, note_id, position, heading, heading_path, text, embed_text, hash, "
                "tokens) VALUES (?, ?, 0, '', '[]', 'zeppelin', 'zeppelin', 'h', 1)",
                (vid, note_id),
            )

        await h.app.db.run_write(old_chunk)
        assert await h.app.db.run_write(lambda c: store.drop_canvas_chunks(c, vid)) == 1
        assert (await h.app.db.fetchone("SELECT COUNT(*) FROM chunks WHERE hash = 'h'"))[0] == 0


async def test_a_move_preview_lists_the_canvas_lines_and_changes_nothing(ix: Harness) -> None:
    before = ix.read("Board.canvas")
    out = await ix.ok("move_note", path="Projects/Plan", new_path="Archive/Roadmap", dry_run=True)
    assert out["dry_run"] is True and out["notes_rewritten"] == 1
    [item] = out["items"]
    assert item["path"] == "Board.canvas"
    assert [(c["before"].strip(), c["after"].strip()) for c in item["changes"]] == [
        ('"file": "Projects/Plan.md",', '"file": "Archive/Roadmap.md",')
    ]
    assert ix.read("Board.canvas") == before and ix.read("Projects/Plan.md")


async def test_a_folder_move_rewrites_file_nodes_and_group_backgrounds(ix: Harness) -> None:
    board = json.loads(ix.read("Board.canvas"))
    board["nodes"][3]["background"] = "img/cat.png"
    board["nodes"][3]["x-plugin"] = {"kept": True}  # a field the spec does not name stays
    etag = (await ix.ok("read_canvas", path="Board"))["etag"]
    await ix.ok("write_canvas", path="Board", nodes=board["nodes"], edges=board["edges"], expected_etag=etag)
    out = await ix.confirmed("move_note", path="img", new_path="media/pics")
    assert [i["path"] for i in out["items"]] == ["Board.canvas"] and out["links_rewritten"] == 2
    after = json.loads(ix.read("Board.canvas"))
    assert after["nodes"][2]["file"] == "media/pics/cat.png" and after["nodes"][3]["background"] == "media/pics/cat.png"
    assert after["nodes"][3]["x-plugin"] == {"kept": True} and ix.read("Board.canvas").startswith('{\n\t"nodes"')


async def test_moving_a_canvas_rewrites_the_links_to_it(ix: Harness) -> None:
    await ix.ok("create_note", path="Index", content="Open [[Board.canvas]] and ![[Board.canvas|the board]]\n")
    board = ix.read("Board.canvas")
    out = await ix.confirmed("move_note", path="Board.canvas", new_path="Maps/Roadmap.canvas")
    assert out["path"] == "Maps/Roadmap.canvas" and [i["path"] for i in out["items"]] == ["Index.md"]
    assert ix.read("Index.md") == "Open [[Roadmap.canvas]] and ![[Roadmap.canvas|the board]]\n"
    assert ix.read("Maps/Roadmap.canvas") == board  # its file nodes name vault paths: nothing to change
    links = await ix.ok("get_backlinks", path="Projects/Plan")
    assert [i["path"] for i in links["items"]] == ["Maps/Roadmap.canvas"]
    read = await ix.ok("read_canvas", path="Maps/Roadmap")
    assert [n["id"] for n in read["nodes"]] == ["t1", "f1", "f2", "g1"]


async def test_rewrite_links_repoints_canvas_file_nodes(ix: Harness) -> None:
    board = json.loads(ix.read("Board.canvas"))
    board["nodes"].append({"id": "f3", "type": "file", "x": 0, "y": 900, "width": 400, "height": 300,
                           "file": "Projects/Old plan.md", "color": "4"})  # fmt: skip
    etag = (await ix.ok("read_canvas", path="Board"))["etag"]
    await ix.ok("write_canvas", path="Board", nodes=board["nodes"], edges=board["edges"], expected_etag=etag)
    before = ix.read("Board.canvas")
    preview = await ix.ok("rewrite_links", old_target="Projects/Old plan", new_target="Projects/Plan")
    assert [(i["path"], [c["after"].strip() for c in i["changes"]]) for i in preview["items"]] == [
        ("Board.canvas", ['"file": "Projects/Plan.md",'])
    ]
    assert ix.read("Board.canvas") == before  # a dry run by default
    await ix.confirmed("rewrite_links", old_target="Projects/Old plan", new_target="Projects/Plan", dry_run=False)
    assert ix.read("Board.canvas") == before.replace('"Projects/Old plan.md"', '"Projects/Plan.md"')
    links = await ix.ok("get_backlinks", path="Projects/Plan")
    assert [i["path"] for i in links["items"]] == ["Board.canvas", "Board.canvas"]


async def test_restricted_counts_leave_the_canvas_out_too(make_vault: Callable[..., Path]) -> None:
    acl = {"prefix_rules": [{"path": "Projects", "read": "deny"}]}
    async with started(make_vault(FILES), acl=acl) as vg:
        await vg.indexed()
        status = await vg.ok("index_status")
        assert status["notes"] == 2  # Ideas and Lonely: no canvas, no denied note
        assert (await vg.ok("list_vaults"))["items"][0]["notes"] == 2
