"""add_tags with `inline` writes its `#tag` line with the note's line ends: a CRLF note got
`x\r\n#new\n` (and `x\r\n\n#new\n` under a heading), a mix Obsidian shows as it is and a Windows
editor may not. Every property and tag edit is made on the note's LF form and written back with
its own line ends (`service.markdown.line_ends`); an LF note is changed as before."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from tests.conftest import started

NOTE = "---\ntags: [a]\n---\n# T\n\n## Log\n\nx #old\n"


def _lone_lf(data: bytes) -> int:
    return data.count(b"\n") - data.count(b"\r\n")


async def test_tag_and_property_edits_keep_a_crlf_notes_line_ends(make_vault: Callable[..., Path]) -> None:
    files = {"C.md": NOTE.replace("\n", "\r\n"), "D.md": "# T\r\n\r\nx\r\n", "L.md": NOTE}
    async with started(make_vault(files)) as vg:
        await vg.indexed()
        for path in ("C", "L"):
            await vg.ok("add_tags", path=path, tags=["new"], inline=True, heading=["T", "Log"])
            await vg.ok("set_properties", path=path, properties={"k": "v"})
            await vg.ok("remove_tags", path=path, tags=["old"], inline=True)
        await vg.ok("add_tags", path="D", tags=["new"], inline=True)
        crlf, lf = (vg.root / "C.md").read_bytes(), (vg.root / "L.md").read_bytes()
        assert _lone_lf(crlf) == 0 and b"x\r\n\r\n#new\r\n" in crlf
        assert crlf.replace(b"\r\n", b"\n") == lf and b"\r" not in lf
        assert (vg.root / "D.md").read_bytes() == b"# T\r\n\r\nx\r\n#new\r\n"
