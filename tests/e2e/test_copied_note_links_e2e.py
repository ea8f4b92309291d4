"""E2E (both eras, SDK client over real HTTP): a note copied into another folder keeps its links
naming the files the original's name (tests/tools/notes/test_copy_keeps_relative_links.py) and its
encoding (test_copy_keeps_encoding.py); on the same server, an append into a code block a note
leaves open is refused (test_append_into_open_block.py), and an append to a cp1252 note keeps
its encoding or, for a character cp1252 lacks, is refused (test_edits_keep_encoding.py), which
validate_plan foresees with the run's own message and details, and a move rewrites a cp1252
bookmarks.json in cp1252 (test_rewrites_keep_encoding.py); and
a note made by apply_template or process_capture lists the links it takes from another note of
its name (tests/tools/notes/test_made_notes_take_links.py)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from mcp import Client

from tests.conftest import e2e
from tests.e2e.calls import error as error_of
from tests.e2e.calls import ok
from tests.tools.notes import test_append_into_open_block as appending
from tests.tools.notes import test_copy_keeps_encoding as encoded
from tests.tools.notes import test_copy_keeps_relative_links as copying
from tests.tools.notes import test_made_notes_take_links as made
from tests.tools.notes import test_rewrites_keep_encoding as rewrites


async def test_a_copy_keeps_its_links_to_the_same_files(make_vault: Callable[..., Path], mode: str) -> None:
    latin = encoded.TEXT.encode("cp1252")  # and its encoding (test_copy_keeps_encoding.py)
    marks = rewrites.cp1252(rewrites.MARKS)
    files = {**copying.VAULT, "A/B/Latin.md": latin, "Open.md": appending.OPEN, "Old.md": "old\n"}
    files[".obsidian/bookmarks.json"] = marks
    async with e2e(make_vault(files)) as (url, harness):
        await harness.indexed()
        async with Client(url, mode=mode) as client:  # type: ignore[arg-type]
            out = await ok(client, "copy_note", {"path": "A/B/N.md", "new_path": "C/"})
            assert out["path"] == "C/N.md"
            assert "[x](../A/a.md) and ![[A/B/sub/img.png]]" in harness.read("C/N.md")
            assert harness.read("A/B/N.md") == copying.NOTE
            await ok(client, "copy_note", {"path": "A/B/Latin.md", "new_path": "C/"})
            assert (harness.root / "C/Latin.md").read_bytes() == encoded.WANT.encode("cp1252")
            refused = await client.call_tool("append_note", {"path": "Open.md", "content": "Done.\n"})
            assert refused.is_error and refused.structured_content is not None
            error = refused.structured_content["error"]
            assert (error["code"], error["details"]["reason"], error["details"]["line"]) == (
                "validation_error",
                "left_open",
                6,
            )
            assert harness.read("Open.md") == appending.OPEN
            await ok(client, "append_note", {"path": "A/B/Latin.md", "content": "Thé"})  # its encoding kept
            assert (harness.root / "A/B/Latin.md").read_bytes() == (encoded.TEXT + "Thé").encode("cp1252")
            lacking = await error_of(client, "append_note", {"path": "A/B/Latin.md", "content": "🎉"})
            assert (lacking["code"], lacking["details"]["encoding"], lacking["details"]["codepoint"]) == (
                "validation_error",
                "cp1252",
                "U+1F389",
            )
            assert (harness.root / "A/B/Latin.md").read_bytes() == (encoded.TEXT + "Thé").encode("cp1252")
            step = {"id": "add", "tool": "append_note", "args": {"path": "A/B/Latin.md", "content": "🎉"}}
            checked = await ok(client, "validate_plan", {"plan": {"goal": "g", "steps": [step]}})
            assert checked["valid"] is False and checked["problems"][0]["code"] == "validation_error", checked
            assert checked["problems"][0]["details"] == lacking["details"], checked  # as the run tells it (E3 s83)
            assert lacking["message"] in checked["problems"][0]["message"], checked
            await ok(client, "move_note", {"path": "Old.md", "new_path": "Nouveau à.md"})
            want = rewrites.MARKS.replace('"Old.md"', '"Nouveau à.md"')
            assert (harness.root / ".obsidian/bookmarks.json").read_bytes() == rewrites.cp1252(want)


async def test_a_templated_note_lists_the_links_it_takes(make_vault: Callable[..., Path], mode: str) -> None:
    async with e2e(make_vault(made.VAULT)) as (url, harness):
        await harness.indexed()
        async with Client(url, mode=mode) as client:  # type: ignore[arg-type]
            out = await ok(client, "apply_template", {"template": "T", "path": "A/Idea.md"})
            assert (out["links_now_here"], out["links_now_here_count"]) == (made.IDEA, 2), out
