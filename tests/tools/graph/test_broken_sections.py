"""find_broken_links lists links into a heading or block id the target note lacks (`#Old heading`
after a rename, `#^gone`), as Obsidian reads a link's section: heading paths `#A#B`, any letter
case, punctuation a link cannot hold read as spaces, own-note links `[[#Heading]]`; sections of
non-note files are never checked. Each item says why (`reason`) and what the target has instead."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import Harness, started

TARGET = (
    "---\nup: x\n---\n# Target\n\n## Step 1: Setup\ntext\n\n## Plan\n### Goals\npara ^goal-1\n\n- item ^Item2\n\n"
    "```\n## Fenced heading\n```\n%% ## Commented heading %%\n"
)
LINKS = (
    "# Links\n\n## Own heading\n"
    "[[Target#Step 1 Setup]] [[Target#step 1: setup]] [[Target#Plan#Goals]] [[Target#Goals]]\n"  # 4: all found
    "[[Target#^goal-1]] [[Target#^GOAL-1]] [[Target#^item2]] [p](Target.md#Plan) [[#Own heading]]\n"  # 5: found
    "[[Target#Old heading]]\n"  # 6
    "[[Target#Plan#Gaols]] [[Target#Goals#Plan]]\n"  # 7: a heading path broken at its 2nd part; out of order
    "[[Target#^abc123]] ![[Target#Section|s]]\n"  # 8
    "[t](Target.md#Old%20Heading) [[#Nope]] [[Target#Fenced heading]] [[Target#Commented heading]]\n"  # 9
    "![[pic.png#interface]] [[Target#]] [[Target#^]] [[Missing#Heading]]\n"  # 10: not checked; no note
    "[[Target#Gone]] [[Nowhere]]\n"  # 11: in the order written
)
FILES: dict[str, str | bytes] = {"Target.md": TARGET, "Links.md": LINKS, "pic.png": b"\x89PNG\r\n"}


@pytest.fixture
async def vault(make_vault: Callable[..., Path]) -> AsyncIterator[Harness]:
    async with started(make_vault(FILES)) as harness:
        await harness.indexed()
        yield harness


def _rows(out: dict[str, Any]) -> list[tuple[Any, ...]]:
    return [(i["line"], i["reason"], i["target"], i.get("subpath"), i.get("target_path")) for i in out["items"]]


@pytest.mark.covers("find_broken_links", "success")
async def test_links_into_missing_headings_and_blocks_are_broken(vault: Harness) -> None:
    out = await vault.ok("find_broken_links")
    assert _rows(out) == [
        (6, "no_heading", "Target", "Old heading", "Target.md"),
        (7, "no_heading", "Target", "Plan#Gaols", "Target.md"),
        (7, "no_heading", "Target", "Goals#Plan", "Target.md"),
        (8, "no_block", "Target", "^abc123", "Target.md"),
        (8, "no_heading", "Target", "Section", "Target.md"),
        (9, "no_heading", "", "Nope", "Links.md"),
        (9, "no_heading", "Target", "Fenced heading", "Target.md"),  # a heading in code is none
        (9, "no_heading", "Target", "Commented heading", "Target.md"),  # nor one in a comment
        (9, "no_heading", "Target.md", "Old Heading", "Target.md"),  # a line's wikilinks come first
        (10, "no_note", "Missing", "Heading", None),
        (11, "no_heading", "Target", "Gone", "Target.md"),
        (11, "no_note", "Nowhere", None, None),
    ]
    by_subpath = {i.get("subpath"): i for i in out["items"]}
    # The target's headings as a link writes them (':' dropped), the closest first.
    assert by_subpath["Old heading"]["suggestions"] == ["Plan", "Target", "Goals", "Step 1 Setup"]
    assert by_subpath["Goals#Plan"]["suggestions"] == [
        "Plan",
        "Goals",
        "Target",
        "Step 1 Setup",
    ]  # Goals has none inside
    assert by_subpath["Plan#Gaols"]["suggestions"] == ["Plan#Goals"]  # the part that was found is kept
    assert by_subpath["^abc123"]["suggestions"] == ["^goal-1", "^Item2"]
    assert by_subpath["Section"]["embed"] is True and by_subpath["Old Heading"]["kind"] == "markdown"
    assert by_subpath["Nope"]["suggestions"] == ["Own heading", "Links"]
    assert by_subpath["Heading"].get("suggestions") is None  # a link to no note
    assert by_subpath["Old heading"]["text"] == "[[Target#Old heading]]"


async def test_subpaths_false_lists_only_links_to_no_note(vault: Harness) -> None:
    out = await vault.ok("find_broken_links", subpaths=False)
    assert _rows(out) == [(10, "no_note", "Missing", "Heading", None), (11, "no_note", "Nowhere", None, None)]


async def test_pages_of_subpath_problems_and_their_cursor(vault: Harness) -> None:
    first = await vault.ok("find_broken_links", limit=4)
    rest = await vault.ok("find_broken_links", limit=20, cursor=first["next_cursor"])
    everything = await vault.ok("find_broken_links")
    assert _rows(first) + _rows(rest) == _rows(everything) and rest["next_cursor"] is None
    # A cursor of the listing with subpaths is not one of the listing without.
    await vault.err("find_broken_links", "validation_error", subpaths=False, cursor=first["next_cursor"])


async def test_renaming_a_heading_breaks_the_links_to_it(vault: Harness) -> None:
    assert not [i for i in (await vault.ok("find_broken_links"))["items"] if i.get("subpath") == "Plan#Goals"]
    await vault.confirmed("replace_text", path="Target.md", find="### Goals", replace="### Aims", dry_run=False)
    await vault.settled()
    broken = [i for i in (await vault.ok("find_broken_links"))["items"] if i.get("subpath") in ("Plan#Goals", "Goals")]
    assert [(i["line"], i["subpath"], i["suggestions"][0]) for i in broken] == [
        (4, "Plan#Goals", "Plan#Aims"),
        (4, "Goals", "Aims"),
    ]


async def test_a_heading_past_what_the_index_reads_is_found_in_the_file(make_vault: Callable[..., Path]) -> None:
    fill = "".join(f"filler line {i} of plain words\n" for i in range(200))
    files: dict[str, str | bytes] = {
        "Big.md": "# Big\n\n## Early\n" + fill + "## Late\nlast words ^tail\n",
        "Links.md": "[[Big#Late]] [[Big#^tail]] [[Big#Early]] [[Big#Never]] [[Big#^never]]\n",
    }
    async with started(make_vault(files), limits={"max_indexed_note_chars": 2048}) as vg:
        await vg.indexed()
        out = await vg.ok("find_broken_links")
        assert [(i["subpath"], i["reason"]) for i in out["items"]] == [("Never", "no_heading"), ("^never", "no_block")]


@pytest.mark.covers("find_broken_links", "failure")
async def test_a_bad_subpaths_flag_is_refused(vault: Harness) -> None:
    before = vault.snapshot()
    failed = await vault.err("find_broken_links", "validation_error", subpaths="sometimes")
    assert "subpaths" in str(failed["details"])
    assert vault.snapshot() == before


async def test_a_link_into_a_note_the_caller_may_not_read_is_a_link_to_no_note(vault: Harness) -> None:
    from tests.tools.graph.test_graph import _DenyGuard

    vault.app.services.guard = _DenyGuard("Target.md")
    items = (await vault.ok("find_broken_links", limit=100))["items"]
    # Every link to Target, found or not, is what a link to no note is; nothing of Target is told.
    assert {(i["reason"], i["target"]) for i in items} == {
        ("no_note", "Target"),
        ("no_note", "Target.md"),
        ("no_heading", ""),
        ("no_note", "Missing"),
        ("no_note", "Nowhere"),
    }
    assert all(i.get("suggestions") is None and i.get("target_path") is None for i in items if i["target"] != "")
