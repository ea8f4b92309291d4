"""Notes addressed as wikilinks through the full dispatch chain: every tool that takes an existing
note resolves a bare name, a partial path, an alias, any letter case and `#Heading`/`#^block`;
ambiguity, misses, folders, the ACL, and writes that stay strict about where they create."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import Harness, started

VAULT: dict[str, str | bytes] = {
    "Launch plan.md": "---\naliases: [Kickoff]\n---\n# The launch\n\n## Goals\n\nShip. ^ship\n\n## Risks\n\nNone.\n",
    "Projects/Plan.md": "# Plan\n\n## Goals\n\n### Details\n\nMore.\n\n## Risks\n\nLate.\n",
    "Archive/Plan.md": "# Old plan\n",
    "Home/Index.md": "---\naliases: [Home]\n---\nStart. See [[Launch plan]].\n",
    "Notes/Idea.md": "An idea, see [[Launch plan#Goals]].\n",
    "Private/Diary.md": "---\naliases: [Journal]\n---\nSecret.\n",
    "Private/Launch plans.md": "Hidden twin.\n",
    "Private/Idea.md": "A hidden idea.\n",
    "Assets/chart.png": b"\x89PNG\r\n",
    "Notes/Stale.md": "Points at [[Old place]].\n",
}
NO_PRIVATE = {"prefix_rules": [{"path": "Private", "read": "deny", "write": "deny"}]}


@pytest.fixture
async def av(make_vault: Callable[..., Path]) -> AsyncIterator[Harness]:
    async with started(make_vault(VAULT), index={"watch": False}) as harness:
        await harness.indexed()
        yield harness


@pytest.fixture
async def restricted(make_vault: Callable[..., Path]) -> AsyncIterator[Harness]:
    async with started(make_vault(VAULT), index={"watch": False}, acl=NO_PRIVATE) as harness:
        await harness.indexed()
        yield harness


@pytest.mark.covers("read_note", "success")
@pytest.mark.parametrize(
    "address",
    [
        "Launch plan",
        "launch PLAN",
        "Launch plan.md",
        "[[Launch plan]]",
        "[[Launch plan|the plan]]",
        "Kickoff",
        "kickoff",
    ],
)
async def test_read_note_by_what_a_wikilink_holds(av: Harness, address: str) -> None:
    out = await av.ok("read_note", path=address)
    assert out["path"] == "Launch plan.md" and out["title"] == "Launch plan"
    assert out["content"] == av.read("Launch plan.md")


async def test_a_partial_path_and_an_alias_elsewhere(av: Harness) -> None:
    assert (await av.ok("read_note", path="Home"))["path"] == "Home/Index.md"  # an alias; no file is named so
    assert (await av.ok("read_note", path="projects/plan"))["path"] == "Projects/Plan.md"
    assert (await av.ok("read_note", path="[[Notes/Idea|an idea]]"))["path"] == "Notes/Idea.md"


async def test_a_section_of_the_address_selects_it_for_reads(av: Harness) -> None:
    goals = await av.ok("read_note", path="[[Launch plan#Goals]]")
    assert goals["content"] == "## Goals\n\nShip. ^ship\n" and goals["start_line"] == 6
    nested = await av.ok("read_note", path="Projects/Plan#Goals#Details")
    assert nested["content"].startswith("### Details") and "Late" not in nested["content"]
    block = await av.ok("read_note", path="Launch plan#^ship")
    assert (block["content"], block["start_line"], block["end_line"]) == ("Ship. ^ship\n", 8, 8)
    several = await av.ok("read_notes", paths=["Kickoff#Risks", "Home"])
    assert [(i["path"], i["content"]) for i in several["items"]] == [
        ("Launch plan.md", "## Risks\n\nNone.\n"),
        ("Home/Index.md", av.read("Home/Index.md")),
    ]


@pytest.mark.covers("read_note", "failure")
async def test_ambiguous_missing_folder_and_attachment_addresses(av: Harness) -> None:
    ambiguous = await av.err("read_note", "ambiguous_note", path="Plan")
    assert ambiguous["details"]["candidates"] == ["Archive/Plan.md", "Projects/Plan.md"]
    assert ambiguous["details"]["total"] == 2 and ambiguous["hint"]
    missing = await av.err("read_note", "note_not_found", path="Lanch plan")
    assert missing["details"]["suggestions"][0] == "Launch plan.md"
    assert len(missing["details"]["suggestions"]) <= 5
    assert (await av.err("read_note", "note_not_found", path="zzqqxx"))["details"]["suggestions"] == []
    folder = await av.err("read_note", "not_a_note", path="Projects")
    assert folder["details"] == {"path": "Projects", "kind": "folder"}
    chart = await av.err("read_note", "not_a_note", path="Assets/chart.png")  # kind and reader as by its name
    assert chart["details"] == {"path": "Assets/chart.png", "kind": "image", "read_with": "read_attachment"}
    await av.err("read_note", "validation_error", path="Launch plan#Nope")
    await av.err("read_note", "validation_error", path="Launch plan#Goals", heading=["Risks"])
    await av.err("read_note", "validation_error", path="Launch plan#^nope")


async def test_the_acl_applies_to_what_an_address_resolves_to_and_hides_the_rest(restricted: Harness) -> None:
    """A note the caller may not read is never a match, a candidate or a suggestion."""
    vg = restricted
    assert (await vg.ok("read_note", path="Idea"))["path"] == "Notes/Idea.md"  # Private/Idea.md does not count
    journal = await vg.err("read_note", "note_not_found", path="Journal")  # an alias of a hidden note
    assert journal["details"]["suggestions"] == []
    diary = await vg.err("read_note", "note_not_found", path="Diary")
    assert diary["details"]["suggestions"] == []
    near = await vg.err("read_note", "note_not_found", path="Launch plann")
    assert near["details"]["suggestions"][0] == "Launch plan.md"
    assert not [p for p in near["details"]["suggestions"] if p.startswith("Private/")]
    await vg.err("read_note", "acl_denied", path="Private/Diary")  # the literal path, as always
    await vg.err("read_note", "acl_denied", path="Private/Nothing")  # the same answer when absent
    listed = await vg.ok("read_notes", paths=["Diary", "Kickoff"])
    assert listed["items"][0]["error"]["code"] == "note_not_found" and listed["items"][1]["path"] == "Launch plan.md"


async def test_unrestricted_the_same_name_is_ambiguous(av: Harness) -> None:
    idea = await av.err("get_backlinks", "ambiguous_note", path="idea")
    assert idea["details"]["candidates"] == ["Notes/Idea.md", "Private/Idea.md"]
    near = await av.err("read_note", "note_not_found", path="Launch plann")
    assert "Private/Launch plans.md" in near["details"]["suggestions"]  # what the ACL hides above
    assert (await av.ok("read_note", path="Journal"))["path"] == "Private/Diary.md"


async def test_every_tool_that_takes_a_note_accepts_an_address_and_echoes_the_path(av: Harness) -> None:
    assert (await av.ok("note_info", path="kickoff"))["path"] == "Launch plan.md"
    backlinks = await av.ok("get_backlinks", path="[[Launch plan]]")
    assert backlinks["target"] == "Launch plan.md"
    assert {i["path"] for i in backlinks["items"]} == {"Home/Index.md", "Notes/Idea.md"}
    assert (await av.ok("get_outlinks", path="Home"))["source"] == "Home/Index.md"
    assert (await av.ok("graph_neighbors", path="Home"))["start"] == "Home/Index.md"
    props = await av.ok("get_properties", path="Kickoff")
    assert props["path"] == "Launch plan.md" and props["properties"] == {"aliases": ["Kickoff"]}
    appended = await av.ok("append_note", path="Notes/idea", content="more\n")
    assert appended["path"] == "Notes/Idea.md" and av.read("Notes/Idea.md").endswith("more\n")
    prepended = await av.ok("prepend_note", path="Home", content="top\n")
    assert prepended["path"] == "Home/Index.md" and "\ntop\nStart." in av.read("Home/Index.md")
    patched = await av.ok("patch_note", path="[[Projects/Plan#Risks]]", position="append", content="- slip")
    assert patched["path"] == "Projects/Plan.md" and av.read("Projects/Plan.md").endswith("Late.\n\n- slip\n")
    tagged = await av.ok("add_tags", path="Kickoff", tags=["launch"])
    assert tagged["path"] == "Launch plan.md" and "launch" in av.read("Launch plan.md")
    moved = await av.ok("rename_note", path="notes/idea", new_path="Idea v2")
    assert (moved["old_path"], moved["path"]) == ("Notes/Idea.md", "Notes/Idea v2.md")
    copied = await av.ok("copy_note", path="Idea v2", new_path="Copies/Idea")
    assert copied["path"] == "Copies/Idea.md"
    deleted = await av.ok("delete_note", path="copies/idea")
    assert deleted["path"] == "Copies/Idea.md" and not (av.root / "Copies/Idea.md").exists()


async def test_rewrite_links_takes_an_address_as_the_new_target_and_echoes_both(av: Harness) -> None:
    out = await av.ok("rewrite_links", old_target="Old place", new_target="[[Kickoff]]", dry_run=True)
    assert (out["old_target"], out["new_target"]) == ("Old place.md", "Launch plan.md")
    assert [i["path"] for i in out["items"]] == ["Notes/Stale.md"]
    await av.err("rewrite_links", "ambiguous_note", old_target="Old place", new_target="Plan", dry_run=True)


async def test_patch_note_takes_its_target_from_the_address(av: Harness) -> None:
    block = await av.ok("patch_note", path="Kickoff#^ship", position="replace", content="Shipped.")
    assert block["path"] == "Launch plan.md" and "Shipped. ^ship" in av.read("Launch plan.md")
    before = av.snapshot()
    await av.err("patch_note", "validation_error", path="Launch plan", content="x")  # no target at all
    await av.err("patch_note", "validation_error", path="Launch plan#Goals", heading=["Risks"], content="x")
    await av.err("patch_note", "ambiguous_note", path="Plan#Goals", content="x")
    assert av.snapshot() == before


async def test_whole_note_writes_refuse_a_section_and_change_nothing(av: Harness) -> None:
    before = av.snapshot()
    for tool, args in [
        ("append_note", {"content": "x"}),
        ("delete_note", {}),
        ("set_properties", {"properties": {"a": 1}}),
        ("move_note", {"new_path": "Elsewhere"}),
    ]:
        error = await av.err(tool, "validation_error", path="Launch plan#Goals", **args)
        assert error["details"]["reason"] == "section_not_supported"
    await av.err("append_note", "ambiguous_note", path="Plan", content="x")
    await av.err("delete_note", "ambiguous_note", path="plan")
    await av.err("delete_note", "note_not_found", path="Lanch plan")
    await av.err("move_note", "ambiguous_note", path="Plan", new_path="Elsewhere/Plan")
    await av.err("set_properties", "not_a_note", path="Projects", properties={"a": 1})
    assert av.snapshot() == before


async def test_writes_create_exactly_where_the_path_says(av: Harness) -> None:
    """A new path is a path, unless it names an existing note (issue 41, item 4): that note is
    the one the name means to every other tool, so creating it is `already_exists` (or, for a
    name several notes carry, `ambiguous_note`), never a second note that captures its links."""
    error = await av.err("create_note", "ambiguous_note", path="Idea", content="root idea\n")
    assert error["details"]["candidates"] == ["Notes/Idea.md", "Private/Idea.md"]
    made = await av.ok("create_note", path="Drafts/Idea", content="root idea\n")
    assert made["path"] == "Drafts/Idea.md" and av.read("Notes/Idea.md").startswith("An idea")
    await av.err("create_note", "already_exists", path="Launch plan")
    written = await av.ok("write_note", path="Fresh", content="new\n")
    assert written["path"] == "Fresh.md" and written["created"] is True
    # append with create_if_missing: an existing note by its address, else a new note at the path.
    into = await av.ok("append_note", path="kickoff", content="tail\n", create_if_missing=True)
    assert into["path"] == "Launch plan.md" and into["created"] is False
    new = await av.ok("append_note", path="[[Brand new]]", content="first\n", create_if_missing=True)
    assert new["path"] == "Brand new.md" and av.read("Brand new.md") == "first\n"
    bracketed = await av.ok("create_note", path="[[Another idea]]", content="x\n")  # brackets are link syntax
    assert bracketed["path"] == "Another idea.md"
    copy = await av.ok("copy_note", path="Home", new_path="Home")  # the destination is the path 'Home.md'
    assert copy["path"] == "Home.md" and (av.root / "Home/Index.md").exists()


async def test_an_expected_etag_on_a_missing_address_is_note_not_found(av: Harness) -> None:
    """Not "the note changed since you read it": there is no note (issue 41, item 4)."""
    before = av.snapshot()
    await av.err("append_note", "note_not_found", path="Ghost", content="x", expected_etag="0" * 32)
    await av.err("patch_note", "note_not_found", path="Ghost", heading=["A"], content="x", expected_etag="0" * 32)
    await av.err("delete_note", "note_not_found", path="Ghost", expected_etag="0" * 32)
    for mode in ("create", "overwrite", "append"):
        await av.err("write_note", "note_not_found", path="Ghost", content="x", mode=mode, expected_etag="0" * 32)
    assert av.snapshot() == before


async def test_write_note_overwrite_names_an_existing_note_by_its_address(av: Harness) -> None:
    note = await av.ok("read_note", path="Kickoff")
    out = await av.ok("write_note", path="kickoff", content="replaced\n", mode="overwrite", expected_etag=note["etag"])
    assert out["path"] == "Launch plan.md" and av.read("Launch plan.md") == "replaced\n"


async def test_titles_are_file_names_everywhere(av: Harness) -> None:
    """Obsidian's title rule: the file's base name, whatever the H1 or a frontmatter title says."""
    read = await av.ok("read_note", path="Archive/Plan")
    assert read["title"] == "Plan"  # its H1 is 'Old plan'
    info = await av.ok("note_info", path="Launch plan")
    assert info["title"] == "Launch plan"  # its H1 is 'The launch'
    found = await av.ok("search_text", query="launch")
    titles = {i["path"]: i["title"] for i in found["items"]}
    assert titles["Launch plan.md"] == "Launch plan"
    heading = await av.ok("search_text", query="title:old")  # the H1 still counts as title text
    assert [(i["path"], i["title"]) for i in heading["items"]] == [("Archive/Plan.md", "Plan")]
    listed = await av.ok("list_notes", folder="Archive")
    assert [i["title"] for i in listed["items"]] == ["Plan"]
    backlinks = await av.ok("get_backlinks", path="Launch plan")
    assert {i["title"] for i in backlinks["items"]} == {"Index", "Idea"}


async def test_an_address_resolves_before_the_first_index_is_built(make_vault: Callable[..., Path]) -> None:
    """The names come from the disk while the index is not ready (aliases need the index)."""
    root = make_vault(VAULT)
    async with started(root, index={"watch": False}) as vg:
        await vg.indexed()  # the first build is over: nothing else sets the state below back
        indexer = next(iter(vg.app.vaults.values())).index
        state: Any = indexer
        real = state.state
        state.state = "reconciling"  # as during a first start: the notes table may be incomplete
        try:
            async with vg.app.services.db.transaction() as conn:
                await conn.execute("DELETE FROM notes")
            assert (await vg.ok("read_note", path="launch plan"))["path"] == "Launch plan.md"
            await vg.err("read_note", "ambiguous_note", path="Plan")
        finally:
            state.state = real


async def test_names_follow_every_write_and_are_patched_not_read_again(av: Harness) -> None:
    """Addresses resolve against names the indexer keeps and patches with the paths each round
    touched: a note created, given an alias, moved or deleted is found (or not) by name at once,
    and none of these writes makes the next resolution read every note's name again."""
    from service.indexer.runner import indexer_of

    names = indexer_of(av.app.vaults["main"]).names  # type: ignore[union-attr]
    assert (await av.ok("read_note", path="Kickoff"))["path"] == "Launch plan.md"
    full = names.full_reads
    made = await av.ok("create_note", path="Ideas/Fresh idea.md", content="New.\n")
    assert (await av.ok("read_note", path="fresh IDEA"))["path"] == "Ideas/Fresh idea.md"
    text = "---\naliases: [Spark]\n---\nNew.\n"
    await av.ok("write_note", path="Ideas/Fresh idea", content=text, mode="overwrite", expected_etag=made["etag"])
    assert (await av.ok("read_note", path="Spark"))["path"] == "Ideas/Fresh idea.md"
    await av.confirmed("move_note", path="Spark", new_path="Moved/Bright idea.md")
    await av.err("read_note", "note_not_found", path="Fresh idea")
    assert (await av.ok("read_note", path="Bright idea"))["path"] == "Moved/Bright idea.md"
    assert (await av.ok("read_note", path="Spark"))["path"] == "Moved/Bright idea.md"
    await av.ok("delete_note", path="Bright idea")
    await av.err("read_note", "note_not_found", path="Spark")
    await av.err("read_note", "note_not_found", path="Bright idea")
    assert names.full_reads == full and names.partial_reads >= 4
