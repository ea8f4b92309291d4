"""get_outline end to end over HTTP with the SDK client in both eras: an agent tidying a note's
headings lists them without reading the note, and reads one section by the `link` the outline
gives it (tests/tools/notes/test_get_outline.py checks every link and path through the dispatch
chain)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from mcp import Client

from tests.conftest import e2e
from tests.e2e.calls import error, ok

NOTE = (
    "---\ntitle: plan\n---\n# Plan\n\n## Goals\n\n```\n## In code\n```\n\n### Step 1: Setup\n\nfirst ^s1\n\n"
    "## Risks\n\n### Goals\n\nnested\n"
)


@pytest.mark.covers("get_outline", "success")
@pytest.mark.covers("get_outline", "failure")
async def test_outline_and_its_links_over_http(make_vault: Callable[..., Path], mode: str) -> None:
    root = make_vault({"Projects/Plan.md": NOTE, "Private/Secret.md": "# S\n", "Board.canvas": '{"nodes": []}'})
    async with e2e(root, acl={"prefix_rules": [{"path": "Private", "read": "deny"}]}) as (url, h):
        await h.indexed()
        async with Client(url, mode=mode) as c:  # type: ignore[arg-type]
            got = await ok(c, "get_outline", path="Plan")
            assert [(x["line"], x["end_line"], x["link"]) for x in got["headings"]] == [
                (4, 20, "Plan"),
                (6, 14, "Plan#Goals"),
                (12, 14, "Step 1 Setup"),
                (16, 20, "Risks"),
                (18, 20, "Risks#Goals"),
            ]
            assert got["headings"][2]["path"] == ["Plan", "Goals", "Step 1: Setup"]
            assert got["blocks"] == [{"id": "s1", "start_line": 14, "line": 14}]
            section = await ok(c, "read_note", path="Plan#" + got["headings"][4]["link"])
            assert (section["start_line"], section["content"]) == (18, "### Goals\n\nnested\n")
            assert [x["text"] for x in (await ok(c, "get_outline", path="Plan", max_level=2))["headings"]] == [
                "Plan",
                "Goals",
                "Risks",
            ]
            assert (await error(c, "get_outline", path="Secret"))["code"] == "note_not_found"
            assert (await error(c, "get_outline", path="Board.canvas"))["code"] == "not_a_note"


async def test_outline_pages_and_links_obsidian_writes_over_http(make_vault: Callable[..., Path], mode: str) -> None:
    """A note of 600 headings comes in pages of `limit` (next_cursor the rest, as other listings); a
    heading's link is spelt as Obsidian writes it (`What's new?` kept, `:` and `#` as spaces, inline
    code kept), and a note linking to each by it has no broken link and reads each section back."""
    headings = ["What's new?", "Step 1: Setup", "C# tips", "Use `x` here", "50% done"]
    guide = "# Guide\n\n" + "".join(f"## {t}\n\nabout {t}\n\n" for t in headings)
    big = "".join(f"## H{i}\n\nx\n\n" for i in range(600))
    root = make_vault({"Guide.md": guide, "Big.md": big})
    async with e2e(root) as (url, h):
        await h.indexed()
        async with Client(url, mode=mode) as c:  # type: ignore[arg-type]
            got = await ok(c, "get_outline", path="Guide")
            links = [x["link"] for x in got["headings"][1:]]
            assert links == ["What's new?", "Step 1 Setup", "C tips", "Use `x` here", "50% done"]
            await ok(c, "create_note", path="Links", content="".join(f"- [[Guide#{link}]]\n" for link in links))
            await h.settled()
            assert (await ok(c, "find_broken_links"))["items"] == []
            back = (await ok(c, "get_backlinks", path="Guide"))["items"]
            assert [x["subpath"] for x in back] == links
            for x in got["headings"][1:]:
                assert (await ok(c, "read_note", path=f"Guide#{x['link']}"))["start_line"] == x["line"]
            seen, cursor = [], None
            while True:
                page = await ok(c, "get_outline", path="Big", limit=250, **({"cursor": cursor} if cursor else {}))
                seen += [x["text"] for x in page["headings"]]
                cursor = page.get("next_cursor")
                if not cursor:
                    break
            assert seen == [f"H{i}" for i in range(600)] and page["headings_total"] == 600


async def test_an_id_after_a_loose_list_names_the_whole_list_over_http(
    make_vault: Callable[..., Path], mode: str
) -> None:
    """`- a`, blank, `- b`, blank, `^loose`: one list, one block (Markdown), named whole by read_note,
    get_outline and patch_note (tests/tools/notes/test_loose_list_block_ids.py)."""
    root = make_vault({"L.md": "# L\n\n- a\n\n- b\n\n^loose\n\nafter\n"})
    async with e2e(root) as (url, h), Client(url, mode=mode) as c:  # type: ignore[arg-type]
        read = await ok(c, "read_note", path="L#^loose")
        assert (read["start_line"], read["content"]) == (3, "- a\n\n- b\n\n^loose\n")
        assert (await ok(c, "get_outline", path="L"))["blocks"] == [{"id": "loose", "start_line": 3, "line": 7}]
        await ok(c, "patch_note", path="L", block="loose", position="replace", content="- c\n")
        assert h.read("L.md") == "# L\n\n- c\n\n^loose\n\nafter\n"
