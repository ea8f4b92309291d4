"""remove_bookmark of a group holding bookmarks of notes the caller may not read, through the chain:
the confirmation counts what the caller sees (as list_bookmarks does), a group holding only
hidden bookmarks is removed as an empty one is (no question), and the hidden bookmarks stay in
bookmarks.json where the group was — the caller neither learns of them nor removes them."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import Harness, started

NO_PRIVATE = {"prefix_rules": [{"path": "Private", "read": "deny"}]}
HIDDEN = {"type": "file", "ctime": 3, "path": "Private/Diary.md"}
HIDDEN_HEADING = {"type": "file", "ctime": 7, "path": "Private/Diary.md", "subpath": "#Monday"}
BOOKMARKS: dict[str, Any] = {
    "items": [
        {"type": "file", "ctime": 1, "path": "Welcome.md"},
        {
            "type": "group",
            "ctime": 2,
            "title": "Mixed",
            "items": [
                HIDDEN,
                {"type": "file", "ctime": 4, "path": "Projects/Plan.md"},
                {"type": "group", "ctime": 5, "title": "Inner", "items": [HIDDEN_HEADING]},
            ],
        },
        {"type": "group", "ctime": 6, "title": "HiddenOnly", "items": [{**HIDDEN, "ctime": 8}]},
        {"type": "search", "ctime": 9, "query": "tag:#x"},
    ]
}
FILES = {
    "Welcome.md": "# Welcome\n",
    "Projects/Plan.md": "# Plan\n",
    "Private/Diary.md": "# Diary\n## Monday\n",
    ".obsidian/bookmarks.json": json.dumps(BOOKMARKS, indent=2),
}


@pytest.fixture
async def bk(make_vault: Callable[..., Path]) -> AsyncIterator[Harness]:
    async with started(make_vault(FILES), acl=NO_PRIVATE) as harness:
        yield harness


def _saved(vg: Harness) -> list[dict[str, Any]]:
    items: list[dict[str, Any]] = json.loads(vg.read(".obsidian/bookmarks.json"))["items"]
    return items


async def test_the_confirmation_counts_only_the_bookmarks_the_caller_sees(bk: Harness) -> None:
    listed = {i["title"]: i["items"] for i in (await bk.ok("list_bookmarks"))["items"] if i["type"] == "group"}
    assert listed == {"Mixed": 2, "Inner": 0, "HiddenOnly": 0}  # Plan and the Inner group
    error = await bk.err("remove_bookmark", "elicit_required", title="Mixed")
    assert "the 2 bookmarks" in json.dumps(error)


async def test_removing_a_group_keeps_the_hidden_bookmarks_where_it_was(bk: Harness) -> None:
    await bk.confirmed("remove_bookmark", title="Mixed")
    saved = _saved(bk)
    assert [i.get("path") or i.get("title") or i.get("query") for i in saved] == [
        "Welcome.md",
        "Private/Diary.md",  # the hidden bookmarks of the group (and of its inner group), in its place
        "Private/Diary.md",
        "HiddenOnly",
        "tag:#x",
    ]
    assert saved[1] == HIDDEN and saved[2] == HIDDEN_HEADING
    seen = [i.get("title") or i.get("path") for i in (await bk.ok("list_bookmarks"))["items"]]
    assert seen == ["Welcome.md", "HiddenOnly", None]  # for this caller the group and its contents are gone


async def test_a_group_of_hidden_bookmarks_goes_as_an_empty_one_does(bk: Harness) -> None:
    out = await bk.ok("remove_bookmark", title="HiddenOnly")  # no question, as for an empty group
    assert out["item"]["items"] == 0
    saved = _saved(bk)
    assert all(i.get("title") != "HiddenOnly" for i in saved)
    assert {**HIDDEN, "ctime": 8} in saved  # the caller could not remove what it may not read
