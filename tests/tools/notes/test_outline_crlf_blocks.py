"""get_outline lists the block ids of a note with CRLF line ends, as of the same note with LF.

get_outline fed the Outliner each line with its CR (`_Reading.take`), so `para ^pid\\r` held no
block id (the id must end the line): a Windows-written note listed none, while read_note
'L#^pid' read the block and the index held it (`outline.outline` strips the CR). Found checking
the outline's block ids (00dfe592's loose lists, d7c2a1e6's pages) with CRLF notes."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from tests.conftest import started

NOTE = "# T\n\npara ^pid\n\n- a\n\n- b\n\n^loose\n\n## U\n\n> quote\n\n^q\n"


async def test_a_crlf_note_lists_its_block_ids_as_the_lf_one(make_vault: Callable[..., Path]) -> None:
    files = {"LF.md": NOTE, "CRLF.md": NOTE.replace("\n", "\r\n")}
    async with started(make_vault(files)) as vg:
        await vg.indexed()
        lf = await vg.ok("get_outline", path="LF")
        crlf = await vg.ok("get_outline", path="CRLF")
        assert [b["id"] for b in lf["blocks"]] == ["pid", "loose", "q"]
        assert crlf["blocks"] == lf["blocks"] and crlf["blocks_total"] == 3
        assert [h["end_line"] for h in crlf["headings"]] == [h["end_line"] for h in lf["headings"]]
        loose = next(b for b in crlf["blocks"] if b["id"] == "loose")
        read = await vg.ok("read_note", path="CRLF#^loose")
        assert read["content"].startswith("- a") and loose["start_line"] == 5
