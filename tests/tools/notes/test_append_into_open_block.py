"""append_note (and write_note's append mode) on a note that ends inside a code block or comment
it never closes refuses text that would land inside it: validation_error, reason left_open (as
process_capture's filing, 392f862b), naming the opening mark and its line; the note is unchanged.
Before, the text was appended inside the block: Obsidian showed it as code (or hid it, after a
lone %%). Content that closes the block first, or more code ending with the closing fence, is
added as given; a note whose blocks all close is appended to as before."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from tests.conftest import started

OPEN = "---\nk: v\n---\n# Log\n\n```python\nx = 1\n"
VAULT = {
    "Open.md": OPEN,
    "Crlf.md": OPEN.replace("\n", "\r\n"),
    "Hidden.md": "a\n%% draft\nb\n",
    "Shut.md": "```\nx\n```\n",
}


async def test_text_is_not_appended_into_a_block_the_note_leaves_open(make_vault: Callable[..., Path]) -> None:
    async with started(make_vault(VAULT)) as vg:
        await vg.indexed()
        for path in ("Open.md", "Crlf.md"):
            err = await vg.err("append_note", "validation_error", path=path, content="Done today.\n")
            assert (err["details"]["reason"], err["details"]["open"], err["details"]["line"]) == ("left_open", "```", 6)
            assert "```" in err["hint"], err
        err = await vg.err("write_note", "validation_error", path="Open.md", mode="append", content="more\n")
        assert err["details"]["reason"] == "left_open"
        err = await vg.err("append_note", "validation_error", path="Hidden.md", content="shown?\n")
        assert (err["details"]["open"], err["details"]["line"]) == ("%%", 2)
        assert vg.read("Open.md") == OPEN and vg.read("Hidden.md") == "a\n%% draft\nb\n"
        await vg.ok("append_note", path="Open.md", content="y = 2\n```\n")  # more code, then closed
        await vg.ok("append_note", path="Open.md", content="After the code.\n")
        assert vg.read("Open.md") == OPEN + "y = 2\n```\nAfter the code.\n"
        await vg.ok("append_note", path="Crlf.md", content="```\nclosed first\n")
        assert (vg.root / "Crlf.md").read_bytes() == (OPEN + "```\nclosed first\n").replace("\n", "\r\n").encode()
        await vg.ok("append_note", path="Shut.md", content="plain\n")
        assert vg.read("Shut.md") == "```\nx\n```\nplain\n"


async def test_a_plans_check_finds_the_append_refused(make_vault: Callable[..., Path]) -> None:
    """validate_plan names the append step as failing on the note's text, as the run's call fails."""
    plan = {
        "goal": "log the day",
        "steps": [{"id": "log", "tool": "append_note", "args": {"path": "Open.md", "content": "Done.\n"}}],
    }
    async with started(make_vault(VAULT)) as vg:
        await vg.indexed()
        checked = await vg.ok("validate_plan", plan=plan)
        assert not checked["valid"], checked
        assert [(p["step"], p["code"]) for p in checked["problems"]] == [("log", "validation_error")], checked


async def test_patch_note_inserts_nothing_into_a_block_its_section_leaves_open(make_vault: Callable[..., Path]) -> None:
    """patch_note appending under (or after) a heading whose section runs on in a fence never
    closed put the text in the code block too; an insert before the block, or one that closes
    it, is made as before."""
    async with started(make_vault(VAULT)) as vg:
        await vg.indexed()
        for position in ("append", "after"):
            err = await vg.err("patch_note", "validation_error", path="Open.md#Log", position=position, content="x")
            assert (err["details"]["reason"], err["details"]["line"]) == ("left_open", 6), err
        assert vg.read("Open.md") == OPEN
        await vg.ok("patch_note", path="Open.md#Log", position="prepend", content="First.")
        assert vg.read("Open.md") == OPEN.replace("# Log\n", "# Log\nFirst.\n")


async def test_a_periodic_append_goes_into_no_block_left_open(make_vault: Callable[..., Path]) -> None:
    """append_to_periodic_note, at the end or under a heading, refused the same way."""
    async with started(make_vault({"2026-11-24.md": OPEN})) as vg:
        await vg.indexed()
        for heading in (None, ["Log"]):
            args = {"date": "2026-11-24", "content": "- met Ann"} | ({"heading": heading} if heading else {})
            err = await vg.err("append_to_periodic_note", "validation_error", **args)
            assert (err["details"]["reason"], err["details"]["line"]) == ("left_open", 6), err
        assert vg.read("2026-11-24.md") == OPEN
