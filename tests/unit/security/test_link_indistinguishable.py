"""A link to a note the caller may not read looks exactly like a link to no note.

Two vaults that differ only in whether `[[Diary]]` resolves: in one, `Private/Diary.md` exists
(and Private/ is denied); in the other, the denied note is called `Private/Other.md`, so
`[[Diary]]` points at nothing. Every graph answer, count and note_info the caller gets must be
identical in both — otherwise the caller learns that a hidden Diary exists. Orphans are computed
over links between readable notes only: a note whose only link partner is hidden is an orphan.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from tests.conftest import Harness, started
from tests.unit.security.test_result_filtering import DENY_PRIVATE

HIDDEN = "# Hidden\n\nKeeps an eye on [[Todo]] and [[Plan]].\n"
READABLE: dict[str, str | bytes] = {
    "Welcome.md": "# Welcome\n\nStart at [[Plan]].\n",
    "Projects/Plan.md": "# Plan\n\nBack to [[Welcome]].\n",
    "Inbox/Todo.md": (
        "# Todo\n\nSee [[Diary]] and [[Nowhere]], then [[Diary#Part|the part]].\n![[Diary]]\n[as markdown](Diary.md)\n"
    ),
}
CALLS: list[tuple[str, dict[str, Any]]] = [
    ("get_outlinks", {"path": "Inbox/Todo"}),
    ("get_outlinks", {"path": "Inbox/Todo", "limit": 2}),
    ("find_broken_links", {}),
    ("find_broken_links", {"folder": "Inbox"}),
    ("find_orphans", {}),
    ("graph_neighbors", {"path": "Inbox/Todo", "depth": 3}),
    ("graph_neighbors", {"path": "Projects/Plan", "depth": 3}),
    ("get_backlinks", {"path": "Inbox/Todo"}),
    ("get_backlinks", {"path": "Projects/Plan"}),
    ("note_info", {"path": "Inbox/Todo"}),
    ("note_info", {"path": "Projects/Plan"}),
    ("index_status", {}),
]
VOLATILE = ("mtime", "ctime", "last_sync", "elapsed_ms", "size", "etag", "generation")


def stable(out: Any) -> Any:
    if isinstance(out, dict):
        return {k: stable(v) for k, v in out.items() if k not in VOLATILE}
    if isinstance(out, list):
        return [stable(v) for v in out]
    return out


async def answers(make_vault: Callable[..., Path], hidden_name: str) -> list[Any]:
    root = make_vault({**READABLE, f"Private/{hidden_name}.md": HIDDEN})
    vaults = [{"id": "main", "path": str(root), "name": "Vault"}]
    async with started(root, acl=DENY_PRIVATE, vaults=vaults) as vg:
        await vg.indexed()
        return [stable(await vg.ok(tool, **args)) for tool, args in CALLS]


async def test_a_link_to_a_denied_note_is_indistinguishable_from_an_unresolved_one(
    make_vault: Callable[..., Path],
) -> None:
    hidden = await answers(make_vault, "Diary")
    absent = await answers(make_vault, "Other")
    for (tool, args), seen, reference in zip(CALLS, hidden, absent, strict=True):
        assert seen == reference, (tool, args, json.dumps(seen)[:600], json.dumps(reference)[:600])


async def assert_shown_unresolved(vg: Harness) -> None:
    outlinks = (await vg.ok("get_outlinks", path="Inbox/Todo"))["items"]
    assert [(i["target"], i["path"], i["resolved"]) for i in outlinks] == [
        ("Diary", "Diary.md", False),
        ("Nowhere", "Nowhere.md", False),
        ("Diary", "Diary.md", False),
        ("Diary", "Diary.md", False),
        ("Diary.md", "Diary.md", False),
    ]
    broken = (await vg.ok("find_broken_links"))["items"]
    assert [(i["path"], i["line"], i["target"]) for i in broken] == [
        ("Inbox/Todo.md", 3, "Diary"),
        ("Inbox/Todo.md", 3, "Nowhere"),
        ("Inbox/Todo.md", 3, "Diary"),
        ("Inbox/Todo.md", 4, "Diary"),
        ("Inbox/Todo.md", 5, "Diary.md"),
    ]
    orphans = [i["path"] for i in (await vg.ok("find_orphans"))["items"]]
    assert orphans == ["Inbox/Todo.md"]  # its only partners (Diary both ways) are hidden
    assert (await vg.ok("graph_neighbors", path="Inbox/Todo", depth=3))["items"] == []
    assert (await vg.ok("note_info", path="Inbox/Todo"))["backlinks"] == 0
    status = await vg.ok("index_status")
    assert status["links"]["unresolved"] == 5 and status["links"]["total"] == 7


async def test_the_hidden_diary_is_broken_unresolved_and_no_link_partner(make_vault: Callable[..., Path]) -> None:
    root = make_vault({**READABLE, "Private/Diary.md": HIDDEN})
    async with started(root, acl=DENY_PRIVATE) as vg:
        await vg.indexed()
        await assert_shown_unresolved(vg)
    async with started(root) as vg:  # a caller who may read Private/ sees the links resolve
        await vg.indexed()
        outlinks = (await vg.ok("get_outlinks", path="Inbox/Todo"))["items"]
        assert [i["resolved"] for i in outlinks] == [True, False, True, True, True]
        broken = (await vg.ok("find_broken_links"))["items"]  # Diary has no heading 'Part'
        assert [(i["target"], i["reason"]) for i in broken] == [("Nowhere", "no_note"), ("Diary", "no_heading")]
        assert (await vg.ok("find_orphans"))["items"] == []


async def test_orphans_count_only_links_between_readable_notes(make_vault: Callable[..., Path]) -> None:
    """Plan's only partner is a hidden note linking to it: to this caller, Plan is an orphan."""
    files: dict[str, str | bytes] = {
        "Projects/Plan.md": "# Plan\n\nNo links here.\n",
        "Welcome.md": "# Welcome\n\n[[Index]]\n",
        "Index.md": "# Index\n",
        "Private/Diary.md": "# Diary\n\n[[Plan]]\n",
    }
    async with started(make_vault(files), acl=DENY_PRIVATE) as vg:
        await vg.indexed()
        orphans = [i["path"] for i in (await vg.ok("find_orphans"))["items"]]
        assert orphans == ["Projects/Plan.md"]
        assert (await vg.ok("note_info", path="Projects/Plan"))["backlinks"] == 0  # consistent with note_info
