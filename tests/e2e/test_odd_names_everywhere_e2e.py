"""E2E (both eras, SDK client over real HTTP): notes named with '#' or '|' wherever a note is
named (A2, session 83). Markdown links whose text holds brackets, or whose href spells the '#' of
a name as '%23', name the note Obsidian opens for them: get_outlinks resolves them, get_backlinks
lists them, find_broken_links leaves them out. Such a note's bare name (`Odd#hash`, without its
folder) is the note to read_note and to a plan's step, a section after it kept. A file that is
no note named so is found by its name with its extension (`Board#y.canvas`, `scan#1.pdf`: A4 s84):
read_canvas reads it, delete_note trashes it (it was cut to note 'scan' with the section '1.pdf'),
read_note answers not_a_note naming it."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from mcp import Client

from tests.conftest import e2e
from tests.e2e.calls import error, ok
from tests.tools.graph.test_markdown_link_texts_and_hashes import FILES, WANT


async def test_odd_names_are_linked_and_named(make_vault: Callable[..., Path], mode: str) -> None:
    files = FILES | {"Boards/Board#y.canvas": '{"nodes":[],"edges":[]}', "Scans/scan#1.pdf": "%PDF-1.4\n"}
    async with e2e(make_vault(files)) as (url, harness):
        await harness.indexed()
        async with Client(url, mode=mode) as client:  # type: ignore[arg-type]
            out = (await ok(client, "get_outlinks", {"path": "Src"}))["items"]
            got = [
                (o["line"] - 1, o["path"] if o["resolved"] else None, o["target"], o["subpath"], o["alias"])
                for o in out
            ]
            assert got == WANT
            back = await ok(client, "get_backlinks", {"path": "Themes/Odd#hash.md"})
            assert {b["path"] for b in back["items"]} == {"Src.md"}
            assert [b["target"] for b in (await ok(client, "find_broken_links", {}))["items"]] == ["Note"]
            read = await ok(client, "read_note", {"path": "Odd#hash#Colors"})
            assert read["path"] == "Themes/Odd#hash.md" and read["content"].startswith("## Colors"), read
            step = {"id": "a", "tool": "patch_note", "args": {"path": "Odd#hash#Colors", "content": "x"}}
            checked = await ok(client, "validate_plan", {"plan": {"goal": "edit", "steps": [step]}})
            assert checked["valid"] and checked["effects"]["files_modified"] == ["Themes/Odd#hash.md"], checked
            assert (await ok(client, "read_canvas", {"path": "Board#y.canvas"}))["path"] == "Boards/Board#y.canvas"
            refused = await error(client, "read_note", {"path": "Board#y.canvas"})
            assert refused["code"] == "not_a_note" and refused["details"]["path"] == "Boards/Board#y.canvas", refused
            gone = await ok(client, "delete_note", {"path": "scan#1.pdf"})
            assert gone["path"] == "Scans/scan#1.pdf" and gone["trash_path"] == ".trash/Scans/scan#1.pdf", gone
