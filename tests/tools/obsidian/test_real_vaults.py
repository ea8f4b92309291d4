"""The obsidian tools on copies of real vaults (skipped without VAULTGATE_TEST_DATA).

The shared copies carry no `.obsidian/` folder, canvas or image, so those are added to the copy
the way Obsidian writes them, pointing at the vault's real notes; kepano-obsidian's 30 `.base`
files are real non-Markdown files embedded by real notes (`![[Daily.base]]`), which makes them
the ground truth for list_attachments' kinds and embedding notes.
"""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

from tests.conftest import started
from tests.real_vaults import VAULTS, needs

KEPANO = VAULTS / "kepano-obsidian"
HELP = VAULTS / "obsidian-help-en"


def _embedders(root: Path, name: str) -> list[str]:
    pattern = re.compile(r"!\[\[" + re.escape(name) + r"(#[^\]|]*)?(\|[^\]]*)?\]\]")
    return sorted(p.relative_to(root).as_posix() for p in root.rglob("*.md") if pattern.search(p.read_text()))


@needs(KEPANO)
async def test_kepano_bases_are_attachments_with_their_embedding_notes(tmp_path: Path) -> None:
    root = tmp_path / "kepano"
    shutil.copytree(KEPANO, root)
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
    shutil.copytree(HELP, root)
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
        assert [(i["id"], i["type"]) for i in listed["items"]] == [
            ("0", "file"), ("1", "group"), ("1.0", "folder"), ("1.1", "search"), ("1.2", "file"),
        ]  # fmt: skip
        await vg.ok("remove_bookmark", path="Maps/Plugins.canvas")
        saved = json.loads((root / ".obsidian/bookmarks.json").read_text())
        assert saved["items"][0] == {**saved["items"][0], "path": "Plugins/Bookmarks.md", "subpath": "#Add a bookmark"}
        assert [i["type"] for i in saved["items"][1]["items"]] == ["folder", "search"]
