"""A section of a Windows (CRLF) note ends where the same section of its LF twin ends: its
trailing blank lines are left out, as read_note leaves them out of an LF note and of a note read
by its lines. Before, a CRLF note's section kept them ('## B\\r\\nb\\r\\n\\r\\n', lines 4-6 against
4-5), and get_outline's end_line followed."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from tests.conftest import started

TEXT = "# A\n\ntext\n\n## B\nb\n\n\n## C\n\nc\n\n"
PAD = "x" * 80 + "\n"


@pytest.mark.parametrize("long", [False, True], ids=["read whole", "read by its lines"])
async def test_a_crlf_section_ends_as_its_lf_twin(make_vault: Callable[..., Path], long: bool) -> None:
    body = PAD * 100 + TEXT if long else TEXT  # past max_response_bytes: read by its lines
    off = 100 if long else 0
    files = {"Lf.md": body, "Crlf.md": body.replace("\n", "\r\n")}
    async with started(make_vault(files), governor={"max_response_bytes": 4096}) as vg:
        outline = {h["text"]: h["end_line"] for h in (await vg.ok("get_outline", path="Lf"))["headings"]}
        for heading, lines in (("B", (5 + off, 6 + off)), ("C", (9 + off, 11 + off))):
            lf = await vg.ok("read_note", path=f"Lf#{heading}")
            crlf = await vg.ok("read_note", path=f"Crlf#{heading}")
            assert crlf["content"] == lf["content"].replace("\n", "\r\n")
            assert (crlf["start_line"], crlf["end_line"]) == (lf["start_line"], lf["end_line"]) == lines
            by_path = await vg.ok("read_note", path="Crlf", heading=["A", heading])
            assert (by_path["start_line"], by_path["end_line"]) == lines
            assert outline[heading] == lines[1]
        crlf_outline = {h["text"]: h["end_line"] for h in (await vg.ok("get_outline", path="Crlf"))["headings"]}
        assert crlf_outline == outline
