"""copy_note of a note stored as cp1252 or UTF-16 whose copy needs its links rewritten (into
another folder: `graph.copy_links`) keeps the original's encoding, byte-order mark and line ends.
Before, such a copy was written from the decoded text as UTF-8: `café` in cp1252 (`caf\\xe9`)
became `caf\\xc3\\xa9` and a UTF-16 note lost its encoding, though a copy with no link to change
kept its bytes. A rewritten link naming a file cp1252 cannot spell makes the copy UTF-8."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from tests.conftest import started

TEXT = "Café [x](../a.md)\r\nsecond line\r\n"
WANT = "Café [x](../A/a.md)\r\nsecond line\r\n"


async def test_a_rewritten_copy_keeps_the_originals_encoding(make_vault: Callable[..., Path]) -> None:
    vault = {
        "A/a.md": "a\n",
        "A/B/Latin.md": TEXT.encode("cp1252"),
        "A/B/Wide.md": b"\xff\xfe" + TEXT.encode("utf-16-le"),
        "東/Far.md": "Café [x](a.md)\r\n".encode("cp1252"),
        "東/a.md": "t\n",
    }
    async with started(make_vault(vault)) as vg:
        await vg.indexed()
        await vg.ok("copy_note", path="A/B/Latin.md", new_path="C/Latin.md")
        assert (vg.root / "C/Latin.md").read_bytes() == WANT.encode("cp1252")
        await vg.ok("copy_note", path="A/B/Wide.md", new_path="C/Wide.md")
        assert (vg.root / "C/Wide.md").read_bytes() == b"\xff\xfe" + WANT.encode("utf-16-le")
        read = await vg.ok("read_note", path="C/Wide.md")
        assert "[x](../A/a.md)" in read["content"] and read["encoding"] == "utf-16-le", read
        # a link cp1252 cannot spell: the copy is UTF-8, whole
        await vg.ok("copy_note", path="東/Far.md", new_path="C/Far.md")
        assert (vg.root / "C/Far.md").read_bytes() == "Café [x](東/a.md)\r\n".encode()  # as a move writes it


COPY_THEN_MOVE = {
    "goal": "copy a note into another folder, then file the note it links to",
    "steps": [
        {"id": "copy", "tool": "copy_note", "args": {"path": "A/N.md", "new_path": "C/D/N.md"}},
        {
            "id": "file",
            "tool": "move_note",
            "args": {"path": "B/t.md", "new_path": "E/t.md"},
            "dependsOn": ["copy"],
        },
    ],
}


async def test_a_plans_check_reads_the_copy_as_the_call_writes_it(make_vault: Callable[..., Path]) -> None:
    """The check composed a copy_note step's text as the original's: from the copy's folder its
    `[x](../B/t.md)` named no file, so a later move of B/t.md was checked as leaving the copy alone
    (rewritten_in ['A/N.md'], 1 line), while the run rewrote the copy's `../../B/t.md` too."""
    async with started(make_vault({"A/N.md": "[x](../B/t.md)\n", "B/t.md": "t\n"})) as vg:
        await vg.indexed()
        checked = await vg.ok("validate_plan", plan=COPY_THEN_MOVE)
        assert checked["valid"], checked["problems"]
        [moved] = checked["effects"]["files_moved"]
        assert (moved["rewritten_in"], moved["links_rewritten"]) == (["A/N.md", "C/D/N.md"], 2), moved
        run = await vg.confirmed("execute_plan", plan=COPY_THEN_MOVE)
        assert run["status"] == "done", [s["errors"] for s in run["steps"]]
        assert (vg.read("A/N.md"), vg.read("C/D/N.md")) == ("[x](../E/t.md)\n", "[x](../../E/t.md)\n")
