"""The obsidian tools on copies of real vaults (skipped without VAULTGATE_TEST_DATA).

The shared copies carry no `.obsidian/` folder, canvas or image, so those are added to the copy
the way Obsidian writes them, pointing at the vault's real notes; kepano-obsidian's 30 `.base`
files are real non-Markdown files embedded by real notes (`![[Daily.base]]`), which makes them
the ground truth for list_attachments' kinds and embedding notes.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

from tests.conftest import started
from tests.real_vaults import VAULTS, needs, writable_copy

KEPANO = VAULTS / "kepano-obsidian"
HELP = VAULTS / "obsidian-help-en"


def _embedders(root: Path, name: str) -> list[str]:
    pattern = re.compile(r"!\[\[" + re.escape(name) + r"(#[^\]|]*)?(\|[^\]]*)?\]\]")
    return sorted(p.relative_to(root).as_posix() for p in root.rglob("*.md") if pattern.search(p.read_text()))


@needs(KEPANO)
async def test_kepano_bases_are_attachments_with_their_embedding_notes(tmp_path: Path) -> None:
    root = tmp_path / "kepano"
    writable_copy(KEPANO, root)
    stats = json.loads((VAULTS / "kepano-obsidian.stats.json").read_text())
    async with started(root) as vg:
        await vg.indexed()
        bases = await vg.ok("list_attachments", kind="base", limit=1000)
        assert bases["total"] == stats["base"] == len(list(root.rglob("*.base")))
        everything = await vg.ok("list_attachments", limit=1000)
        on_disk = [p for p in root.rglob("*") if p.is_file() and p.suffix != ".md"]
        assert everything["total"] == len(on_disk)
        daily = next(i for i in bases["items"] if i["path"].endswith("/Daily.base"))
        assert [n["path"] for n in daily["embedded_by"]] == _embedders(root, "Daily.base")
        assert all(n["embed"] for n in daily["embedded_by"]) and daily["mime"] == "text/yaml"
        embedded = sum(len(i["embedded_by"]) for i in bases["items"])
        assert embedded == sum(len(_embedders(root, Path(i["path"]).name)) for i in bases["items"])
        body = await vg.ok("read_attachment", path=daily["path"])
        assert body["kind"] == "base" and body["text"] == (root / daily["path"]).read_text()
        # Obsidian's default location: the vault root; './' follows the note's folder.
        assert everything["attachment_folder"]["folder"] == ""
        (root / ".obsidian").mkdir()
        (root / ".obsidian/app.json").write_text(json.dumps({"attachmentFolderPath": "./"}))
        here = await vg.ok("list_attachments", for_note="Daily/2023-09-12", limit=1)
        assert here["attachment_folder"]["folder"] == "Daily"


@needs(HELP)
async def test_help_vault_canvas_bookmarks_and_workspace(tmp_path: Path) -> None:
    root = tmp_path / "help"
    writable_copy(HELP, root)
    async with started(root) as vg:
        await vg.indexed()
        before = await vg.ok("get_backlinks", path="Plugins/Canvas", limit=1000)
        nodes = [
            {"id": "a1", "type": "text", "x": 0, "y": 0, "width": 400, "height": 120,
             "text": "Overview of the **core plugins** for spatial thinking, see [[Bookmarks]]"},
            {"id": "a2", "type": "file", "x": 500, "y": 0, "width": 400, "height": 400, "file": "Plugins/Canvas.md"},
            {"id": "a3", "type": "file", "x": 500, "y": 500, "width": 400, "height": 400,
             "file": "Plugins/Bookmarks.md", "subpath": "#Add a bookmark", "color": "5"},
            {"id": "a4", "type": "link", "x": 0, "y": 200, "width": 400, "height": 200, "url": "https://jsoncanvas.org"},
        ]  # fmt: skip
        edges = [{"id": "e1", "fromNode": "a1", "fromSide": "right", "toNode": "a2", "toSide": "left"}]
        await vg.ok("write_canvas", path="Maps/Plugins", nodes=nodes, edges=edges, create_only=True)
        after = await vg.ok("get_backlinks", path="Plugins/Canvas", limit=1000)
        assert len(after["items"]) == len(before["items"]) + 1
        assert "Maps/Plugins.canvas" in [i["path"] for i in after["items"]]
        marks = await vg.ok("get_backlinks", path="Bookmarks", limit=1000)
        assert [i["path"] for i in marks["items"]].count("Maps/Plugins.canvas") == 2  # file node + text link
        found = await vg.ok("search_text", query='"spatial thinking"')
        assert [i["path"] for i in found["items"]] == ["Maps/Plugins.canvas"]
        read = await vg.ok("read_canvas", path="Maps/Plugins")
        assert [n["resolved"]["title"] for n in read["nodes"] if n["type"] == "file"] == ["Canvas", "Bookmarks"]
        assert read["problems"] == []

        # No .obsidian folder in the copy: no bookmarks, no workspace, no error.
        assert (await vg.ok("list_bookmarks"))["items"] == []
        assert (await vg.ok("get_workspace"))["found"] is False
        await vg.ok("add_bookmark", type="file", path="Plugins/Bookmarks", subpath="#Add a bookmark")
        await vg.ok("add_bookmark", type="group", title="Plugins")
        await vg.ok("add_bookmark", type="folder", path="Plugins", group="Plugins")
        await vg.ok("add_bookmark", type="search", query="path:Plugins canvas", group="Plugins")
        await vg.ok("add_bookmark", type="file", path="Maps/Plugins.canvas", group="Plugins")
        listed = await vg.ok("list_bookmarks")
        assert [(i["position"], i["type"]) for i in listed["items"]] == [
            ("0", "file"), ("1", "group"), ("1.0", "folder"), ("1.1", "search"), ("1.2", "file"),
        ]  # fmt: skip
        await vg.ok("remove_bookmark", path="Maps/Plugins.canvas")
        saved = json.loads((root / ".obsidian/bookmarks.json").read_text())
        assert saved["items"][0] == {**saved["items"][0], "path": "Plugins/Bookmarks.md", "subpath": "#Add a bookmark"}
        assert [i["type"] for i in saved["items"][1]["items"]] == ["folder", "search"]


def _workspace(notes: list[str]) -> dict[str, object]:
    """A workspace.json as Obsidian 1.x saves it: a split of tab groups in the main area, the file
    explorer and search in the left sidebar, backlinks in the right one, `lastOpenFiles` newest first."""

    def leaf(ident: str, kind: str, state: dict[str, object], **extra: object) -> dict[str, object]:
        return {"id": ident, "type": "leaf", "state": {"type": kind, "state": state, **extra}}

    main = {"id": "m", "type": "split", "children": [
        {"id": "t1", "type": "tabs", "currentTab": 1, "children": [
            leaf("a1", "markdown", {"file": notes[0], "mode": "source", "source": False}),
            leaf("a2", "markdown", {"file": notes[1], "mode": "preview"}, pinned=True),
        ]},
        {"id": "t2", "type": "tabs", "children": [leaf("a3", "canvas", {"file": "Maps/Plugins.canvas"})]},
    ], "direction": "vertical"}  # fmt: skip
    left = {"id": "l", "type": "split", "children": [{"id": "lt", "type": "tabs", "children": [
        leaf("b1", "file-explorer", {"sortOrder": "alphabetical"}), leaf("b2", "search", {"query": "canvas"}),
    ]}], "direction": "horizontal", "width": 300}  # fmt: skip
    right = {"id": "r", "type": "split", "children": [{"id": "rt", "type": "tabs", "children": [
        leaf("c1", "backlink", {"file": notes[1], "collapseAll": False}),
    ]}], "direction": "horizontal", "width": 300, "collapsed": True}  # fmt: skip
    recent = [notes[1], "Maps/Plugins.canvas", notes[0], "Deleted long ago.md", *notes[2:]]
    return {"main": main, "left": left, "right": right, "active": "a2", "lastOpenFiles": recent}


@needs(HELP)
async def test_help_vault_workspace_recent_files_images_and_moves(tmp_path: Path) -> None:
    from PIL import Image

    root = tmp_path / "help"
    writable_copy(HELP, root)
    notes = ["Plugins/Canvas.md", "Plugins/Bookmarks.md", "Home.md", "Files and folders/Accepted file formats.md"]
    assert all((root / n).is_file() for n in notes)
    (root / ".obsidian").mkdir()
    (root / ".obsidian/workspace.json").write_text(json.dumps(_workspace(notes), indent=2))
    (root / "Attachments").mkdir(exist_ok=True)
    Image.new("RGB", (1600, 900), (40, 90, 160)).save(root / "Attachments/Canvas overview.png")
    async with started(root) as vg:
        await vg.indexed()
        space = await vg.ok("get_workspace", include_sidebars=True)
        assert space["found"] and space["active_file"]["path"] == "Plugins/Bookmarks.md"
        main = [(t["view"], t["file"]["path"] if t["file"] else None, t["active"], t["pinned"])
                for t in space["tabs"] if t["area"] == "main"]  # fmt: skip
        assert main == [
            ("markdown", "Plugins/Canvas.md", False, False),
            ("markdown", "Plugins/Bookmarks.md", True, True),
            ("canvas", "Maps/Plugins.canvas", False, False),
        ]
        assert {t["view"] for t in space["tabs"] if t["area"] != "main"} == {"file-explorer", "search", "backlink"}
        recent = await vg.ok("list_recent_files")
        assert [i["path"] for i in recent["items"]] == [notes[1], "Maps/Plugins.canvas", notes[0],
                                                        "Deleted long ago.md", *notes[2:]]  # fmt: skip
        assert [i["exists"] for i in recent["items"]] == [True, False, True, False, True, True]
        assert [i["kind"] for i in (await vg.ok("list_recent_files", kind="canvas"))["items"]] == ["canvas"]

        # An image a real note embeds: listed with that note, read back as image content within budget.
        await vg.ok("append_note", path="Plugins/Canvas", content="\n![[Canvas overview.png]]\n")
        images = await vg.ok("list_attachments", kind="image")
        assert [(i["path"], [n["path"] for n in i["embedded_by"]]) for i in images["items"]] == [
            ("Attachments/Canvas overview.png", ["Plugins/Canvas.md"])
        ]
        result = await vg.call("read_attachment", path="Attachments/Canvas overview.png")
        assert not result.is_error and result.structured is not None
        image = result.structured["image"]
        assert (image["width"], image["height"]) == (1600, 900) and image["sent_mime"].startswith("image/")
        assert [getattr(c, "type", "") for c in result.extra_content] == ["image"]

        # A canvas on the real notes follows a rename of one of them, and its preview lists it first.
        nodes = [{"id": "f1", "type": "file", "x": 0, "y": 0, "width": 400, "height": 400, "file": "Plugins/Canvas.md"},
                 {"id": "t1", "type": "text", "x": 500, "y": 0, "width": 300, "height": 100,
                  "text": "Compare with [[Bookmarks]]"}]  # fmt: skip
        await vg.ok("write_canvas", path="Maps/Plugins", nodes=nodes, create_only=True)
        preview = await vg.ok("move_note", path="Plugins/Canvas", new_path="Plugins/Canvas (core plugin)", dry_run=True)
        assert "Maps/Plugins.canvas" in [i["path"] for i in preview["items"]]
        await vg.ok("move_note", path="Plugins/Canvas", new_path="Plugins/Canvas (core plugin)")  # a rename in place
        moved = json.loads((root / "Maps/Plugins.canvas").read_text())
        assert moved["nodes"][0]["file"] == "Plugins/Canvas (core plugin).md"
        status = await vg.ok("index_status")
        assert status["notes"] == len(list(root.rglob("*.md")))  # the canvas is no note

        # Tags added inline to a real note, under one of its headings.
        await vg.ok("add_tags", path="Plugins/Bookmarks", tags=["reviewed"], inline=True)
        assert (root / "Plugins/Bookmarks.md").read_text().rstrip().endswith("#reviewed")
        tagged = await vg.ok("search_tags", tags=["reviewed"])
        assert [i["path"] for i in tagged["items"]] == ["Plugins/Bookmarks.md"]
