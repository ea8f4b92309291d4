"""search_regex on notes with Windows (CRLF) and mixed line ends: `$` ends every line, as in an LF note."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from tests.conftest import started

FILES: dict[str, str | bytes] = {
    "Win.md": b"---\r\ntags: [w]\r\n---\r\n# Win\r\n\r\n- one\r\n- two\r\n",
    "Unix.md": b"# Unix\n\n- one\n- two\n",
    "Mixed.md": b"# Mixed\n\n- one\r\n- two\n",
}


async def test_line_end_anchors_match_in_every_note(make_vault: Callable[..., Path]) -> None:
    """`^- one$` found only Unix.md: in a CRLF line the CR stood between the text and `$`."""
    async with started(make_vault(FILES)) as vg:
        await vg.indexed()
        out = await vg.ok("search_regex", pattern=r"^- one$")
        got = {i["path"]: [(m["line"], m["text"]) for m in i["matches"]] for i in out["items"]}
        assert got == {"Mixed.md": [(3, "- one")], "Unix.md": [(3, "- one")], "Win.md": [(6, "- one")]}
        across = await vg.ok("search_regex", pattern=r"one\n- two")
        assert [i["path"] for i in across["items"]] == ["Mixed.md", "Unix.md", "Win.md"]
