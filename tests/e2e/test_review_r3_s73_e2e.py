"""Over HTTP with the SDK client, both eras, the user-visible fixes of review R3 (session 73):
rename_note of a base to a bare name keeps '.base' (aba44acc: it made a file 'Lib' query_base
could not read), get_outline lists a CRLF note's block ids (ebb25e40: none), a lone id after a
thematic break names the break, not the loose list above it (fd5b4b74), and query_base resolves
a name a note at the vault's top shares as get_outlinks does (a1c710bd). Each fails before its
fix (dispatch-chain tests: tests/tools/notes/test_rename_keeps_extension.py,
test_outline_crlf_blocks.py, test_loose_list_ends_at_a_rule.py,
tests/tools/obsidian/test_same_name_links_at_the_top.py)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from mcp import Client

from tests.conftest import e2e
from tests.e2e.calls import ok

BASE = "filters:\n  and:\n    - list(author).contains(this)\nviews:\n  - type: table\n    name: Author\n"
VAULT = {
    "Library.base": BASE,
    "Home.md": "![[Library.base]]\n",
    "CRLF.md": "# T\r\n\r\npara ^pid\r\n",
    "Rule.md": "* a\n\n* * *\n\n^rule\n",
    "References/Book.md": '---\nauthor:\n  - "[[Kevin Kelly]]"\n---\n',
    "References/Kevin Kelly.md": "# in References\n",
    "Kevin Kelly.md": "# at the top\n",
}


async def test_review_fixes_over_http(make_vault: Callable[..., Path], mode: str) -> None:
    async with e2e(make_vault(VAULT)) as (url, h):
        await h.indexed()
        async with Client(url, mode=mode) as c:  # type: ignore[arg-type]
            [link] = (await ok(c, "get_outlinks", path="References/Book"))["items"]
            rows = (await ok(c, "query_base", path="Library.base", this=link["path"]))["rows"]
            assert link["path"] == "Kevin Kelly.md" and [r["path"] for r in rows] == ["References/Book.md"]
            await ok(c, "rename_note", path="Library.base", new_path="Lib")
            assert (h.root / "Lib.base").read_text(encoding="utf-8") == BASE and h.read("Home.md") == "![[Lib.base]]\n"
            outline = await ok(c, "get_outline", path="CRLF")
            assert [(b["id"], b["line"]) for b in outline["blocks"]] == [("pid", 3)]
            assert (await ok(c, "read_note", path="Rule#^rule"))["content"] == "* * *\n\n^rule\n"
