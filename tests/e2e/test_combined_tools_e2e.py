"""Session 67's tool-combination fixes (H2: D2, D4, D5, D6), checked end to end over HTTP with
the SDK client in both eras; each is tested through the dispatch chain beside its fix.

- A heading link's subpath as get_outlinks reports it (`## Step 1: Setup` is `Step 1 Setup`)
  names the section for read_note and patch_note (tests/tools/notes/test_heading_links.py).
- A destination ending in '/' is the folder the note goes into, keeping its name, for copy_note
  and for a move in a plan's check (tests/tools/notes/test_move_into_folder.py).
- An append to a CRLF note keeps its line endings (tests/tools/notes/test_crlf_edits.py).
- open_nodes lists an entity once, however many given names reach it
  (tests/tools/memory/test_open_nodes_once.py)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from mcp import Client

from tests.conftest import e2e
from tests.e2e.calls import ok

FILES = {
    "Guide.md": "# Guide\n\n## Step 1: Setup\n\nsetup\n",
    "Index.md": "[[Guide#Step 1 Setup]]\n",
    "Proj/Plan.md": "# Plan\n",
    "Hub.md": "[[Plan]]\n",
    "C.md": "# T\r\n\r\n## Log\r\n\r\nfirst\r\n",
}
MOVE = {
    "goal": "file it",
    "steps": [{"id": "m", "tool": "move_note", "args": {"path": "Proj/Plan", "new_path": "Archive/"}}],
}


async def test_combined_tools_over_http(make_vault: Callable[..., Path], mode: str) -> None:
    async with e2e(make_vault(FILES)) as (url, h):
        await h.indexed()
        async with Client(url, mode=mode) as c:  # type: ignore[arg-type]
            [link] = (await ok(c, "get_outlinks", path="Index"))["items"]
            assert link["subpath"] == "Step 1 Setup"
            section = await ok(c, "read_note", path=f"Guide#{link['subpath']}")
            assert section["content"].startswith("## Step 1: Setup\n")
            await ok(c, "patch_note", path="Guide", heading=["Guide", link["subpath"]], content="then run it\n")
            assert "setup\n\nthen run it\n" in h.read("Guide.md")

            copied = await ok(c, "copy_note", path="Proj/Plan", new_path="Copies/")
            assert copied["path"] == "Copies/Plan.md" and h.read("Copies/Plan.md") == "# Plan\n"
            checked = await ok(c, "validate_plan", plan=MOVE)
            [move] = checked["effects"]["files_moved"]
            assert checked["valid"] and (move["from"], move["to"]) == ("Proj/Plan.md", "Archive/Plan.md")

            await ok(c, "append_note", path="C", content="more\nlines\n")
            data = (h.root / "C.md").read_bytes()
            assert data.endswith(b"more\r\nlines\r\n") and b"\n" not in data.replace(b"\r\n", b"")

            await ok(
                c, "create_entities", entities=[{"name": "Alice", "entityType": "person", "observations": ["tea"]}]
            )
            await ok(c, "set_properties", path="Memory/Alice", properties={"name": "Alice Liddell"})
            opened = await ok(c, "open_nodes", names=["Alice Liddell", "Alice", "[[Memory/Alice]]", "Nobody", "Nobody"])
            assert [(e["name"], e["path"]) for e in opened["entities"]] == [("Alice Liddell", "Memory/Alice.md")]
            assert opened["missing"] == ["Nobody"]
