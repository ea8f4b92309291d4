"""Over HTTP with the SDK client, both eras, the user-visible note-reading fixes of session 74
(H2): a lone block id after `1. a`, blank, `  - b` names the bullet list alone, and one after
`* a` then `* * *` the break alone, as Obsidian reads where a list ends (dispatch-chain tests:
tests/tools/notes/test_list_ends_as_obsidian_reads.py)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from mcp import Client

from tests.conftest import e2e
from tests.e2e.calls import ok

VAULT = {
    "Lists.md": "# L\n\n1. a\n\n  - b\n\n^shallow\n\n* c\n* * *\n\n^rule\n",
}


async def test_note_reading_fixes_over_http(make_vault: Callable[..., Path], mode: str) -> None:
    async with e2e(make_vault(VAULT)) as (url, h):
        await h.indexed()
        async with Client(url, mode=mode) as c:  # type: ignore[arg-type]
            shallow = await ok(c, "read_note", path="Lists#^shallow")
            assert (shallow["content"], shallow["start_line"]) == ("  - b\n\n^shallow\n", 5)
            rule = await ok(c, "read_note", path="Lists#^rule")
            assert (rule["content"], rule["start_line"]) == ("* * *\n\n^rule\n", 10)
            outline = await ok(c, "get_outline", path="Lists")
            assert [(b["id"], b["start_line"]) for b in outline["blocks"]] == [("shallow", 5), ("rule", 10)]
