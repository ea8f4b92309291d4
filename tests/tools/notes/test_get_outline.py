"""get_outline: a note's headings and block ids with their lines, heading paths and the link
subpath of each section, without its text. Every `link` and `path` it answers is given back to
read_note ('Note#<link>', heading=<path>), which must read exactly that section: its first and
last lines are the outline's. Headings in code, comments and the frontmatter are not headings;
a note longer than an answer may hold is read by its lines and outlined alike; a hidden note is
note_not_found by its name (acl_denied by its path), a canvas, a folder or an attachment
not_a_note, as read_note answers them."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import Harness, started

NOTE = (
    "---\ntitle: plan\nnotes: |\n  # not a heading\n---\n"
    "# Plan\n\nintro ^intro\n\n## Goals\n\n- ship it ^g1\n- test it\n\n"
    "```md\n## In code\n```\n\n%%\n## In a comment\n%%\n\n<!--\n## In html\n-->\n\n"
    "### Step 1: Setup\n\nfirst line\nsecond line ^setup\n\n\n"
    "## Risks\n\n### Goals\n\nnested goals\n\n## Tasks #work\n\n### [[Link|Shown]] and ^caret | pipe\n\ntext\n\n"
    "# Notes\n\n## Goals\n\nother goals\n\n## Goals\n\ntwin\n"
)
FILES: dict[str, Any] = {
    "Projects/Plan.md": NOTE,
    "Private/Secret.md": "# Hidden heading\n",
    "Board.canvas": '{"nodes": [], "edges": []}',
    "Assets/chart.png": b"\x89PNG\r\n",
    "Empty.md": "",
    "Crlf.md": "# A\r\n\r\ntext\r\n## B\r\nb\r\n\r\n",
}
NO_PRIVATE = {"prefix_rules": [{"path": "Private", "read": "deny"}]}
LIMIT = 4096
FILLER = "".join(f"filler line {i} with [[X]] and #tag\n" for i in range(300))  # ~11 KB


def _section(read: dict[str, Any]) -> tuple[int, int]:
    return read["start_line"], read["end_line"]


async def _reads_back(vg: Harness, note: str, outline: dict[str, Any], longest: int = 1 << 30) -> None:
    """Each heading's link (of a section of at most `longest` lines) reads its section with
    read_note, each block id its block."""
    for h in outline["headings"]:
        if h["link"] is not None and h["end_line"] - h["line"] < longest:
            got = await vg.ok("read_note", path=f"{note}#{h['link']}")
            assert _section(got) == (h["line"], h["end_line"]), h
            assert got["content"].split("\n", 1)[0].lstrip("#").strip() == h["text"], h
    for b in outline["blocks"]:
        got = await vg.ok("read_note", path=f"{note}#^{b['id']}")
        assert _section(got) == (b["start_line"], b["line"]), b


@pytest.mark.covers("get_outline", "success")
async def test_outline_lists_headings_with_links_that_read_their_sections(make_vault: Callable[..., Path]) -> None:
    async with started(make_vault(FILES), acl=NO_PRIVATE) as vg:
        got = await vg.ok("get_outline", path="Plan")
        assert got["path"] == "Projects/Plan.md"
        rows = [(h["level"], h["text"], h["path"], h["link"]) for h in got["headings"]]
        assert rows == [
            (1, "Plan", ["Plan"], "Plan"),
            (2, "Goals", ["Plan", "Goals"], "Plan#Goals"),
            (3, "Step 1: Setup", ["Plan", "Goals", "Step 1: Setup"], "Step 1 Setup"),
            (2, "Risks", ["Plan", "Risks"], "Risks"),
            (3, "Goals", ["Plan", "Risks", "Goals"], "Risks#Goals"),
            (2, "Tasks #work", ["Plan", "Tasks #work"], "Tasks work"),
            (
                3,
                "[[Link|Shown]] and ^caret | pipe",
                ["Plan", "Tasks #work", "[[Link|Shown]] and ^caret | pipe"],
                "Link Shown and caret pipe",
            ),
            (1, "Notes", ["Notes"], "Notes"),
            (2, "Goals", ["Notes", "Goals"], None),  # two sections of one heading path: no address reads one
            (2, "Goals", ["Notes", "Goals"], None),
        ]
        lines = NOTE.split("\n")
        for h in got["headings"]:
            assert lines[h["line"] - 1].lstrip("#").strip() == h["text"]
        setup = got["headings"][2]
        assert lines[setup["end_line"] - 1] == "second line ^setup"  # its trailing empty lines left out
        assert got["headings"][1]["end_line"] == setup["end_line"]  # a section holds its sub-sections
        assert [(b["id"], lines[b["line"] - 1]) for b in got["blocks"]] == [
            ("intro", "intro ^intro"),
            ("g1", "- ship it ^g1"),
            ("setup", "second line ^setup"),
        ]
        assert got["total_lines"] == (await vg.ok("read_note", path="Plan"))["total_lines"]
        assert got["etag"] == (await vg.ok("read_note", path="Plan"))["etag"]
        await _reads_back(vg, "Plan", got)
        for h in got["headings"]:  # its heading path reads it too, where one section has that path
            if h["link"] is not None:
                read = await vg.ok("read_note", path="Plan", heading=h["path"])
                assert _section(read) == (h["line"], h["end_line"]), h

        top = await vg.ok("get_outline", path="[[Projects/Plan]]", max_level=1)
        assert [h["text"] for h in top["headings"]] == ["Plan", "Notes"]
        assert top["headings"][0]["end_line"] == got["headings"][0]["end_line"]
        assert top["blocks"] == got["blocks"]

        crlf = await vg.ok("get_outline", path="Crlf")
        assert [h["line"] for h in crlf["headings"]] == [1, 4]
        await _reads_back(vg, "Crlf", crlf)
        empty = await vg.ok("get_outline", path="Empty")
        assert (empty["headings"], empty["blocks"], empty["total_lines"]) == ([], [], 1)


@pytest.mark.covers("get_outline", "success")
async def test_a_note_longer_than_an_answer_is_outlined_by_its_lines(
    make_vault: Callable[..., Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    big = NOTE.replace("nested goals\n", "nested goals\n" + FILLER)
    latin = big.replace("intro", "caf\u00e9").encode("cp1252")
    root = make_vault({"Big.md": big, "Mixed.md": big.replace("\n", "\r").encode(), "Latin.md": latin})
    async with started(root) as whole:
        expected = await whole.ok("get_outline", path="Big")
    async with started(root, governor={"max_response_bytes": LIMIT}) as vg:
        files = next(iter(vg.app.vaults.values())).files
        monkeypatch.setattr(files, "read", lambda vp: pytest.fail(f"{vp.rel} read whole"))
        assert len(big) > LIMIT
        got = await vg.ok("get_outline", path="Big")
        assert got == expected
        mixed = await vg.ok("get_outline", path="Mixed")
        assert mixed["headings"] == expected["headings"] and mixed["blocks"] == expected["blocks"]
        refused = await vg.err("get_outline", "overflow", path="Latin")  # read_note refuses its parts too
        assert refused["details"]["reason"] == "not_utf8" and "max_response_bytes" in refused["hint"]
        await _reads_back(vg, "Big", got, longest=20)  # the rest are over the answer's limit
        assert sum(h["end_line"] - h["line"] < 20 and h["link"] is not None for h in got["headings"]) == 4


@pytest.mark.covers("get_outline", "failure")
async def test_outline_refuses_what_read_note_refuses(make_vault: Callable[..., Path]) -> None:
    async with started(make_vault(FILES), acl=NO_PRIVATE) as vg:
        for path, code in [
            ("Private/Secret", "acl_denied"),  # a path written out: as read_note answers it
            ("Secret", "note_not_found"),
            ("Board.canvas", "not_a_note"),
            ("Assets/chart.png", "not_a_note"),
            ("Projects", "not_a_note"),
            ("No such note", "note_not_found"),
        ]:
            read = await vg.err("read_note", code, path=path)
            got = await vg.err("get_outline", code, path=path)
            assert got["details"] == read["details"], path
        for bad in (0, 7):
            await vg.err("get_outline", "validation_error", path="Plan", max_level=bad)


@pytest.mark.covers("get_outline", "success")
async def test_thousands_of_headings_named_alike_get_their_links(make_vault: Callable[..., Path]) -> None:
    """A journal of 5,000 days, each with '## Notes': every Notes section is named under its day
    (checking each against all 10,000 headings took 4.4 s for 2,000 days, and past 2,000 the
    links were not given); 3,000 sibling headings of one name have no address, and say so."""
    days = "".join(f"# Day {i}\n\n## Notes\n\nx\n\n" for i in range(5000))
    same = "# Top\n\n" + "".join("## Same\n\nx\n\n" for _ in range(3000))
    async with started(
        make_vault({"Journal.md": days, "Same.md": same}), governor={"max_response_bytes": 4 << 20}
    ) as vg:
        got = await _every_page(vg, path="Journal", max_level=2, limit=1000)
        notes = [h for h in got if h["level"] == 2]
        assert [h["link"] for h in notes] == [f"Day {i}#Notes" for i in range(5000)]
        for h in notes[::997]:
            read = await vg.ok("read_note", path=f"Journal#{h['link']}")
            assert _section(read) == (h["line"], h["end_line"]) == (h["line"], h["line"] + 2)
        siblings = await _every_page(vg, path="Same", limit=1000)
        assert [h["link"] for h in siblings] == ["Top"] + [None] * 3000


async def _every_page(vg: Harness, **args: Any) -> list[dict[str, Any]]:
    """The headings of every page of get_outline, following next_cursor."""
    headings: list[dict[str, Any]] = []
    cursor = None
    while True:
        page = await vg.ok("get_outline", **args, **({"cursor": cursor} if cursor else {}))
        headings += page["headings"]
        assert page["headings_total"] >= len(headings)
        cursor = page.get("next_cursor")
        if cursor is None:
            assert len(headings) == page["headings_total"]
            return headings


@pytest.mark.covers("get_outline", "success")
async def test_an_outline_of_thousands_of_headings_comes_in_pages(make_vault: Callable[..., Path]) -> None:
    """A note of 3,000 headings and 3,000 block ids: its outline was one answer (~700 KB, over a
    256 KB budget: overflow, with no way to ask for less). Now pages of `limit` (200 by default)
    headings and as many block ids, next_cursor the rest, as the other listing tools page; a page
    over the budget answers overflow with the limit that fits; a cursor of an earlier version of the
    note, or of another query, is refused."""
    note = "# Top\n\n" + "".join(f"## Heading {i}\n\nline {i} ^b{i}\n\n" for i in range(3000))
    async with started(make_vault({"Big.md": note}), governor={"max_response_bytes": 256 << 10}) as vg:
        first = await vg.ok("get_outline", path="Big")
        assert (len(first["headings"]), len(first["blocks"])) == (200, 200)
        assert (first["headings_total"], first["blocks_total"]) == (3001, 3000)
        headings, blocks, cursor, pages = first["headings"], first["blocks"], first["next_cursor"], 1
        while cursor:
            page = await vg.ok("get_outline", path="Big", cursor=cursor)
            headings, blocks, cursor, pages = (
                headings + page["headings"],
                blocks + page["blocks"],
                page.get("next_cursor"),
                pages + 1,
            )
        assert pages == 16
        assert [h["text"] for h in headings] == ["Top", *(f"Heading {i}" for i in range(3000))]
        assert [b["id"] for b in blocks] == [f"b{i}" for i in range(3000)]
        assert [h["link"] for h in headings[1:]] == [f"Heading {i}" for i in range(3000)]
        lines = note.split("\n")
        assert all(lines[h["line"] - 1] == f"{'#' * h['level']} {h['text']}" for h in headings)
        tops = await vg.ok("get_outline", path="Big", max_level=1)
        assert tops["headings_total"] == 1 and tops["next_cursor"]  # its block ids go on
        over = await vg.err("get_outline", "overflow", path="Big", limit=1000)
        assert 200 <= over["details"]["suggested_limit"] < 1000
        await vg.err("get_outline", "validation_error", path="Big", max_level=2, cursor=first["next_cursor"])
        await vg.ok("append_note", path="Big", content="## Late\n")
        stale = await vg.err("get_outline", "validation_error", path="Big", cursor=first["next_cursor"])
        assert stale["details"]["reason"] == "stale_cursor"
