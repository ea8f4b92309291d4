"""list_bookmarks, add_bookmark, remove_bookmark on .obsidian/bookmarks.json, through the chain."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import Harness, started

NO_PRIVATE = {"prefix_rules": [{"path": "Private", "read": "deny"}]}

# As Obsidian 1.x writes it: every item type, a nested group, keys we do not know (`color`,
# `x-plugin`) and an item type we do not know (`canvas-view`).
BOOKMARKS: dict[str, Any] = {
    "items": [
        {"type": "file", "ctime": 1700000000001, "path": "Projects/Plan.md", "subpath": "#Goals", "title": "Goals"},
        {"type": "folder", "ctime": 1700000000002, "path": "Projects"},
        {"type": "file", "ctime": 1700000000003, "path": "Private/Diary.md"},
        {
            "type": "group",
            "ctime": 1700000000004,
            "title": "Reading",
            "color": "red",
            "items": [
                {"type": "search", "ctime": 1700000000005, "query": "tag:#book"},
                {"type": "url", "ctime": 1700000000006, "url": "https://obsidian.md", "title": "Obsidian"},
                {"type": "file", "ctime": 1700000000007, "path": "Welcome.md", "subpath": "#^intro"},
            ],
        },
        {"type": "graph", "ctime": 1700000000008, "options": {"search": "path:Projects"}, "title": "Projects graph"},
        {"type": "canvas-view", "ctime": 1700000000009, "x-plugin": True},
    ],
    "x-version": 2,
}

FILES = {
    "Welcome.md": "# Welcome\n\nIntro ^intro\n",
    "Projects/Plan.md": "# Plan\n\n## Goals\n",
    "Private/Diary.md": "secret\n",
    ".obsidian/bookmarks.json": json.dumps(BOOKMARKS, indent=2),
}


@pytest.fixture
async def bk(make_vault: Callable[..., Path]) -> AsyncIterator[Harness]:
    async with started(make_vault(FILES), acl=NO_PRIVATE) as harness:
        yield harness


def _saved(vg: Harness) -> dict[str, Any]:
    data: dict[str, Any] = json.loads(vg.read(".obsidian/bookmarks.json"))
    return data


@pytest.mark.covers("list_bookmarks", "success")
async def test_list_shows_every_type_nested_and_hides_denied_files(bk: Harness) -> None:
    out = await bk.ok("list_bookmarks")
    got = [(i["position"], i["type"], i["path"], i["depth"], i["group"]) for i in out["items"]]
    assert got == [
        ("0", "file", "Projects/Plan.md", 0, None),
        ("1", "folder", "Projects", 0, None),
        ("2", "group", None, 0, None),  # Private/Diary.md is invisible: it takes no position either
        ("2.0", "search", None, 1, "Reading"),
        ("2.1", "url", None, 1, "Reading"),
        ("2.2", "file", "Welcome.md", 1, "Reading"),
        ("3", "graph", None, 0, None),
        ("4", "canvas-view", None, 0, None),
    ]
    first, group = out["items"][0], out["items"][2]
    assert first["subpath"] == "#Goals" and first["title"] == "Goals" and first["exists"] is True
    assert first["obsidian_url"].endswith("file=Projects%2FPlan.md")
    assert group["items"] == 3 and group["title"] == "Reading"
    assert out["items"][3]["query"] == "tag:#book" and out["items"][4]["url"] == "https://obsidian.md"
    assert out["items"][5]["subpath"] == "#^intro"
    assert "Diary" not in json.dumps(out)
    inner = await bk.ok("list_bookmarks", group="Reading")
    assert [i["position"] for i in inner["items"]] == ["2.0", "2.1", "2.2"]
    assert inner["items"] == out["items"][3:6]  # the same ids whether listed whole or by group
    by_id = await bk.ok("list_bookmarks", group=group["id"])
    assert by_id == inner
    ids = [i["id"] for i in out["items"]]
    assert len(set(ids)) == len(ids) and ids[0].startswith("file-") and ids[2].startswith("group-")


async def test_missing_bookmarks_file_is_an_empty_list(vg: Harness) -> None:
    assert await vg.ok("list_bookmarks") == {"items": [], "total": 0, "etag": None, "next_cursor": None}


@pytest.mark.covers("list_bookmarks", "failure")
async def test_list_of_an_unknown_group_is_a_validation_error(bk: Harness) -> None:
    err = await bk.err("list_bookmarks", "validation_error", group="Nope")
    assert err["details"]["reason"] == "group_not_found"


@pytest.mark.covers("add_bookmark", "success")
async def test_add_keeps_everything_else_and_nests_into_a_group(bk: Harness) -> None:
    before = _saved(bk)
    etag = (await bk.ok("list_bookmarks"))["etag"]
    out = await bk.ok(
        "add_bookmark", type="file", path="Welcome", subpath="#Welcome", group="Reading", expected_etag=etag
    )
    assert out["item"]["position"] == "2.3" and out["item"]["path"] == "Welcome.md"
    assert out["item"]["group"] == "Reading"
    after = _saved(bk)
    added = after["items"][3]["items"][3]
    assert {k: added[k] for k in ("type", "path", "subpath")} == {
        "type": "file",
        "path": "Welcome.md",
        "subpath": "#Welcome",
    }
    assert isinstance(added["ctime"], int)
    after["items"][3]["items"].pop()
    assert after == before  # unknown keys, unknown item types, the hidden item and the order: all kept
    assert list(after) == ["items", "x-version"]
    url = await bk.ok("add_bookmark", type="url", url="https://help.obsidian.md", title="Help", position=0)
    assert url["item"]["position"] == "0" and _saved(bk)["items"][0]["url"] == "https://help.obsidian.md"
    await bk.ok("add_bookmark", type="search", query="line:(todo)")
    await bk.ok("add_bookmark", type="graph", title="Whole vault")
    await bk.ok("add_bookmark", type="group", title="Empty")
    plan = await bk.ok("add_bookmark", type="file", path="Plan")  # a bare note name, as a wikilink
    assert plan["item"]["path"] == "Projects/Plan.md"
    kinds = [i["type"] for i in _saved(bk)["items"]][-4:]
    assert kinds == ["search", "graph", "group", "file"]


async def test_add_creates_the_file_when_there_is_none(vg: Harness) -> None:
    out = await vg.ok("add_bookmark", type="folder", path="Projects")
    assert out["item"]["path"] == "Projects"
    saved = json.loads(vg.read(".obsidian/bookmarks.json"))
    assert [(i["type"], i["path"]) for i in saved["items"]] == [("folder", "Projects")]


@pytest.mark.covers("add_bookmark", "failure")
async def test_add_failures_change_nothing(bk: Harness) -> None:
    before = bk.snapshot()
    await bk.err("add_bookmark", "already_exists", type="file", path="Projects/Plan.md", subpath="#Goals")
    await bk.err("add_bookmark", "note_not_found", type="file", path="Nowhere.md")
    await bk.err("add_bookmark", "note_not_found", type="folder", path="Nowhere")
    await bk.err(
        "add_bookmark", "validation_error", type="file", path="Welcome#Intro", subpath="#Other"
    )  # two sections
    await bk.err("add_bookmark", "acl_denied", type="file", path="Private/Diary.md")
    await bk.err("add_bookmark", "path_invalid", type="folder", path="../outside")
    await bk.err("add_bookmark", "validation_error", type="search")
    await bk.err("add_bookmark", "validation_error", type="url", url="https://x.org")  # a url needs a title
    await bk.err("add_bookmark", "validation_error", type="file", path="Welcome.md", subpath="Welcome")
    err = await bk.err("add_bookmark", "validation_error", type="search", query="x", group="Nope")
    assert err["details"]["reason"] == "group_not_found"
    await bk.err("add_bookmark", "conflict", type="search", query="x", expected_etag="0" * 32)
    await bk.err("add_bookmark", "validation_error", type="note")
    assert bk.snapshot() == before


async def test_add_refuses_to_overwrite_a_malformed_file(make_vault: Callable[..., Path]) -> None:
    root = make_vault({"A.md": "a\n", ".obsidian/bookmarks.json": "{not json"})
    async with started(root) as vg:
        assert (await vg.ok("list_bookmarks"))["items"] == []
        err = await vg.err("add_bookmark", "validation_error", type="search", query="x")
        assert err["details"]["reason"] == "unreadable_settings"
        assert vg.read(".obsidian/bookmarks.json") == "{not json"


@pytest.mark.covers("remove_bookmark", "success")
async def test_remove_by_id_path_and_title(bk: Harness) -> None:
    listed = await bk.ok("list_bookmarks")
    out = await bk.ok("remove_bookmark", id=listed["items"][4]["id"])
    assert out["item"]["url"] == "https://obsidian.md"
    assert [i["type"] for i in _saved(bk)["items"][3]["items"]] == ["search", "file"]
    await bk.ok("remove_bookmark", path="Welcome", subpath="#^intro")
    await bk.ok("remove_bookmark", title="Projects graph")
    saved = _saved(bk)
    assert [i["type"] for i in saved["items"]] == ["file", "folder", "file", "group", "canvas-view"]
    assert saved["items"][2]["path"] == "Private/Diary.md" and saved["x-version"] == 2


@pytest.mark.covers("remove_bookmark", "failure")
async def test_remove_failures_and_the_confirmed_group(bk: Harness) -> None:
    before = bk.snapshot()
    await bk.err("remove_bookmark", "note_not_found", path="Private/Diary.md")  # invisible, not "denied"
    await bk.err("remove_bookmark", "note_not_found", id="9")
    await bk.err("remove_bookmark", "note_not_found", id="2.1")  # a position is no id
    await bk.err("remove_bookmark", "validation_error")
    first = (await bk.ok("list_bookmarks"))["items"][0]["id"]
    await bk.err("remove_bookmark", "validation_error", id=first, title="Goals")
    await bk.err("remove_bookmark", "conflict", id=first, expected_etag="0" * 32)
    await bk.err("remove_bookmark", "elicit_required", title="Reading")  # a group with 3 bookmarks
    assert bk.snapshot() == before
    out = await bk.confirmed("remove_bookmark", title="Reading")
    assert out["item"]["type"] == "group"
    assert all(i.get("title") != "Reading" for i in _saved(bk)["items"])


async def test_several_matches_are_ambiguous(make_vault: Callable[..., Path]) -> None:
    data = {"items": [{"type": "search", "query": "a", "title": "T"}, {"type": "search", "query": "b", "title": "T"}]}
    async with started(make_vault({"A.md": "", ".obsidian/bookmarks.json": json.dumps(data)})) as vg:
        err = await vg.err("remove_bookmark", "validation_error", title="T")
        listed = await vg.ok("list_bookmarks")
        assert err["details"]["candidates"] == [i["id"] for i in listed["items"]]


async def test_an_id_keeps_naming_its_bookmark_when_others_move(bk: Harness) -> None:
    listed = await bk.ok("list_bookmarks")
    welcome = next(i for i in listed["items"] if i["path"] == "Welcome.md")
    # Obsidian (or another agent) changes the list: one item above goes, one is added at the top.
    await bk.ok("remove_bookmark", title="Obsidian")
    await bk.ok("add_bookmark", type="search", query="tag:#new", group="Reading", position=0)
    await bk.ok("add_bookmark", type="url", url="https://jsoncanvas.org", title="Canvas", position=0)
    again = await bk.ok("list_bookmarks")
    same = next(i for i in again["items"] if i["path"] == "Welcome.md")
    assert same["id"] == welcome["id"] and same["position"] != welcome["position"]
    out = await bk.ok("remove_bookmark", id=welcome["id"])
    assert out["item"]["path"] == "Welcome.md" and out["item"]["subpath"] == "#^intro"
    assert "Welcome.md" not in json.dumps(_saved(bk))
    await bk.err("remove_bookmark", "note_not_found", id=welcome["id"])  # gone: never a neighbour


async def test_identical_bookmarks_get_distinct_ids(make_vault: Callable[..., Path]) -> None:
    twin = {"type": "search", "ctime": 1, "query": "a"}
    data = {"items": [twin, dict(twin), {"type": "group", "title": "G", "items": [dict(twin)]}]}
    async with started(make_vault({"A.md": "", ".obsidian/bookmarks.json": json.dumps(data)})) as vg:
        ids = [i["id"] for i in (await vg.ok("list_bookmarks"))["items"]]
        assert ids[1] == ids[0] + "-2" and ids[3] == ids[0] + "-3" and len(set(ids)) == 4
        await vg.ok("remove_bookmark", id=ids[3])
        saved = json.loads(vg.read(".obsidian/bookmarks.json"))
        assert len(saved["items"]) == 3 and saved["items"][2]["items"] == []


async def test_bookmarks_follow_moved_notes_and_folders(bk: Harness) -> None:
    preview = await bk.ok("move_note", path="Welcome", new_path="Start/Welcome home", dry_run=True)
    assert preview["bookmarks_updated"] == 1 and _saved(bk) == BOOKMARKS  # a dry run changes nothing
    await bk.confirmed("move_note", path="Welcome", new_path="Start/Welcome home")
    saved = _saved(bk)
    assert saved["items"][3]["items"][2] == {**BOOKMARKS["items"][3]["items"][2], "path": "Start/Welcome home.md"}
    out = await bk.confirmed("move_note", path="Projects", new_path="Archive/Projects 2026")
    assert out["bookmarks_updated"] == 2  # the folder and the heading of a note inside it
    saved = _saved(bk)
    assert saved["items"][0] == {**BOOKMARKS["items"][0], "path": "Archive/Projects 2026/Plan.md"}
    assert saved["items"][1] == {**BOOKMARKS["items"][1], "path": "Archive/Projects 2026"}
    assert saved["items"][2:] == [*BOOKMARKS["items"][2:3], saved["items"][3], *BOOKMARKS["items"][4:]]
    assert saved["x-version"] == 2
    listed = await bk.ok("list_bookmarks")
    assert all(i["exists"] for i in listed["items"] if i["path"])


async def test_a_file_bookmark_takes_a_wikilink_with_display_text(vg: Harness) -> None:
    await vg.indexed()
    for address in ("[[Plan|the plan]]", "Plan|the plan", "[[Projects/Plan|x]]"):
        out = await vg.ok("add_bookmark", type="file", path=address, title=address)
        assert out["item"]["path"] == "Projects/Plan.md", address
        await vg.ok("remove_bookmark", path="Projects/Plan.md")
    # a folder is a path, never a link's 'name|shown' ('|' can be in a name on Linux and macOS: 88499356)
    missing = await vg.err("add_bookmark", "note_not_found", type="folder", path="Projects|x")
    assert missing["details"]["path"] == "Projects|x"
