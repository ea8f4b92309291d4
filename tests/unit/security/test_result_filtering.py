"""A note the caller may not read cannot be inferred from any result: listings, searches,
snippets, counts, graph tools, resources, prompts and completion all filter before limits."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import Harness, started
from tests.sec_vault import SEC_VAULT

DENY_PRIVATE = {"prefix_rules": [{"path": "Private", "read": "deny", "write": "deny"}]}
# Words only the denied notes contain (readable notes may link to [[Diary]]: that text is theirs).
SECRETS = ("Private/", "Deep.md", "grim", "hidden-tag", "secret", "Confidential", "stripes", "Deeper")


@pytest.fixture
async def guarded(make_vault: Callable[..., Path]) -> AsyncIterator[Harness]:
    async with started(make_vault(SEC_VAULT), acl=DENY_PRIVATE) as vg:
        await vg.indexed()
        yield vg


def assert_clean(out: Any) -> None:
    text = json.dumps(out, ensure_ascii=False)
    for word in SECRETS:
        assert word not in text, (word, text[:500])


CALLS: list[tuple[str, dict[str, Any]]] = [
    ("list_notes", {}),
    ("list_notes", {"folder": ""}),
    ("list_folders", {}),
    ("search_text", {"query": "zebra"}),
    ("search_text", {"query": "zebra", "sort": "path", "limit": 1}),
    ("search_regex", {"pattern": "zebra|stripes", "ignore_case": True}),
    ("search_tags", {"tags": ["project"]}),
    ("search_properties", {"filters": [{"key": "status", "op": "exists"}]}),
    ("query_jsonlogic", {"logic": {"==": [1, 1]}}),
    ("search_vault", {"query": "zebra", "tags": ["project"]}),
    ("search_notes", {"mode": "hybrid", "query": "zebra", "tags": ["project"]}),
    ("search_notes", {"mode": "properties", "properties": {"status": ["active", "secret"]}}),
    ("list_tags", {}),
    ("list_properties", {}),
    ("property_values", {"key": "status"}),
    ("property_values", {"key": "mood"}),
    ("get_backlinks", {"path": "Projects/Plan"}),
    ("get_outlinks", {"path": "Inbox/Todo"}),
    ("graph_neighbors", {"path": "Projects/Plan", "depth": 3}),
    ("find_orphans", {}),
    ("find_broken_links", {}),
    ("read_notes", {"paths": ["Projects/Plan", "Welcome"]}),
    ("note_info", {"path": "Projects/Plan"}),
    ("move_note", {"path": "Projects/Plan", "new_path": "Projects/Plan2", "dry_run": True}),
    ("rename_note", {"path": "Projects/Plan", "new_path": "Plan2", "dry_run": True}),
    ("rename_tag", {"old": "project", "new": "proj", "dry_run": True}),
    ("rewrite_links", {"old_target": "Projects/Plan", "new_target": "Welcome", "dry_run": True}),
]


@pytest.mark.parametrize(("tool", "args"), CALLS, ids=[f"{t}-{i}" for i, (t, _) in enumerate(CALLS)])
async def test_denied_notes_never_show_up(guarded: Harness, tool: str, args: dict[str, Any]) -> None:
    out = await guarded.ok(tool, **args)
    assert_clean(out)


async def test_the_relaxed_pass_of_a_question_filters_denied_notes(guarded: Harness) -> None:
    """Words only denied notes hold make the strict pass empty and the relaxed one run: its
    results (all but the echo of the caller's own query) reveal nothing either."""
    question = "where is the zebra with grim stripes?"
    calls: list[tuple[str, dict[str, Any]]] = [
        ("search_text", {"query": question, "limit": 50}),
        ("search_text", {"query": question, "limit": 1, "sort": "path"}),
        ("search_notes", {"mode": "full_text", "query": question}),
        ("search_vault", {"query": question}),
        ("search_vault", {"query": question, "tags": ["project"]}),
    ]
    for tool, args in calls:
        out = await guarded.ok(tool, **args)
        assert out.get("match", out.get("text_match")) == "any", out
        assert out["items"] and all(not i["path"].startswith("Private/") for i in out["items"])
        assert_clean({k: v for k, v in out.items() if k != "query"})
    notes = await guarded.ok("search_notes", mode="full_text", query=question)
    assert notes["total"] == 2


async def test_counts_exclude_denied_notes(guarded: Harness) -> None:
    tags = {t["tag"]: t["count"] for t in (await guarded.ok("list_tags"))["items"]}
    assert tags == {"inbox": 1, "project": 1}
    statuses = (await guarded.ok("property_values", key="status"))["items"]
    assert [(v["value"], v["count"]) for v in statuses] == [("active", 1)]
    keys = {k["key"]: k["count"] for k in (await guarded.ok("list_properties"))["items"]}
    assert "mood" not in keys and keys["status"] == 1
    assert (await guarded.ok("search_tags", tags=["project"]))["total"] == 1
    notes = await guarded.ok("search_notes", mode="full_text", query="zebra")
    assert notes["total"] == 2


async def test_reading_or_writing_denied_notes_fails_and_changes_nothing(guarded: Harness) -> None:
    before = guarded.snapshot()
    calls: list[tuple[str, dict[str, Any]]] = [
        ("read_note", {"path": "Private/Diary"}),
        ("note_info", {"path": "Private/Diary"}),
        ("get_properties", {"path": "Private/Diary"}),
        ("get_backlinks", {"path": "Private/Diary"}),
        ("list_notes", {"folder": "Private"}),
        ("search_text", {"query": "zebra", "folder": "Private"}),
        ("write_note", {"path": "Private/Diary", "content": "x", "mode": "overwrite"}),
        ("append_note", {"path": "Private/Diary", "content": "x"}),
        ("copy_note", {"path": "Private/Diary", "new_path": "Inbox/Copy"}),
        ("copy_note", {"path": "Inbox/Todo", "new_path": "Private/Copy"}),
        ("move_note", {"path": "Inbox/Todo", "new_path": "Private/Todo"}),
        ("delete_note", {"path": "Private/Diary"}),
        ("create_folder", {"path": "Private/New"}),
        ("bulk_create_notes", {"notes": [{"path": "Inbox/A", "content": "a"}, {"path": "Private/B", "content": "b"}]}),
    ]
    for tool, args in calls:
        error = await guarded.err(tool, "acl_denied", **args)
        assert error["details"]["path"].startswith("Private") and error["details"]["op"] in ("read", "write", "delete")
    read = await guarded.ok("read_notes", paths=["Private/Diary"])
    assert read["items"][0]["error"]["code"] == "acl_denied" and read["items"][0]["content"] is None
    assert guarded.snapshot() == before


async def test_a_symlink_cannot_route_around_the_acl(make_vault: Callable[..., Path]) -> None:
    root = make_vault(SEC_VAULT)
    (root / "Inbox" / "Shortcut.md").symlink_to(root / "Private" / "Diary.md")
    (root / "Projects" / "Door").symlink_to(root / "Private", target_is_directory=True)
    async with started(root, acl=DENY_PRIVATE) as vg:
        await vg.indexed()
        before = vg.snapshot()
        await vg.err("read_note", "acl_denied", path="Inbox/Shortcut")
        await vg.err("read_note", "acl_denied", path="Projects/Door/Diary")
        await vg.err("write_note", "acl_denied", path="Inbox/Shortcut", content="x", mode="overwrite")
        assert (await vg.ok("search_text", query="confidential OR stripes"))["items"] == []
        assert_clean(await vg.ok("list_notes", folder="Inbox"))
        assert vg.snapshot() == before


async def test_link_counts_and_bulk_edits_ignore_denied_notes(guarded: Harness) -> None:
    """Private/Diary links to Plan and carries #project: no count or edit may reveal it."""
    assert (await guarded.ok("note_info", path="Projects/Plan"))["backlinks"] == 2  # Todo and Welcome
    moved = await guarded.ok("move_note", path="Projects/Plan", new_path="Projects/Plan2", dry_run=True)
    assert moved["notes_rewritten"] == 2 and {i["path"] for i in moved["items"]} == {"Inbox/Todo.md", "Welcome.md"}
    renamed = await guarded.ok("rename_tag", old="project", new="proj", dry_run=True)
    assert renamed["files_changed"] == 1 and [i["path"] for i in renamed["items"]] == ["Projects/Plan.md"]


async def test_moving_a_note_leaves_denied_notes_untouched(guarded: Harness) -> None:
    diary = guarded.read("Private/Diary.md")
    await guarded.ok("move_note", path="Projects/Plan", new_path="Projects/Plan2")
    asked = await guarded.err("rename_tag", "elicit_required", old="project", new="proj", dry_run=False)
    assert_clean(asked)  # the confirmation preview lists only notes the caller may read
    await guarded.confirmed("rename_tag", old="project", new="proj", dry_run=False)
    assert guarded.read("Private/Diary.md") == diary
    assert "[[Plan2]]" in guarded.read("Welcome.md")


async def test_moving_a_folder_with_a_denied_note_is_refused_without_naming_it(
    make_vault: Callable[..., Path],
) -> None:
    acl = {"prefix_rules": [{"path": "Projects/Notes", "read": "deny", "write": "deny"}]}
    async with started(make_vault(SEC_VAULT), acl=acl) as vg:
        await vg.indexed()
        before = vg.snapshot()
        error = await vg.err("move_note", "acl_denied", path="Projects", new_path="Archive")
        assert error["details"]["path"] == "Projects" and error["details"]["op"] == "write"
        assert "Idea" not in json.dumps(error)
        assert vg.snapshot() == before


async def test_index_status_counts_only_readable_notes(make_vault: Callable[..., Path]) -> None:
    files = {
        **SEC_VAULT,
        "Private/Tasks.md": "# Tasks\n\n- [ ] hidden task\n- [x] done\n\n[[Nowhere]]\n",
        "Inbox/Open.md": "# Open\n\n- [ ] visible task\n",
    }
    async with started(make_vault(files)) as vg:
        await vg.indexed()
        everything = await vg.ok("index_status")
    async with started(make_vault(files), acl=DENY_PRIVATE) as vg:
        await vg.indexed()
        seen = await vg.ok("index_status")
        visible = len((await vg.ok("list_notes"))["items"])
    assert everything["notes"] == 8 and seen["notes"] == visible == 5
    assert (everything["tasks"], everything["open_tasks"]) == (3, 2) and (seen["tasks"], seen["open_tasks"]) == (1, 1)
    # Private/Tasks's [[Nowhere]] is not counted; Todo's and Plan's [[Diary]] are, as unresolved.
    assert everything["links"]["unresolved"] == 1 and seen["links"]["unresolved"] == 2
    assert seen["links"]["total"] < everything["links"]["total"]
    assert (everything["tags"], seen["tags"]) == (4, 2)  # 'private' and 'hidden-tag' only in Private/
    assert (everything["headings"], seen["headings"]) == (8, 5)  # one H1 per note


async def test_index_jobs_show_a_restricted_caller_percentages_not_file_counts(make_vault: Callable[..., Path]) -> None:
    async with started(make_vault(SEC_VAULT)) as vg:
        await vg.indexed()
        job = (await vg.ok("reindex", mode="full"))["job"]
        assert (job["progress"], job["total"]) == (6, 6) and job["result"]["scanned"] == 6
        assert (await vg.ok("index_status"))["last_job"]["total"] == 6
    async with started(make_vault(SEC_VAULT), acl=DENY_PRIVATE) as vg:
        await vg.indexed()
        job = (await vg.ok("reindex", mode="full"))["job"]
        assert (job["progress"], job["total"], job["result"]) == (100, 100, None)
        status = await vg.ok("index_status")
        assert (status["last_job"]["progress"], status["last_job"]["total"], status["last_job"]["result"]) == (
            100,
            100,
            None,
        )
        assert status["backlog"] == 0
