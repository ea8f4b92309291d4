"""A note created where another note has its name takes the links Obsidian then resolves to it.

Obsidian resolves a name several notes share to the one in the linking note's folder, else the
shortest path (`service.obsidian.link_order`), and a new note rewrites no link: Obsidian rewrites
links on a rename only (obsidian-folder-notes#147: a second same-named note "does not update
until rename", which its maintainer calls Obsidian's normal behaviour). Found (s79 X4, X3's open
question): create_note 'A/Idea.md' beside 'Projects/Notes/Idea.md' moved every `[[Idea]]`,
`[[Idea#Plan]]` and `[x](Idea.md)` to the new note, as Obsidian does (get_backlinks, outlinks,
find_broken_links and shortest_path agree), but its answer said nothing: `[[Idea#Plan]]` turned
broken unseen. Now create_note, write_note, copy_note and bulk_create_notes list those links
(`links_now_here`), and still rewrite none; a link its folder keeps on the old note is not listed.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import Harness, started

OLD = "Projects/Notes/Idea.md"
VAULT = {
    OLD: "# Idea\n\n## Plan\n\nthe old idea ^blk\n",
    "Projects/Src.md": "intro\nsee [[Idea]] and [[Idea#Plan]]\n",
    "Other/Two.md": "[x](Idea.md) also ![[Idea#^blk|alias]]\n",
    "Projects/Notes/Beside.md": "[[Idea]] stays: its folder holds one\n",  # same folder: kept
    "Projects/Path.md": "[[Projects/Notes/Idea]] is a path\n",  # a path: kept
    "Other/X.md": "x\n",
}
TAKEN = [
    {"path": "Other/Two.md", "line": 1, "target": "Idea", "was": OLD},
    {"path": "Other/Two.md", "line": 1, "target": "Idea.md", "was": OLD},
    {"path": "Projects/Src.md", "line": 2, "target": "Idea", "was": OLD},
    {"path": "Projects/Src.md", "line": 2, "target": "Idea", "was": OLD},
]
CALLS: list[tuple[str, dict[str, Any]]] = [
    ("create_note", {"path": "A/Idea", "content": "new\n"}),
    ("create_note", {"path": "A/Idea.md", "content": "new\n", "if_exists": "unique"}),
    ("write_note", {"path": "A/Idea.md", "content": "new\n"}),
    ("write_note", {"path": "A/Idea.md", "content": "new\n", "mode": "overwrite"}),
    ("copy_note", {"path": "Other/X.md", "new_path": "A/Idea.md"}),
]


def _taken(answer: dict[str, Any]) -> list[dict[str, Any]]:
    return sorted(answer["links_now_here"] or [], key=lambda t: (t["path"], t["line"], t["target"]))


async def _agrees(vg: Harness) -> None:
    """The index says what Obsidian shows: the links listed name the new note now."""
    await vg.settled()
    old = {(b["path"], b["target"]) for b in (await vg.ok("get_backlinks", path=OLD))["items"]}
    assert old == {("Projects/Notes/Beside.md", "Idea"), ("Projects/Path.md", "Projects/Notes/Idea")}
    new = {(b["path"], b["target"]) for b in (await vg.ok("get_backlinks", path="A/Idea.md"))["items"]}
    assert new == {("Projects/Src.md", "Idea"), ("Other/Two.md", "Idea"), ("Other/Two.md", "Idea.md")}
    broken = {(b["path"], b["reason"]) for b in (await vg.ok("find_broken_links"))["items"]}
    assert broken == {("Projects/Src.md", "no_heading"), ("Other/Two.md", "no_block")}


@pytest.mark.parametrize(("tool", "args"), CALLS)
async def test_a_new_note_lists_the_links_it_takes(
    tool: str, args: dict[str, Any], make_vault: Callable[..., Path]
) -> None:
    async with started(make_vault(VAULT)) as vg:
        await vg.indexed()
        before = vg.snapshot()
        answer = await vg.ok(tool, **args)
        assert answer["path"] == "A/Idea.md" and answer["created"] is True
        assert _taken(answer) == TAKEN
        assert answer["links_now_here_count"] == 4
        assert vg.changed_since(before) == {"A/Idea.md"}  # no link rewritten, as in Obsidian
        await _agrees(vg)


async def test_bulk_create_lists_them_for_its_note(make_vault: Callable[..., Path]) -> None:
    async with started(make_vault(VAULT)) as vg:
        await vg.indexed()
        answer = await vg.ok("bulk_create_notes", notes=[{"path": "B/Other.md"}, {"path": "A/Idea.md"}])
        first, second = answer["items"]
        assert first["links_now_here"] is None
        assert _taken(second) == TAKEN and second["links_now_here_count"] == 4
        await _agrees(vg)


async def test_a_note_no_link_moves_to_says_nothing(make_vault: Callable[..., Path]) -> None:
    async with started(make_vault(VAULT)) as vg:
        await vg.indexed()
        longer = await vg.ok("create_note", path="Zzzzzzzzzzzzzzzzzzzzzzzzz/Idea.md")  # longer: takes none
        assert longer["links_now_here"] is None and longer["links_now_here_count"] is None
        fresh = await vg.ok("create_note", path="A/Fresh.md")  # a name no other note has
        assert fresh["links_now_here"] is None
        again = await vg.ok("write_note", path="A/Fresh.md", content="more\n", mode="append")
        assert again["links_now_here"] is None


DELETE_VAULT = {
    **VAULT,
    "A/Idea.md": "new, links [[Idea#Plan]] itself\n",  # the shortest: takes the bare links
    "Other/Path.md": "[[A/Idea]] names it by path\n",  # broken by the delete: not listed
}


@pytest.mark.parametrize("permanent", [False, True])
async def test_a_deleted_note_lists_the_links_it_passes_on(permanent: bool, make_vault: Callable[..., Path]) -> None:
    """Deleting one of two same-named notes: its bare links name the other one now, as in
    Obsidian; not broken, so find_broken_links never showed them. delete_note lists them."""
    async with started(make_vault(DELETE_VAULT)) as vg:
        await vg.indexed()
        args: dict[str, Any] = {"path": "A/Idea.md", "permanent": permanent}
        answer = await (vg.confirmed("delete_note", **args) if permanent else vg.ok("delete_note", **args))
        passed = sorted(answer["links_now_elsewhere"], key=lambda t: (t["path"], t["line"], t["target"]))
        assert passed == [{**{k: v for k, v in t.items() if k != "was"}, "now": OLD} for t in TAKEN]
        assert answer["links_now_elsewhere_count"] == 4
        await vg.settled()
        old = {(b["path"], b["target"]) for b in (await vg.ok("get_backlinks", path=OLD))["items"]}
        assert {("Projects/Src.md", "Idea"), ("Other/Two.md", "Idea.md")} <= old
        broken = {(b["path"], b["reason"]) for b in (await vg.ok("find_broken_links"))["items"]}
        assert broken == {("Other/Path.md", "no_note")}


async def test_a_deleted_note_no_other_note_shares_says_nothing(make_vault: Callable[..., Path]) -> None:
    async with started(make_vault(VAULT)) as vg:
        await vg.indexed()
        answer = await vg.ok("delete_note", path="Other/X.md")
        assert answer["links_now_elsewhere"] is None and answer["links_now_elsewhere_count"] is None


async def test_rewrite_links_puts_them_back_as_the_answer_says(make_vault: Callable[..., Path]) -> None:
    """links_now_here's description: rewrite_links with old_target the new note and new_target
    `was` keeps them on the other note (written as its path)."""
    async with started(make_vault(VAULT)) as vg:
        await vg.indexed()
        made = await vg.ok("create_note", path="A/Idea.md", content="new\n")
        [was] = {t["was"] for t in made["links_now_here"]}
        await vg.settled()
        args = {"old_target": made["path"], "new_target": was, "dry_run": False}
        await vg.ok("rewrite_links", **args, elicit_token=await vg.token_for("rewrite_links", **args))
        await vg.settled()
        assert (await vg.ok("get_backlinks", path="A/Idea.md"))["items"] == []
        assert (await vg.ok("find_broken_links"))["items"] == []
        assert "[[Projects/Notes/Idea#Plan]]" in vg.read("Projects/Src.md")
