"""E2E (both eras, SDK client over real HTTP): notes named with '#' or '|' wherever a note is
named (A2, session 83). Markdown links whose text holds brackets, or whose href spells the '#' of
a name as '%23', name the note Obsidian opens for them: get_outlinks resolves them, get_backlinks
lists them, find_broken_links leaves them out. Such a note's bare name (`Odd#hash`, without its
folder) is the note to read_note and to a plan's step, a section after it kept."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from mcp import Client

from tests.conftest import e2e
from tests.e2e.calls import ok
from tests.tools.graph.test_markdown_link_texts_and_hashes import FILES, WANT


async def test_odd_names_are_linked_and_named(make_vault: Callable[..., Path], mode: str) -> None:
    async with e2e(make_vault(FILES)) as (url, harness):
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
